"""The JSON Schema files shipped with vista-schema, and full validation against them.

The shipped file of a major version is strict (``additionalProperties: false``), as a reader
of its own minor is. A document of a newer minor is validated against a lenient form derived
from that same file, which lets every object carry fields it does not describe.
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from importlib import resources
from typing import Any

from ._exceptions import SchemaError
from ._reading import as_data, check_finite, check_schema_version

__all__ = ["schema", "validate_document"]


def schema(major: int = 1) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of documents of schema major version ``major`` (a copy)."""
    if not isinstance(major, int) or isinstance(major, bool):
        raise TypeError(f"Invalid 'major' argument: {major!r}; pass the schema major version as an int, e.g. 1.")
    return copy.deepcopy(_loaded(major, lenient=False))


@lru_cache(maxsize=4)
def _loaded(major: int, *, lenient: bool) -> dict[str, Any]:
    path = resources.files("vista_schema") / "schema" / f"v{major}" / "graph.schema.json"
    if not path.is_file():
        raise ValueError(f"No JSON Schema for schema major version {major!r}; this vista-schema ships version 1.")
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return _allow_unknown_fields(loaded) if lenient else loaded


def _allow_unknown_fields(node: Any) -> Any:
    """``node`` with every ``additionalProperties: false`` left out (so unknown fields pass)."""
    if isinstance(node, dict):
        return {k: _allow_unknown_fields(v) for k, v in node.items()
                if not (k == "additionalProperties" and v is False)}
    if isinstance(node, list):
        return [_allow_unknown_fields(v) for v in node]
    return node


def validate_document(document: object) -> None:
    """Validate a document (a ``vista_core.Graph`` or any object with ``to_dict()``, its dict,
    or its JSON text) against the shipped JSON Schema of its major version: strictly for this
    reader's own minor, and leniently (fields it does not know allowed) for a newer minor.
    Raises :class:`SchemaError` naming the first problem's place.

    Needs the optional ``jsonschema`` package: ``pip install 'vista-schema[validate]'``.
    """
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "validate_document() needs the 'jsonschema' package: pip install 'vista-schema[validate]'"
        ) from None
    data = as_data(document)
    version = data.get("schema_version")
    newer_minor = check_schema_version(version)
    check_finite(data)
    validator = jsonschema.Draft202012Validator(_loaded(int(str(version).split(".")[0]), lenient=newer_minor))
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "$" + "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in first.absolute_path)
        raise SchemaError(f"Graph document does not match the v{version} JSON Schema at {where}: {first.message}"
                          + (f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""))

"""Reading a graph document: the value given, its JSON text, its schema version, its shape.

This is the one version check of Vista: vista-core's ``Graph.from_dict`` and the renderer
call :func:`check_schema_version`, and :func:`read_document` is what a renderer needs
before it hands the document to the viewer (the viewer and ``validate_document`` check the
rest).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from typing import Any

from ._exceptions import SchemaError, SchemaVersionError
from ._version import SCHEMA_VERSION

__all__ = ["as_data", "check_finite", "check_schema_version", "parse_json", "read_document"]

_ACCEPTED = "a vista_core.Graph (or any object with to_dict()), its to_dict() result, or its JSON text"


def parse_json(text: str | bytes | bytearray) -> Any:
    """``json.loads`` raising :class:`SchemaError` for anything that is not JSON text, including
    ``NaN`` and ``Infinity`` (which Python's json reads but JSON does not have), naming the field."""
    found: list[str] = []

    def constant(name: str) -> float:
        found.append(name)
        return float(name)

    try:
        data = json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise SchemaError(f"Graph document is not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise SchemaError(f"Graph document is not valid JSON: its bytes are not UTF-8 text ({exc})") from None
    if found:
        check_finite(data)
    return data


def check_finite(data: object, path: str = "$") -> None:
    """Raise :class:`SchemaError` naming the first NaN or infinite number in ``data`` (JSON data):
    a document is JSON, which has no such numbers, and a page or another tool could not read it."""
    stack: list[tuple[str, object]] = [(path, data)]
    while stack:  # a loop, not recursion: documents may nest deeper than Python's recursion limit
        where, value = stack.pop()
        if isinstance(value, dict):
            items: list[tuple[str, object]] = [(_key(where, k), v) for k, v in value.items()]
        elif isinstance(value, (list, tuple)):
            items = [(f"{where}[{i}]", v) for i, v in enumerate(value)]
        else:
            items = [(where, value)]
        for at, item in items:
            if isinstance(item, float) and not math.isfinite(item):
                raise SchemaError(
                    f"Graph document has {item!r} at {at}: JSON has no NaN or infinite numbers. "
                    "Write null, or the number as a string such as \"nan\" or \"inf\"."
                )
        stack.extend((at, item) for at, item in reversed(items) if isinstance(item, (dict, list, tuple)))


def _key(where: str, key: object) -> str:
    return f"{where}.{key}" if isinstance(key, str) and key.isidentifier() else f"{where}[{key!r}]"


def check_schema_version(version: object) -> bool:
    """Raise unless ``version`` is a schema version this reader understands; return True when it
    is a newer minor of this reader's major (its documents may hold fields unknown here)."""
    return check_version(version, SCHEMA_VERSION, "Graph document", "schema_version", SchemaVersionError)


def check_version(version: object, supported: str, what: str, key: str,
                  error: Callable[[str, str], SchemaError]) -> bool:
    """The one versioning rule of every Vista document (``what`` names it, ``key`` is its field):
    "major.minor"; another major raises ``error``; True for a newer minor of ``supported``."""
    parts = version.split(".") if isinstance(version, str) else []
    if len(parts) != 2 or not all(p.isdigit() and p.isascii() for p in parts):
        raise SchemaError(
            f"{what} has no valid {key!r} (expected a 'major.minor' string "
            f"like {supported!r}, got {_short(version)})"
        )
    major, minor = (int(p) for p in supported.split("."))
    if int(parts[0]) != major:
        raise error(str(version), supported)
    return int(parts[1]) > minor


def _is_torch_module(value: object) -> bool:
    # torch is only consulted when the caller already imported it: never import it here.
    torch = sys.modules.get("torch")
    nn = getattr(torch, "nn", None)
    module_type = getattr(nn, "Module", None)
    return isinstance(module_type, type) and isinstance(value, module_type)


def as_data(document: object) -> dict[str, Any]:
    """The JSON data of ``document``: a dict as it is, JSON text parsed, or an object's
    ``to_dict()``. Raises :class:`TypeError` for values that are no document at all (a model,
    a path, a number) and :class:`SchemaError` for data that is not a JSON object."""
    if _is_torch_module(document):
        raise TypeError(
            f"Invalid 'document' argument: a model ({type(document).__name__}) was given. "
            "Vista reads graph documents, not models: call vista_core.trace(model, inputs) "
            "first and pass the Graph it returns."
        )
    data: object
    if isinstance(document, dict):
        data = document
    elif isinstance(document, (str, bytes, bytearray)):
        data = parse_json(document)
    elif callable(getattr(document, "to_dict", None)):
        data = document.to_dict()  # type: ignore[attr-defined]  # any Graph-like object
    else:
        raise TypeError(
            f"Invalid 'document' argument: {_short(document)} (type {type(document).__name__}); "
            f"pass {_ACCEPTED}."
        )
    if not isinstance(data, dict):
        raise SchemaError(
            f"Invalid 'document' argument: a graph document must be a JSON object, got "
            f"{type(data).__name__} {_short(data)}."
        )
    return data


def read_document(document: object) -> dict[str, Any]:
    """The document as a dict (not copied), after checking its schema version and the top-level
    shape a renderer relies on: ``modules``, ``nodes`` and ``edges`` are lists, and the root
    module call comes first. See :func:`as_data` for what ``document`` may be; every field is
    checked by ``validate_document`` (JSON Schema) or ``vista_core.Graph.from_dict``."""
    data = as_data(document)
    check_schema_version(data.get("schema_version"))
    for key in ("modules", "nodes", "edges"):
        if not isinstance(data.get(key), list):
            raise SchemaError(
                f"Invalid 'document' argument: {key!r} must be a list, got {_short(data.get(key))}. "
                "Check it with vista_schema.validate_document(document)."
            )
    modules = data["modules"]
    if not modules or not isinstance(modules[0], dict) or modules[0].get("parent") is not None:
        raise SchemaError(
            "Invalid 'document' argument: 'modules' must start with the root module call "
            "(parent null). Check it with vista_schema.validate_document(document)."
        )
    return data


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"

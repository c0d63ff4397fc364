"""Reading and validating a diff document (what ``vista_core.GraphDiff.to_json()`` writes).

A diff document holds two graph documents (``a``, ``b``), their ``union`` graph, the
``changes`` and the ``matches``; it has its own version, ``diff_version``, checked here the
way :func:`check_schema_version` checks a graph's, and each embedded graph is read as any
graph document is.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from ._exceptions import DiffVersionError, SchemaError, SchemaVersionError
from ._reading import _short, check_finite, check_version, parse_json, read_document
from ._validate import validate_document
from ._version import DIFF_VERSION

__all__ = ["check_diff_version", "diff_schema", "is_diff_document", "read_diff_document", "validate_diff_document"]

_GRAPHS = ("a", "b", "union")


def is_diff_document(data: object) -> bool:
    """True when ``data`` (JSON data) is a diff document rather than a graph document: it has
    the ``diff_version`` key."""
    return isinstance(data, dict) and "diff_version" in data


def check_diff_version(version: object) -> bool:
    """Raise unless ``version`` is a diff version this reader understands; return True when it
    is a newer minor of this reader's major (its documents may hold fields unknown here)."""
    return check_version(version, DIFF_VERSION, "Diff document", "diff_version", DiffVersionError)


def _as_diff_data(document: object) -> dict[str, Any]:
    data: object
    if isinstance(document, dict):
        data = document
    elif isinstance(document, (str, bytes, bytearray)):
        data = parse_json(document)
    elif callable(getattr(document, "to_dict", None)):
        data = document.to_dict()  # type: ignore[attr-defined]  # a vista_core.GraphDiff
    else:
        raise TypeError(
            f"Invalid 'document' argument: {_short(document)} (type {type(document).__name__}); pass a "
            "vista_core.GraphDiff, its to_dict() result, or its JSON text."
        )
    if not isinstance(data, dict):
        raise SchemaError(f"A diff document must be a JSON object, got {type(data).__name__} {_short(data)}.")
    return data


def read_diff_document(document: object) -> dict[str, Any]:
    """The diff document as a dict (not copied), after checking its ``diff_version``, the
    schema version and top-level shape of its three graphs (as :func:`read_document` does),
    and that ``changes`` is a list and ``matches`` an object. ``document`` is a
    ``vista_core.GraphDiff`` (or any object with ``to_dict()``), its dict, or its JSON text;
    :func:`validate_diff_document` checks every field."""
    data = _as_diff_data(document)
    check_diff_version(data.get("diff_version"))
    for key in _GRAPHS:
        if not isinstance(data.get(key), dict):
            raise SchemaError(f"Diff document's {key!r} must be a graph document (an object), got "
                              f"{_short(data.get(key))}.")
        try:
            read_document(data[key])
        except SchemaVersionError:
            raise  # its message names both versions already
        except SchemaError as exc:
            raise SchemaError(f"Diff document's {key!r}: {exc}") from exc
    if not isinstance(data.get("changes"), list):
        raise SchemaError(f"Diff document's 'changes' must be a list, got {_short(data.get('changes'))}. "
                          "Check it with vista_schema.validate_diff_document(document).")
    if not isinstance(data.get("matches"), dict):
        raise SchemaError(f"Diff document's 'matches' must be an object, got {_short(data.get('matches'))}. "
                          "Check it with vista_schema.validate_diff_document(document).")
    return data


def diff_schema(major: int = 1) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of diff documents of diff major version ``major`` (a
    copy). Its ``a``, ``b`` and ``union`` refer to ``graph.schema.json`` of the same folder."""
    if not isinstance(major, int) or isinstance(major, bool):
        raise TypeError(f"Invalid 'major' argument: {major!r}; pass the diff major version as an int, e.g. 1.")
    loaded: dict[str, Any] = json.loads(json.dumps(_diff_loaded(major)))
    return loaded


@lru_cache(maxsize=2)
def _diff_loaded(major: int) -> dict[str, Any]:
    path = resources.files("vista_schema") / "schema" / f"v{major}" / "diff.schema.json"
    if not path.is_file():
        raise ValueError(f"No JSON Schema for diff major version {major!r}; this vista-schema ships version 1.")
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def validate_diff_document(document: object) -> None:
    """Validate a diff document (see :func:`read_diff_document` for what it may be) against the
    shipped diff JSON Schema, each of its graphs against the graph schema of its own version
    (as :func:`validate_document` does), and its ids: every change and match names elements
    that exist in ``a``, ``b`` and ``union``. Raises :class:`SchemaError` naming the first
    problem's place.

    Needs the optional ``jsonschema`` package: ``pip install 'vista-schema[validate]'``.
    """
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "validate_diff_document() needs the 'jsonschema' package: pip install 'vista-schema[validate]'"
        ) from None
    data = read_diff_document(document)
    check_finite(data)
    # The graphs are checked by validate_document (their own version, lenient for a newer minor),
    # so the diff schema sees them as plain objects here.
    shallow = {k: ({} if k in _GRAPHS else v) for k, v in data.items()}
    schema = {k: v for k, v in _diff_loaded(1).items() if k != "$id"}
    schema["properties"] = {k: ({"type": "object"} if k in _GRAPHS else v)
                            for k, v in schema["properties"].items()}
    if check_diff_version(data["diff_version"]):
        schema = _lenient(schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(shallow), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "$" + "".join(f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in first.absolute_path)
        raise SchemaError(f"Diff document does not match the v{data['diff_version']} diff JSON Schema at "
                          f"{where}: {first.message}"
                          + (f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""))
    for key in _GRAPHS:
        try:
            validate_document(data[key])
        except SchemaVersionError:
            raise
        except SchemaError as exc:
            raise SchemaError(f"Diff document's {key!r}: {exc}") from exc
    _check_ids(data)


def _lenient(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _lenient(v) for k, v in node.items() if not (k == "additionalProperties" and v is False)}
    if isinstance(node, list):
        return [_lenient(v) for v in node]
    return node


def _ids(graph: dict[str, Any]) -> tuple[set[str], set[str], set[str]]:
    modules = {m.get("id") for m in graph["modules"] if isinstance(m, dict)}
    nodes = {n.get("id") for n in graph["nodes"] if isinstance(n, dict)}
    edges = {f"{e['source']}:{e['source_output']}->{e['target']}:{e['target_input']}"
             for e in graph["edges"] if isinstance(e, dict)}
    return modules, nodes, edges  # type: ignore[return-value]  # ids are strings once validated


def _check_ids(data: dict[str, Any]) -> None:
    known = {key: _ids(data[key]) for key in _GRAPHS}
    kinds = {"module": 0, "node": 1, "edge": 2}
    for i, change in enumerate(data["changes"]):
        kind = kinds[change["element"]]
        for key in ("id", "a", "b"):
            ref = change[key]
            graph = "union" if key == "id" else key
            if ref is not None and ref not in known[graph][kind]:
                raise SchemaError(f"$.changes[{i}].{key} refers to unknown {change['element']} {ref!r} of {graph!r}")
        if (change["status"] == "added") != (change["a"] is None) or (change["status"] == "removed") != (
                change["b"] is None):
            raise SchemaError(f"$.changes[{i}] has status {change['status']!r} but a={change['a']!r}, "
                              f"b={change['b']!r}: an added element has no a, a removed one no b")
    for field, kind in (("modules", 0), ("nodes", 1)):
        for i, (a, b, union) in enumerate(data["matches"][field]):
            for graph, ref in (("a", a), ("b", b), ("union", union)):
                if ref not in known[graph][kind]:
                    raise SchemaError(f"$.matches.{field}[{i}] refers to unknown {field[:-1]} {ref!r} of {graph!r}")

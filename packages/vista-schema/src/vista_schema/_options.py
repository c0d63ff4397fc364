"""The viewer's options and the host-theme message, checked against their JSON Schemas.

``schema/v1/viewer-options.schema.json`` and ``schema/v1/host-theme.schema.json`` are the one
home of these rules: the checks below are read from them, and the viewer's TypeScript types
are generated from them. The reader knows exactly the keywords those schemas use and refuses a
schema with any other, so a rule added to a schema cannot be skipped here silently.

Python names each option in snake_case (``showParameters`` is ``show_parameters``). A value
of the wrong type raises :class:`TypeError`, a value of the right type that is not allowed
:class:`ValueError`; both name the option, show the value and say what is allowed.
"""

from __future__ import annotations

import copy
import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["check_css_length", "check_viewer_options", "host_theme_schema", "viewer_options_schema"]

_KEYWORDS = frozenset({"$schema", "$id", "$defs", "$ref", "title", "description", "default", "type", "enum",
                       "const", "minimum", "pattern", "properties", "required", "additionalProperties"})
_PYTHON_TYPES: dict[str, str] = {"integer": "an int", "string": "a str", "boolean": "True or False", "null": "None"}


@lru_cache(maxsize=4)
def _contract(name: str) -> dict[str, Any]:
    text = (resources.files("vista_schema") / "schema" / "v1" / f"{name}.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    _check_keywords(loaded, name)
    return loaded


def _check_keywords(node: dict[str, Any], name: str) -> None:
    stack = [node]
    while stack:
        spec = stack.pop()
        unknown = sorted(set(spec) - _KEYWORDS)
        if unknown:
            raise RuntimeError(f"{name}.schema.json uses keyword(s) {unknown} that vista_schema's option checks "
                               "do not implement; implement them in vista_schema/_options.py.")
        stack.extend(spec.get("properties", {}).values())
        stack.extend(spec.get("$defs", {}).values())


def viewer_options_schema() -> dict[str, Any]:
    """The JSON Schema of the viewer's options (the object ``VistaViewer.mount()`` takes; a copy)."""
    return copy.deepcopy(_contract("viewer-options"))


def host_theme_schema() -> dict[str, Any]:
    """The JSON Schema of the message a notebook posts into a framed page with its theme (a copy)."""
    return copy.deepcopy(_contract("host-theme"))


def _python_name(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _resolve(spec: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = spec.get("$ref")
    if ref is None:
        return spec
    target = root
    for part in ref.removeprefix("#/").split("/"):
        target = target[part]
    # The property's own words (its description) win over the shared definition's.
    return {**target, **{k: v for k, v in spec.items() if k != "$ref"}, "_shared": target}


def _is_type(value: object, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    return value is None  # "null", the only other type these schemas use


def _expected(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return "one of " + ", ".join(map(repr, spec["enum"]))
    if "const" in spec:
        return repr(spec["const"])
    if "pattern" in spec:
        text = str(spec["_shared"]["description"] if "_shared" in spec else spec["description"]).rstrip(".")
        return text[:1].lower() + text[1:]
    types = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    words: list[str] = []
    for name in types:
        word = _PYTHON_TYPES[name]
        if name == "integer" and "minimum" in spec:
            word = f"an int from {spec['minimum']} up"
        words.append(word)
    return " or ".join(sorted(words, key=lambda w: w != "None"))


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check(name: str, value: object, spec: dict[str, Any], root: dict[str, Any], extra: str = "") -> None:
    spec = _resolve(spec, root)
    expected = _expected(spec) + extra
    about = f" ({spec['description']})" if "description" in spec and "pattern" not in spec else ""

    def fail(kind: type[Exception]) -> None:
        raise kind(f"Invalid {name!r} argument: {_short(value)}; pass {expected}.{about}")

    if "type" in spec:
        types = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
        if not any(_is_type(value, t) for t in types):
            fail(TypeError)
    allowed = spec["enum"] if "enum" in spec else [spec["const"]] if "const" in spec else None
    if allowed is not None and not any(type(value) is type(a) and value == a for a in allowed):
        fail(ValueError if any(type(value) is type(a) for a in allowed) else TypeError)
    if "minimum" in spec and isinstance(value, (int, float)) and value < spec["minimum"]:
        fail(ValueError)
    if "pattern" in spec and isinstance(value, str) and re.search(spec["pattern"], value) is None:
        fail(ValueError)


def check_css_length(name: str, value: object) -> str:
    """``value`` as the viewer-options schema's CSS length (its ``css_length``): a str such as
    ``"80vh"`` (surrounding blanks dropped), or an int of pixels (``600`` is ``"600px"``).
    ``name`` is the option's name for the error message."""
    root = _contract("viewer-options")
    ints = ", or an int of pixels such as 600"
    if isinstance(value, int) and not isinstance(value, bool):
        if value <= 0:
            raise ValueError(f"Invalid {name!r} argument: {value!r}; a size in pixels is a positive int, e.g. 600.")
        value = f"{value}px"
    elif isinstance(value, str):
        value = value.strip()
    _check(name, value, {"$ref": "#/$defs/css_length"}, root, ints)
    assert isinstance(value, str)
    return value


def check_viewer_options(**options: object) -> dict[str, Any]:
    """The viewer's options given under their Python names (``depth=2, show_parameters=False``),
    checked against the viewer-options schema, as the object ``VistaViewer.mount()`` takes
    (``{"depth": 2, "showParameters": False}``). ``height`` may be an int of pixels; an option
    given as None where the schema allows null is left out (the viewer's default)."""
    root = _contract("viewer-options")
    properties: dict[str, Any] = root["properties"]
    by_python = {_python_name(key): key for key in properties}
    unknown = sorted(set(options) - set(by_python))
    if unknown:
        raise TypeError(f"Unknown viewer option(s) {', '.join(map(repr, unknown))}; the options are: "
                        f"{', '.join(by_python)}.")
    checked: dict[str, Any] = {}
    for python, value in options.items():
        key = by_python[python]
        spec = properties[key]
        if spec.get("$ref") == "#/$defs/css_length":
            value = check_css_length(python, value)
        else:
            _check(python, value, spec, root)
        if value is not None:
            checked[key] = value
    return checked

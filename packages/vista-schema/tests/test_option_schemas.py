"""The viewer's options and the host-theme message: one JSON Schema each, Python's checks read
from it. The same schemas generate the viewer's TypeScript types (frontend/scripts/gen-types.mjs)."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest

from vista_schema import _options, check_css_length, check_viewer_options, host_theme_schema, viewer_options_schema

ALL = {"depth": None, "theme": "auto", "height": "100vh", "show_parameters": True, "show_constants": True}


def test_options_become_the_object_mount_takes() -> None:
    assert check_viewer_options(**ALL) == {"theme": "auto", "height": "100vh", "showParameters": True,
                                           "showConstants": True}
    assert check_viewer_options(depth=3, height=480, show_constants=False) == {
        "depth": 3, "height": "480px", "showConstants": False}
    assert check_viewer_options() == {}


def test_every_option_of_the_schema_is_checked_under_its_python_name() -> None:
    properties = viewer_options_schema()["properties"]
    python = {re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower() for key in properties}
    assert python == set(ALL)
    for name in python:
        with pytest.raises((TypeError, ValueError), match=rf"Invalid '{name}' argument: \[\]"):
            check_viewer_options(**{name: []})


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"depth": -1}, ValueError, "Invalid 'depth' argument: -1; pass None or an int from 0 up. (Module levels open"),
    ({"depth": 1.5}, TypeError, "Invalid 'depth' argument: 1.5; pass None or an int from 0 up."),
    ({"depth": True}, TypeError, "Invalid 'depth' argument: True; pass None or an int from 0 up."),
    ({"theme": "Dark"}, ValueError, "Invalid 'theme' argument: 'Dark'; pass one of 'auto', 'light', 'dark'."),
    ({"theme": 1}, TypeError, "Invalid 'theme' argument: 1; pass one of 'auto', 'light', 'dark'."),
    ({"height": "0px"}, ValueError, "Invalid 'height' argument: '0px'; pass a positive CSS length with a unit, "
                                    "such as '600px', '80vh' or '100%', or an int of pixels such as 600."),
    ({"height": "100px; color: red"}, ValueError, "Invalid 'height' argument: '100px; color: red'; pass a positive"),
    ({"height": 0}, ValueError, "Invalid 'height' argument: 0; a size in pixels is a positive int, e.g. 600."),
    ({"height": 2.5}, TypeError, "Invalid 'height' argument: 2.5; pass a positive CSS length"),
    ({"show_parameters": "yes"}, TypeError, "Invalid 'show_parameters' argument: 'yes'; pass True or False."),
    ({"colour": "red"}, TypeError, "Unknown viewer option(s) 'colour'; the options are: depth, theme, height, "
                                   "show_parameters, show_constants."),
])
def test_bad_options_name_the_option_the_value_and_what_is_allowed(kwargs: dict[str, Any], error: type[Exception],
                                                                   message: str) -> None:
    with pytest.raises(error) as info:
        check_viewer_options(**kwargs)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("value", ["1px", "0.5em", ".5rem", "100%", "10vmin", "3dvh", " 80vh ", 7])
def test_css_lengths(value: str | int) -> None:
    expected = f"{value}px" if isinstance(value, int) else value.strip()
    assert check_css_length("width", value) == expected


def test_what_python_accepts_the_json_schema_accepts_and_the_reverse() -> None:
    # The checks are read from the schema: a standard validator agrees on every case.
    validator = jsonschema.Draft202012Validator(viewer_options_schema())
    cases: list[dict[str, Any]] = [
        {"depth": 0}, {"depth": -1}, {"depth": 2.5}, {"depth": None}, {"theme": "dark"}, {"theme": "blue"},
        {"height": "10vmin"}, {"height": "0px"}, {"height": "00.0px"}, {"height": "0.01px"}, {"height": "1 px"},
        {"height": "12"}, {"showParameters": False}, {"showConstants": 0},
    ]
    for case in cases:
        (key, value), = case.items()
        python = re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
        try:
            check_viewer_options(**{python: value})
            accepted = True
        except (TypeError, ValueError):
            accepted = False
        assert accepted == validator.is_valid(case), case


def test_a_schema_keyword_the_checks_do_not_know_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = viewer_options_schema()
    schema["properties"]["depth"]["maximum"] = 10
    with pytest.raises(RuntimeError, match=r"keyword\(s\) \['maximum'\].*implement them"):
        _options._check_keywords(schema, "viewer-options")


def test_the_host_theme_message_schema() -> None:
    schema = host_theme_schema()
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"type": "vista:host-theme", "theme": "dark"})
    assert not validator.is_valid({"type": "vista:host-theme", "theme": "blue"})
    assert not validator.is_valid({"type": "other", "theme": "dark"})
    assert json.dumps(schema["properties"]["type"]) == '{"const": "vista:host-theme"}'

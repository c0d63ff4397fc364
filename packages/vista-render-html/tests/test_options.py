"""Option checks: each bad value names the argument, shows the value and says what is allowed."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from vista_render_html import render_html, save_html


def _options_of(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" data-vista="options">([^<]*)</script>', html)
    assert found is not None
    loaded: dict[str, Any] = json.loads(found.group(1))
    return loaded


def _height_of(html: str) -> str:
    found = re.search(r'<div class="vista-page" style="height: ([^"]*)">', html)
    assert found is not None
    return found.group(1)


def test_defaults(mlp_doc: dict[str, Any]) -> None:
    html = render_html(mlp_doc)
    assert _options_of(html) == {"theme": "auto", "showParameters": True, "showConstants": True, "height": "100%"}
    assert _height_of(html) == "100vh"


def test_every_option_reaches_the_page(mlp_doc: dict[str, Any]) -> None:
    html = render_html(mlp_doc, depth=3, theme="dark", height=480, title="My net", show_parameters=False,
                       show_constants=False)
    assert _options_of(html) == {"theme": "dark", "showParameters": False, "showConstants": False,
                                 "height": "100%", "depth": 3}
    assert _height_of(html) == "480px"
    assert "<title>My net</title>" in html
    assert '<meta name="color-scheme" content="dark">' in html


@pytest.mark.parametrize("height", ["600px", "80vh", "100%", "12.5rem", " 40em ", 1])
def test_css_lengths_are_accepted(mlp_doc: dict[str, Any], height: str | int) -> None:
    expected = f"{height}px" if isinstance(height, int) else height.strip()
    assert _height_of(render_html(mlp_doc, height=height)) == expected


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"depth": -1}, ValueError, r"Invalid 'depth' argument: -1; pass None or an int from 0 up\. \(Module levels"),
        ({"depth": 1.5}, TypeError, r"Invalid 'depth' argument: 1\.5"),
        ({"depth": True}, TypeError, r"Invalid 'depth' argument: True"),
        ({"depth": "2"}, TypeError, r"Invalid 'depth' argument: '2'"),
        ({"theme": "blue"}, ValueError, r"Invalid 'theme' argument: 'blue'; pass one of 'auto', 'light', 'dark'"),
        ({"theme": "Dark"}, ValueError, r"Invalid 'theme' argument: 'Dark'"),
        ({"theme": None}, TypeError, r"Invalid 'theme' argument: None"),
        ({"height": "tall"}, ValueError, r"Invalid 'height' argument: 'tall'; pass a positive CSS length with a unit"),
        ({"height": "0px"}, ValueError, r"Invalid 'height' argument: '0px'; pass a positive CSS length"),
        ({"height": "100px; background: url(x)"}, ValueError, r"Invalid 'height' argument"),
        ({"height": "100"}, ValueError, r"Invalid 'height' argument: '100'"),
        ({"height": 0}, ValueError, r"Invalid 'height' argument: 0"),
        ({"height": -5}, ValueError, r"Invalid 'height' argument: -5"),
        ({"height": 5.5}, TypeError, r"Invalid 'height' argument: 5\.5"),
        ({"height": None}, TypeError, r"Invalid 'height' argument: None"),
        ({"title": 7}, TypeError, r"Invalid 'title' argument: 7; pass None .* or a str"),
        ({"title": "x" * 501}, ValueError, r"Invalid 'title' argument: 'xxx.*at most 500 characters"),
        ({"show_parameters": 1}, TypeError, r"Invalid 'show_parameters' argument: 1; pass True or False"),
        ({"show_constants": "no"}, TypeError, r"Invalid 'show_constants' argument: 'no'; pass True or False"),
    ],
)
def test_bad_options_are_rejected(mlp_doc: dict[str, Any], kwargs: dict[str, Any], error: type[Exception],
                                  pattern: str, tmp_path: Any) -> None:
    with pytest.raises(error, match=pattern):
        render_html(mlp_doc, **kwargs)
    target = tmp_path / "page.html"
    with pytest.raises(error, match=pattern):
        save_html(mlp_doc, target, **kwargs)
    assert not target.exists()


def test_options_are_keyword_only(mlp_doc: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        render_html(mlp_doc, 2)  # type: ignore[call-arg]


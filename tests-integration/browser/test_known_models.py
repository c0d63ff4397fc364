"""Every model of the registry (tests-integration/known_models.py) in the browser: the first
view and the fully open view show exactly the nodes and boxes the document implies, and a
failing model has its failed node marked."""

from __future__ import annotations

from typing import Any

import browser_expectations as ex
import pytest
from browser_page import OpenPage
from known_models import KNOWN_MODELS  # tests-integration/, put on sys.path by conftest.py

import vista_core

pytestmark = pytest.mark.browser

_CACHE: dict[str, dict[str, Any]] = {}


def _document(name: str) -> dict[str, Any]:
    if name not in _CACHE:
        case = KNOWN_MODELS[name]
        model, inputs, kwargs = case.build()
        result = vista_core.capture(model, inputs, kwargs=kwargs)
        if case.raises is None:
            assert result.exception is None, result.exception
        else:
            assert isinstance(result.exception, case.raises)
        _CACHE[name] = result.graph.to_dict()
    return _CACHE[name]


@pytest.mark.parametrize("name", sorted(KNOWN_MODELS))
def test_known_model_in_the_browser(name: str, open_viewer: OpenPage) -> None:
    doc = _document(name)
    viewer = open_viewer(doc, depth=2)
    expected = ex.view_at_depth(doc, 2)
    viewer.wait_for_view(expected.nodes, expected.boxes)
    failed = viewer.page.eval_on_selector_all(viewer.sel('g.vista-node[data-failed="true"]'),
                                              "els => els.map(e => e.dataset.id)")
    assert failed == ([doc["error"]["node"]] if "error" in doc else [])

    viewer.click_action("expand-all")
    full = ex.full_view(doc)
    viewer.wait_for_view(full.nodes, full.boxes, timeout=30)
    # Every document edge is drawn once all is open (parallel edges share one drawn edge).
    drawn = set(map(tuple, viewer.page.eval_on_selector_all(
        viewer.sel("g.vista-edge"), "els => els.map(e => [e.dataset.source, e.dataset.target])")))
    assert {(e["source"], e["target"]) for e in doc["edges"] if e["source"] != e["target"]} == drawn

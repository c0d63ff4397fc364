"""A graph from a failed forward pass: the failed node stands out, the view starts on it, and
the exception and traceback are on the page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import browser_expectations as ex
import pytest
from browser_page import OpenPage

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]


@pytest.mark.parametrize("depth", [None, 0, 1])
def test_failed_node_is_marked_and_in_view(depth: int | None, documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("failing")
    failed_id = doc["error"]["node"]
    failed = next(n for n in doc["nodes"] if n["id"] == failed_id)
    assert failed["name"] == "torch.cat"
    assert failed["error"]["type"] == "RuntimeError"
    viewer = open_viewer(doc, depth=depth)
    marked = viewer.page.eval_on_selector_all(viewer.sel('g.vista-node[data-failed="true"]'),
                                              "els => els.map(e => e.dataset.id)")
    # The failed node is visible whatever the depth asked for: the view starts on it.
    assert marked == [failed_id]
    box = viewer.page.eval_on_selector(viewer.sel(f'g.vista-node[data-id="{failed_id}"]'),
                                       "e => e.getBoundingClientRect().toJSON()")
    viewport = viewer.page.viewport_size
    assert viewport is not None
    assert box["width"] > 0
    assert box["height"] > 0
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= viewport["width"]
    assert box["y"] >= 0
    assert box["y"] + box["height"] <= viewport["height"]
    # It looks different from a healthy op.
    healthy = next(n["id"] for n in doc["nodes"] if n["kind"] == "op" and n["id"] != failed_id
                   and n["module"] == failed["module"])
    if healthy in viewer.node_ids():
        style = ("e => { const s = getComputedStyle(e.querySelector('rect, path, ellipse, polygon'));"
                 " return [s.fill, s.stroke]; }")
        assert viewer.page.eval_on_selector(viewer.sel(f'g.vista-node[data-id="{failed_id}"]'), style) != \
            viewer.page.eval_on_selector(viewer.sel(f'g.vista-node[data-id="{healthy}"]'), style)


def test_error_panel_shows_exception_and_traceback(documents: Documents, open_viewer: OpenPage,
                                                   artifacts: Path) -> None:
    doc = documents("failing")
    viewer = open_viewer(doc)
    panel = viewer.sel(".vista-error")
    assert viewer.page.is_visible(panel)
    text = viewer.page.text_content(panel)
    assert "RuntimeError" in text
    assert doc["error"]["message"] in text
    traceback = viewer.page.text_content(viewer.sel(".vista-error pre.vista-traceback"))
    # torch's own Module.__call__ frames are left out by default; the user's stay.
    assert "browser_models.py" in traceback
    assert "torch/nn/modules/module.py" in doc["error"]["traceback"]
    assert "nn/modules/module.py" not in traceback
    user_frames = [line for line in doc["error"]["traceback"].splitlines() if "browser_models.py" in line]
    assert user_frames and all(line in traceback for line in user_frames)
    viewer.page.click(viewer.sel('.vista-error button[data-action="toggle-torch-frames"]'))
    traceback = viewer.page.text_content(viewer.sel(".vista-error pre.vista-traceback"))
    assert traceback.strip() == doc["error"]["traceback"].strip()
    viewer.page.click(viewer.sel('.vista-error button[data-action="toggle-torch-frames"]'))
    assert "nn/modules/module.py" not in viewer.page.text_content(viewer.sel(".vista-error pre.vista-traceback"))
    viewer.page.screenshot(path=str(artifacts / "failing.png"))


def test_healthy_model_has_no_error_panel(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc)
    assert not viewer.page.is_visible(viewer.sel(".vista-error"))
    assert viewer.page.query_selector(viewer.sel('[data-failed="true"]')) is None
    assert ex.view_at_depth(doc, 1).nodes == viewer.node_ids()

"""Following data through the drawn graph: edges that highlight and show their tensor, lineage,
keyboard moves, and search by shape."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from browser_page import OpenPage, Viewer

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]


def _details(viewer: Viewer) -> str:
    text: str = viewer.page.text_content(viewer.sel(".vista-details-content")) or ""
    return text


def _edge_middle(viewer: Viewer, edge_id: str) -> tuple[float, float]:
    """Screen point halfway along a drawn edge's line."""
    point: dict[str, float] = viewer.page.eval_on_selector(
        viewer.sel(f'g.vista-edge[data-edge="{edge_id}"] path.vista-edge-line'),
        """p => { const l = p.getTotalLength(); const q = p.getPointAtLength(l / 2); const m = p.getScreenCTM();
                  return {x: q.x * m.a + q.y * m.c + m.e, y: q.x * m.b + q.y * m.d + m.f}; }""")
    return point["x"], point["y"]


WIDTH_OF = "sel => parseFloat(getComputedStyle(document.querySelector(sel)).strokeWidth)"


def _line_width(viewer: Viewer, edge_id: str) -> float:
    width: str = viewer.page.eval_on_selector(
        viewer.sel(f'g.vista-edge[data-edge="{edge_id}"] path.vista-edge-line'), "p => getComputedStyle(p).strokeWidth")
    return float(width.removesuffix("px"))


def _input_edge(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The model input and the first document edge leaving it."""
    x = next(n for n in doc["nodes"] if n["kind"] == "input")
    return x, next(e for e in doc["edges"] if e["source"] == x["id"])


def test_hovering_an_edge_highlights_its_line_and_label(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=3)
    x, e = _input_edge(doc)
    edge_id = f'{x["id"]}>{e["target"]}'
    before = _line_width(viewer, edge_id)
    viewer.page.mouse.move(*_edge_middle(viewer, edge_id))
    line = viewer.sel(f'g.vista-edge[data-edge="{edge_id}"] path.vista-edge-line')
    viewer.page.wait_for_function(f"([sel, w]) => ({WIDTH_OF})(sel) > w", arg=[line, before])
    label = viewer.sel(f'g.vista-edge[data-edge="{edge_id}"] text.vista-edge-label')
    assert viewer.page.eval_on_selector(label, "t => getComputedStyle(t).fontWeight") == "700"
    # Other edges stay as they were.
    other = viewer.page.eval_on_selector_all(
        viewer.sel("g.vista-edge path.vista-edge-line"),
        "ps => ps.filter(p => parseFloat(getComputedStyle(p).strokeWidth) > 2).length")
    assert other == 1
    viewer.page.mouse.move(2, 2)
    viewer.page.wait_for_function(f"([sel, w]) => ({WIDTH_OF})(sel) <= w", arg=[line, before])


def test_clicking_an_edge_shows_its_tensor(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=3)
    x, e = _input_edge(doc)
    edge_id = f'{x["id"]}>{e["target"]}'
    viewer.page.mouse.click(*_edge_middle(viewer, edge_id))
    viewer.page.wait_for_selector(viewer.sel(".vista-details:not([hidden]) .vista-badge-tensor"))
    text = _details(viewer)
    shape = "×".join(str(d) for d in e["tensor"]["shape"])
    consumers = [c for c in doc["edges"] if c["source"] == x["id"] and c["source_output"] == e["source_output"]]
    size = 4
    for d in e["tensor"]["shape"]:
        size *= d
    for expected in (shape, e["tensor"]["dtype"], e["tensor"]["device"], f"{size} bytes", "producer", x["label"],
                     f"Consumers ({len(consumers)})"):
        assert expected in text, expected
    target = next(n for n in doc["nodes"] if n["id"] == e["target"])
    assert target["label"] in text
    assert viewer.page.get_attribute(viewer.sel(f'g.vista-edge[data-edge="{edge_id}"]'), "data-selected") == "true"
    # Picking a node moves the selection off the edge.
    viewer.page.click(viewer.sel(f'g.vista-node[data-id="{target["id"]}"]'))
    unselected = viewer.sel(f'g.vista-edge[data-edge="{edge_id}"]:not([data-selected])')
    viewer.page.wait_for_selector(unselected, state="attached")

"""Where the view goes: after Expand all, Collapse all, the depth control and a search jump
the view holds drawn nodes (never empty canvas), and a jump to a big open module shows its
header."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from browser_page import OpenPage, Viewer

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]

# Reads the graph area and every drawn node and closed box, in screen pixels.
DRAWN = """root => {
  const svg = root.querySelector('svg.vista-graph').getBoundingClientRect();
  const items = [...root.querySelectorAll('g.vista-node, g.vista-module[data-state=collapsed]')].map(e => {
    const r = e.querySelector('path, rect.vista-module-frame').getBoundingClientRect();
    return {id: e.dataset.id, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  });
  return {svg: {left: svg.left, top: svg.top, right: svg.right, bottom: svg.bottom}, items};
}"""


def _draws(viewer: Viewer) -> int:
    """How many times the viewer has drawn a layout (its `vista:drawn` marks)."""
    n: int = viewer.page.evaluate("() => performance.getEntriesByName('vista:drawn').length")
    return n


def _act(viewer: Viewer, action: Callable[[], object]) -> None:
    """Does `action` and waits until the viewer has drawn the new layout."""
    before = _draws(viewer)
    action()
    viewer.page.wait_for_function(f"() => performance.getEntriesByName('vista:drawn').length > {before}",
                                  timeout=60_000)
    viewer.page.wait_for_timeout(100)


def _in_view(viewer: Viewer) -> tuple[list[str], list[str]]:
    """(ids of drawn items wholly in view, ids of those cut by the view's left or right edge)."""
    got = viewer.page.eval_on_selector(viewer.root, DRAWN)
    svg = got["svg"]
    inside, cut = [], []
    for r in got["items"]:
        if (r["right"] <= svg["left"] or r["left"] >= svg["right"]
                or r["bottom"] <= svg["top"] or r["top"] >= svg["bottom"]):
            continue
        if r["left"] >= svg["left"] - 1 and r["right"] <= svg["right"] + 1 and r["top"] >= svg["top"] - 1 \
                and r["bottom"] <= svg["bottom"] + 1:
            inside.append(r["id"])
        elif r["left"] < svg["left"] - 1 or r["right"] > svg["right"] + 1:
            cut.append(r["id"])
    return inside, cut


def _assert_holds_drawn_nodes(viewer: Viewer, what: str) -> None:
    inside, cut = _in_view(viewer)
    assert len(inside) >= 3, f"after {what} the view holds {len(inside)} whole drawn items"
    assert len(cut) <= len(inside), f"after {what} more items are cut by the view's edge than shown: {cut}"


@pytest.mark.parametrize("name", ["t5_deep", "whisper"])
def test_expand_all_and_depth_frame_drawn_nodes(name: str, documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents(name))
    _assert_holds_drawn_nodes(viewer, "the first view")
    _act(viewer, lambda: viewer.click_action("expand-all"))
    _assert_holds_drawn_nodes(viewer, "Expand all")
    for depth in ("2", "3", "1", "4"):
        viewer.page.fill(viewer.sel('input[data-control="depth"]'), depth)
        _act(viewer, lambda: viewer.page.press(viewer.sel('input[data-control="depth"]'), "Enter"))
        _assert_holds_drawn_nodes(viewer, f"depth {depth}")
    _act(viewer, lambda: viewer.click_action("collapse-all"))
    _assert_holds_drawn_nodes(viewer, "Collapse all")


def test_the_top_of_a_fully_open_graph_shows_its_first_input(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("t5_deep")
    viewer = open_viewer(doc)
    _act(viewer, lambda: viewer.click_action("expand-all"))
    first_input = next(n["id"] for n in doc["nodes"] if n["kind"] == "input")
    inside, _ = _in_view(viewer)
    assert first_input in inside


@pytest.mark.parametrize("name", ["t5_deep", "whisper"])
def test_a_jump_to_a_big_open_module_shows_its_header(name: str, documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents(name)
    viewer = open_viewer(doc)
    _act(viewer, lambda: viewer.click_action("expand-all"))
    encoder = next(m["id"] for m in doc["modules"] if m["path"] == "encoder")
    viewer.evaluate_handle(f"h => h.select({encoder!r})")
    viewer.page.wait_for_timeout(200)
    frame = viewer.page.eval_on_selector(viewer.sel(f'g.vista-module[data-id="{encoder}"] rect.vista-module-frame'),
                                         "e => e.getBoundingClientRect().toJSON()")
    svg = viewer.page.eval_on_selector(viewer.sel("svg.vista-graph"), "e => e.getBoundingClientRect().toJSON()")
    assert frame["height"] > svg["height"], "the encoder is taller than the view: the case this test is about"
    assert svg["y"] <= frame["y"] <= svg["y"] + 0.2 * svg["height"], "the module's header is at the top of the view"
    # Its left edge (its title) is in view, unless the module's top holds nothing near it there.
    items = viewer.page.eval_on_selector(viewer.root, DRAWN)["items"]
    near_title = [r for r in items if frame["x"] <= r["left"] and r["right"] <= frame["x"] + 0.9 * svg["width"]
                  and frame["y"] <= r["top"] and r["bottom"] <= frame["y"] + svg["height"]]
    if near_title:
        assert svg["x"] - 1 <= frame["x"] < svg["x"] + svg["width"] / 2, "the module's left edge is in view"
    _assert_holds_drawn_nodes(viewer, "the jump")

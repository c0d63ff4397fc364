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


# Every open module's frame and the first input's box, in screen pixels.
FRAMES = """(root, input) => {
  const box = e => {
    const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  };
  const svg = root.querySelector('svg.vista-graph');
  const modules = [...root.querySelectorAll('g.vista-module[data-state=expanded]')].map(
    g => ({id: g.dataset.id, ...box(g.querySelector('rect.vista-module-frame'))}));
  const first = root.querySelector(`g.vista-node[data-id="${input}"] path, g.vista-node[data-id="${input}"] rect`);
  return {svg: box(svg), modules, input: box(first)};
}"""


@pytest.mark.parametrize("action", ["open-modules", "expand-all"])
@pytest.mark.parametrize("name", ["t5_deep", "whisper"])
def test_the_top_of_an_open_graph_shows_the_titles_the_view_can_hold(name: str, action: str, documents: Documents,
                                                                    open_viewer: OpenPage) -> None:
    # Framed around the first input, T5's encoder showed "ck · 28.1K params" of its title at the
    # left edge and Whisper's "der": the user could not tell which module they were in.
    doc = documents(name)
    viewer = open_viewer(doc)
    _act(viewer, lambda: viewer.click_action(action))
    first_input = next(n["id"] for n in doc["nodes"] if n["kind"] == "input")
    got = viewer.page.evaluate(f"([root, input]) => ({FRAMES})(root, input)",
                               [viewer.page.query_selector(viewer.root), first_input])
    svg, first = got["svg"], got["input"]
    assert svg["left"] <= first["left"] and first["right"] <= svg["right"], "the first input is in view"
    cut = []
    for m in got["modules"]:
        header_in_view = svg["top"] <= m["top"] and m["top"] + 40 <= svg["bottom"]
        if not header_in_view or not (m["left"] < svg["left"] - 1 < m["right"]):
            continue
        # The view could have shown this title (moved right until the frame's left edge is in
        # view, with a margin) and still held the first input.
        if first["right"] + (svg["left"] - m["left"]) + 24 <= svg["right"]:
            cut.append(m["id"])
    assert cut == [], f"open modules whose title is cut at the left edge though the view could hold it: {cut}"


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


def _box(viewer: Viewer, css: str) -> dict[str, float]:
    box: dict[str, float] = viewer.page.eval_on_selector(viewer.sel(css), "e => e.getBoundingClientRect().toJSON()")
    return box


def _centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_the_minimap_shows_the_view_and_moves_it(documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("t5_deep"))
    _act(viewer, lambda: viewer.click_action("expand-all"))
    assert viewer.page.is_hidden(viewer.sel(".vista-minimap")), "the map is off until asked for"
    viewer.click_action("toggle-minimap")
    assert viewer.page.is_visible(viewer.sel(".vista-minimap"))
    assert viewer.page.get_attribute(viewer.sel('button[data-action="toggle-minimap"]'), "aria-pressed") == "true"
    canvas = _box(viewer, ".vista-minimap canvas")
    view = _box(viewer, ".vista-minimap-view")
    assert view["width"] < canvas["width"] and view["height"] < canvas["height"], "the view is part of the graph"
    before = viewer.page.get_attribute(viewer.sel(".vista-viewport"), "transform")

    # A click moves the view there: the rectangle is centred on the click (it is clipped to the
    # map sideways, so it holds the click there), the graph moved.
    shown = _box(viewer, ".vista-minimap")
    x, y = canvas["x"] + canvas["width"] * 0.5, shown["y"] + shown["height"] * 0.75
    viewer.page.mouse.click(x, y)
    viewer.page.wait_for_timeout(100)
    view = _box(viewer, ".vista-minimap-view")
    assert abs(_centre(view)[1] - y) < 3 and view["x"] <= x <= view["x"] + view["width"], (view, x, y)
    at = view["y"] - _box(viewer, ".vista-minimap canvas")["y"]  # where the view is along the graph
    assert viewer.page.get_attribute(viewer.sel(".vista-viewport"), "transform") != before

    # A drag takes the view along.
    viewer.page.mouse.move(x, y)
    viewer.page.mouse.down()
    viewer.page.mouse.move(x, shown["y"] + shown["height"] * 0.4, steps=6)
    viewer.page.mouse.up()
    viewer.page.wait_for_timeout(100)
    # The map scrolls with the view when the graph is longer than it: the rectangle moved up the graph.
    assert _box(viewer, ".vista-minimap-view")["y"] - _box(viewer, ".vista-minimap canvas")["y"] < at - 20

    # Zooming in on the graph shrinks the rectangle.
    small = _box(viewer, ".vista-minimap-view")
    viewer.click_action("zoom-in")
    viewer.page.wait_for_timeout(300)
    assert _box(viewer, ".vista-minimap-view")["height"] < small["height"] * 0.9

    viewer.click_action("toggle-minimap")
    assert viewer.page.is_hidden(viewer.sel(".vista-minimap"))


def test_fit_on_a_graph_too_big_to_read_offers_the_minimap(documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("t5_deep"))
    viewer.click_action("fit")
    assert viewer.page.is_hidden(viewer.sel(".vista-notice")), "the first view fits readably: nothing to say"
    _act(viewer, lambda: viewer.click_action("expand-all"))
    viewer.click_action("fit")
    notice = viewer.sel(".vista-notice")
    assert viewer.page.is_visible(notice)
    assert "too big to read" in (viewer.page.text_content(notice) or "")
    # The notice stands over the top of the view: the fitted graph starts below it, its root's
    # title not hidden under the notice.
    graph = viewer.page.eval_on_selector(viewer.sel(".vista-viewport"), "e => e.getBoundingClientRect().toJSON()")
    assert _box(viewer, ".vista-notice")["bottom"] <= graph["top"], (graph, _box(viewer, ".vista-notice"))
    viewer.page.click(viewer.sel('.vista-notice button[data-action="show-minimap"]'))
    assert viewer.page.is_visible(viewer.sel(".vista-minimap"))
    assert viewer.page.is_hidden(notice)
    assert "vista-minimap" not in viewer.evaluate_handle("h => h.exportSVG()"), "exports leave the map out"


LOD = """root => {
  const svg = root.querySelector('svg.vista-graph');
  const shown = e => e.getAttribute('display') !== 'none' && getComputedStyle(e).display !== 'none';
  const titles = [...root.querySelectorAll('.vista-lod-title')].filter(shown).map(e => {
    const r = e.getBoundingClientRect();
    return {text: e.textContent, left: r.left, top: r.top, right: r.right, bottom: r.bottom, height: r.height};
  });
  const layer = root.querySelector('.vista-layer-lod');
  // Any of the graph's own text that is laid out (a hidden ancestor leaves it an empty box).
  const labels = [...root.querySelectorAll('.vista-viewport text')]
    .filter(e => e.getBoundingClientRect().width > 0).length;
  const colours = new Set([...layer.querySelectorAll('.vista-lod-outline')].map(e => e.getAttribute('stroke')));
  return {lod: svg.dataset.lod, layer: shown(layer), titles, labels, colours: colours.size};
}"""


def test_zoomed_out_module_titles_stay_legible_and_op_labels_go(documents: Documents,
                                                                open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("t5_deep"))
    _act(viewer, lambda: viewer.click_action("expand-all"))
    near = viewer.page.eval_on_selector(viewer.root, LOD)
    assert near["lod"] == "near" and not near["layer"] and near["labels"] > 0
    for _ in range(4):
        viewer.click_action("zoom-out")
    viewer.page.wait_for_timeout(300)
    far = viewer.page.eval_on_selector(viewer.root, LOD)
    assert far["lod"] == "far" and far["layer"]
    assert far["labels"] == 0, "op labels, header titles and +/− glyphs are hidden when too small to read"
    titles = far["titles"]
    assert len(titles) >= 3
    assert all(t["height"] >= 9 for t in titles), "titles are at least 9px on screen"
    for i, a in enumerate(titles):
        for b in titles[i + 1:]:
            across = a["left"] < b["right"] and b["left"] < a["right"]
            assert not (across and a["top"] < b["bottom"] and b["top"] < a["bottom"]), (a, b)
    assert far["colours"] >= 5, "module classes are told apart by colour"
    assert "vista-lod" not in viewer.evaluate_handle("h => h.exportSVG()"), "exports are drawn at full detail"
    for _ in range(4):
        viewer.click_action("zoom-in")
    viewer.page.wait_for_timeout(300)
    assert viewer.page.eval_on_selector(viewer.root, LOD)["lod"] == "near"


def test_a_whole_graph_change_keeps_the_part_the_user_moved_to(documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("t5_deep"))
    _act(viewer, lambda: viewer.click_action("expand-all"))
    top = viewer.page.get_attribute(viewer.sel(".vista-viewport"), "transform")
    svg = _box(viewer, "svg.vista-graph")
    x, y = svg["x"] + svg["width"] / 2, svg["y"] + svg["height"] - 40
    viewer.page.mouse.move(x, y)
    viewer.page.mouse.down()
    viewer.page.mouse.move(x, y - 600, steps=8)
    viewer.page.mouse.up()
    moved = viewer.page.get_attribute(viewer.sel(".vista-viewport"), "transform")
    assert moved != top
    inside, _ = _in_view(viewer)
    # The same change again (the same graph): the view stays where the user put it, not back at the top.
    _act(viewer, lambda: viewer.click_action("expand-all"))
    assert viewer.page.get_attribute(viewer.sel(".vista-viewport"), "transform") == moved
    assert _in_view(viewer)[0] == inside

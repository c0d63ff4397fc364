"""The drawn graph matches the document: nodes and boxes at the initial depth, +/−, open all,
close all, the depth control and folded repeated blocks. Expectations come from
expectations.py, computed from the document alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import browser_expectations as ex
import pytest
from browser_page import OpenPage

pytestmark = pytest.mark.browser

MODELS = ["mlp", "cnn", "bert", "gpt2", "failing"]
Documents = Callable[[str], dict[str, Any]]


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("depth", [1, 2])
def test_initial_view_matches_the_document(name: str, depth: int, documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents(name)
    viewer = open_viewer(doc, depth=depth)
    expected = ex.view_at_depth(doc, depth)
    assert expected.nodes or expected.boxes
    viewer.wait_for_view(expected.nodes, expected.boxes)
    drawn_open = {i for i, b in viewer.boxes().items() if b["state"] == "expanded"}
    # Every open module is drawn as an expanded box (the model itself may be drawn as the frame).
    assert set(expected.open) - {doc["modules"][0]["id"]} <= drawn_open <= set(expected.open)


def test_default_depth_is_one(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc)
    expected = ex.view_at_depth(doc, 1)
    viewer.wait_for_view(expected.nodes, expected.boxes)


@pytest.mark.parametrize("name", MODELS)
def test_depth_zero_is_one_box(name: str, documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents(name)
    viewer = open_viewer(doc, depth=0)
    expected = ex.view_at_depth(doc, 0)
    if "error" in doc:  # the failed node is shown anyway: its module calls are open
        assert expected.nodes
    else:
        assert expected == ex.View(frozenset(), {doc["modules"][0]["id"]: 1}, frozenset())
    viewer.wait_for_view(expected.nodes, expected.boxes)


def _openable(doc: dict[str, Any], depth: int) -> list[str]:
    """Collapsed plain boxes at this depth that hold something, biggest first."""
    start = ex.view_at_depth(doc, depth)
    opened, unfolded = ex.open_at_depth(doc, depth)
    peek = ex.peeked_at_depth(doc, depth)
    sizes = {}
    for box, repeat in start.boxes.items():
        if repeat != 1:
            continue
        after = ex.view(doc, opened | {box}, unfolded, peek=peek)
        sizes[box] = len(after.nodes) + len(after.boxes) - len(start.nodes) - len(start.boxes)
    return sorted((b for b, s in sizes.items() if s > 0), key=lambda b: -sizes[b])


@pytest.mark.parametrize(("name", "depth"), [("mlp", 1), ("cnn", 1), ("bert", 2), ("gpt2", 2), ("failing", 1)])
def test_plus_opens_a_box_and_minus_restores_it(name: str, depth: int, documents: Documents,
                                                open_viewer: OpenPage) -> None:
    doc = documents(name)
    viewer = open_viewer(doc, depth=depth)
    opened, unfolded = ex.open_at_depth(doc, depth)
    peek = ex.peeked_at_depth(doc, depth)
    start = ex.view(doc, opened, unfolded, peek=peek)
    viewer.wait_for_view(start.nodes, start.boxes)
    box = _openable(doc, depth)[0]
    viewer.click_action("fit")  # the whole graph in view, clear of any panel
    toggle = viewer.sel(f'g.vista-module[data-id="{box}"] [data-action="toggle"]')
    assert viewer.page.text_content(toggle).strip() == "+"

    viewer.click_toggle(box)
    after = ex.view(doc, opened | {box}, unfolded, peek=peek)
    assert len(after.nodes) + len(after.boxes) > len(start.nodes) + len(start.boxes)
    viewer.wait_for_view(after.nodes, after.boxes)
    assert viewer.boxes()[box]["state"] == "expanded"
    assert viewer.page.text_content(toggle).strip() == "−"

    viewer.click_toggle(box)
    viewer.wait_for_view(start.nodes, start.boxes)
    assert viewer.boxes()[box]["state"] == "collapsed"


def test_open_module_titles_are_drawn_above_the_edges(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=4)
    expected = ex.view_at_depth(doc, 4)
    viewer.wait_for_view(expected.nodes, expected.boxes)
    classes = {m["id"]: m["class_name"] for m in doc["modules"]}
    titles = viewer.page.eval_on_selector_all(viewer.sel("g.vista-module-title"), """els => els.map(e => ({
        id: e.dataset.id,
        text: [...e.querySelectorAll('text')].map(t => t.textContent),
        halo: [...e.querySelectorAll('text')].every(t => t.getAttribute('paint-order') === 'stroke'),
        // Painted after (above) every edge: the titles' layer follows the edges' layer.
        aboveEdges: [...document.querySelectorAll('g.vista-edge')].every(
            edge => (edge.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0),
    }))""")
    drawn_open = {i for i, b in viewer.boxes().items() if b["state"] == "expanded"}
    assert {t["id"] for t in titles} == drawn_open
    assert viewer.page.query_selector_all(viewer.sel("g.vista-edge"))
    for title in titles:
        assert title["text"][0] == classes[title["id"]], title
        assert title["halo"] and title["aboveEdges"], title
    # The title still stands for its module: a double click on it closes the module.
    inner = next(t["id"] for t in titles if t["id"] != doc["modules"][0]["id"])
    viewer.page.dblclick(viewer.sel(f'g.vista-module-title[data-id="{inner}"] text'), force=True)
    viewer.page.wait_for_function(
        "sel => document.querySelector(sel)?.getAttribute('data-state') === 'collapsed'",
        arg=viewer.sel(f'g.vista-module[data-id="{inner}"]'))


def test_plus_and_minus_work_from_the_keyboard(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=1)
    opened, unfolded = ex.open_at_depth(doc, 1)
    start = ex.view(doc, opened, unfolded)
    viewer.wait_for_view(start.nodes, start.boxes)
    box = _openable(doc, 1)[0]
    toggle = viewer.sel(f'g.vista-module[data-id="{box}"] [data-action="toggle"]')
    # Reached with Tab from the search box at the end of the toolbar: toggles are in the Tab order.
    viewer.page.focus(viewer.sel('input[data-control="search"]'))
    for _ in range(60):
        viewer.page.keyboard.press("Tab")
        if viewer.page.eval_on_selector(toggle, "e => e === document.activeElement"):
            break
    else:
        pytest.fail(f"Tab never reached the toggle of {box}")
    viewer.page.keyboard.press("Enter")
    after = ex.view(doc, opened | {box}, unfolded)
    viewer.wait_for_view(after.nodes, after.boxes)
    # The redrawn box's toggle has the focus again, so Space closes it.
    assert viewer.page.eval_on_selector(toggle, "e => e === document.activeElement")
    viewer.page.keyboard.press(" ")
    viewer.wait_for_view(start.nodes, start.boxes)
    assert viewer.boxes()[box]["state"] == "collapsed"


def test_opened_box_stays_where_it_was_on_screen(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=2)
    box = _openable(doc, 2)[0]
    selector = viewer.sel(f'g.vista-module[data-id="{box}"]')
    before = viewer.page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")
    viewer.click_toggle(box)
    opened, unfolded = ex.open_at_depth(doc, 2)
    after_view = ex.view(doc, opened | {box}, unfolded, peek=ex.peeked_at_depth(doc, 2))
    viewer.wait_for_view(after_view.nodes, after_view.boxes)
    viewer.page.wait_for_timeout(600)  # let a zoom transition, if any, finish
    after = viewer.page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")
    # The box grows, but its top-left corner stays put on screen (within a few pixels).
    assert abs(after["x"] - before["x"]) < 4, (before, after)
    assert abs(after["y"] - before["y"]) < 4, (before, after)


@pytest.mark.parametrize("name", ["cnn", "gpt2"])
def test_repeated_blocks_are_folded_and_unfold(name: str, documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents(name)
    folds = ex.folds(doc)
    assert folds, "the model has a run of identical blocks"
    key, members = next(iter(folds.items()))
    depth = ex.module_depths(doc)[key]  # the run's parent is open, the run itself closed
    viewer = open_viewer(doc, depth=depth)
    opened, unfolded = ex.open_at_depth(doc, depth)
    start = ex.view(doc, opened, unfolded)
    assert start.boxes[key] == len(members)
    viewer.wait_for_view(start.nodes, start.boxes)
    folded = viewer.sel(f'g.vista-module[data-id="{key}"]')
    assert viewer.page.get_attribute(folded, "data-repeat") == str(len(members))
    assert f"×{len(members)}" in viewer.page.text_content(folded)

    # + shows the first call open ("1 of N, all identical") and the other calls as one box.
    viewer.click_toggle(key)
    peeked = ex.view(doc, opened | {key}, unfolded, peek={key})
    assert peeked.boxes[members[1]] == len(members) - 1
    viewer.wait_for_view(peeked.nodes, peeked.boxes)
    title = viewer.sel(f'g.vista-module-title[data-id="{key}"]')
    assert f"1 of {len(members)}, all identical" in (viewer.page.text_content(title) or "")
    # − on that call folds the run again.
    viewer.click_action("fit")
    viewer.click_toggle(key)
    viewer.wait_for_view(start.nodes, start.boxes)

    # The box of the other calls unfolds the run into its members, the first one still open.
    viewer.click_toggle(key)
    viewer.wait_for_view(peeked.nodes, peeked.boxes)
    viewer.click_action("fit")
    viewer.click_toggle(members[1])
    after = ex.view(doc, opened | {key}, unfolded | {key})
    assert set(after.boxes) >= set(members[1:]) and key in after.open
    viewer.wait_for_view(after.nodes, after.boxes)

    # Every call of the unfolded run has a "×N" button that folds the run back; open one call
    # first, then fold from the last one.
    last = members[-1]
    for member in members[1:]:
        button = viewer.sel(f'g.vista-module[data-id="{member}"] > [data-action="fold"] text')
        assert viewer.page.text_content(button).strip() == f"×{len(members)}"
    viewer.click_action("fit")  # the 24 blocks of GPT-2 are taller than the window
    viewer.click_toggle(members[1])
    inner = ex.view(doc, opened | {key, members[1]}, unfolded | {key})
    viewer.wait_for_view(inner.nodes, inner.boxes)
    viewer.click_action("fit")
    viewer.page.click(viewer.sel(f'g.vista-module[data-id="{last}"] > [data-action="fold"]'))
    viewer.wait_for_view(start.nodes, start.boxes)
    assert viewer.page.get_attribute(folded, "data-repeat") == str(len(members))


@pytest.mark.parametrize("name", ["mlp", "bert", "gpt2"])
def test_expand_all_and_collapse_all(name: str, documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents(name)
    viewer = open_viewer(doc, depth=1)
    viewer.click_action("expand-all")
    full = ex.full_view(doc)
    assert full.boxes == {}
    assert full.nodes == {n["id"] for n in doc["nodes"]}
    viewer.wait_for_view(full.nodes, full.boxes)
    depth_input = viewer.sel('input[data-control="depth"]')
    # The depth box follows: the model's deepest level (torch.nn layers not counted) + 1.
    assert viewer.page.input_value(depth_input) == str(ex.max_depth(doc))
    viewer.click_action("collapse-all")
    start = ex.view_at_depth(doc, 1)
    viewer.wait_for_view(start.nodes, start.boxes)
    assert viewer.page.input_value(depth_input) == "1"


@pytest.mark.parametrize("name", ["gpt2", "bert"])
def test_open_modules_stops_at_torch_layers_and_shows_one_call_of_each_run(name: str, documents: Documents,
                                                                          open_viewer: OpenPage) -> None:
    doc = documents(name)
    viewer = open_viewer(doc, depth=1)
    viewer.click_action("open-modules")
    expected = ex.view_at_depth(doc, ex.max_depth(doc))
    viewer.wait_for_view(expected.nodes, expected.boxes)
    leaves = ex.torch_leaves(doc)
    assert leaves and all(viewer.boxes()[m]["state"] == "collapsed" for m in leaves if m in expected.boxes)
    assert any(box in leaves for box in expected.boxes), "torch.nn layers stay boxes"
    folds = ex.folds(doc)
    assert folds and all(members[1] in expected.boxes for members in folds.values()), "no run unfolds by itself"
    if name == "gpt2":  # its six cache outputs are one group: no level of the model, it stays a box
        groups = {m["id"] for m in ex.grouped(doc)["modules"] if m["id"].startswith("g:")}
        assert groups and groups <= set(expected.boxes)
    assert viewer.page.input_value(viewer.sel('input[data-control="depth"]')) == str(ex.max_depth(doc))
    viewer.click_action("expand-all")
    full = ex.full_view(doc)
    viewer.wait_for_view(full.nodes, full.boxes)


def test_depth_control(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=1)
    depth_input = viewer.sel('input[data-control="depth"]')
    assert viewer.page.input_value(depth_input) == "1"
    for depth in (3, 2, 0, 1):
        viewer.page.fill(depth_input, str(depth))
        viewer.page.press(depth_input, "Enter")
        expected = ex.view_at_depth(doc, depth)
        viewer.wait_for_view(expected.nodes, expected.boxes)


@pytest.mark.parametrize(("flag", "kinds"), [("show_parameters", {"parameter", "buffer"}),
                                            ("show_constants", {"constant"})])
def test_node_filters(flag: str, kinds: set[str], documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("cnn")  # has parameters and buffers (BatchNorm)
    viewer = open_viewer(doc, depth=99, **{flag: False})
    viewer.evaluate_handle("h => h.expandAll()")  # depth stops at torch.nn layers
    expected = ex.full_view(doc, **{flag: False})
    viewer.wait_for_view(expected.nodes, expected.boxes)
    if flag == "show_parameters":
        assert {n["kind"] for n in doc["nodes"]} >= {"parameter", "buffer"}
    drawn_kinds = set(viewer.page.eval_on_selector_all(viewer.sel("g.vista-node"),
                                                       "els => els.map(e => e.dataset.kind)"))
    assert not drawn_kinds & kinds


def test_edges_carry_shapes(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")  # depth stops at torch.nn layers
    full = ex.full_view(doc)
    viewer.wait_for_view(full.nodes, full.boxes)
    edges = viewer.page.eval_on_selector_all(
        viewer.sel("g.vista-edge"),
        "els => els.map(e => ({s: e.dataset.source, t: e.dataset.target, text: e.textContent}))",
    )
    by_pair = {(e["s"], e["t"]): e["text"] for e in edges}
    for edge in doc["edges"]:
        label = "×".join(str(d) for d in edge["tensor"]["shape"])
        assert label in by_pair[(edge["source"], edge["target"])], edge
    # Node kinds are in the DOM as the document says.
    kinds = dict(viewer.page.eval_on_selector_all(viewer.sel("g.vista-node"),
                                                  "els => els.map(e => [e.dataset.id, e.dataset.kind])"))
    assert kinds == {n["id"]: n["kind"] for n in doc["nodes"]}


def test_a_deep_llama_opens_fully_with_its_long_edges_beside_the_layers(documents: Documents,
                                                                         open_viewer: OpenPage,
                                                                         artifacts: Path) -> None:
    """32 layers that all read the rotary embedding and all hand a cache tensor out of the model:
    routed by Graphviz, those long edges took seconds here and minutes at 80 layers. The layout
    draws them beside the layers instead, and everything is still drawn and connected."""
    doc = documents("llama_32")
    viewer = open_viewer(doc, depth=1)
    viewer.click_action("expand-all")
    full = ex.full_view(doc)
    viewer.wait_for_view(full.nodes, full.boxes, timeout=60)
    drawn = viewer.page.eval_on_selector_all(viewer.sel("g.vista-edge"),
                                             "els => els.map(e => [e.dataset.source, e.dataset.target])")
    assert {(e["source"], e["target"]) for e in doc["edges"]} <= {tuple(pair) for pair in drawn}
    # The rotary embedding's edges into the later layers run right of every layer's box.
    modules = {m["id"]: m for m in doc["modules"]}
    layer_of: dict[str, int] = {}
    for n in doc["nodes"]:
        m: str | None = n["module"]
        while m is not None:
            parts = modules[m]["path"].split(".")
            if len(parts) == 2 and parts[0] == "layers":
                layer_of[n["id"]] = int(parts[1])
                break
            m = modules[m]["parent"]
    rotary = {n["id"] for n in doc["nodes"] if modules[n["module"]]["path"] == "rotary_emb"}
    long_edges = [[e["source"], e["target"]] for e in doc["edges"]
                  if e["source"] in rotary and layer_of.get(e["target"], 0) >= 4]
    assert len(long_edges) >= 2 * 28
    layer_ids = [m["id"] for m in doc["modules"] if m["path"].startswith("layers.") and m["path"].count(".") == 1]
    rights = viewer.page.evaluate("""([root, layers, edges]) => {
      const frame = (id) =>
        document.querySelector(`${root} g.vista-module[data-id="${id}"] rect.vista-module-frame`);
      const edge = ([s, t]) =>
        document.querySelector(`${root} g.vista-edge[data-source="${s}"][data-target="${t}"] path`);
      return { layers: Math.max(...layers.map((id) => frame(id).getBoundingClientRect().right)),
               edges: edges.map((pair) => edge(pair).getBoundingClientRect().right) };
    }""", [viewer.root, layer_ids, long_edges])
    assert min(rights["edges"]) > rights["layers"]
    viewer.page.screenshot(path=str(artifacts / "llama-32-expanded.png"))

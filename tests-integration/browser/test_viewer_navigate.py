"""Following data through the drawn graph: edges that highlight and show their tensor, lineage,
keyboard moves, and search by shape."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import browser_expectations as ex
import pytest
from browser_page import OpenPage, Viewer

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]


def _all_open(open_viewer: OpenPage, doc: dict[str, Any]) -> Viewer:
    """The page with every module open, torch.nn layers too (Depth counts model levels only)."""
    viewer = open_viewer(doc, depth=1)
    viewer.click_action("expand-all")
    full = ex.full_view(doc)
    viewer.wait_for_view(full.nodes, full.boxes)
    return viewer


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
    viewer = _all_open(open_viewer, doc)
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


def test_an_edge_is_hovered_and_clicked_beside_its_line_without_a_hit_path(documents: Documents,
                                                                          open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = _all_open(open_viewer, doc)
    x, e = _input_edge(doc)
    edge_id = f'{x["id"]}>{e["target"]}'
    # One path per edge: a second, wide hit path each would add to every style and layout pass.
    paths = viewer.page.eval_on_selector_all(viewer.sel("g.vista-edge"),
                                             "gs => gs.map(g => g.querySelectorAll('path').length)")
    assert paths and set(paths) == {1}
    before = _line_width(viewer, edge_id)
    ex_, ey = _edge_middle(viewer, edge_id)
    viewer.page.mouse.move(ex_ + 3, ey)  # beside the 1.2 px line, within the edge's reach
    line = viewer.sel(f'g.vista-edge[data-edge="{edge_id}"] path.vista-edge-line')
    viewer.page.wait_for_function(f"([sel, w]) => ({WIDTH_OF})(sel) > w", arg=[line, before])
    viewer.page.mouse.move(ex_ + 40, ey)  # well away from it
    viewer.page.wait_for_function(f"([sel, w]) => ({WIDTH_OF})(sel) <= w", arg=[line, before])
    viewer.page.mouse.click(ex_ + 3, ey)
    viewer.page.wait_for_selector(viewer.sel(".vista-details:not([hidden]) .vista-badge-tensor"))
    assert viewer.page.get_attribute(viewer.sel(f'g.vista-edge[data-edge="{edge_id}"]'), "data-selected") == "true"


def test_clicking_an_edge_shows_its_tensor(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = _all_open(open_viewer, doc)
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


def _node(doc: dict[str, Any], path: str, label: str) -> dict[str, Any]:
    module = next(m["id"] for m in doc["modules"] if m["path"] == path)
    return next(n for n in doc["nodes"] if n["module"] == module and n["label"] == label)


def _reach(doc: dict[str, Any], start: str, upstream: bool) -> set[str]:
    """Node ids reachable from `start` along the document's edges (backwards when upstream)."""
    nxt: dict[str, set[str]] = {}
    for e in doc["edges"]:
        a, b = (e["target"], e["source"]) if upstream else (e["source"], e["target"])
        nxt.setdefault(a, set()).add(b)
    seen = {start}
    todo = [start]
    while todo:
        for other in nxt.get(todo.pop(), set()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def _undimmed_nodes(viewer: Viewer) -> set[str]:
    ids: list[str] = viewer.page.eval_on_selector_all(viewer.sel("g.vista-node:not([data-dim])"),
                                                      "els => els.map(e => e.dataset.id)")
    return set(ids)


def _selected_title(viewer: Viewer) -> str:
    return viewer.page.text_content(viewer.sel(".vista-details:not([hidden]) .vista-details-content h3")) or ""


@pytest.mark.parametrize("upstream", [True, False])
def test_lineage_highlights_one_side_and_escape_clears(upstream: bool, documents: Documents,
                                                       open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = _all_open(open_viewer, doc)
    relu = _node(doc, "body.1", "relu")
    viewer.page.click(viewer.sel(f'g.vista-node[data-id="{relu["id"]}"]'))
    assert viewer.page.query_selector(viewer.sel("[data-dim]")) is None
    viewer.page.click(viewer.sel(f'.vista-lineage button[data-lineage="{"up" if upstream else "down"}"]'))
    expected = _reach(doc, relu["id"], upstream)
    assert 1 < len(expected) < len(doc["nodes"])
    assert _undimmed_nodes(viewer) == expected
    # An edge is lit only when it lies on the way.
    lit: list[list[str]] = viewer.page.eval_on_selector_all(
        viewer.sel("g.vista-edge:not([data-dim])"), "els => els.map(e => [e.dataset.source, e.dataset.target])")
    assert lit and all(s in expected and t in expected for s, t in lit)
    # Both directions: the union.
    viewer.page.click(viewer.sel(f'.vista-lineage button[data-lineage="{"down" if upstream else "up"}"]'))
    assert _undimmed_nodes(viewer) == _reach(doc, relu["id"], True) | _reach(doc, relu["id"], False)
    viewer.page.keyboard.press("Escape")
    viewer.page.wait_for_selector(viewer.sel("[data-dim]"), state="detached")
    assert _selected_title(viewer) == relu["label"], "the first Escape clears the lineage, not the selection"
    viewer.page.keyboard.press("Escape")
    viewer.page.wait_for_selector(viewer.sel(".vista-details"), state="hidden")


def test_lineage_of_a_module_and_the_d_key(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = _all_open(open_viewer, doc)
    head = next(m for m in doc["modules"] if m["path"] == "head")
    viewer.evaluate_handle(f"h => h.select({head['id']!r})")
    viewer.page.focus(viewer.sel("svg.vista-graph"))
    viewer.page.keyboard.press("d")
    inside = {n["id"] for n in doc["nodes"] if n["module"] == head["id"]}
    expected = set().union(*(_reach(doc, n, False) for n in inside))
    viewer.page.wait_for_selector(viewer.sel("[data-dim]"), state="attached")
    assert _undimmed_nodes(viewer) == expected
    assert viewer.page.get_attribute(viewer.sel('.vista-lineage button[data-lineage="down"]'), "aria-pressed") == "true"


def test_arrow_keys_follow_the_data_and_the_siblings(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = _all_open(open_viewer, doc)
    x = next(n for n in doc["nodes"] if n["kind"] == "input")
    linear = _node(doc, "body.0", "linear")
    viewer.page.click(viewer.sel(f'g.vista-node[data-id="{x["id"]}"]'))
    keys = viewer.page.keyboard
    keys.press("ArrowDown")
    viewer.page.wait_for_function("([sel, t]) => document.querySelector(sel)?.textContent === t",
                                  arg=[viewer.sel(".vista-details-content h3"), linear["label"]])
    keys.press("ArrowLeft")  # the Linear's bias, drawn before its op
    assert _selected_title(viewer) == "bias"
    keys.press("ArrowRight")
    assert _selected_title(viewer) == "linear"
    keys.press("ArrowUp")
    assert _selected_title(viewer) == x["label"]
    # The selection outline follows: it surrounds the selected node.
    box = viewer.page.eval_on_selector(viewer.sel("rect.vista-selection"), "r => r.getBoundingClientRect().toJSON()")
    node = viewer.page.eval_on_selector(viewer.sel(f'g.vista-node[data-id="{x["id"]}"]'),
                                        "g => g.getBoundingClientRect().toJSON()")
    assert box["left"] <= node["left"] and box["right"] >= node["right"]
    assert box["top"] <= node["top"] and box["bottom"] >= node["bottom"]


def test_enter_opens_and_backspace_closes(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=1)
    body = next(m for m in doc["modules"] if m["path"] == "body")
    viewer.page.click(viewer.sel(f'g.vista-module[data-id="{body["id"]}"] text'))
    viewer.page.keyboard.press("Enter")
    viewer.page.wait_for_selector(viewer.sel(f'g.vista-module[data-id="{body["id"]}"][data-state="expanded"]'))
    first = next(m for m in doc["modules"] if m["path"] == "body.0")
    viewer.page.click(viewer.sel(f'g.vista-module[data-id="{first["id"]}"] text'))
    viewer.page.keyboard.press("Backspace")  # closes the module around the selection
    viewer.page.wait_for_selector(viewer.sel(f'g.vista-module[data-id="{body["id"]}"][data-state="collapsed"]'))
    assert _selected_title(viewer) == body["class_name"]


def test_question_mark_shows_every_key(open_viewer: OpenPage, documents: Documents) -> None:
    viewer = open_viewer(documents("mlp"), depth=1)
    viewer.page.click(viewer.sel("svg.vista-graph"), position={"x": 5, "y": 5})
    viewer.page.keyboard.press("?")
    help_ = viewer.sel(".vista-help")
    viewer.page.wait_for_selector(help_, state="visible")
    keys: list[str] = viewer.page.eval_on_selector_all(viewer.sel(".vista-help kbd"),
                                                       "ks => ks.map(k => k.textContent)")
    for key in ("↑", "↓", "← / →", "Enter", "Backspace", "U", "D", "Escape", "?"):
        assert key in keys
    viewer.page.keyboard.press("Escape")
    viewer.page.wait_for_selector(help_, state="hidden")
    # Typing in the search box is not a shortcut.
    viewer.page.fill(viewer.sel('input[data-control="search"]'), "")
    viewer.page.type(viewer.sel('input[data-control="search"]'), "?")
    assert viewer.page.is_hidden(help_)


def _hits(viewer: Viewer, query: str) -> list[dict[str, str]]:
    viewer.page.fill(viewer.sel('input[data-control="search"]'), query)
    hits = viewer.sel(".vista-search-results [data-target-id]")
    viewer.page.wait_for_selector(hits, state="visible")
    found: list[dict[str, str]] = viewer.page.eval_on_selector_all(
        hits, "els => els.map(e => ({id: e.dataset.targetId, type: e.dataset.type, text: e.textContent}))")
    return found


@pytest.mark.parametrize("query", ["1×8×32", "1x8x32", "*×32"])
def test_search_finds_tensors_by_shape(query: str, documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=1)
    hits = _hits(viewer, query)
    if query.startswith("*"):
        expected = {n["id"] for n in doc["nodes"]
                    if any(len(t["shape"]) >= 2 and t["shape"][-1] == 32 for t in n.get("outputs", []))}
    else:
        expected = {n["id"] for n in doc["nodes"] if any(t["shape"] == [1, 8, 32] for t in n.get("outputs", []))}
    assert expected
    assert {h["id"] for h in hits} <= expected
    assert len(hits) == min(len(expected), 100)
    assert all(h["type"] == "tensor" for h in hits)
    # Jumping to a shape hit selects the node that made the tensor.
    viewer.page.keyboard.press("Enter")
    viewer.page.wait_for_selector(viewer.sel(".vista-details:not([hidden])"))
    name = next(n["label"] for n in doc["nodes"] if n["id"] == hits[0]["id"])
    assert _selected_title(viewer) == name


def test_hits_show_module_path_and_source_line(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=1)
    hits = [h for h in _hits(viewer, "layer_norm") if h["type"] == "node"]
    assert len(hits) > 2
    assert len({h["text"] for h in hits}) == len(hits), "every hit reads differently"
    for h in hits:
        node = next(n for n in doc["nodes"] if n["id"] == h["id"])
        path = next(m["path"] for m in doc["modules"] if m["id"] == node["module"])
        assert path in h["text"]
        assert f':{node["source"]["line"]}' in h["text"]


def test_enter_picks_the_op_and_arrows_walk_the_hits(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=1)
    hits = _hits(viewer, "linear")
    ops = [n["id"] for n in doc["nodes"] if n["kind"] == "op" and n["label"] == "linear"]
    assert [h["id"] for h in hits[:len(ops)]] == ops
    viewer.page.keyboard.press("Enter")
    viewer.page.wait_for_selector(viewer.sel(".vista-details:not([hidden]) .vista-badge-op"))
    assert _selected_title(viewer) == "linear"
    # ↓ ↓ ↑ ↓ lands on the second hit; Enter jumps to it.
    box = viewer.sel('input[data-control="search"]')
    hits = _hits(viewer, "body")
    assert len(hits) >= 3
    for key in ("ArrowDown", "ArrowDown", "ArrowUp", "ArrowDown"):
        viewer.page.press(box, key)
    active: str = viewer.page.eval_on_selector(viewer.sel('.vista-search-results [aria-selected="true"]'),
                                               "e => e.dataset.targetId")
    assert active == hits[1]["id"]
    viewer.page.press(box, "Enter")
    module = next(m for m in doc["modules"] if m["id"] == hits[1]["id"])
    viewer.page.wait_for_function("([sel, t]) => document.querySelector(sel)?.textContent === t",
                                  arg=[viewer.sel(".vista-details-content h3"), module["class_name"]])


# [text, lines] of each text node (a part between <wbr>s) without spaces or hyphens, where a break is fine.
SEGMENTS_ON_ONE_LINE = """els => els.flatMap(e => [...e.childNodes]
    .filter(n => n.nodeType === 3 && !/[\\s-]/.test(n.data.trim()))
    .map(n => { const r = document.createRange(); r.selectNodeContents(n);
                const tops = new Set([...r.getClientRects()].map(q => Math.round(q.top)));
                return [n.data, tops.size]; }))"""


def test_details_wrap_long_names_between_parts_and_scroll_long_code(documents: Documents,
                                                                    open_viewer: OpenPage) -> None:
    doc = copy.deepcopy(documents("bert"))
    module = max(doc["modules"], key=lambda m: len(m["path"]))
    module["class_name"] = "VeryLongHuggingFace.ModelNameFor.SequenceClassification.WithPastAndCrossAttentions"
    module["class_qualname"] = "transformers.models.very_long_model_name.modeling_very_long_model_name." + "Attn" * 8
    module["source"] = {"file": "/home/someone/projects/a-long-project-name/src/models/modeling_something.py",
                        "line": 1234, "function": "forward",
                        "code": "hidden_states = self.output(" + ", ".join(f"argument_{i}" for i in range(40)) + ")"}
    viewer = open_viewer(doc, depth=1)
    viewer.evaluate_handle(f"h => h.select({module['id']!r})")
    details = viewer.sel(".vista-details")
    viewer.page.wait_for_selector(f"{details}:not([hidden]) .vista-source-code")
    split: list[list[Any]] = viewer.page.eval_on_selector_all(
        viewer.sel(".vista-details-content h3, .vista-details-content td, .vista-source-location"),
        SEGMENTS_ON_ONE_LINE)
    assert any(text.startswith("VeryLong") for text, _ in split)
    assert [text for text, lines in split if lines != 1] == [], "a part was broken mid-word"
    height = viewer.page.eval_on_selector(viewer.sel(".vista-details-content h3"),
                                          "h => h.getBoundingClientRect().height")
    assert height > 30, "the long class name wraps"
    panel = viewer.page.eval_on_selector(details, "d => [d.scrollWidth, d.clientWidth]")
    assert panel[0] <= panel[1] + 1, "the panel itself does not scroll sideways"
    code = viewer.page.eval_on_selector(viewer.sel(".vista-source-code"),
                                        "p => [p.scrollWidth, p.clientWidth, getComputedStyle(p).overflowX]")
    assert code[0] > code[1] and code[2] == "auto", "the long source line scrolls"


def test_hugging_face_modules_show_their_config_attributes(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    module = next(m for m in doc["modules"] if m["class_name"] == "BertSelfAttention")
    assert module.get("extra_repr", "") == ""
    attributes = {a["name"]: a["value"] for a in module["attributes"]}
    assert "num_attention_heads" in attributes
    viewer = open_viewer(doc, depth=1)
    viewer.evaluate_handle(f"h => h.select({module['id']!r})")
    viewer.page.wait_for_selector(viewer.sel(".vista-details:not([hidden])"))
    rows: list[list[str]] = viewer.page.eval_on_selector_all(
        viewer.sel(".vista-details-section"),
        """ss => ss.filter(s => s.querySelector('h4')?.textContent === 'Attributes')
                   .flatMap(s => [...s.querySelectorAll('tr')]
                   .map(r => [r.cells[0].textContent, r.cells[1].textContent]))""")
    assert dict(rows) == attributes

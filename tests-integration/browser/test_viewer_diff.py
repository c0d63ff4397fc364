"""The diff view (issue 18) on real pairs of traces: GPT-2 with 2 against 3 layers (a layer
added) and a 12-layer GPT-2 whose hidden size changed (shapes changed everywhere). The union
graph's marks and badges, the details' two values, the next/previous walk and the side-by-side
panes. What to expect is computed from vista_core.diff's document alone."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import browser_models
import pytest
import torch
from browser_page import READY_TIMEOUT_MS, Viewer
from playwright.sync_api import Page

import vista_core
from vista_render_html import render_html

pytestmark = pytest.mark.browser

Diff = dict[str, Any]
SHOTS = Path("/work/shots/diff-viewer")


def _gpt2(n_layer: int, n_embd: int) -> dict[str, Any]:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=120, n_positions=32, n_embd=n_embd, n_layer=n_layer, n_head=2,
                        bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config).eval()
    ids = torch.randint(0, 120, (1, 8))
    return vista_core.trace(model, (), kwargs={"input_ids": ids}).to_dict()


@pytest.fixture(scope="session")
def diffs() -> Callable[[str], Diff]:
    """diffs(name) -> the diff document of a pair: "layers" (GPT-2 2 vs 3), "hidden" (12 layers, 32 vs 48 wide)."""
    builders: dict[str, Callable[[], Diff]] = {
        "layers": lambda: vista_core.diff(browser_models.gpt2(2), browser_models.gpt2(3)).to_dict(),
        "hidden": lambda: vista_core.diff(_gpt2(12, 32), _gpt2(12, 48)).to_dict(),
    }
    cache: dict[str, Diff] = {}

    def get(name: str) -> Diff:
        if name not in cache:
            cache[name] = builders[name]()
        return cache[name]

    return get


OpenDiff = Callable[..., Page]


@pytest.fixture
def open_diff(open_html: Callable[..., Page]) -> OpenDiff:
    """open_diff(diff, depth=1, scheme="light") -> render_html's page of the diff document, ready."""

    def open_(diff: Diff, *, depth: int = 1, scheme: str = "light") -> Page:
        page = open_html(render_html(diff, depth=depth, height="780px"), color_scheme=scheme)
        page.wait_for_selector(".vista-diff[data-state=ready]", state="attached", timeout=READY_TIMEOUT_MS)
        return page

    return open_


def unified(page: Page) -> Viewer:
    return Viewer(page, ".vista-diff-unified")


def pane(page: Page, side: str) -> Viewer:
    return Viewer(page, f'.vista-diff-pane[data-side="{side}"]')


def _inside(diff: Diff) -> dict[str, int]:
    """For each union module call, the number of changes strictly inside its subtree (the oracle)."""
    union = diff["union"]
    parent = {m["id"]: m["parent"] for m in union["modules"]}
    module_of = {n["id"]: n["module"] for n in union["nodes"]}

    def chain(module: str | None) -> list[str]:
        out = []
        while module is not None:
            out.append(module)
            module = parent[module]
        return out

    counts: dict[str, int] = {}
    for c in diff["changes"]:
        if c["element"] == "module":
            holders = set(chain(parent[c["id"]]))
        elif c["element"] == "node":
            holders = set(chain(module_of[c["id"]]))
        else:
            source, target = re.fullmatch(r"(.+):\d+->(.+):\d+", c["id"]).groups()  # type: ignore[union-attr]
            # The innermost call holding both ends, and its ancestors (vista_core.diff's rule too).
            holders = set(chain(module_of[source])) & set(chain(module_of[target]))
        for m in holders:
            counts[m] = counts.get(m, 0) + 1
    return counts


def _module(diff: Diff, path: str) -> str:
    return next(m["id"] for m in diff["union"]["modules"] if m["path"] == path)


def _handle(page: Page, expression: str) -> Any:
    """Evaluate `handle => ...` with the diff view's handle, which the page keeps on its mount container."""
    return page.eval_on_selector("[data-vista=root]", f"(root) => ({expression})(root.vistaHandle)")


RECT = "e => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"


def _rect(page: Page, css: str) -> list[float]:
    box: list[float] = page.eval_on_selector(css, RECT)
    return box


def _wait_position(page: Page, text: str) -> None:
    page.wait_for_function("t => document.querySelector('.vista-diff-position').textContent === t", arg=text)


def _attr(page: Page, css: str, name: str) -> str | None:
    return page.eval_on_selector(css, f"e => e.getAttribute({name!r})")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_union_marks_added_removed_and_changed_parts(diffs: Callable[[str], Diff], open_diff: OpenDiff,
                                                         scheme: str) -> None:
    diff = diffs("layers")
    page = open_diff(diff, scheme=scheme)
    view = unified(page)
    changes = diff["changes"]
    counts = {s: sum(c["status"] == s for c in changes) for s in ("added", "removed", "changed")}
    assert counts["added"] > 0 and counts["removed"] > 0 and counts["changed"] > 0
    summary = page.text_content(".vista-diff-summary") or ""
    assert summary == (f"{len(changes)} changes: {counts['added']} added · {counts['removed']} removed · "
                       f"{counts['changed']} changed")
    assert page.text_content(".vista-diff-position") == f"– of {len(changes)}"

    # At depth 1 the transformer is a closed box: marked changed (its parameter count) and holding the rest.
    transformer = _module(diff, "transformer")
    box = view.sel(f'g.vista-module[data-id="{transformer}"]')
    assert _attr(page, box, "data-state") == "collapsed"
    assert _attr(page, box, "data-diff") == "changed"
    inside = _inside(diff)[transformer]
    assert _attr(page, box, "data-diff-inside") == str(inside)
    badges = page.eval_on_selector_all(f"{box} .vista-diff-badge text", "els => els.map(e => e.textContent)")
    assert badges == ["Δ changed", f"{inside} changes"]

    view.click_action("expand-all")
    added_nodes = {c["id"] for c in changes if c["element"] == "node" and c["status"] == "added"}
    page.wait_for_function("n => document.querySelectorAll('.vista-diff-unified g.vista-node[data-diff=added]')"
                           ".length === n", arg=len(added_nodes))
    drawn = set(page.eval_on_selector_all(view.sel("g.vista-node[data-diff]"), "els => els.map(e => e.dataset.id)"))
    assert drawn == {c["id"] for c in changes if c["element"] == "node"}
    layer = _module(diff, "transformer.h.2")
    assert _attr(page, view.sel(f'g.vista-module[data-id="{layer}"]'), "data-diff") == "added"
    # Unchanged parts stay plain: the first layer and its nodes carry no mark.
    first = _module(diff, "transformer.h.0")
    assert _attr(page, view.sel(f'g.vista-module[data-id="{first}"]'), "data-diff") is None

    # Each status has its own colour, and more than colour: its sign, and removed is dashed.
    outline: dict[str, tuple[str | None, str | None]] = {}
    for status in ("added", "changed"):
        rect = view.sel(f"[data-diff={status}] > .vista-diff-mark > rect.vista-diff-outline")
        outline[status] = (_attr(page, rect, "stroke"), _attr(page, rect, "stroke-dasharray"))
    line = view.sel("g.vista-edge[data-diff=removed] path.vista-edge-line")
    outline["removed"] = (_attr(page, line, "stroke"), _attr(page, line, "stroke-dasharray"))
    assert len({colour for colour, _ in outline.values()}) == 3
    assert outline["removed"][1] is not None and outline["added"][1] is None
    signs = set(page.eval_on_selector_all(view.sel(".vista-diff-badge text"), "els => els.map(e => e.textContent)"))
    assert {"+", "Δ changed", "+ added"} <= signs
    legend = page.text_content(view.sel(".vista-legend")) or ""
    assert "+ added" in legend and "− removed" in legend and "Δ changed" in legend
    # Exports carry the marks (presentation attributes, no stylesheet).
    svg = _handle(page, "h => h.exportSVG()")
    assert "vista-diff-outline" in svg and "vista-diff-badge" in svg
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"layers-expanded-{scheme}.png"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_changed_shapes_show_both_values_and_closed_layers_hold_them(diffs: Callable[[str], Diff],
                                                                  open_diff: OpenDiff, scheme: str) -> None:
    diff = diffs("hidden")
    page = open_diff(diff, depth=2, scheme=scheme)
    view = unified(page)
    # Structure equal: nothing added or removed, shapes changed everywhere.
    assert {c["status"] for c in diff["changes"]} == {"changed"}
    # vista_core.diff folds only runs without changes: each layer is a closed box holding its own.
    inside = _inside(diff)
    for i in range(12):
        layer = view.sel(f'g.vista-module[data-id="{_module(diff, f"transformer.h.{i}")}"]')
        assert _attr(page, layer, "data-state") == "collapsed"
        assert _attr(page, layer, "data-diff-inside") == str(inside[_module(diff, f"transformer.h.{i}")])

    node = next(c for c in diff["changes"] if c["element"] == "node"
                and any(f["field"] == "outputs[0].shape" for f in c["fields"]))
    field = next(f for f in node["fields"] if f["field"] == "outputs[0].shape")
    expected = f"{'×'.join(map(str, field['a']))} → {'×'.join(map(str, field['b']))}"
    assert "32" in expected and "48" in expected
    _handle(page, f"h => h.select({node['id']!r})")
    details = view.sel(".vista-details")
    page.wait_for_function("sel => document.querySelector(sel)?.textContent.includes('Diff')", arg=details)
    row = view.sel('.vista-diff-fields tr[data-field="outputs[0].shape"] td')
    assert page.text_content(row) == expected
    assert "Δ changed" in (page.text_content(view.sel(".vista-diff-status")) or "")
    assert page.is_visible(view.sel(f'g.vista-node[data-id="{node["id"]}"][data-diff=changed]'))
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"hidden-details-{scheme}.png"))


def _target(change: dict[str, Any]) -> str:
    if change["element"] != "edge":
        return change["id"]
    return re.fullmatch(r".+:\d+->(.+):\d+", change["id"]).group(1)  # type: ignore[union-attr]


def test_next_change_walks_the_changes_in_order_opening_what_hides_them(diffs: Callable[[str], Diff],
                                                                        open_diff: OpenDiff) -> None:
    diff = diffs("layers")
    page = open_diff(diff)
    view = unified(page)
    changes = diff["changes"]
    n = len(changes)
    # Deep enough to reach nodes inside the added layer's closed modules, and an edge.
    walk = min(n, next(i for i, c in enumerate(changes) if c["element"] == "edge") + 2)
    for k in range(1, walk + 1):
        page.click("[data-action=next-change]")
        _wait_position(page, f"{k} of {n}")
        change = changes[k - 1]
        assert _attr(page, ".vista-diff", "data-change") == change["id"]
        target = _target(change)
        # Opened and drawn as itself (not hidden in a closed box), selected and in view.
        el = view.sel(f'[data-id="{target}"]:is(g.vista-node, g.vista-module)')
        page.wait_for_selector(el, state="attached")
        box, canvas = _rect(page, el), _rect(page, view.sel("svg.vista-graph"))
        cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
        assert canvas[0] <= cx <= canvas[0] + canvas[2] and canvas[1] <= cy <= canvas[1] + canvas[3]
        assert not page.is_hidden(view.sel(".vista-details"))
        if change["element"] == "edge":
            # The edge itself is selected, and the panel says what changed about it.
            _source, end = re.fullmatch(r"(.+):\d+->(.+):\d+", change["id"]).groups()  # type: ignore[union-attr]
            edge = view.sel(f'g.vista-edge[data-selected][data-target="{end}"]')
            page.wait_for_selector(edge, state="attached")
            assert _attr(page, edge, "data-diff") == change["status"]
            row = view.sel(f'.vista-diff-edges tr[data-status="{change["status"]}"]')
            assert f"{change['status']}" in (page.text_content(row) or "")
        else:
            assert page.is_visible(view.sel(".vista-selection"))
    page.click("[data-action=previous-change]")
    _wait_position(page, f"{walk - 1} of {n}")
    assert _attr(page, ".vista-diff", "data-change") == changes[walk - 2]["id"]
    # Before the first comes the last.
    for _ in range(walk - 1):
        page.click("[data-action=previous-change]")
    _wait_position(page, f"{n} of {n}")
    assert _attr(page, ".vista-diff", "data-change") == changes[-1]["id"]
    # A click on a changed element moves the walk there.
    layer = _module(diff, "transformer.h.2")
    at = next(i for i, c in enumerate(changes) if c["id"] == layer)
    _handle(page, f"h => h.select({layer!r})")
    title = (view.sel(f'g.vista-module[data-id="{layer}"][data-state=collapsed] text') + ", "
             + view.sel(f'g.vista-module-title[data-id="{layer}"] text'))
    page.click(title)
    _wait_position(page, f"{at + 1} of {n}")


def _transform(page: Page, viewer: Viewer) -> tuple[float, float, float]:
    t = page.eval_on_selector(viewer.sel("g.vista-viewport"), "e => e.getAttribute('transform') || ''")
    m = re.fullmatch(r"translate\(([-\d.e]+),([-\d.e]+)\) scale\(([-\d.e]+)\)", t)
    assert m is not None, t
    return float(m.group(1)), float(m.group(2)), float(m.group(3))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_side_by_side_panes_move_and_select_together(diffs: Callable[[str], Diff], open_diff: OpenDiff,
                                                     scheme: str) -> None:
    diff = diffs("layers")
    page = open_diff(diff, scheme=scheme)
    page.click("[data-action=diff-side-by-side]")
    a, b = pane(page, "a"), pane(page, "b")
    a.wait_ready()
    b.wait_ready()
    assert page.is_hidden(".vista-diff-unified")
    assert _attr(page, "[data-action=diff-side-by-side]", "aria-pressed") == "true"
    # A +/− in one pane opens or closes the matched module in the other.
    a_to_b_modules = {x: y for x, y, _ in diff["matches"]["modules"]}
    transformer_a = next(m["id"] for m in diff["a"]["modules"] if m["path"] == "transformer")
    transformer_b = a_to_b_modules[transformer_a]
    a.click_toggle(transformer_a)
    page.wait_for_selector(b.sel(f'g.vista-module[data-id="{transformer_b}"][data-state=expanded]'), state="attached")
    b.click_toggle(transformer_b)
    page.wait_for_selector(a.sel(f'g.vista-module[data-id="{transformer_a}"][data-state=collapsed]'), state="attached")

    # a shows what was removed, b what was added; each only its own.
    a.click_action("expand-all")
    b.click_action("expand-all")
    page.wait_for_selector(b.sel("g.vista-node[data-diff=added]"), state="attached")
    page.wait_for_selector(a.sel("g.vista-edge[data-diff=removed]"), state="attached")
    assert page.query_selector(a.sel("[data-diff=added]")) is None
    assert page.query_selector(b.sel("[data-diff=removed]")) is None
    page.wait_for_timeout(300)

    # A zoom in a is a zoom in b about the same screen point; a drag moves both.
    before_a, before_b = _transform(page, a), _transform(page, b)
    box = _rect(page, a.sel("svg.vista-graph"))
    page.mouse.move(box[0] + 200, box[1] + 200)
    page.mouse.wheel(0, -200)
    page.wait_for_timeout(300)
    after_a, after_b = _transform(page, a), _transform(page, b)
    assert after_a[2] > before_a[2] * 1.05
    assert after_b[2] / before_b[2] == pytest.approx(after_a[2] / before_a[2], rel=1e-3)
    page.mouse.move(box[0] + 250, box[1] + 250)
    page.mouse.down()
    page.mouse.move(box[0] + 150, box[1] + 190, steps=5)
    page.mouse.up()
    moved_a, moved_b = _transform(page, a), _transform(page, b)
    assert moved_a[0] - after_a[0] == pytest.approx(-100, abs=1.5)
    assert moved_b[0] - after_b[0] == pytest.approx(moved_a[0] - after_a[0], abs=0.5)
    assert moved_b[1] - after_b[1] == pytest.approx(moved_a[1] - after_a[1], abs=0.5)

    # A click on an element of a selects its match in b.
    a_to_b = {x: y for x, y, _ in diff["matches"]["nodes"]}
    node = next(n for n in diff["a"]["nodes"] if n["kind"] == "op" and n["label"] == "layer_norm")
    # A click as the graph's own handler gets it: the node may lie outside the pane's view.
    page.eval_on_selector(a.sel(f'g.vista-node[data-id="{node["id"]}"]'),
                          "e => e.dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    match = a_to_b[node["id"]]
    page.wait_for_function("sel => !document.querySelector(sel).hidden", arg=b.sel(".vista-details"))
    b_node = next(n for n in diff["b"]["nodes"] if n["id"] == match)
    assert page.text_content(b.sel(".vista-details h3")) == b_node["label"]
    assert page.is_visible(b.sel(".vista-selection"))

    # The walk goes on in both panes: an added layer is selected in b.
    layer = _module(diff, "transformer.h.2")
    at = next(i for i, c in enumerate(diff["changes"]) if c["id"] == layer)
    for _ in range(at):
        page.click("[data-action=next-change]")
    _wait_position(page, f"{at} of {len(diff['changes'])}")
    # Something else selected in a, then on to the layer only b has.
    source = next(n["id"] for n in diff["a"]["nodes"] if n["kind"] == "input")
    page.eval_on_selector(a.sel(f'g.vista-node[data-id="{source}"]'),
                          "e => e.dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    page.wait_for_function("sel => document.querySelector(sel)?.textContent === 'input_ids'",
                           arg=a.sel(".vista-details h3"))
    page.click("[data-action=next-change]")
    _wait_position(page, f"{at + 1} of {len(diff['changes'])}")
    page.wait_for_function("sel => document.querySelector(sel)?.textContent.includes('transformer.h.2')",
                           arg=b.sel(".vista-details"))
    # a has no such layer: it selects the call the layer was added in.
    page.wait_for_function("sel => document.querySelector(sel)?.textContent === 'GPT2Model'",
                           arg=a.sel(".vista-details h3"))
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"layers-side-by-side-{scheme}.png"))

    # One theme for both panes (and the bar).
    other = "dark" if scheme == "light" else "light"
    a.click_action("toggle-theme")
    page.wait_for_selector(f'{b.root}[data-theme="{other}"]', state="attached")
    assert _attr(page, ".vista-diff", "data-theme") == other
    a.click_action("toggle-theme")
    page.wait_for_selector(f'{b.root}[data-theme="{scheme}"]', state="attached")

    # Back to one graph: the selection comes along.
    page.click("[data-action=diff-unified]")
    view = unified(page)
    page.wait_for_function("sel => document.querySelector(sel)?.textContent.includes('transformer.h.2')",
                           arg=view.sel(".vista-details"))
    assert page.is_hidden(".vista-diff-panes")


def test_an_equal_diff_says_so_and_has_nothing_to_walk(open_diff: OpenDiff) -> None:
    doc = browser_models.mlp()
    diff = vista_core.diff(doc, doc).to_dict()
    assert diff["equal"] is True
    page = open_diff(diff)
    assert page.text_content(".vista-diff-summary") == "Equal: both traces have the same graph"
    assert page.is_disabled("[data-action=next-change]")
    assert page.query_selector(".vista-diff [data-diff]") is None


def test_a_diff_of_another_major_version_is_refused_naming_both(diffs: Callable[[str], Diff],
                                                                open_html: Callable[..., Page]) -> None:
    diff = dict(diffs("layers"), diff_version="2.0")
    page = open_html(render_html(diff["b"]))
    Viewer(page).wait_ready()
    page.evaluate("""doc => {
        const root = document.querySelector("[data-vista=root]");
        root.vistaHandle.destroy();
        root.vistaHandle = VistaViewer.mount(root, doc, {});
        root.vistaHandle.ready.catch(() => undefined);
    }""", diff)
    page.wait_for_selector(".vista-diff[data-state=error-rendering]", state="attached")
    text = page.text_content(".vista-message") or ""
    assert 'Unsupported diff_version "2.0"' in text and "1.x" in text

"""Insight in the viewer: colour by a measure (fills and legend), folded boxes' totals, the
hot-spot list and its jumps, measures a document lacks, the page of a trace that made a NaN,
and the transitions toggle. Documents are real traces (stats=True, timing=True)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import browser_models
import pytest
import torch
from browser_page import OpenPage, Viewer
from torch import nn

import vista_core

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]

FILLS = ("els => Object.fromEntries(els.map(e => [e.dataset.id,"
         " (e.querySelector(':scope > path, :scope > rect.vista-module-frame') || e).getAttribute('fill')]))")


def _measured_mlp() -> dict[str, Any]:
    """The browser MLP traced with statistics and timing."""
    torch.manual_seed(0)
    return vista_core.trace(browser_models.MLP(), torch.randn(2, 16), stats=True, timing=True).to_dict()


class LogOfNegative(nn.Module):
    """A Linear, then the log of its output minus 100: every value turns NaN at the log."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.head = nn.Sequential(nn.Linear(4, 4), nn.ReLU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        return self.head(torch.log(h - 100.0))


class Transitions(nn.Module):
    """A bf16 cast, a contiguous copy of a transpose and a reshape of a permute."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x).to(torch.bfloat16)
        t = h.transpose(0, 1).contiguous()
        p = t.permute(1, 0).reshape(-1)
        return p.float().sum() + x.reshape(-1).sum()


def _fills(viewer: Viewer, css: str) -> dict[str, str | None]:
    fills: dict[str, str | None] = viewer.page.eval_on_selector_all(viewer.sel(css), FILLS)
    return fills


def _colour_by(viewer: Viewer, key: str) -> None:
    viewer.page.select_option(viewer.sel('select[data-control="colour-by"]'), key)


def test_colour_by_each_measure_changes_fills_and_legend(documents: Documents, open_viewer: OpenPage) -> None:
    doc = _measured_mlp()
    viewer = open_viewer(doc, depth=2)
    ops = 'g.vista-node[data-kind="op"]'
    boxes = 'g.vista-module[data-state="collapsed"]'
    plain_ops, plain_boxes = _fills(viewer, ops), _fills(viewer, boxes)
    assert plain_ops and plain_boxes
    legend = viewer.sel(".vista-heat-legend")
    assert not viewer.page.is_visible(legend)
    units = {"flops": "FLOP", "bytes": "B", "time": "µs", "params": "", "nonfinite": ""}
    for key, unit in units.items():
        _colour_by(viewer, key)
        painted_ops, painted_boxes = _fills(viewer, ops), _fills(viewer, boxes)
        assert painted_boxes != plain_boxes, key
        if key != "params":  # ops hold no parameters: they turn neutral, which is a change too
            assert len(set(painted_ops.values())) >= 1
        assert painted_ops != plain_ops, key
        assert viewer.page.is_visible(legend)
        assert viewer.page.get_attribute(legend, "data-measure") == key
        text = viewer.page.text_content(legend) or ""
        assert unit in text, (key, text)
    _colour_by(viewer, "none")
    assert _fills(viewer, ops) == plain_ops
    assert _fills(viewer, boxes) == plain_boxes
    assert not viewer.page.is_visible(legend)
    _colour_by(viewer, "flops")
    # Everything open: the op with the most FLOPs is the scale's top, ops without any are grey.
    viewer.click_action("expand-all")
    every_op = {n["id"] for n in doc["nodes"] if n["kind"] == "op"}
    viewer.page.wait_for_function(f"() => document.querySelectorAll('{ops}').length === {len(every_op)}")
    hot = _fills(viewer, ops)
    assert len(set(hot.values())) > 1, "ops with different FLOPs get different colours"
    heat: dict[str, str] = viewer.page.eval_on_selector_all(
        viewer.sel(ops), "els => Object.fromEntries(els.map(e => [e.dataset.id, e.dataset.heat]))")
    flops = {n["id"]: n.get("flops") for n in doc["nodes"] if n["id"] in heat}
    assert heat[max((i for i in flops if flops[i]), key=lambda i: flops[i] or 0)] == "1.000"
    assert all(heat[i] == "none" for i, f in flops.items() if not f)


def test_closed_boxes_show_their_totals(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=1)
    _colour_by(viewer, "flops")
    figures: dict[str, str] = viewer.page.eval_on_selector_all(
        viewer.sel('g.vista-module[data-state="collapsed"][data-figure]'),
        "els => Object.fromEntries(els.map(e => [e.dataset.id, e.dataset.figure]))")
    encoder = next(m for m in doc["modules"] if m["path"] == "encoder")
    assert encoder["flops"] > 0
    assert encoder["id"] in figures
    assert figures[encoder["id"]].endswith("FLOP")
    drawn = viewer.page.text_content(viewer.sel(f'g.vista-module[data-id="{encoder["id"]}"]')) or ""
    assert figures[encoder["id"]] in drawn
    value, unit = figures[encoder["id"]].split(" ")
    scale = {"FLOP": 1, "KFLOP": 1e3, "MFLOP": 1e6, "GFLOP": 1e9}[unit]
    assert float(value) * scale == pytest.approx(encoder["flops"], rel=0.01)


def test_measures_the_document_lacks_are_disabled_with_why(documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("mlp"))
    select = viewer.sel('select[data-control="colour-by"]')
    viewer.page.focus(select)
    options: list[dict[str, Any]] = viewer.page.eval_on_selector_all(
        f"{select} option", "els => els.map(o => ({value: o.value, disabled: o.disabled, title: o.title}))")
    by = {o["value"]: o for o in options}
    assert by["time"]["disabled"]
    assert "timing=True" in by["time"]["title"]
    assert by["nonfinite"]["disabled"]
    assert "stats=True" in by["nonfinite"]["title"]
    assert not by["flops"]["disabled"]
    assert not by["none"]["disabled"]


def test_hot_spot_list_jumps_to_an_op(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=1)
    _colour_by(viewer, "flops")
    viewer.click_control('button[data-control="hot-spots"]')
    panel = viewer.sel(".vista-hotspots")
    assert viewer.page.is_visible(panel)
    viewer.page.click(viewer.sel('.vista-hotspots button[data-tab="op"]'))
    rows: list[str] = viewer.page.eval_on_selector_all(viewer.sel(".vista-hotspots tr.vista-hotspot"),
                                                       "els => els.map(e => e.dataset.id)")
    flops = {n["id"]: n.get("flops") or 0 for n in doc["nodes"] if n["kind"] == "op"}
    assert rows[0] == max(flops, key=lambda i: flops[i])
    assert [flops[i] for i in rows] == sorted((flops[i] for i in rows), reverse=True)
    target = rows[0]
    assert target not in viewer.node_ids(), "the top op lies inside a closed module"
    viewer.page.click(viewer.sel(f'.vista-hotspots tr.vista-hotspot[data-id="{target}"]'))
    viewer.page.wait_for_selector(viewer.sel(f'g.vista-node[data-id="{target}"]'))
    node = next(n for n in doc["nodes"] if n["id"] == target)
    assert viewer.page.text_content(viewer.sel(".vista-details header h3")) == node["label"]
    box = viewer.page.eval_on_selector(viewer.sel(f'g.vista-node[data-id="{target}"]'),
                                       "e => e.getBoundingClientRect().toJSON()")
    size = viewer.page.viewport_size
    assert size is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= size["width"]
    assert box["y"] >= 0
    assert box["y"] + box["height"] <= size["height"]
    # Sorting by name reorders the list.
    viewer.page.click(viewer.sel('.vista-hotspots th button[data-sort="name"]'))
    names: list[str] = viewer.page.eval_on_selector_all(
        viewer.sel(".vista-hotspots .vista-hotspot-name > div:first-child"), "els => els.map(e => e.textContent)")
    assert names == sorted(names)
    assert len(names) == len(rows)


def test_hot_spot_list_jumps_to_a_module_share_of_the_whole(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=1)
    _colour_by(viewer, "bytes")
    viewer.click_control('button[data-control="hot-spots"]')
    first = viewer.sel(".vista-hotspots tr.vista-hotspot")
    target = viewer.page.get_attribute(first, "data-id")
    module = next(m for m in doc["modules"] if m["id"] == target)
    root = doc["modules"][0]
    share = viewer.page.text_content(f"{first} .vista-hotspot-share") or ""
    assert share == f"{module['bytes'] / root['bytes'] * 100:.0f}%"
    # By their own ops, a container with none (the encoder) drops out.
    viewer.page.click(viewer.sel('.vista-hotspots button[data-tab="self"]'))
    own: list[str] = viewer.page.eval_on_selector_all(viewer.sel(".vista-hotspots tr.vista-hotspot"),
                                                      "els => els.map(e => e.dataset.id)")
    encoder = next(m["id"] for m in doc["modules"] if m["path"] == "encoder")
    assert encoder not in own
    assert own and own[0] != target
    viewer.page.click(viewer.sel('.vista-hotspots button[data-tab="module"]'))
    viewer.page.click(first)
    cost = viewer.sel(f'.vista-details [data-insight-of="{target}"]')
    viewer.page.wait_for_selector(cost, state="attached")
    assert f"{share} of the model" in (viewer.page.text_content(cost) or "")


def test_colours_follow_the_theme(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=1, theme="light")
    _colour_by(viewer, "flops")
    boxes = 'g.vista-module[data-state="collapsed"]'
    light = _fills(viewer, boxes)
    bar = viewer.sel(".vista-heat-bar")
    light_bar = viewer.page.eval_on_selector(bar, "e => e.style.background")
    viewer.click_action("toggle-theme")
    viewer.page.wait_for_function("() => document.querySelector('.vista-viewer').dataset.theme === 'dark'")
    dark = _fills(viewer, boxes)
    assert dark.keys() == light.keys()
    assert all(dark[i] != light[i] for i in light), "every painted box takes the dark scale"
    assert viewer.page.eval_on_selector(bar, "e => e.style.background") != light_bar
    assert viewer.page.get_attribute(viewer.sel(".vista-heat-legend"), "data-measure") == "flops"


def test_zoomed_out_class_colours_leave_the_heat_visible(documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("bert"), depth=1)
    level = f"() => document.querySelector('{viewer.root} svg.vista-graph').dataset.lod"
    for _ in range(12):  # far enough for the level of detail, which is built only then
        if viewer.page.evaluate(level) == "far":
            break
        viewer.click_action("zoom-out")
        viewer.page.wait_for_timeout(100)
    assert viewer.page.evaluate(level) == "far"
    lod = viewer.sel(".vista-layer-lod .vista-lod-outline")
    fills = "els => els.map(e => getComputedStyle(e).fill)"
    assert any(f != "none" for f in viewer.page.eval_on_selector_all(lod, fills)), "closed boxes get class fills"
    _colour_by(viewer, "flops")
    assert all(f == "none" for f in viewer.page.eval_on_selector_all(lod, fills))
    _colour_by(viewer, "none")
    assert any(f != "none" for f in viewer.page.eval_on_selector_all(lod, fills))


def test_the_nan_page_opens_on_the_first_nonfinite_op(open_viewer: OpenPage) -> None:
    torch.manual_seed(0)
    doc = vista_core.trace(LogOfNegative(), torch.randn(2, 4), stats=True).to_dict()
    first = doc["first_nonfinite"]
    node = next(n for n in doc["nodes"] if n["id"] == first)
    assert node["name"].endswith("log")
    viewer = open_viewer(doc, depth=0)
    # Opened on it: drawn although depth 0 closes everything, marked, selected.
    assert first in viewer.node_ids()
    marked = viewer.page.eval_on_selector_all(viewer.sel('[data-nonfinite="true"]'),
                                              "els => els.map(e => e.dataset.id)")
    assert marked == [first]
    assert viewer.page.query_selector(viewer.sel('[data-failed="true"]')) is None
    assert viewer.page.text_content(viewer.sel(".vista-details header h3")) == node["label"]
    assert "first op to make a non-finite value" in (viewer.page.text_content(viewer.sel(".vista-details")) or "")
    drawn = viewer.node_ids()
    healthy = next(n["id"] for n in doc["nodes"] if n["kind"] == "op" and n["id"] != first and n["id"] in drawn)
    stroke = "e => e.getAttribute('stroke')"
    assert viewer.page.eval_on_selector(viewer.sel(f'g.vista-node[data-id="{first}"] > path'), stroke) != \
        viewer.page.eval_on_selector(viewer.sel(f'g.vista-node[data-id="{healthy}"] > path'), stroke)
    # The banner names the op, its source line and its input's range.
    banner = viewer.page.text_content(viewer.sel(".vista-nonfinite")) or ""
    assert node["name"] in banner
    assert f'{node["source"]["file"]}:{node["source"]["line"]}' in banner
    assert "torch.log(h - 100.0)" in banner
    (edge,) = [e for e in doc["edges"] if e["target"] == first]
    source = next(n for n in doc["nodes"] if n["id"] == edge["source"])
    low = source["outputs"][edge["source_output"]]["stats"]["min"]
    assert f"min {float(f'{low:.4g}')}" in banner
    assert "8 NaN" in banner
    # Colour by non-finite paints it hot; the mark stays.
    viewer.page.select_option(viewer.sel('select[data-control="colour-by"]'), "nonfinite")
    assert viewer.page.get_attribute(viewer.sel(f'g.vista-node[data-id="{first}"]'), "data-heat") not in (None, "none")
    assert viewer.page.get_attribute(viewer.sel(f'g.vista-node[data-id="{first}"]'), "data-nonfinite") == "true"


def test_a_finite_page_has_no_nonfinite_banner(open_viewer: OpenPage) -> None:
    torch.manual_seed(0)
    doc = vista_core.trace(Transitions(), torch.randn(2, 8), stats=True).to_dict()
    assert doc.get("first_nonfinite") is None
    viewer = open_viewer(doc)
    assert viewer.page.query_selector(viewer.sel(".vista-nonfinite")) is None
    assert viewer.page.query_selector(viewer.sel('[data-nonfinite="true"]')) is None


def test_transitions_toggle_marks_casts_and_copies(open_viewer: OpenPage) -> None:
    torch.manual_seed(0)
    doc = vista_core.trace(Transitions(), torch.randn(2, 8)).to_dict()
    viewer = open_viewer(doc, depth=1)
    marked = 'g[data-transition]'
    assert viewer.page.query_selector(viewer.sel(marked)) is None
    viewer.click_control('button[data-control="transitions"]')
    found: dict[str, str] = viewer.page.eval_on_selector_all(
        viewer.sel(marked), "els => Object.fromEntries(els.map(e => [e.dataset.id, e.dataset.transition]))")
    names = {n["id"]: n["name"].rsplit(".", 1)[-1] for n in doc["nodes"]}
    assert sorted((names[i], k) for i, k in found.items()) == [("contiguous", "copy"), ("float", "cast"),
                                                              ("reshape", "copy"), ("to", "cast")]
    tags = viewer.page.eval_on_selector_all(viewer.sel(".vista-transition-tag"), "els => els.map(e => e.textContent)")
    assert "fp32→bf16" in tags
    assert "bf16→fp32" in tags
    legend = viewer.page.text_content(viewer.sel(".vista-transitions-legend")) or ""
    assert "2 dtype casts" in legend
    assert "2 layout copies" in legend
    # The reshape of the plain input is a view, not a copy.
    plain = [i for i, n in names.items() if n == "reshape" and i not in found]
    assert len(plain) == 1
    viewer.click_control('button[data-control="transitions"]')
    assert viewer.page.query_selector(viewer.sel(marked)) is None
    assert not viewer.page.is_visible(viewer.sel(".vista-transitions-legend"))

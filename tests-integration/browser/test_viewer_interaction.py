"""Pan and zoom, the progress indicator, and the viewer where the browser is restricted
(no Web Worker, a Content-Security-Policy refusing blob: scripts and workers), and the
notebook's dark theme."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import browser_expectations as ex
import pytest
from browser_page import OpenPage, Viewer, Watch
from playwright.sync_api import Page

from vista_render_html import render_html

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]


def _rect(viewer: Viewer, node_id: str) -> dict[str, float]:
    rect: dict[str, float] = viewer.page.eval_on_selector(viewer.sel(f'g.vista-node[data-id="{node_id}"]'),
                                                          "e => e.getBoundingClientRect().toJSON()")
    return rect


def _settle(viewer: Viewer) -> None:
    viewer.page.wait_for_timeout(500)  # zoom transitions, if any


def test_zoom_buttons_wheel_drag_and_fit(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")  # depth stops at torch.nn layers
    node = next(n["id"] for n in doc["nodes"] if n["name"] == "torch.nn.functional.gelu")
    start = _rect(viewer, node)

    viewer.click_action("zoom-in")
    _settle(viewer)
    bigger = _rect(viewer, node)
    assert bigger["width"] > start["width"] * 1.1

    viewer.click_action("zoom-out")
    viewer.click_action("zoom-out")
    _settle(viewer)
    smaller = _rect(viewer, node)
    assert smaller["width"] < bigger["width"] * 0.9

    # Drag on the empty canvas pans by the drag distance.
    svg = viewer.page.eval_on_selector(viewer.sel("svg.vista-graph"), "e => e.getBoundingClientRect().toJSON()")
    x, y = svg["x"] + 40, svg["y"] + svg["height"] - 60
    viewer.page.mouse.move(x, y)
    viewer.page.mouse.down()
    viewer.page.mouse.move(x + 120, y - 50, steps=8)
    viewer.page.mouse.up()
    moved = _rect(viewer, node)
    assert abs(moved["x"] - smaller["x"] - 120) < 3
    assert abs(moved["y"] - smaller["y"] + 50) < 3
    assert abs(moved["width"] - smaller["width"]) < 0.5

    # The wheel zooms.
    viewer.page.mouse.move(moved["x"] + moved["width"] / 2, moved["y"] + moved["height"] / 2)
    viewer.page.mouse.wheel(0, -400)
    _settle(viewer)
    assert _rect(viewer, node)["width"] > moved["width"] * 1.1

    # Fit brings every node inside the drawing area.
    viewer.click_action("fit")
    _settle(viewer)
    for node_id in viewer.node_ids():
        rect = _rect(viewer, node_id)
        assert svg["x"] - 1 <= rect["x"] and rect["x"] + rect["width"] <= svg["x"] + svg["width"] + 1, node_id
        assert svg["y"] - 1 <= rect["y"] and rect["y"] + rect["height"] <= svg["y"] + svg["height"] + 1, node_id


# Notes whether .vista-progress was ever shown, even if only between two observer callbacks:
# a record of its `hidden` attribute going away counts.
PROGRESS_PROBE = """
window.__progressSeen = false;
new MutationObserver((records) => {
  for (const r of records) {
    const t = r.target;
    if (t instanceof Element && t.classList.contains('vista-progress') && r.attributeName === 'hidden'
        && r.oldValue !== null) window.__progressSeen = true;
  }
  const p = document.querySelector('.vista-progress');
  if (p && !p.hidden && getComputedStyle(p).display !== 'none') window.__progressSeen = true;
}).observe(document, { subtree: true, childList: true, attributes: true, attributeOldValue: true });
"""


@pytest.mark.slow
def test_progress_indicator_while_a_long_layout_runs(documents: Documents, open_html: Callable[..., Page]) -> None:
    doc = documents("gpt2_24")
    page = open_html(render_html(doc, depth=1))
    page.add_init_script(PROGRESS_PROBE)
    page.reload()
    viewer = Viewer(page)
    viewer.wait_ready()
    assert page.is_hidden(viewer.sel(".vista-progress"))
    page.evaluate("() => { window.__progressSeen = false; }")
    # A slower CPU makes this layout take well over the indicator's ~150 ms on any machine.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 6})
    start = time.monotonic()
    viewer.click_action("expand-all")
    full = ex.full_view(doc)
    viewer.wait_for_view(full.nodes, full.boxes, timeout=120)
    elapsed = time.monotonic() - start
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    assert elapsed > 0.3, "precondition: the layout took long enough to need the indicator"
    assert page.evaluate("() => window.__progressSeen") is True
    assert page.is_hidden(viewer.sel(".vista-progress"))


def test_without_web_workers_the_layout_runs_on_the_page(documents: Documents,
                                                         open_html: Callable[..., Page]) -> None:
    doc = documents("bert")
    page = open_html(render_html(doc, depth=3))
    page.add_init_script("delete globalThis.Worker")
    page.reload()
    viewer = Viewer(page)
    viewer.wait_ready()
    assert page.evaluate("() => typeof Worker") == "undefined"
    expected = ex.view_at_depth(doc, 3)
    viewer.wait_for_view(expected.nodes, expected.boxes)


def _explore_under_policy(doc: dict[str, Any], policy: str, open_html: Callable[..., Page]) -> Viewer:
    """Open ``doc``'s page under the Content-Security-Policy ``policy``: its depth-2 view, then
    Expand all, must be drawn."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    html = render_html(doc, depth=2).replace('<meta charset="utf-8">', '<meta charset="utf-8">' + meta, 1)
    viewer = Viewer(open_html(html))
    viewer.wait_ready()
    expected = ex.view_at_depth(doc, 2)
    viewer.wait_for_view(expected.nodes, expected.boxes)
    viewer.click_action("expand-all")
    full = ex.full_view(doc)
    viewer.wait_for_view(full.nodes, full.boxes)
    return viewer


def test_under_a_policy_refusing_blob_scripts_and_workers(documents: Documents, watch: Watch,
                                                          open_html: Callable[..., Page]) -> None:
    # Notebook front ends may forbid blob: scripts and workers; eval stays allowed.
    _explore_under_policy(documents("cnn"), "script-src 'unsafe-inline' 'unsafe-eval'", open_html)
    # The only console errors are the policy's refusals of blob: URLs.
    assert watch.console_errors
    assert all("Content Security Policy" in e and "blob:" in e for e in watch.console_errors), watch.console_errors
    watch.console_errors.clear()


def test_under_a_policy_refusing_eval(documents: Documents, watch: Watch, open_html: Callable[..., Page]) -> None:
    # eval refused, blob: scripts and workers and WebAssembly allowed: the loader runs the bundle
    # as a blob: script, and every layout (the first view too) runs in the worker.
    viewer = _explore_under_policy(documents("cnn"), "script-src 'unsafe-inline' blob: 'wasm-unsafe-eval'; "
                                   "worker-src blob:", open_html)
    # The PDF code, carried as text, runs as a blob: script when eval is refused.
    head = viewer.page.eval_on_selector(
        "[data-vista=root]",
        "async r => new TextDecoder().decode((await (await r.vistaHandle.exportPDF()).arrayBuffer()).slice(0, 5))")
    assert head == "%PDF-"
    assert all("eval" in e for e in watch.console_errors), watch.console_errors
    watch.console_errors.clear()


def test_jupyterlab_dark_theme_is_followed(documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("mlp"), color_scheme="light")
    assert viewer.page.get_attribute(viewer.root, "data-theme") == "light"
    viewer.page.evaluate(
        """doc => {
            document.body.setAttribute("data-jp-theme-light", "false");
            const box = document.createElement("div");
            box.id = "notebook-output";
            box.style.height = "400px";
            document.body.appendChild(box);
            VistaViewer.mount(box, doc, { theme: "auto" });
        }""",
        documents("mlp"),
    )
    second = Viewer(viewer.page, "#notebook-output")
    second.wait_ready()
    assert viewer.page.get_attribute(second.root, "data-theme") == "dark"

"""The page around the viewer: themes, two viewers on one page, hostile strings, a page
that also defines AMD `define`, and screenshots to look at."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import browser_expectations as ex
import pytest
from browser_models import HOSTILE_CLASS, HOSTILE_MESSAGE
from browser_page import OpenPage, Viewer, Watch
from playwright.sync_api import Page, expect

from vista_render_html import render_html

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]


def _background(viewer: Viewer) -> str:
    return viewer.page.eval_on_selector(viewer.root, "e => getComputedStyle(e).backgroundColor")


@pytest.mark.parametrize(("scheme", "theme", "expected"), [
    ("light", "auto", "light"), ("dark", "auto", "dark"), ("light", "dark", "dark"), ("dark", "light", "light"),
])
def test_theme_follows_the_system_or_the_option(scheme: str, theme: str, expected: str, documents: Documents,
                                                open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("mlp"), color_scheme=scheme, theme=theme)
    assert viewer.page.get_attribute(viewer.root, "data-theme") == expected


def test_theme_toggle(documents: Documents, open_viewer: OpenPage) -> None:
    viewer = open_viewer(documents("mlp"), theme="light")
    light = _background(viewer)
    viewer.click_action("toggle-theme")
    assert viewer.page.get_attribute(viewer.root, "data-theme") == "dark"
    dark = _background(viewer)
    assert dark != light
    viewer.click_action("toggle-theme")
    assert viewer.page.get_attribute(viewer.root, "data-theme") == "light"
    assert _background(viewer) == light
    viewer.evaluate_handle("h => h.setTheme('dark')")
    assert viewer.page.get_attribute(viewer.root, "data-theme") == "dark"


def test_two_viewers_on_one_page_do_not_interfere(documents: Documents, open_viewer: OpenPage) -> None:
    first_doc, second_doc = documents("mlp"), documents("cnn")
    first = open_viewer(first_doc, depth=1, height="400px")
    page = first.page
    page.evaluate(
        """doc => {
            const box = document.createElement("div");
            box.id = "second";
            box.style.height = "400px";
            document.body.appendChild(box);
            box.vistaHandle = VistaViewer.mount(box, doc, { depth: 1 });
        }""",
        second_doc,
    )
    first = Viewer(page, ".vista-page")
    second = Viewer(page, "#second")
    second.wait_ready()
    one, two = ex.view_at_depth(first_doc, 1), ex.view_at_depth(second_doc, 1)
    first.wait_for_view(one.nodes, one.boxes)
    second.wait_for_view(two.nodes, two.boxes)

    second.click_action("expand-all")
    full = ex.full_view(second_doc)
    second.wait_for_view(full.nodes, full.boxes)
    first.wait_for_view(one.nodes, one.boxes, timeout=1)

    node = next(n for n in second_doc["nodes"] if n["name"] == "torch.nn.functional.conv2d")
    page.click(second.sel(f'g.vista-node[data-id="{node["id"]}"]'))
    page.wait_for_function("() => document.querySelector('#second .vista-details').textContent.includes('conv2d')")
    assert "conv2d" not in (page.text_content(first.sel(".vista-details")) or "")
    # No element id is used twice in the document (ids in one viewer's SVG must not clash).
    duplicates = page.evaluate("""() => {
        const seen = new Map();
        for (const e of document.querySelectorAll('[id]')) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
        return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
    }""")
    assert duplicates == []


def test_hostile_strings_render_as_text(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("hostile")
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")  # depth stops at torch.nn layers
    page = viewer.page
    assert HOSTILE_MESSAGE in page.text_content(viewer.sel(".vista-error"))
    # Open modules' titles are drawn in their own layer, above the edges.
    box_labels = page.eval_on_selector_all(viewer.sel("g.vista-module, g.vista-module-title"),
                                           "els => els.map(e => e.textContent)")
    assert any(HOSTILE_CLASS in label for label in box_labels)
    inner = next(m for m in doc["modules"] if m["path"] == "inner")
    page.click(viewer.sel(f'g.vista-module-title[data-id="{inner["id"]}"] text'))
    page.wait_for_function("sel => document.querySelector(sel).textContent.includes('<img')",
                           arg=viewer.sel(".vista-details"))
    svg = viewer.evaluate_handle("h => h.exportSVG()")
    assert "<img" not in svg
    assert "&lt;img src=x onerror=alert(1)&gt;" in svg
    # No markup got through: no image, no bold, no injected script ran (dialogs fail the test).
    assert page.evaluate("() => document.querySelectorAll('img, b').length") == 0
    assert page.evaluate("() => document.querySelectorAll('script:not([data-vista])').length") == 1
    loader = page.evaluate("() => document.querySelector('script:not([data-vista])').textContent")
    assert "currentScript" in loader


def test_works_next_to_an_amd_loader(documents: Documents, open_html: Callable[..., Page]) -> None:
    doc = documents("mlp")
    page = open_html(render_html(doc, depth=2))
    page.add_init_script("window.define = function () { throw new Error('AMD define called'); };"
                         " window.define.amd = {};")
    page.reload()
    viewer = Viewer(page)
    viewer.wait_ready()
    expected = ex.view_at_depth(doc, 2)
    viewer.wait_for_view(expected.nodes, expected.boxes)
    assert page.evaluate("() => Object.keys(globalThis.VistaViewer).sort()") == ["mount", "version"]


@pytest.mark.parametrize(("name", "depth", "expand"), [("mlp", 2, False), ("mlp", 1, True), ("bert", 3, False),
                                                       ("bert", 1, False), ("failing", None, False),
                                                       ("cnn", 3, False), ("gpt2", 2, False)])
def test_screenshots(name: str, depth: int | None, expand: bool, documents: Documents, open_viewer: OpenPage,
                     artifacts: Path) -> None:
    doc = documents(name)
    viewer = open_viewer(doc, depth=depth)
    if expand:
        viewer.click_action("expand-all")
        full = ex.full_view(doc)
        viewer.wait_for_view(full.nodes, full.boxes)
    suffix = "all" if expand else f"depth{depth}"
    path = artifacts / f"{name}-{suffix}.png"
    viewer.page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000


def test_a_document_the_viewer_cannot_draw_says_so(documents: Documents, watch: Watch,
                                                   open_html: Callable[..., Page]) -> None:
    doc = json.loads(json.dumps(documents("mlp")))
    doc["nodes"][1]["module"] = "m999"  # no such module call: passes the page's checks, not the viewer's
    page = open_html(render_html(doc))
    viewer = Viewer(page)
    page.wait_for_selector(f"{viewer.root}[data-state=error-rendering]", state="attached")
    # The loader reports the rejected `ready` on the console, once (checked here, not at teardown).
    for _ in range(40):
        if watch.console_errors:
            break
        page.wait_for_timeout(50)
    assert len(watch.console_errors) == 1
    assert "m999" in watch.console_errors[0]
    watch.console_errors.clear()
    message = page.text_content(viewer.root) or ""
    assert "m999" in message
    # The reason is on screen, not below the fold.
    visible = page.evaluate("""() => [...document.querySelectorAll('.vista-viewer *')]
        .filter(e => e.children.length === 0 && e.textContent.includes('m999'))
        .some(e => { const r = e.getBoundingClientRect();
                     return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; })""")
    assert visible, "the viewer's error message is outside the window"
    assert page.query_selector(viewer.sel("g.vista-node")) is None


def _framed(page_html: str) -> str:
    """A host page holding ``page_html`` the way vista-jupyter shows it: a sandboxed srcdoc frame
    (the host's own posting script is vista-jupyter's, tested in the notebooks session)."""
    return ('<!doctype html><html><body><iframe id="f" sandbox="allow-scripts allow-downloads" '
            f'style="width: 900px; height: 500px" srcdoc="{html.escape(page_html, quote=True)}"></iframe>'
            '</body></html>')


def _frame_theme(page: Page) -> str | None:
    frame = page.frame_locator("#f").locator(".vista-viewer")
    expect(frame).to_have_attribute("data-state", "ready", timeout=60_000)
    return frame.get_attribute("data-theme")


def _post(page: Page, message: object) -> None:
    page.evaluate("m => document.getElementById('f').contentWindow.postMessage(m, '*')", message)


def test_a_framed_page_follows_the_theme_its_notebook_posts(documents: Documents,
                                                           open_html: Callable[..., Page]) -> None:
    page = open_html(_framed(render_html(documents("mlp"))), color_scheme="light")
    assert _frame_theme(page) == "light"  # nothing posted yet: the system setting
    _post(page, {"type": "vista:host-theme", "theme": "dark"})
    expect(page.frame_locator("#f").locator(".vista-viewer")).to_have_attribute("data-theme", "dark")
    # Anything else is ignored: unknown values, other message types, strings.
    for message in ({"type": "vista:host-theme", "theme": "light; x"}, {"type": "other", "theme": "light"},
                    "vista:host-theme light", None):
        _post(page, message)
    page.wait_for_timeout(200)
    assert _frame_theme(page) == "dark"
    _post(page, {"type": "vista:host-theme", "theme": "light"})
    expect(page.frame_locator("#f").locator(".vista-viewer")).to_have_attribute("data-theme", "light")


def test_a_framed_page_hears_only_its_parent_and_an_explicit_theme_wins(documents: Documents,
                                                                       open_html: Callable[..., Page]) -> None:
    page = open_html(_framed(render_html(documents("mlp"), theme="light")), color_scheme="light")
    assert _frame_theme(page) == "light"
    _post(page, {"type": "vista:host-theme", "theme": "dark"})
    page.wait_for_timeout(200)
    assert _frame_theme(page) == "light"  # theme="light" was asked for: the notebook's theme does not override

    page = open_html(_framed(render_html(documents("mlp"))), name="other.html", color_scheme="light")
    assert _frame_theme(page) == "light"
    # The frame posting to itself (not its parent) changes nothing.
    page.frame_locator("#f").locator("body").evaluate(
        "() => window.postMessage({ type: 'vista:host-theme', theme: 'dark' }, '*')")
    page.wait_for_timeout(200)
    assert _frame_theme(page) == "light"


def test_the_page_throws_no_error_while_it_starts(browser: Any, documents: Documents, tmp_path: Path) -> None:
    """From load to the first view drawn, no Error object is thrown, even one caught at once.
    With an inspector attached (DevTools, or any test or benchmark driver) V8 records each new
    Error's stack with source positions, re-parsing every function on the stack, the whole
    bundle included: one caught TypeError in Graphviz's start cost the first view 30-50 ms.
    (Graphviz's own file-system lookups throw plain ErrnoError objects, not Errors: they are
    allowed here, and they are what shows that the check sees thrown exceptions at all.)"""
    path = tmp_path / "page.html"
    path.write_text(render_html(documents("gpt2")), encoding="utf-8")
    context = browser.new_context()
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        thrown: list[tuple[str, str]] = []

        def paused(event: dict[str, Any]) -> None:
            data = event.get("data") or {}
            thrown.append((str(data.get("subtype")), str(data.get("description", ""))[:300]))
            cdp.send("Debugger.resume")

        cdp.on("Debugger.paused", paused)
        cdp.send("Debugger.enable")
        cdp.send("Debugger.setPauseOnExceptions", {"state": "all"})
        page.goto(path.as_uri())
        Viewer(page).wait_ready()
        page.wait_for_timeout(300)  # the layout worker starts after the first view
    finally:
        context.close()
    errors = [description for subtype, description in thrown if subtype == "error"]
    assert errors == [], f"the page threw while starting: {errors}"
    assert thrown, "no exception was seen at all: the check is not watching (Graphviz's lookups throw)"


def test_a_document_of_a_newer_minor_version_is_drawn(documents: Documents, open_viewer: OpenPage) -> None:
    # This renderer reads schema 1.0; a 1.1 writer adds optional fields (cost, timing,
    # statistics) in the document, nodes, module calls and edges, which it must ignore.
    plain = documents("cnn")
    newer = json.loads(json.dumps(plain))
    newer["schema_version"] = "1.1"
    newer["totals"] = {"flops": 1000, "bytes": 64}
    for node in newer["nodes"]:
        node.update(flops=10, time_us=1.5, stats={"min": -1.0, "max": 1.0})
    for module in newer["modules"]:
        module.update(flops=100, param_bytes=4 * module["num_params"])
    for edge in newer["edges"]:
        edge["bytes"] = 32
    viewer = open_viewer(newer, depth=1)
    one = ex.view_at_depth(plain, 1)
    viewer.wait_for_view(one.nodes, one.boxes)
    viewer.click_action("expand-all")
    full = ex.full_view(plain)
    viewer.wait_for_view(full.nodes, full.boxes)
    node = next(n for n in plain["nodes"] if n["name"] == "torch.nn.functional.conv2d")
    viewer.page.click(viewer.sel(f'g.vista-node[data-id="{node["id"]}"]'))
    viewer.page.wait_for_function(
        "() => document.querySelector('.vista-details').textContent.includes('conv2d')")

"""The page's own loader, with stand-in bundles written here: it decompresses the bundle and
the graph, runs the bundle, and mounts the viewer with the document and options unchanged;
it says so on the page when it cannot. Independent of the real viewer (see test_viewer_*.py).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from browser_models import HOSTILE_CLASS, HOSTILE_MESSAGE
from browser_page import Watch
from playwright.sync_api import Page

import vista_render_html._bundle as bundle_module
from vista_render_html import render_html

pytestmark = pytest.mark.browser

# Records what mount() receives and draws a ready root, as the contract asks of the viewer.
RECORDING_BUNDLE = b"""(function () {
  var calls = [];
  // What the loader hands the code as it runs it (see frontend/src/assets.ts).
  var given = typeof __vistaAssets === "undefined" ? null : __vistaAssets;
  var assets = given === null ? null : { graphviz: given.graphviz, pdf: given.pdf(), frozen: Object.isFrozen(given) };
  globalThis.VistaViewer = { version: "recording", calls: calls, assets: assets,
                             mount: function (container, doc, options) {
    calls.push({ doc: JSON.stringify(doc), options: JSON.stringify(options),
                 inRoot: container.matches('[data-vista="root"]') });
    var root = document.createElement("div");
    root.className = "vista-viewer";
    root.dataset.state = "ready";
    root.textContent = doc.modules[0].class_name;
    container.appendChild(root);
    return { ready: Promise.resolve(), destroy: function () {} };
  } };
})();
"""

THROWING_BUNDLE = b'(function () { throw new Error("bundle exploded"); })();\n'


@pytest.fixture
def with_bundle(monkeypatch: pytest.MonkeyPatch) -> Callable[[bytes], None]:
    def use(code: bytes) -> None:
        monkeypatch.setattr(bundle_module, "bundle_bytes", lambda: code)

    return use


def _calls(page: Page) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = page.evaluate("() => globalThis.VistaViewer.calls")
    return calls


def _check_assets(page: Page) -> None:
    """The code was handed Graphviz's WebAssembly and the PDF chunk exactly as the package ships
    them (base64 of their DEFLATE bytes), and no global is left behind."""
    assets = page.evaluate("() => globalThis.VistaViewer.assets")
    assert assets is not None, "the loader did not pass __vistaAssets"
    assert assets["graphviz"] == bundle_module.asset_payload("graphviz")
    assert assets["pdf"] == bundle_module.asset_payload("pdf")
    assert assets["frozen"] is True
    assert page.evaluate("() => '__vistaAssets' in globalThis") is False


@pytest.mark.parametrize("name", ["mlp", "hostile"])
def test_mount_receives_the_document_and_options_unchanged(
    name: str, documents: Callable[[str], dict[str, Any]], with_bundle: Callable[[bytes], None],
    open_html: Callable[..., Page],
) -> None:
    with_bundle(RECORDING_BUNDLE)
    doc = documents(name)
    page = open_html(render_html(doc, depth=2, theme="dark", show_constants=False))
    page.wait_for_selector(".vista-viewer[data-state=ready]", state="attached")
    calls = _calls(page)
    assert len(calls) == 1
    assert json.loads(calls[0]["doc"]) == doc
    assert json.loads(calls[0]["options"]) == {"depth": 2, "theme": "dark", "showParameters": True,
                                               "showConstants": False, "height": "100%"}
    assert calls[0]["inRoot"] is True
    assert page.eval_on_selector("[data-vista=root]", "r => typeof r.vistaHandle.destroy") == "function"
    # Strings from the model are text in the DOM, never markup.
    assert page.text_content(".vista-viewer") == doc["modules"][0]["class_name"]
    assert page.evaluate("() => document.querySelectorAll('img, b').length") == 0
    if name == "hostile":
        assert HOSTILE_CLASS in calls[0]["doc"]
        assert HOSTILE_MESSAGE in calls[0]["doc"]


def test_title_and_height_of_the_page(documents: Callable[[str], dict[str, Any]],
                                      with_bundle: Callable[[bytes], None], open_html: Callable[..., Page]) -> None:
    with_bundle(RECORDING_BUNDLE)
    page = open_html(render_html(documents("hostile"), height=321))
    page.wait_for_selector(".vista-viewer[data-state=ready]", state="attached")
    assert page.title() == f"{HOSTILE_CLASS} (ValueError) · Vista"
    assert page.eval_on_selector(".vista-page", "e => e.getBoundingClientRect().height") == 321


def test_a_broken_bundle_is_reported_on_the_page(documents: Callable[[str], dict[str, Any]], watch: Watch,
                                                 with_bundle: Callable[[bytes], None],
                                                 open_html: Callable[..., Page]) -> None:
    with_bundle(THROWING_BUNDLE)
    page = open_html(render_html(documents("mlp")))
    page.wait_for_selector(".vista-page-message", state="visible")
    assert "did not define VistaViewer.mount" in page.text_content(".vista-page-message")
    assert any("bundle exploded" in e for e in watch.page_errors)
    assert any("VistaViewer.mount" in e for e in watch.console_errors)
    watch.page_errors.clear()
    watch.console_errors.clear()


def test_without_decompression_stream_the_page_says_why(documents: Callable[[str], dict[str, Any]],
                                                        with_bundle: Callable[[bytes], None],
                                                        open_html: Callable[..., Page]) -> None:
    with_bundle(RECORDING_BUNDLE)
    page = open_html(render_html(documents("mlp")))
    page.add_init_script("delete globalThis.DecompressionStream")
    page.reload()
    page.wait_for_selector(".vista-page-message", state="visible")
    assert "DecompressionStream" in page.text_content(".vista-page-message")
    assert page.query_selector(".vista-viewer") is None


def _loaded_under_policy(doc: dict[str, Any], policy: str, with_bundle: Callable[[bytes], None],
                         open_html: Callable[..., Page]) -> Page:
    """The page of ``doc`` with the recording bundle, under the Content-Security-Policy
    ``policy``, once the loader has mounted the viewer exactly once."""
    with_bundle(RECORDING_BUNDLE)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    page = open_html(render_html(doc).replace('<meta charset="utf-8">', '<meta charset="utf-8">' + meta, 1))
    page.wait_for_selector(".vista-viewer[data-state=ready]", state="attached")
    assert len(_calls(page)) == 1
    return page


def test_the_bundle_is_evaluated_without_a_blob_script(
    documents: Callable[[str], dict[str, Any]], watch: Watch, with_bundle: Callable[[bytes], None],
    open_html: Callable[..., Page],
) -> None:
    # Notebook front ends may refuse blob: scripts; the loader evaluates the bundle directly
    # (faster to start than a script element), so nothing is refused and nothing is logged.
    page = _loaded_under_policy(documents("mlp"), "script-src 'unsafe-inline' 'unsafe-eval'", with_bundle, open_html)
    assert page.query_selector("script[data-vista=code]") is None
    _check_assets(page)
    assert watch.console_errors == []


def test_a_policy_refusing_eval_falls_back_to_a_blob_script(
    documents: Callable[[str], dict[str, Any]], watch: Watch, with_bundle: Callable[[bytes], None],
    open_html: Callable[..., Page],
) -> None:
    page = _loaded_under_policy(documents("mlp"), "script-src 'unsafe-inline' blob:", with_bundle, open_html)
    assert page.query_selector("script[data-vista=code]") is not None
    _check_assets(page)  # as a global while the script ran, removed once it had
    # Chromium may report the refused eval on the console; nothing else may appear.
    assert all("eval" in e for e in watch.console_errors), watch.console_errors
    watch.console_errors.clear()


def test_the_real_bundle_run_without_its_assets_says_what_is_missing(
    documents: Callable[[str], dict[str, Any]], watch: Watch, open_html: Callable[..., Page],
) -> None:
    # A host that runs the bundle's code alone, without the loader: the viewer still mounts and
    # says on the page what is missing instead of failing somewhere inside Graphviz's start.
    code = base64.b64encode(bundle_module.bundle_bytes()).decode("ascii")
    doc = json.dumps(documents("mlp")).replace("<", "\\u003c")
    page = open_html(
        '<!doctype html><meta charset="utf-8"><div id="root" style="height:400px"></div>'
        f'<script>new Function(new TextDecoder().decode(Uint8Array.from(atob("{code}"), c => c.charCodeAt(0))))();'
        f'VistaViewer.mount(document.getElementById("root"), {doc}, {{}}).ready.catch(() => {{}});</script>'
    )
    page.wait_for_selector(".vista-viewer[data-state=error-rendering]", state="attached")
    message = page.inner_text(".vista-message")
    assert "ran without its assets" in message and "__vistaAssets" in message, message
    watch.console_errors.clear()

"""The notebook output: the self-contained page inside a sandboxed ``<iframe srcdoc>``.

Why a frame: notebook hosts differ (JupyterLab 4 and Notebook 7 put outputs in the page,
VS Code in a webview where an AMD ``define`` may exist, Colab in one iframe per output). A
frame of its own gives the viewer a fresh document in every one of them: it reads no page
globals, its styles and scripts cannot touch the host page, and several outputs in one
notebook cannot see each other.

The sandbox allows scripts (the viewer) and downloads (its SVG/PNG/PDF exports) and nothing
else: without ``allow-same-origin`` the page runs in an opaque origin, so it cannot reach the
notebook's cookies, storage or DOM.

So the framed page cannot see the notebook's theme either. A small script next to the frame, run
by the notebook (JupyterLab and Notebook 7 run scripts of a cell's own outputs, VS Code too),
reads it (JupyterLab's ``data-jp-theme-light``, VS Code's ``vscode-dark`` / ``vscode-light``
body classes) and posts it into the frame when the frame loads and whenever it changes; the
page's theme "auto" follows it. Where the script does not run (an untrusted notebook) or the
notebook shows no theme, "auto" follows the system setting as before.
"""

from __future__ import annotations

import html
import json

from vista_schema import host_theme_schema

__all__ = ["SANDBOX", "iframe_html"]

#: What the framed page may do: run its own scripts and save exported files.
SANDBOX = "allow-scripts allow-downloads"

# Runs in the notebook's page, right after the frame (its previous sibling): posts the notebook's
# theme to the frame as the message of vista-schema's host-theme.schema.json (its "type" is
# filled in from the schema below).
_HOST_THEME_SCRIPT = """<script>
(function () {
  var script = document.currentScript, frame = script && script.previousElementSibling;
  if (!frame || frame.tagName !== "IFRAME" || typeof MutationObserver === "undefined") return;
  function theme() {
    var body = document.body, light = body.getAttribute("data-jp-theme-light");
    if (light === "true" || light === "false") return light === "true" ? "light" : "dark";
    if (body.classList.contains("vscode-dark") || body.classList.contains("vscode-high-contrast")) return "dark";
    if (body.classList.contains("vscode-light")) return "light";
    return null;
  }
  function post(target) {
    var value = theme();
    if (value === null || !target.contentWindow) return;
    target.contentWindow.postMessage({ type: __HOST_THEME_TYPE__, theme: value }, "*");
  }
  // On every load of the frame (also when the notebook re-attaches it), now (in case it has
  // loaded already), and on every theme change; the watcher holds the frame weakly, so a
  // cleared output's frame (and its page) can be freed, and then the watcher stops.
  frame.addEventListener("load", function (event) { post(event.currentTarget); });
  post(frame);
  var ref = typeof WeakRef === "function" ? new WeakRef(frame) : { deref: function () { return frame; } };
  frame = null;
  var watch = new MutationObserver(function () {
    var target = ref.deref();
    if (!target) watch.disconnect();
    else if (target.isConnected) post(target);
  });
  watch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "class"] });
})();
</script>""".replace("__HOST_THEME_TYPE__", json.dumps(host_theme_schema()["properties"]["type"]["const"]))


def iframe_html(page: str, *, height: str, width: str, title: str) -> str:
    """An ``<iframe>`` element showing ``page`` (a full HTML document) at the given CSS size.

    The page goes into the ``srcdoc`` attribute escaped as attribute text, so nothing in it
    (quotes, ``</iframe>``, model names) can end the attribute or the element early. The
    notebook-side theme script follows the frame (see the module docstring).
    ``height``/``width`` must already be checked CSS lengths (see ``vista_schema.check_css_length``).
    """
    style = f"width: {width}; height: {height}; border: 0; display: block; max-width: 100%;"
    return (
        f'<iframe class="vista-frame" title="{html.escape(title, quote=True)}" '
        f'sandbox="{SANDBOX}" style="{style}" '
        f'srcdoc="{html.escape(page, quote=True)}"></iframe>' + _HOST_THEME_SCRIPT
    )

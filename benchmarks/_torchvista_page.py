"""torchvista's exported HTML page in headless Chromium, measured like ``page_bench`` measures Vista's.

- size: bytes of the HTML file ``trace_model(..., export_format="html")`` writes;
- first draw: ``performance.now()`` (from the start of the navigation) when the first graph
  node (``g.node_<id>``) appears, recorded by a MutationObserver installed before the page's
  scripts run (torchvista draws the whole graph in one task, so the first node means the graph);
- expand all: torchvista has no open-all control, so this is the first draw of the same model
  exported fully open (``collapse_modules_after_depth=1000``), the quickest way to see every node;
- one + click: a click on the + of the collapsed module holding the most nodes, until the
  next animation frame after the page's (synchronous) re-layout and redraw.

Medians over fresh page loads; the network is blocked (the page is self-contained).
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path
from typing import Any

__all__ = ["bench_torchvista_page"]

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
LOCAL = ("file:", "about:", "data:", "blob:")

_FIRST_NODE_PROBE = """
(() => {
  const check = () => {
    if (globalThis.__tvDrawnAt === undefined && document.querySelector('[id^="graph_"] svg g[class^="node_"]'))
      globalThis.__tvDrawnAt = performance.now();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true });
})();
"""

# The expandable collapsed modules on screen: [name, index of its + button].
_EXPANDABLE = """
() => Array.from(document.querySelectorAll('[id^="graph_"] svg g[class^="node_"] circle[class^="collapse-button_"]'))
  .map((c, i) => [d3.select(c.parentNode).datum()[0], i])
"""

_TIMED_OPEN = """
async (index) => {
  const buttons = document.querySelectorAll('[id^="graph_"] svg g[class^="node_"] circle[class^="collapse-button_"]');
  const start = performance.now();
  buttons[index].dispatchEvent(new MouseEvent('click', { bubbles: true }));
  await new Promise(requestAnimationFrame);
  return performance.now() - start;
}
"""


def _module_sizes(html: str) -> dict[str, int]:
    match = re.search(r"const parent_module_to_nodes = ", html)
    if match is None:
        return {}
    value, _ = json.JSONDecoder().raw_decode(html, match.end())
    return {name: len(nodes) for name, nodes in value.items()} if isinstance(value, dict) else {}


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def bench_torchvista_page(page: Path, expanded_page: Path | None = None, *, repeats: int = 3,
                          timeout_ms: float = 180_000, chromium: str | None = None) -> dict[str, Any]:
    """Measure torchvista's ``page`` (and the fully open ``expanded_page``) in headless Chromium."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    executable = chromium or shutil.which("chromium")
    if executable is None:
        raise RuntimeError("Debian's chromium is needed: apt-get install -y chromium")
    html = page.read_text(encoding="utf-8")
    sizes = _module_sizes(html)
    runs: dict[str, list[float]] = {"ready_ms": [], "expand_all_ms": [], "toggle_open_ms": []}
    notes: list[str] = []
    blocked: list[str] = []
    errors: list[str] = []
    toggled: str | None = None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)

        def local_only(route: Any, request: Any) -> None:
            if request.url.startswith(LOCAL):
                route.continue_()
            else:
                blocked.append(request.url)
                route.abort()

        def load(path: Path) -> Any:
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.route("**/*", local_only)
            tab = context.new_page()
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.add_init_script(_FIRST_NODE_PROBE)
            tab.goto(path.as_uri())
            tab.wait_for_function("() => globalThis.__tvDrawnAt !== undefined", timeout=timeout_ms)
            return context, tab

        try:
            for _ in range(repeats):
                context, tab = load(page)
                runs["ready_ms"].append(tab.evaluate("() => globalThis.__tvDrawnAt"))
                expandable = tab.evaluate(_EXPANDABLE)
                if expandable:
                    name, index = max(expandable, key=lambda item: sizes.get(item[0], 0))
                    toggled = name
                    runs["toggle_open_ms"].append(tab.evaluate(_TIMED_OPEN, index))
                context.close()
            if expanded_page is not None:
                for _ in range(repeats):
                    try:
                        context, tab = load(expanded_page)
                    except PlaywrightError as exc:
                        notes.append(f"fully open page not drawn within {timeout_ms / 1000:.0f} s: "
                                     f"{str(exc).splitlines()[0]}")
                        break
                    runs["expand_all_ms"].append(tab.evaluate("() => globalThis.__tvDrawnAt"))
                    context.close()
        finally:
            browser.close()
    if blocked or errors:
        notes.append(f"the page misbehaved: network requests {blocked[:3]}, page errors {errors[:3]}")
    return {
        "page_bytes": len(html.encode("utf-8")),
        "expanded_page_bytes": expanded_page.stat().st_size if expanded_page is not None else None,
        "toggled_module": toggled,
        "ready_ms": _median(runs["ready_ms"]),
        "expand_all_ms": _median(runs["expand_all_ms"]),
        "toggle_open_ms": _median(runs["toggle_open_ms"]),
        "runs": {k: [round(v, 1) for v in values] for k, values in runs.items()},
        "notes": notes,
    }

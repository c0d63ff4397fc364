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
import statistics
from pathlib import Path
from typing import Any

__all__ = ["bench_torchvista_page"]

# torchvista draws the whole graph in one task, so its first graph node means the graph.
TORCHVISTA_DRAWN = "document.querySelector('[id^=\"graph_\"] svg g[class^=\"node_\"]') !== null"

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
    from playwright.sync_api import sync_playwright

    from ._browser import Loaded, launch, open_page

    html = page.read_text(encoding="utf-8")
    sizes = _module_sizes(html)
    runs: dict[str, list[float]] = {"ready_ms": [], "expand_all_ms": [], "toggle_open_ms": []}
    notes: list[str] = []
    loads: list[Loaded] = []
    toggled: str | None = None
    with sync_playwright() as p:
        browser = launch(p, chromium)

        def load(path: Path, figure: str) -> tuple[Any, Any]:
            loaded = open_page(browser, path, TORCHVISTA_DRAWN, timeout_ms=timeout_ms)
            loads.append(loaded)  # its request and error lists keep collecting while it is clicked
            runs[figure].append(loaded.drawn_ms)
            return loaded.context, loaded.tab

        try:
            for _ in range(repeats):
                context, tab = load(page, "ready_ms")
                expandable = tab.evaluate(_EXPANDABLE)
                if expandable:
                    name, index = max(expandable, key=lambda item: sizes.get(item[0], 0))
                    toggled = name
                    runs["toggle_open_ms"].append(tab.evaluate(_TIMED_OPEN, index))
                context.close()
            if expanded_page is not None:
                for _ in range(repeats):
                    try:
                        context, tab = load(expanded_page, "expand_all_ms")
                    except TimeoutError as exc:
                        notes.append(f"fully open page not drawn within {timeout_ms / 1000:.0f} s: "
                                     f"{str(exc).splitlines()[0]}")
                        break
                    context.close()
        finally:
            browser.close()
    blocked = [url for loaded in loads for url in loaded.network]
    errors = [error for loaded in loads for error in loaded.errors]
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

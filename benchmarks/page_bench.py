"""How fast a Vista page is in headless Chromium: size, first view, open-all, one +/− click.

``bench_page(document)`` renders the page with vista_render_html, opens it from a file:// URL in
Debian's Chromium (network blocked) and returns a dict of measurements; run this file to
measure a 24-layer GPT-2:

    /work/dev/bin/python benchmarks/page_bench.py [--repeats 5] [--layers 24]

Times are taken inside the page with ``performance.now()``: "ready" from the start of the
navigation to the viewer's ``data-state="ready"`` (first graph drawn); "expand all" from the
click on the open-all button until every node is drawn; "toggle" from a click on a box's
+ (or −) until the box is redrawn open (or closed) and the viewer is ready again: the biggest
child of the model, then (for a model with a repeated run) the unfolding of the "×N" box and
+/− on its middle block. Medians over ``repeats`` fresh page loads (and several clicks per
load). Figures, not pass/fail limits.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: python benchmarks/page_bench.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._browser import Loaded, launch, open_page

# The first graph is drawn when the viewer reports data-state="ready" (see _browser.open_page).
VISTA_DRAWN = "document.querySelector('.vista-viewer[data-state=\"ready\"]') !== null"

# The viewer's (and its page loader's) `vista:*` User Timing marks, ms from navigation start.
_MARKS = """
() => Object.fromEntries(performance.getEntriesByType('mark')
  .filter(m => m.name.startsWith('vista:')).map(m => [m.name.slice(6), m.startTime]))
"""

# Clicks `selector`, then waits (each animation frame) until `done` holds; returns elapsed ms.
_TIMED_CLICK = """
async ([selector, done, arg]) => {
  const check = new Function('arg', done);
  const start = performance.now();
  document.querySelector(selector).dispatchEvent(new MouseEvent('click', { bubbles: true }));
  for (;;) {
    await new Promise(requestAnimationFrame);
    if (check(arg)) return performance.now() - start;
    if (performance.now() - start > 120000) throw new Error('timed out after ' + selector);
  }
}
"""

_ALL_DRAWN = """
  const root = document.querySelector('.vista-viewer');
  return root.dataset.state === 'ready' && root.querySelectorAll('g.vista-node').length === arg
    && root.querySelectorAll('g.vista-module[data-state="collapsed"]').length === 0;
"""

_BOX_IS = """
  const root = document.querySelector('.vista-viewer');
  const box = root.querySelector(`g.vista-module[data-id="${arg[0]}"]`);
  return root.dataset.state === 'ready' && box !== null && box.dataset.state === arg[1];
"""


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def _first_run(document: dict[str, Any]) -> tuple[int, str, str, str] | None:
    """(depth that shows the run folded, its fold key, its middle call, its second call: the id of
    the box of the calls after the first once the run is opened) of the first repeated run."""
    blocks = document.get("repeated_blocks", [])
    if not blocks:
        return None
    parent = {m["id"]: m["parent"] for m in document["modules"]}
    members = blocks[0]["modules"]
    depth, current = 0, parent[members[0]]
    while current is not None:
        depth, current = depth + 1, parent[current]
    return depth, members[0], members[len(members) // 2], members[1]


def _toggle_target(document: dict[str, Any]) -> str:
    """A module just below the root that holds the most nodes: its + opens a good deal."""
    modules = document["modules"]
    root = modules[0]["id"]
    parent = {m["id"]: m["parent"] for m in modules}
    folded = {m for block in document.get("repeated_blocks", []) for m in block["modules"]}
    counts: dict[str, int] = {}
    for node in document["nodes"]:
        current: str | None = node["module"]
        while current is not None and parent[current] != root:
            current = parent[current]
        if current is not None and current not in folded:
            counts[current] = counts.get(current, 0) + 1
    if not counts:
        raise ValueError("the document has no module below the root to open")
    return max(counts, key=lambda m: counts[m])


def bench_page(document: Any, *, repeats: int = 5, clicks: int = 5, chromium: str | None = None,
               timeout_ms: float = 120_000) -> dict[str, Any]:
    """Measure the Vista page of ``document`` (a Graph, dict or JSON text) in headless Chromium.

    Returns a dict: ``page_bytes``, ``nodes``, ``modules``, and medians in ms over ``repeats``
    fresh page loads: ``ready_ms`` (first view), ``expand_all_ms`` (on a fresh page: nothing
    laid out yet), ``toggle_first_ms`` (the first + of a page: its layout is not cached yet),
    ``toggle_open_ms`` / ``toggle_close_ms`` / ``toggle_ms`` (all ``clicks`` + and − on the
    model's biggest child), and for a model with a repeated run ``unfold_ms`` (its "×N" box
    unfolded) and ``block_open_ms`` / ``block_close_ms`` (+/− on its middle block).
    ``marks_ms`` has the median time of each ``vista:*`` User Timing mark of the page, read
    right after each first view (where its time goes; a mark set later, such as the layout
    worker's start, is missing from loads where it came after). ``runs`` holds every sample.
    """
    from playwright.sync_api import sync_playwright

    from vista_render_html import render_html
    from vista_render_html._document import read_document

    doc = read_document(document)
    html = render_html(doc, depth=1)
    box = _toggle_target(doc)
    run = _first_run(doc)
    runs: dict[str, list[float]] = {name: [] for name in (
        "ready_ms", "expand_all_ms", "toggle_first_ms", "toggle_open_ms", "toggle_close_ms", "open_run_ms", "unfold_ms",
        "block_open_ms", "block_close_ms")}
    marks: dict[str, list[float]] = {}
    loads: list[Loaded] = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        path = Path(tmp) / "page.html"
        path.write_text(html, encoding="utf-8")
        browser = launch(p, chromium)

        def load() -> Any:
            loaded = open_page(browser, path, VISTA_DRAWN, timeout_ms=timeout_ms)
            loads.append(loaded)  # its request and error lists keep collecting while it is clicked
            runs["ready_ms"].append(loaded.drawn_ms)
            for name, at in loaded.tab.evaluate(_MARKS).items():
                marks.setdefault(name, []).append(at)
            return loaded.tab

        def click(page: Any, selector: str, done: str, arg: object) -> float:
            elapsed: float = page.evaluate(_TIMED_CLICK, [selector, done, arg])
            return elapsed

        try:
            for _ in range(repeats):
                page = load()  # expand all on a page where nothing else was laid out
                runs["expand_all_ms"].append(click(page, '.vista-viewer button[data-action="expand-all"]', _ALL_DRAWN,
                                                   len(doc["nodes"])))
                page.context.close()

                page = load()
                toggle = f'.vista-viewer g.vista-module[data-id="{box}"] [data-action="toggle"]'
                for i in range(clicks):
                    opened = click(page, toggle, _BOX_IS, [box, "expanded"])
                    runs["toggle_first_ms" if i == 0 else "toggle_open_ms"].append(opened)
                    runs["toggle_close_ms"].append(click(page, toggle, _BOX_IS, [box, "collapsed"]))
                if run is not None:
                    depth, key, member, rest = run
                    page.eval_on_selector("[data-vista=root]", "(root, d) => root.vistaHandle.setDepth(d)", depth)
                    page.wait_for_selector(f'.vista-viewer g.vista-module[data-id="{key}"][data-repeat]',
                                           state="attached", timeout=timeout_ms)
                    # + on "×N" opens its first call ("1 of N"); + on the box of the others unfolds the run.
                    fold = f'.vista-viewer g.vista-module[data-id="{key}"] [data-action="toggle"]'
                    runs["open_run_ms"].append(click(page, fold, _BOX_IS, [key, "expanded"]))
                    others = f'.vista-viewer g.vista-module[data-id="{rest}"] [data-action="toggle"]'
                    runs["unfold_ms"].append(click(page, others, _BOX_IS, [member, "collapsed"]))
                    block = f'.vista-viewer g.vista-module[data-id="{member}"] [data-action="toggle"]'
                    for _ in range(clicks):
                        runs["block_open_ms"].append(click(page, block, _BOX_IS, [member, "expanded"]))
                        runs["block_close_ms"].append(click(page, block, _BOX_IS, [member, "collapsed"]))
                page.context.close()
        finally:
            browser.close()
    blocked = [url for loaded in loads for url in loaded.network]
    errors = [error for loaded in loads for error in loaded.errors]
    if blocked or errors:
        raise RuntimeError(f"the page misbehaved: network requests {blocked[:3]}, page errors {errors[:3]}")
    toggles = runs["toggle_first_ms"] + runs["toggle_open_ms"] + runs["toggle_close_ms"]
    return {
        "page_bytes": len(html.encode("utf-8")),
        "nodes": len(doc["nodes"]),
        "modules": len(doc["modules"]),
        "toggled_module": box,
        **{name: _median(values) for name, values in runs.items()},
        "toggle_ms": _median(toggles),
        "marks_ms": dict(sorted(((name, _median(values)) for name, values in marks.items()),
                                key=lambda item: item[1] or 0.0)),
        "runs": {k: [round(v, 1) for v in values] for k, values in runs.items()},
    }


def gpt2_document(layers: int = 24) -> dict[str, Any]:
    """A GPT-2 with ``layers`` blocks and small widths, random weights, traced by vista-core."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    import vista_core

    torch.manual_seed(0)
    config = GPT2Config(n_layer=layers, n_embd=64, n_head=4, vocab_size=1000, n_positions=64,
                        bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config).eval()
    ids = torch.randint(0, 1000, (1, 16))
    document: dict[str, Any] = vista_core.trace(model, (), kwargs={"input_ids": ids}).to_dict()
    return document


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Vista page speed in headless Chromium (GPT-2).")
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--clicks", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    document = gpt2_document(args.layers)
    trace_s = time.perf_counter() - start
    result = bench_page(document, repeats=args.repeats, clicks=args.clicks)
    if args.json:
        print(json.dumps({"trace_s": round(trace_s, 2), **result}, indent=2))
        return 0
    print(f"GPT-2, {args.layers} layers: {result['nodes']} nodes, {result['modules']} module calls "
          f"(traced in {trace_s:.1f} s)")
    print(f"page size              {result['page_bytes'] / 1e6:.2f} MB")
    print(f"first view (ready)     {result['ready_ms']} ms   (median of {args.repeats} loads)")
    print("  marks: " + ", ".join(f"{name} {at:.0f}" for name, at in result["marks_ms"].items() if at is not None))
    print(f"expand all             {result['expand_all_ms']} ms")
    print(f"first + click          {result['toggle_first_ms']} ms   ({result['toggled_module']}, not cached)")
    print(f"one + click            {result['toggle_open_ms']} ms")
    print(f"one − click            {result['toggle_close_ms']} ms")
    if result["unfold_ms"] is not None:
        print(f"open the ×N run        {result['open_run_ms']} ms   (its first call, \"1 of N\")")
        print(f"unfold the ×N run      {result['unfold_ms']} ms")
        print(f"+ on one block         {result['block_open_ms']} ms")
        print(f"− on one block         {result['block_close_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

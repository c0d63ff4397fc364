"""Vista's page at two commits, measured side by side: did a viewer change make it slower?

``python -m benchmarks.compare_pages OLD NEW [--rounds 15] [--layers 24] [--out FILE]`` traces
one GPT-2 (``page_bench.gpt2_document``) with this checkout, renders that same document into a
page with each commit's vista-render-html (its bundle and template, from a temporary git
worktree, in a child process with that commit's package sources on ``PYTHONPATH``), and then
opens the two pages in one headless Chromium in alternating order (old first in even rounds),
each load in a fresh context: the first view, then the first + on ``page_bench``'s box (the
model's biggest child), and on another fresh load Expand all (``page_bench``'s open-all
button, "Open everything" where the toolbar has a menu). Reported: each commit's medians and
the median of the paired ratios new / old, so the drift of a shared machine hits both alike.
``NEW`` may be ``WORKTREE``: this checkout as it is, uncommitted bundle included.

Besides the wall time, each measure reports the CPU time the page's main thread and its layout
worker spent on it (the thread time of Chromium's trace events): on a busy machine the wall time
mostly says how long the page waited for a core, while the CPU time says how much work it did.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._browser import VIEWPORT, launch, open_page
from benchmarks._commits import commit_trees, publish, run_with_sources
from benchmarks.page_bench import _ALL_DRAWN, _BOX_IS, _TIMED_CLICK, VISTA_DRAWN, _toggle_target, gpt2_document

_RENDER = """
import sys
from pathlib import Path
from vista_render_html import render_html
Path(sys.argv[2]).write_text(render_html(Path(sys.argv[1]).read_text(encoding="utf-8"), depth=1), encoding="utf-8")
"""

# The open-all control: a toolbar button, or (once the toolbar groups it) its menu item.
_EXPAND_ALL = '.vista-viewer [data-action="expand-all"]'


def _render(tree: Path, document: Path, page: Path) -> None:
    run_with_sources(tree, _RENDER, str(document), str(page))


_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel"]
_READY_AT = "() => performance.getEntriesByName('vista:ready')[0]?.startTime ?? null"


def thread_cpu_ms(trace: bytes) -> dict[str, float]:
    """CPU ms of the renderer's main thread ("main") and of its dedicated workers ("worker") in a
    Chromium trace: the thread time of its outermost events (nested ones are inside them)."""
    events = json.loads(trace)["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans: dict[str, list[tuple[int, int, int]]] = {"main": [], "worker": []}
    for e in events:
        if e.get("ph") != "X" or "tdur" not in e or "dur" not in e:
            continue
        thread = names.get((e["pid"], e["tid"]), "")
        key = "main" if thread == "CrRendererMain" else "worker" if thread.startswith("DedicatedWorker") else None
        if key is not None:
            spans[key].append((e["ts"], e["dur"], e["tdur"]))
    totals: dict[str, float] = {}
    for key, found in spans.items():
        found.sort(key=lambda span: (span[0], -span[1]))
        total, end = 0, -1
        for ts, dur, tdur in found:
            if ts >= end:  # an outermost event
                total += tdur
                end = ts + dur
        totals[key] = total / 1000
    return totals


def _traced(browser: Any, tab: Any, run: Callable[[], float]) -> dict[str, float]:
    browser.start_tracing(page=tab, categories=_CATEGORIES)
    try:
        wall = run()
        tab.evaluate("() => new Promise(r => setTimeout(r, 50))")  # the last frame's paint
    finally:
        cpu = thread_cpu_ms(browser.stop_tracing())
    return {"wall": wall, "main": cpu["main"], "worker": cpu["worker"]}


def _one(browser: Any, page: Path, box: str, nodes: int) -> dict[str, float]:
    """First view and first + click on one fresh load; Expand all on another: wall and CPU ms."""
    toggle = f'.vista-viewer g.vista-module[data-id="{box}"] [data-action="toggle"]'
    figures: dict[str, float] = {}
    context = browser.new_context(viewport=VIEWPORT)
    try:
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))

        def load() -> float:
            tab.goto(page.as_uri(), wait_until="commit")
            tab.wait_for_selector('.vista-viewer[data-state="ready"]', state="attached", timeout=120_000)
            at: float = tab.evaluate(_READY_AT)
            return at

        for name, value in _traced(browser, tab, load).items():
            figures[f"ready_{name}"] = value
        tab.evaluate("() => new Promise(r => setTimeout(r, 300))")
        click = _traced(browser, tab, lambda: float(tab.evaluate(_TIMED_CLICK, [toggle, _BOX_IS, [box, "expanded"]])))
        for name, value in click.items():
            figures[f"toggle_first_{name}"] = value
        if errors:
            raise RuntimeError(f"{page} misbehaved: {errors[:3]}")
    finally:
        context.close()
    loaded = open_page(browser, page, VISTA_DRAWN)
    try:
        loaded.tab.evaluate("() => new Promise(r => setTimeout(r, 300))")
        expand = _traced(browser, loaded.tab,
                         lambda: float(loaded.tab.evaluate(_TIMED_CLICK, [_EXPAND_ALL, _ALL_DRAWN, nodes])))
        for name, value in expand.items():
            figures[f"expand_all_{name}"] = value
    finally:
        loaded.close()
    if loaded.network or loaded.errors:
        raise RuntimeError(f"{page} misbehaved: {loaded.network[:3]} {loaded.errors[:3]}")
    return figures


def compare(pages: dict[str, Path], box: str, nodes: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    from playwright.sync_api import sync_playwright

    names = list(pages)
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in names}
    with sync_playwright() as p:
        browser = launch(p)
        try:
            _one(browser, pages[names[0]], box, nodes)  # warm-up: Chromium's own caches
            for round_ in range(rounds):
                for name in names if round_ % 2 == 0 else names[::-1]:
                    for key, value in _one(browser, pages[name], box, nodes).items():
                        samples[name].setdefault(key, []).append(value)
        finally:
            browser.close()
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--out", type=Path, help="append the report to this markdown file")
    args = parser.parse_args(argv)
    document = gpt2_document(args.layers)
    box = _toggle_target(document)
    with tempfile.TemporaryDirectory() as tmp:
        doc_path = Path(tmp) / "document.json"
        doc_path.write_text(json.dumps(document), encoding="utf-8")
        pages: dict[str, Path] = {}
        sizes: dict[str, int] = {}
        with commit_trees((args.old, args.new), Path(tmp)) as trees:
            for rev, tree in trees.items():
                pages[rev] = Path(tmp) / f"{rev.replace('/', '_')}.html"
                _render(tree, doc_path, pages[rev])
                sizes[rev] = pages[rev].stat().st_size
        samples = compare(pages, box, len(document["nodes"]), args.rounds)
    old, new = args.old, args.new
    lines = [f"### {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC: page of {old} vs {new}", "",
             f"GPT-2 {args.layers} layers ({len(document['nodes'])} nodes), one document rendered by each commit's "
             f"vista-render-html; {args.rounds} alternating rounds in one Chromium, each a fresh load for the first "
             f"view and the first + on `{box}`, and another for Expand all; wall time and thread CPU time "
             f"(Chromium's trace).", "",
             f"| measure | {old} | {new} | median of paired new / old |", "|---|---:|---:|---:|",
             f"| page size | {sizes[old] / 1e6:.3f} MB | {sizes[new] / 1e6:.3f} MB | {sizes[new] / sizes[old]:.3f} |"]
    for key, label in (("ready", "first view"), ("toggle_first", "first + click"), ("expand_all", "Expand all")):
        for part, what in (("wall", "wall"), ("main", "main-thread CPU"), ("worker", "worker CPU")):
            a, b = samples[old][f"{key}_{part}"], samples[new][f"{key}_{part}"]
            pairs = [y / x for x, y in zip(a, b) if x > 0]
            ratio = f"{statistics.median(pairs):.3f}" if pairs else "–"
            lines.append(f"| {label}, {what} | {statistics.median(a):.1f} ms | {statistics.median(b):.1f} ms "
                         f"| {ratio} |")
    lines.append("")
    print(json.dumps(samples), file=sys.stderr)
    publish("\n".join(lines), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

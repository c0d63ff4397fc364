"""A +/- click's main-thread work before the layout request, at two commits side by side.

``python -m benchmarks.compare_clicks OLD NEW [--cases residual_10k,residual_50k] [--rounds 5]
[--pairs 2] [--out FILE]`` builds each scale document once (``_scale_models``), renders it with
each commit's vista-render-html (``compare_pages``' way: a temporary git worktree per commit,
``NEW`` may be ``WORKTREE``) and opens the pages in one headless Chromium in alternating order
(old first in even rounds, after one warm-up load), each a fresh load: Open all (timed to its
last drawn frame), then ``--pairs`` times − and + on the block ``_scale`` clicks. Per click it
reads the ``vista:layout-requested`` User Timing mark,
in ms from the click's dispatch (the click handler, the visible graph and its sizing all run
before it), and the time until the next ``vista:drawn`` frame. Reported per case: each
commit's medians over every click and the median of the paired ratios new / old (the i-th
click of a round's old page against the i-th of its new page).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._browser import launch, open_page
from benchmarks._commits import commit_trees, publish
from benchmarks._scale import _CLICK, _OBSERVE, _TIMED, _VISTA_DRAWN, _block_modules
from benchmarks._scale_models import SIZES
from benchmarks.compare_pages import _render

_TOGGLE = ("const root = document.querySelector('.vista-viewer');"
           "root.querySelector(`g.vista-module[data-id=\"${arg[0]}\"] [data-action=\"toggle\"]`)"
           ".dispatchEvent(new MouseEvent('click', { bubbles: true }));")
_STATE = ("const root = document.querySelector('.vista-viewer');"
          "const g = root.querySelector(`g.vista-module[data-id=\"${arg[0]}\"]`);"
          "return root.dataset.state === 'ready' && g !== null && g.dataset.state === arg[1];")
#: Per commit, per page (round): Open all's time and each click's figures.
Samples = dict[str, list[dict[str, Any]]]

_READY = "return document.querySelector('.vista-viewer').dataset.state === 'ready';"
_BIGGEST = """(sizes) => [...document.querySelectorAll('.vista-viewer g.vista-module[data-state="expanded"]')]
    .map((g) => g.dataset.id).filter((id) => id in sizes).sort((a, b) => sizes[b] - sizes[a])[0] ?? null"""


def _one(browser: Any, page: Path, blocks: dict[str, int], pairs: int) -> dict[str, Any]:
    """One fresh load: Open all, then ``pairs`` times − and + on the biggest block drawn."""
    loaded = open_page(browser, page, _VISTA_DRAWN, timeout_ms=300_000)
    try:
        tab = loaded.tab
        tab.evaluate(_OBSERVE)
        open_all, _, _ = tab.evaluate(_TIMED, [_CLICK.format(action="expand-all"), _READY, True, None])
        box = tab.evaluate(_BIGGEST, blocks)
        if box is None:
            raise RuntimeError(f"{page.name}: no block drawn to click")
        clicks: list[dict[str, float]] = []
        for _ in range(pairs):
            for state in ("collapsed", "expanded"):
                ms, longest, marks = tab.evaluate(_TIMED, [_TOGGLE, _STATE, True, [box, state]])
                if marks["layout-requested"] is None:
                    raise RuntimeError(f"{page.name}: no vista:layout-requested mark after the click")
                clicks.append({"requested": float(marks["layout-requested"]), "drawn": float(ms),
                               "longest_task": float(longest)})
    finally:
        loaded.close()
    if loaded.network or loaded.errors:
        raise RuntimeError(f"{page.name} misbehaved: {loaded.network[:3]} {loaded.errors[:3]}")
    return {"open_all": float(open_all), "clicks": clicks}


def compare(pages: dict[str, Path], blocks: dict[str, int], rounds: int, pairs: int) -> Samples:
    """Per commit, per round, its clicks' figures (see :func:`_one`)."""
    from playwright.sync_api import sync_playwright

    names = list(pages)
    samples: Samples = {name: [] for name in names}
    with sync_playwright() as p:
        browser = launch(p)
        try:
            _one(browser, pages[names[0]], blocks, 1)  # warm-up: Chromium's own caches
            for round_ in range(rounds):
                for name in names if round_ % 2 == 0 else names[::-1]:
                    samples[name].append(_one(browser, pages[name], blocks, pairs))
        finally:
            browser.close()
    return samples


def _report(case: str, nodes: int, old: str, new: str, samples: Samples, loads: tuple[float, float]) -> str:
    when = datetime.datetime.now(datetime.timezone.utc)
    lines = [f"### {when:%Y-%m-%d %H:%M} UTC: {case} ({nodes:,} nodes), {old} vs {new}", "",
             f"{len(samples[old])} alternating rounds, {len(samples[old][0]['clicks'])} clicks per page "
             "(− and + on one block "
             f"after Open all); load average {loads[0]:.1f} at the start, {loads[1]:.1f} at the end.", "",
             f"| ms from the click | {old} | {new} | median of paired new / old |", "|---|---:|---:|---:|"]
    a = [page["open_all"] for page in samples[old]]
    b = [page["open_all"] for page in samples[new]]
    lines.append(f"| Open all, to its last drawn frame | {statistics.median(a):,.0f} | {statistics.median(b):,.0f} "
                 f"| {statistics.median([y / x for x, y in zip(a, b) if x > 0]):.2f} |")
    for key, label in (("requested", "to `vista:layout-requested`"), ("drawn", "to the frame after `vista:drawn`"),
                       ("longest_task", "longest task")):
        a = [c[key] for page in samples[old] for c in page["clicks"]]
        b = [c[key] for page in samples[new] for c in page["clicks"]]
        pairs = [y / x for x, y in zip(a, b) if x > 0]
        lines.append(f"| click, {label} | {statistics.median(a):,.0f} | {statistics.median(b):,.0f} "
                     f"| {statistics.median(pairs):.2f} |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--cases", default="residual_10k,residual_50k")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=2, help="− and + pairs per page")
    parser.add_argument("--out", type=Path, help="append the report to this markdown file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, commit_trees((args.old, args.new), Path(tmp)) as trees:
        for case in args.cases.split(","):
            document = SIZES[case][2]()
            blocks = _block_modules(document)
            doc_path = Path(tmp) / "document.json"
            doc_path.write_text(json.dumps(document), encoding="utf-8")
            pages: dict[str, Path] = {}
            for rev, tree in trees.items():
                pages[rev] = Path(tmp) / f"{case}-{rev.replace('/', '_')}.html"
                _render(tree, doc_path, pages[rev])
            start = os.getloadavg()[0]
            samples = compare(pages, blocks, args.rounds, args.pairs)
            print(json.dumps({case: samples}), file=sys.stderr)
            publish(_report(case, len(document["nodes"]), args.old, args.new, samples, (start, os.getloadavg()[0])),
                    args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Vista's trace cost at two commits, measured side by side: is a change within its budget?

``python -m benchmarks.compare_commits OLD NEW [--pairs 6] [--rounds 15] [--out FILE]`` checks
both commits out into temporary git worktrees and alternates fresh processes between them
(old, new, old, new, ...), so the drift of a shared machine hits both alike. Each process
builds BERT-base (the trace-cost target model of ``models.py``) with one torch thread and
times ``rounds`` pairs of a plain forward pass and ``vista_core.trace`` under ``no_grad``.
Reported: for each commit the median over all its rounds of traced / plain time, the medians
per process, and the ratio new / old of the two medians. The package sources of each commit
are put on ``PYTHONPATH``, so nothing is installed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a file
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._commits import ROOT, commit_trees, publish, run_with_sources

_CHILD = """
import gc, json, statistics, sys, time
import torch
sys.path.insert(0, sys.argv[1])
from benchmarks.models import bert_base
import vista_core
torch.set_num_threads(1)
case = bert_base()
ratios = []
with torch.no_grad():
    case.forward()
    vista_core.trace(case.model, case.args)
    for _ in range(int(sys.argv[2])):
        gc.collect(); start = time.perf_counter(); case.forward(); plain = time.perf_counter() - start
        gc.collect(); start = time.perf_counter(); vista_core.trace(case.model, case.args)
        ratios.append((time.perf_counter() - start) / plain)
print(json.dumps(ratios))
"""


def _measure(tree: Path, rounds: int) -> list[float]:
    stdout = run_with_sources(tree, _CHILD, str(ROOT), str(rounds))
    ratios: list[float] = json.loads(stdout.strip().splitlines()[-1])
    return ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--pairs", type=int, default=6, help="processes per commit (default 6)")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds per process (default 15)")
    parser.add_argument("--out", type=Path, help="append the report to this markdown file")
    args = parser.parse_args(argv)
    samples: dict[str, list[list[float]]] = {args.old: [], args.new: []}
    with tempfile.TemporaryDirectory() as tmp, commit_trees((args.old, args.new), Path(tmp)) as trees:
        for _ in range(args.pairs):
            for rev in (args.old, args.new):
                samples[rev].append(_measure(trees[rev], args.rounds))
    medians = {rev: statistics.median(r for run in runs for r in run) for rev, runs in samples.items()}
    lines = [f"### {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC: {args.old} vs {args.new}", "",
             f"BERT-base, 1 torch thread, {args.pairs} alternating processes per commit, "
             f"{args.rounds} rounds each.", "",
             "| commit | trace cost (median traced / plain) | medians per process |", "|---|---|---|"]
    for rev, runs in samples.items():
        per = ", ".join(f"{statistics.median(run):.3f}" for run in runs)
        sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True,
                             text=True, check=True).stdout.strip()
        lines.append(f"| `{rev}` ({sha}) | {medians[rev]:.3f}× | {per} |")
    lines += ["", f"new / old: **{medians[args.new] / medians[args.old]:.3f}**", ""]
    publish("\n".join(lines), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

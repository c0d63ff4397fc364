"""Run the benchmark suite: ``python -m benchmarks.run [--smoke] [--out DIR] [--only SECTIONS]``.

Sections (all by default): ``trace`` (trace cost against the plain forward pass), ``pages``
(Vista's page vs torchvista's in headless Chromium), ``meta`` (a 70 B Llama-style model on the
meta device), ``diff`` (vista_core.diff of two 70 B traces, 80 vs 81 layers), ``scale`` (pages
of 2k to 100k nodes), ``coverage`` (Hugging Face architectures).
Results go to ``DIR/results.json`` and ``DIR/results.md`` (default ``benchmarks/results/``); the
markdown is printed too. With ``--only``, the sections not run keep their previous results from
``DIR/results.json``.

``--smoke`` runs a tiny GPT-2 with one repetition per tool in every section (and a 2-layer
slice of the 70 B shape), so that CI notices when the suite breaks. The exit code is 1 when a
section of the suite itself crashed or Vista could not trace the smoke model; a peer's failure
is a result, not an error.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ._report import TARGET_MODEL, evaluate_targets, markdown

__all__ = ["main"]

SECTIONS = ("trace", "pages", "meta", "diff", "scale", "coverage")
DEFAULT_OUT = Path(__file__).resolve().parent / "results"


def _log(message: str) -> None:
    print(message, flush=True)


def _trace_section(args: argparse.Namespace, workdir: Path, results: dict[str, Any]) -> None:
    import torch

    from ._case import Case
    from ._tools import REFERENCES, TOOL_ORDER, load_tools
    from ._trace_cost import measure_trace_cost
    from .hf_zoo import build
    from .models import TRACE_MODELS

    if args.threads:
        torch.set_num_threads(args.threads)
    results["settings"]["torch_threads"] = torch.get_num_threads()
    tools, missing = load_tools(workdir, (*TOOL_ORDER, *REFERENCES))
    results["settings"]["unavailable"] = missing
    for name, reason in missing.items():
        _log(f"  {name} not run: {reason}")
    builders: dict[str, Callable[[], Case]]
    if args.smoke:
        builders = {"gpt2_tiny": lambda: Case("GPT-2 tiny (smoke)", *_as_kwargs(build("GPT-2")))}
    else:
        builders = {k: v for k, v in TRACE_MODELS.items() if not args.models or k in args.models}
    # with --models, the other models keep their previous rows
    previous = ({row["key"]: row for row in results.get("trace_cost", []) if row.get("key") in TRACE_MODELS}
                if args.models else {})
    for key, builder in builders.items():
        _log(f"- {key}")
        case = builder()
        # The model a target is set on gets more rounds: its median ratio is the figure judged.
        rounds = args.target_rounds if key == TARGET_MODEL and not args.smoke else args.rounds
        row = measure_trace_cost(case, tools, rounds=rounds, warmup=not args.smoke, log=_log).to_dict()
        previous[key] = {"key": key, **row}
        del case
        gc.collect()
        order = [*TRACE_MODELS, *builders]
        results["trace_cost"] = sorted(previous.values(), key=lambda r: order.index(r["key"]))
    timings = results["trace_cost"]
    if args.smoke and any(t["tools"].get("vista", {}).get("error") for t in timings):
        raise RuntimeError("Vista failed to trace the smoke model: " + "; ".join(
            str(t["tools"]["vista"]["error"]) for t in timings))


def _as_kwargs(built: tuple[Any, dict[str, Any]]) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    model, inputs = built
    return model, (), inputs


def _pages_section(args: argparse.Namespace, workdir: Path, results: dict[str, Any]) -> None:
    from ._case import Case
    from ._pages import measure_pages
    from .hf_zoo import build
    from .models import gpt2

    case = Case("GPT-2 tiny (smoke)", *_as_kwargs(build("GPT-2"))) if args.smoke else gpt2(24)
    repeats, clicks, rounds = (1, 1, 1) if args.smoke else (args.page_repeats, 3, args.first_view_rounds)
    _log(f"- {case.name}")
    results["pages"] = measure_pages(case, workdir, repeats=repeats, clicks=clicks, first_view_rounds=rounds,
                                     log=_log)


def _meta_section(args: argparse.Namespace, workdir: Path, results: dict[str, Any]) -> None:
    from ._pages import meta_page

    target = workdir / "meta"
    cmd = [sys.executable, "-m", "benchmarks._meta70b", str(target), *(["2"] if args.smoke else [])]
    _log(f"- Llama-style 70 B shape on the meta device{' (2 layers, smoke)' if args.smoke else ''}")
    proc = subprocess.run(cmd, cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True,
                          check=False, timeout=1800, env=os.environ | {"PYTHONWARNINGS": "ignore"})
    line = next((x for x in proc.stdout.splitlines() if x.startswith("META70B ")), None)
    if line is None:
        tail = " | ".join(proc.stderr.strip().splitlines()[-5:])
        results["meta70b"] = {"error": f"exit code {proc.returncode}: {tail}"}
        _log(f"  FAILED {results['meta70b']['error']}")
        return
    figures = json.loads(line.removeprefix("META70B "))
    _log(f"  traced in {figures['trace_s']:.1f} s, peak RSS {figures['peak_rss_bytes'] / 2**20:.0f} MiB, "
         f"document {figures['document_bytes'] / 1e6:.2f} MB")
    figures = meta_page(figures, repeats=1 if args.smoke else 3, log=_log)
    _log(f"  page first draw {figures.get('first_draw_ms')} ms")
    for key in ("document", "page"):
        figures.pop(key, None)  # temporary files
    results["meta70b"] = figures


def _diff_section(args: argparse.Namespace, workdir: Path, results: dict[str, Any]) -> None:
    from ._pages import first_draw_ms

    target = workdir / "diff"
    layers = 2 if args.smoke else 80
    cmd = [sys.executable, "-m", "benchmarks._diff70b", str(target), str(layers)]
    _log(f"- vista_core.diff of two Llama-style 70 B traces on the meta device, {layers} vs {layers + 1} layers")
    proc = subprocess.run(cmd, cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True,
                          check=False, timeout=1800, env=os.environ | {"PYTHONWARNINGS": "ignore"})
    line = next((x for x in proc.stdout.splitlines() if x.startswith("DIFF70B ")), None)
    if line is None:
        tail = " | ".join(proc.stderr.strip().splitlines()[-5:])
        results["diff70b"] = {"error": f"exit code {proc.returncode}: {tail}"}
        _log(f"  FAILED {results['diff70b']['error']}")
        return
    figures = json.loads(line.removeprefix("DIFF70B "))
    _log(f"  diff in {figures['diff_s'] * 1000:.0f} ms (median), document {figures['document_bytes'] / 1e6:.2f} MB")
    if figures.get("page"):
        # The diff's page and b's own page, loaded in turn, so both see the same machine.
        draws: dict[str, list[float]] = {"page": [], "plain_page": []}
        try:
            for _ in range(1 if args.smoke else 3):
                for key in draws:
                    draws[key].append(first_draw_ms(Path(figures[key])))
            figures["first_draw_ms"] = round(statistics.median(draws["page"]), 1)
            figures["plain_first_draw_ms"] = round(statistics.median(draws["plain_page"]), 1)
        except Exception as exc:  # noqa: BLE001
            figures["first_draw_error"] = f"{type(exc).__name__}: {exc}"[:300]
        _log(f"  first draw: diff page {figures.get('first_draw_ms')} ms, b's own page "
             f"{figures.get('plain_first_draw_ms')} ms")
    for key in ("document", "page", "plain_page"):
        figures.pop(key, None)  # temporary files
    results["diff70b"] = figures


def _scale_section(args: argparse.Namespace, workdir: Path, results: dict[str, Any]) -> None:
    from ._scale import measure_scale
    from ._scale_models import SIZES, SMOKE_SIZES

    chosen = {k: v for k, v in SIZES.items() if not args.scale_cases or k in args.scale_cases}
    cases = SMOKE_SIZES if args.smoke else chosen
    results["scale"] = measure_scale(cases, repeats=1 if args.smoke else args.scale_repeats, log=_log)


def _coverage_section(args: argparse.Namespace, workdir: Path, results: dict[str, Any]) -> None:
    from ._coverage import run_coverage
    from .hf_zoo import ARCHITECTURES

    names = ["GPT-2"] if args.smoke else [a.name for a in ARCHITECTURES if not args.archs or a.name in args.archs]
    results["coverage"] = run_coverage(names, ["vista", "torchvista", "torchview", "torchlens"],
                                       workdir / "coverage", timeout=args.coverage_timeout, log=_log)


_RUNNERS = {"trace": _trace_section, "pages": _pages_section, "meta": _meta_section, "diff": _diff_section,
            "scale": _scale_section, "coverage": _coverage_section}


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny model, one repetition per tool (CI)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where results.json/.md go")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated subset of {SECTIONS}")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds per model (default 5; smoke 1)")
    parser.add_argument("--target-rounds", type=int, default=15,
                        help=f"timed rounds for {TARGET_MODEL}, whose trace cost has a target (default 15)")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch intra-op threads for the trace-cost section (default: torch's default)")
    parser.add_argument("--page-repeats", type=int, default=3, help="page loads per page measurement")
    parser.add_argument("--first-view-rounds", type=int, default=15,
                        help="paired loads (Vista, torchvista) for the first-view comparison")
    parser.add_argument("--scale-cases", default="", help="comma-separated scale cases (default all)")
    parser.add_argument("--scale-repeats", type=int, default=3, help="fresh pages per scale case")
    parser.add_argument("--models", default="", help="comma-separated trace-cost model keys (default all)")
    parser.add_argument("--archs", default="", help="comma-separated coverage architectures (default all)")
    parser.add_argument("--coverage-timeout", type=float, default=600.0, help="seconds per architecture")
    args = parser.parse_args(argv)
    args.sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        parser.error(f"Unknown section(s) in --only: {unknown!r}; pick from {', '.join(SECTIONS)}.")
    if args.rounds is None:
        args.rounds = 1 if args.smoke else 5
    if args.rounds < 1 or args.target_rounds < 1:
        parser.error(f"--rounds and --target-rounds must be at least 1, got {args.rounds!r} and "
                     f"{args.target_rounds!r}.")
    if args.first_view_rounds < 1 or args.page_repeats < 1:
        parser.error(f"--first-view-rounds and --page-repeats must be at least 1, got {args.first_view_rounds!r} "
                     f"and {args.page_repeats!r}.")
    args.models = [m for m in args.models.split(",") if m]
    args.archs = [a for a in args.archs.split(",") if a]
    args.scale_cases = [c for c in args.scale_cases.split(",") if c]
    from ._scale_models import SIZES

    if unknown := [c for c in args.scale_cases if c not in SIZES]:
        parser.error(f"Unknown case(s) in --scale-cases: {unknown!r}; pick from {', '.join(SIZES)}.")
    if args.scale_repeats < 1:
        parser.error(f"--scale-repeats must be at least 1, got {args.scale_repeats!r}.")
    from .hf_zoo import ARCHITECTURES
    from .models import TRACE_MODELS

    if unknown := [m for m in args.models if m not in TRACE_MODELS]:
        parser.error(f"Unknown model(s) in --models: {unknown!r}; pick from {', '.join(TRACE_MODELS)}.")
    if unknown := [a for a in args.archs if a not in {x.name for x in ARCHITECTURES}]:
        parser.error(f"Unknown architecture(s) in --archs: {unknown!r}; see benchmarks/hf_zoo.py.")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the chosen sections, write and print the results; see the module docstring."""
    warnings.simplefilter("ignore")
    args = _parse(argv)
    from ._environment import environment, python_speed_ms

    args.out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = args.out / "results.json", args.out / "results.md"
    results: dict[str, Any] = {}
    if set(args.sections) != set(SECTIONS) and json_path.exists():
        results = json.loads(json_path.read_text(encoding="utf-8"))  # keep the sections not rerun
    results["environment"] = environment()
    results.setdefault("settings", {}).update({"rounds": args.rounds, "target_rounds": args.target_rounds,
                                               "smoke": args.smoke})
    results["section_errors"] = {}

    def save() -> None:
        results["targets"] = evaluate_targets(results)
        json_path.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
        md_path.write_text(markdown(results), encoding="utf-8")

    with tempfile.TemporaryDirectory(prefix="vista-bench-") as tmp:
        for section in args.sections:
            _log(f"== {section}")
            results.setdefault("measured", {})[section] = {
                "at": datetime.now(timezone.utc).isoformat(timespec="minutes"), "python_ms": python_speed_ms()}
            start = time.perf_counter()
            try:
                _RUNNERS[section](args, Path(tmp), results)
            except Exception:  # reported and turned into the exit code  # noqa: BLE001
                results["section_errors"][section] = traceback.format_exc()
                _log(f"  SECTION FAILED:\n{traceback.format_exc()}")
            _log(f"   ({time.perf_counter() - start:.0f} s)")
            save()
    print(md_path.read_text(encoding="utf-8"))
    print(f"Results: {md_path} and {json_path}")
    return 1 if results["section_errors"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""Page measurements: Vista's page (through :mod:`benchmarks.page_bench`) next to torchvista's
exported HTML page (through :mod:`benchmarks._torchvista_page`) of the same model and inputs,
their first views measured side by side (:func:`paired_first_views`), and the first draw of an
already rendered Vista document (the 70 B meta model)."""

from __future__ import annotations

import contextlib
import io
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from ._case import Case
from ._tools import positional_inputs
from ._trace_cost import _error_text

__all__ = ["first_draw_ms", "measure_pages", "meta_page", "paired_first_views"]


def measure_pages(case: Case, workdir: Path, repeats: int, clicks: int, first_view_rounds: int = 15,
                  log: Callable[[str], None] = print) -> dict[str, Any]:
    """``{"model", "vista": {...} | {"error"}, "torchvista": {...} | {"error"},
    "first_view": {...} | {"error"}}``; the last from :func:`paired_first_views`."""
    result: dict[str, Any] = {"model": case.name}
    vista_page: Path | None = None
    try:
        import vista_core
        from vista_render_html import render_html

        from . import page_bench

        with torch.no_grad():
            document = vista_core.trace(case.model, case.args, kwargs=case.kwargs).to_dict()
        vista_page = workdir / "vista-page.html"
        vista_page.write_text(render_html(document, depth=1), encoding="utf-8")  # the page bench_page opens
        result["vista"] = page_bench.bench_page(document, repeats=repeats, clicks=clicks)
        paths = {m["id"]: m.get("path") or "(root)" for m in document["modules"]}
        result["vista"]["toggled_module_path"] = paths.get(result["vista"].get("toggled_module"))
    except Exception as exc:  # a failure is reported, the other tool still measured  # noqa: BLE001
        result["vista"] = {"error": _error_text(exc)}
    log(f"  vista: {_brief(result['vista'])}")
    try:
        import torchvista

        from ._torchvista_page import bench_torchvista_page

        page, full = workdir / "torchvista-page.html", workdir / "torchvista-page-open.html"
        inputs = positional_inputs(case.model, case.args, dict(case.kwargs))
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            torchvista.trace_model(case.model, inputs, export_format="html", export_path=str(page))
            torchvista.trace_model(case.model, inputs, export_format="html", export_path=str(full),
                                   collapse_modules_after_depth=1000)
        result["torchvista"] = bench_torchvista_page(page, full, repeats=repeats)
    except Exception as exc:  # noqa: BLE001
        result["torchvista"] = {"error": _error_text(exc)}
    log(f"  torchvista: {_brief(result['torchvista'])}")
    torchvista_page = workdir / "torchvista-page.html"
    if vista_page is not None and "error" not in result["torchvista"] and torchvista_page.is_file():
        try:
            result["first_view"] = paired_first_views(vista_page, torchvista_page, rounds=first_view_rounds)
            view = result["first_view"]
            log(f"  first views, {view['rounds']} paired loads: Vista {view['vista_ms']} ms, torchvista "
                f"{view['torchvista_ms']} ms, median ratio {view['ratio']}x")
        except Exception as exc:  # noqa: BLE001
            result["first_view"] = {"error": _error_text(exc)}
            log(f"  first views not measured: {result['first_view']['error']}")
    return result


def paired_first_views(vista_page: Path, torchvista_page: Path, rounds: int) -> dict[str, Any]:
    """The first view of both pages, measured side by side: ``rounds`` rounds in one browser,
    each loading both pages fresh (a new browser context each), in alternating order (Vista
    first in even rounds), so that the shared machine's drift hits both alike. Returns the
    medians of each tool's times and the median over rounds of torchvista's time / Vista's.
    Navigation start to the first graph drawn, with the probes of ``page_bench`` (the viewer's
    ``data-state="ready"``) and ``_torchvista_page`` (its first graph node)."""
    from playwright.sync_api import sync_playwright

    from ._browser import launch
    from ._torchvista_page import TORCHVISTA_DRAWN
    from .page_bench import VISTA_DRAWN

    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    pages = {"vista": (vista_page, VISTA_DRAWN), "torchvista": (torchvista_page, TORCHVISTA_DRAWN)}
    times: dict[str, list[float]] = {"vista": [], "torchvista": []}
    marks: list[dict[str, float]] = []
    with sync_playwright() as p:
        browser = launch(p)
        try:
            for round_ in range(rounds):
                order = ["vista", "torchvista"] if round_ % 2 == 0 else ["torchvista", "vista"]
                for tool in order:
                    path, drawn = pages[tool]
                    at, page_marks = _first_view(browser, path, drawn, 180_000, f"the {tool} page")
                    times[tool].append(at)
                    if tool == "vista":
                        marks.append(page_marks)
        finally:
            browser.close()
    ratios = [theirs / ours for ours, theirs in zip(times["vista"], times["torchvista"])]
    return {
        "rounds": rounds,
        "vista_ms": round(statistics.median(times["vista"]), 1),
        "torchvista_ms": round(statistics.median(times["torchvista"]), 1),
        "ratio": round(statistics.median(ratios), 2),
        "vista_phases": _phases(marks),
        "runs": {"vista_ms": [round(t, 1) for t in times["vista"]],
                 "torchvista_ms": [round(t, 1) for t in times["torchvista"]],
                 "ratios": [round(r, 2) for r in ratios]},
    }


#: The viewer's User Timing marks (``vista:<name>``, ms from navigation start) that split its
#: first view: the first layout asked for (page parsed, code run, document read, labels
#: measured), Graphviz's WebAssembly compiled and instantiated, the first layout answered,
#: the graph drawn.
PHASE_MARKS = ("layout-requested", "graphviz-ready", "layout-received", "drawn")


def _phases(marks: list[dict[str, float]]) -> dict[str, float]:
    """Median time of each of :data:`PHASE_MARKS` over the loads that have them all."""
    complete = [m for m in marks if all(name in m for name in PHASE_MARKS)]
    if not complete:
        return {}
    return {name: round(statistics.median(m[name] for m in complete), 1) for name in PHASE_MARKS}


def _brief(figures: dict[str, Any]) -> str:
    if "error" in figures:
        return f"FAILED {figures['error']}"
    return (f"{figures['page_bytes'] / 1e6:.2f} MB, first draw {figures['ready_ms']} ms, "
            f"expand all {figures['expand_all_ms']} ms, one + click {figures['toggle_open_ms']} ms")


def first_draw_ms(page: Path, timeout_ms: float = 300_000) -> float:
    """Navigation start → the Vista viewer's ``data-state="ready"`` for an already written page,
    with :mod:`benchmarks.page_bench`'s probe (one load)."""
    from playwright.sync_api import sync_playwright

    from ._browser import launch
    from .page_bench import VISTA_DRAWN

    with sync_playwright() as p:
        browser = launch(p)
        try:
            return _drawn_ms(browser, page, VISTA_DRAWN, timeout_ms, "the page")
        finally:
            browser.close()


def _drawn_ms(browser: Any, page: Path, drawn: str, timeout_ms: float, what: str) -> float:
    """One fresh load of ``page`` until ``drawn`` holds: ms from navigation start; raises
    when the page made a network request or threw."""
    return _first_view(browser, page, drawn, timeout_ms, what)[0]


def _first_view(browser: Any, page: Path, drawn: str, timeout_ms: float, what: str) -> tuple[float, dict[str, float]]:
    """:func:`_drawn_ms`, and the page's ``vista:*`` User Timing marks by name (without the
    prefix; none on a page that sets none), read once it is drawn."""
    from ._browser import open_page

    loaded = open_page(browser, page, drawn, timeout_ms=timeout_ms)
    try:
        marks = loaded.tab.evaluate(
            "() => Object.fromEntries(performance.getEntriesByType('mark')"
            ".filter((m) => m.name.startsWith('vista:')).map((m) => [m.name.slice(6), m.startTime]))")
    finally:
        loaded.close()
    if loaded.network or loaded.errors:
        raise RuntimeError(f"{what} misbehaved: network requests {loaded.network[:3]}, "
                           f"page errors {loaded.errors[:3]}")
    return loaded.drawn_ms, marks


def meta_page(figures: dict[str, Any], repeats: int, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Add to ``figures`` the first draw of the 70 B meta model's page (median of ``repeats``
    loads, with ``page_bench``'s probe), then ``page_bench``'s clicks on it, once: open all
    5,600 nodes, + on the model's biggest child, and unfold the ×80 run of layers."""
    page = figures.get("page")
    if not page:
        return figures
    try:
        draws = [first_draw_ms(Path(page)) for _ in range(repeats)]
        figures["first_draw_runs_ms"] = [round(d, 1) for d in draws]
        figures["first_draw_ms"] = round(statistics.median(draws), 1)
    except Exception as exc:  # noqa: BLE001
        figures["first_draw_error"] = _error_text(exc)
        log(f"  first draw not measured: {figures['first_draw_error']}")
    document = figures.get("document")
    if document:
        from .page_bench import bench_page

        try:
            bench = bench_page(Path(document).read_text(encoding="utf-8"), repeats=1, clicks=1)
            figures["page_bench"] = {key: bench.get(key) for key in ("expand_all_ms", "toggle_first_ms", "unfold_ms")}
            log(f"  expand all {bench.get('expand_all_ms')} ms, unfold the run {bench.get('unfold_ms')} ms")
        except Exception as exc:  # noqa: BLE001
            figures["page_bench_error"] = _error_text(exc)
            log(f"  clicks not measured: {figures['page_bench_error']}")
    return figures

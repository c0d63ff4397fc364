"""Page measurements: Vista's page (through :mod:`benchmarks.page_bench`) next to torchvista's
exported HTML page (through :mod:`benchmarks._torchvista_page`) of the same model and inputs,
and the first draw of an already rendered Vista document (the 70 B meta model)."""

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

__all__ = ["first_draw_ms", "measure_pages", "meta_page"]


def measure_pages(case: Case, workdir: Path, repeats: int, clicks: int,
                  log: Callable[[str], None] = print) -> dict[str, Any]:
    """``{"model", "vista": {...} | {"error"}, "torchvista": {...} | {"error"}}``."""
    result: dict[str, Any] = {"model": case.name}
    try:
        import vista_core

        from . import page_bench

        with torch.no_grad():
            document = vista_core.trace(case.model, case.args, kwargs=case.kwargs).to_dict()
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
    return result


def _brief(figures: dict[str, Any]) -> str:
    if "error" in figures:
        return f"FAILED {figures['error']}"
    return (f"{figures['page_bytes'] / 1e6:.2f} MB, first draw {figures['ready_ms']} ms, "
            f"expand all {figures['expand_all_ms']} ms, one + click {figures['toggle_open_ms']} ms")


def first_draw_ms(page: Path, timeout_ms: float = 300_000) -> float:
    """Navigation start → the Vista viewer's ``data-state="ready"`` for an already written page,
    with :mod:`benchmarks.page_bench`'s probe (one load)."""
    from playwright.sync_api import sync_playwright

    from ._browser import launch, open_page
    from .page_bench import VISTA_DRAWN

    with sync_playwright() as p:
        browser = launch(p)
        try:
            loaded = open_page(browser, page, VISTA_DRAWN, timeout_ms=timeout_ms)
            loaded.close()
            if loaded.network or loaded.errors:
                raise RuntimeError(f"the page misbehaved: network requests {loaded.network[:3]}, "
                                   f"page errors {loaded.errors[:3]}")
            return loaded.drawn_ms
        finally:
            browser.close()


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

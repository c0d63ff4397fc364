"""The diff section of the results: the figures of ``_diff70b`` as a table, and its target."""

from __future__ import annotations

from typing import Any

__all__ = ["diff_table", "diff_targets"]

#: The issue's target for the diff of the two 70 B traces.
TARGET_S = 1.0


def _ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1000:,.0f} ms"


def _mb(n: float | None) -> str:
    return "–" if n is None else f"{n / 1e6:.2f} MB"


def diff_targets(figures: dict[str, Any]) -> list[dict[str, str]]:
    """PASS when the median wall time of ``vista_core.diff`` is under a second."""
    seconds = figures.get("diff_s")
    status = "n/a" if seconds is None else "PASS" if seconds < TARGET_S else "FAIL"
    detail = figures.get("error") or (
        f"median {_ms(seconds)} wall ({_ms(figures.get('diff_cpu_s'))} CPU) over {len(figures['diff_runs_s'])} runs")
    return [{"target": f"vista_core.diff of two 70 B meta Llama traces ({figures.get('layers_a')} vs "
                       f"{figures.get('layers_b')} layers) under a second",
             "status": status, "detail": detail}]


def diff_table(figures: dict[str, Any]) -> list[str]:
    if figures.get("error"):
        return [f"- error: {figures['error']}"]
    changes = figures.get("changes", {})
    runs = ", ".join(f"{r * 1000:,.0f}" for r in figures.get("diff_runs_s", []))
    lines = ["| measure | value |", "|---|---:|",
             f"| layers a / b | {figures.get('layers_a')} / {figures.get('layers_b')} |",
             f"| nodes a / b (union) | {' / '.join(map(str, figures.get('nodes', [])))} "
             f"({figures.get('union_nodes')}) |",
             f"| edges a / b | {' / '.join(map(str, figures.get('edges', [])))} |",
             f"| module calls a / b | {' / '.join(map(str, figures.get('modules', [])))} |",
             f"| trace both | {_ms(figures.get('trace_both_s'))} |",
             f"| **diff (median wall)** | **{_ms(figures.get('diff_s'))}** (runs: {runs} ms) |",
             f"| diff (median CPU) | {_ms(figures.get('diff_cpu_s'))} |",
             f"| diff of b with itself, median of 3 (equal: {figures.get('equal_self')}) | "
             f"{_ms(figures.get('diff_self_s'))} |",
             f"| changes added / removed / changed | {changes.get('added')} / {changes.get('removed')} / "
             f"{changes.get('changed')} |",
             f"| summary() | {_ms(figures.get('summary_s'))} |",
             f"| to_json() (a, b and the union) | {_ms(figures.get('to_json_s'))} |",
             f"| document size (JSON) | {_mb(figures.get('document_bytes'))} |",
             f"| render page | {_ms(figures.get('render_s'))} |",
             f"| page size (HTML) | {_mb(figures.get('page_bytes'))} |",
             f"| page first draw, median of 3 (b's own page, loaded in turn) | "
             f"{figures.get('first_draw_ms', '–')} ms ({figures.get('plain_first_draw_ms', '–')} ms) |",
             f"| peak RSS of the process | {_mb(figures.get('peak_rss_bytes'))} |"]
    if figures.get("summary"):
        lines += ["", "`GraphDiff.summary()`:", "", "```", figures["summary"], "```"]
    for key in ("page_error", "first_draw_error"):
        if figures.get(key):
            lines.append(f"\n- {key}: {figures[key]}")
    return lines

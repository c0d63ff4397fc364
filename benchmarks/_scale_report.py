"""The scale section's targets (issue 20) and its table, from ``results["scale"]``."""

from __future__ import annotations

from typing import Any

__all__ = ["scale_table", "scale_targets"]


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def _mib(value: float | None) -> str:
    return "–" if value is None else f"{value / 2**20:,.0f}"


def _status(ok: bool | None) -> str:
    return "n/a" if ok is None else "PASS" if ok else "FAIL"


def _measured(rows: list[dict[str, Any]], approx: int) -> list[dict[str, Any]]:
    return [r for r in rows if r.get("approx_nodes") == approx and "error" not in r]


def scale_targets(scale: dict[str, Any]) -> list[dict[str, str]]:
    """Issue 20's targets against the medians of the scale section."""
    rows = scale.get("cases", [])
    targets: list[dict[str, str]] = []
    big = _measured(rows, 50_000)
    if big:
        def judge(title: str, check: Any, detail: Any) -> None:
            targets.append({"target": title, "status": _status(all(check(r) for r in big)),
                            "detail": "; ".join(f"{r['case']}: {detail(r)}" for r in big)})

        judge("50k nodes: Open all under 3 s to the last drawn frame",
              lambda r: r.get("expand_all_ms") is not None and r["expand_all_ms"] < 3000,
              lambda r: f"{_ms(r.get('expand_all_ms'))} ms")
        clicks = ("toggle_close_ms", "toggle_open_ms", "jump_ms", "fit_ms")
        judge("50k nodes open: each +/− click, search jump and Fit under 300 ms",
              lambda r: all(r.get(k) is not None and r[k] < 300 for k in clicks),
              lambda r: " / ".join(_ms(r.get(k)) for k in clicks) + " ms (−, +, jump, Fit)")
        judge("50k nodes open: no frame over 50 ms while panning and zooming",
              lambda r: r.get("frames", {}).get("over_50ms") == 0,
              lambda r: f"max frame {_ms(r.get('frames', {}).get('max_ms'))} ms, "
                        f"{r.get('frames', {}).get('over_50ms', '–')} over 50 ms")
        judge("50k nodes open: renderer memory under 1 GB",
              lambda r: r.get("renderer_rss_bytes") is not None and r["renderer_rss_bytes"] < 2**30,
              lambda r: f"{_mib(r.get('renderer_rss_bytes'))} MiB")
        judge("50k nodes: no main-thread task over 200 ms while interacting",
              lambda r: max(r.get("long_task_ms", {}).values(), default=1e9) <= 200,
              lambda r: f"longest {_ms(max(r.get('long_task_ms', {}).values(), default=None))} ms")
    huge = _measured(rows, 100_000)
    if huge:
        targets.append({"target": "100k nodes: first view under 1 s",
                        "status": _status(all(r.get("first_view_ms", 1e9) < 1000 for r in huge)),
                        "detail": "; ".join(f"{r['case']}: {_ms(r.get('first_view_ms'))} ms, page "
                                            f"{r['page_bytes'] / 1e6:.1f} MB" for r in huge)})
    return targets


def scale_table(scale: dict[str, Any]) -> list[str]:
    """One row per case: medians over the section's page loads."""
    lines = ["| case | nodes | page | first view | Open all | − / + on the open graph | search jump | Fit | "
             "frames: median / max (>50 ms) | longest task | renderer RSS | µs per node (first view / Open all) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    errors = []
    for r in scale.get("cases", []):
        if "error" in r:
            lines.append(f"| {r['case']} | – | – | failed | | | | | | | | |")
            errors.append(f"- {r['case']}: {r['error']}")
            continue
        f = r.get("frames", {})
        per = r.get("us_per_node", {})
        lines.append(
            f"| {r['case']} | {r['nodes']:,} | {r['page_bytes'] / 1e6:.1f} MB | {_ms(r.get('first_view_ms'))} ms | "
            f"{_ms(r.get('expand_all_ms'))} ms | {_ms(r.get('toggle_close_ms'))} / {_ms(r.get('toggle_open_ms'))} ms | "
            f"{_ms(r.get('jump_ms'))} ms | {_ms(r.get('fit_ms'))} ms | {_ms(f.get('median_ms'))} / "
            f"{_ms(f.get('max_ms'))} ms ({f.get('over_50ms', '–')}) | "
            f"{_ms(max(r.get('long_task_ms', {}).values(), default=None))} ms | "
            f"{_mib(r.get('renderer_rss_bytes'))} MiB | "
            f"{per.get('first_view_ms', '–')} / {per.get('expand_all_ms', '–')} |")
    notes = scale.get("notes", [])
    return lines + (["", *errors] if errors else []) + (["", *(f"- {n}" for n in notes)] if notes else [])

"""Turning the results into pass/fail against the issue's targets, and into markdown."""

from __future__ import annotations

from typing import Any

from ._diff_report import diff_table, diff_targets
from ._scale_report import scale_table, scale_targets

__all__ = ["TARGET_MODEL", "evaluate_targets", "markdown"]

PEERS = ("torchvista", "torchview", "torchlens")
TOOLS = ("vista", "vista+page", *PEERS)
#: Measured beside the tools, not judged (benchmarks._tools: ``floor``).
REFERENCES = ("floor",)


def _fmt_ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1000:,.0f} ms" if seconds >= 0.01 else f"{seconds * 1000:.2f} ms"


def _bytes(n: float | None) -> str:
    if n is None:
        return "–"
    return f"{n / 1e9:.1f} GB" if n >= 1e10 else f"{n / 1e6:.2f} MB" if n >= 1e5 else f"{n / 1e3:.1f} kB"


def _status(ok: bool | None) -> str:
    return "n/a" if ok is None else "PASS" if ok else "FAIL"


# The trace-cost model (a key of models.TRACE_MODELS) that carries the ≤ 1.1× target.
TARGET_MODEL = "bert_base"


def evaluate_targets(results: dict[str, Any]) -> list[dict[str, str]]:
    """The issue's targets, each with PASS / FAIL / n/a and the figures behind it."""
    targets: list[dict[str, str]] = []
    cost = {m["model"]: m for m in results.get("trace_cost", [])}
    bert = next((m for m in cost.values() if m.get("key") == TARGET_MODEL), None)
    if bert is not None:
        ratio = bert["tools"].get("vista", {}).get("ratio")
        targets.append({"target": "Vista trace cost ≤ 1.1× the plain forward on BERT-base",
                        "status": _status(None if ratio is None else ratio <= 1.1),
                        "detail": "Vista failed" if ratio is None else f"{ratio:.2f}×"})
    if cost:
        losses: list[str] = []
        judged = 0
        for name, model in cost.items():
            vista = model["tools"].get("vista", {}).get("ratio")
            for peer in PEERS:
                theirs = model["tools"].get(peer, {}).get("ratio")
                if theirs is None:
                    continue
                judged += 1
                if vista is None or vista >= theirs:
                    losses.append(f"{name}: Vista {'failed' if vista is None else f'{vista:.2f}×'} vs {peer} "
                                  f"{theirs:.2f}×")
        targets.append({"target": "Vista trace cost lower than each peer on every model",
                        "status": _status(None if judged == 0 else not losses),
                        "detail": "; ".join(losses) if losses else f"lower in all {judged} comparisons"})
    pages = results.get("pages")
    if pages:
        vista, tv = pages.get("vista", {}), pages.get("torchvista", {})
        size_ok = first_ok = None
        size_detail = first_detail = "not measured: " + "; ".join(
            f"{k}: {v['error']}" for k, v in (("vista", vista), ("torchvista", tv)) if "error" in v)
        if "page_bytes" in vista and "page_bytes" in tv:
            size_ok = vista["page_bytes"] * 2 <= tv["page_bytes"]
            size_detail = (f"{_bytes(vista['page_bytes'])} vs {_bytes(tv['page_bytes'])} "
                           f"({vista['page_bytes'] / tv['page_bytes']:.2f}×)")
        view = pages.get("first_view", {})
        if view.get("ratio"):  # side by side: the median of paired ratios
            first_ok = view["ratio"] >= 5
            first_detail = (f"{view['vista_ms']:,.0f} ms vs {view['torchvista_ms']:,.0f} ms; median of "
                            f"{view['rounds']} paired ratios {view['ratio']:.1f}×")
        elif vista.get("ready_ms") and tv.get("ready_ms"):
            first_ok = vista["ready_ms"] * 5 <= tv["ready_ms"]
            first_detail = (f"{vista['ready_ms']:,.0f} ms vs {tv['ready_ms']:,.0f} ms "
                            f"({tv['ready_ms'] / vista['ready_ms']:.1f}× sooner)")
        elif "error" in view:
            first_detail = f"not measured: {view['error']}"
        targets.append({"target": f"Page at most half torchvista's size ({pages['model']})",
                        "status": _status(size_ok), "detail": size_detail})
        targets.append({"target": f"First graph at least 5× sooner than torchvista ({pages['model']})",
                        "status": _status(first_ok), "detail": first_detail})
    coverage = results.get("coverage")
    if coverage:
        missed = []
        for record in coverage:
            tools = record.get("tools", {})
            handled_by = [p for p in PEERS if tools.get(p, {}).get("connected")]
            if handled_by and not tools.get("vista", {}).get("connected"):
                missed.append(f"{record['architecture']} (handled by {', '.join(handled_by)})")
        targets.append({"target": "Coverage: Vista handles every architecture any peer handles",
                        "status": _status(not missed),
                        "detail": "missed: " + "; ".join(missed) if missed else "none missed"})
    meta = results.get("meta70b")
    if meta:
        rss = meta.get("peak_rss_bytes")
        ok = None if rss is None or meta.get("trace_error") else rss < 2 * 2**30
        targets.append({"target": f"Llama {meta.get('layers')}-layer meta model traced and drawn, peak RSS < 2 GB",
                        "status": _status(ok and bool(meta.get("first_draw_ms"))) if ok is not None else "FAIL",
                        "detail": f"peak RSS {_bytes(rss)}; first draw "
                                  f"{meta.get('first_draw_ms', 'not measured')} ms"
                                  + (f"; trace error {meta['trace_error']}" if meta.get("trace_error") else "")})
    if meta and "flops_s" in meta:
        seconds = meta["flops_s"]
        targets.append({"target": f"Llama {meta.get('layers')}-layer meta model: FLOPs per module in about a second",
                        "status": _status(bool(meta.get("flops")) and seconds < 2.0),
                        "detail": f"{seconds:.2f} s, {_flops(meta.get('flops'))} in all"})
    if results.get("diff70b"):
        targets.extend(diff_targets(results["diff70b"]))
    if results.get("scale"):
        targets.extend(scale_targets(results["scale"]))
    return targets


def _cost_table(cost: list[dict[str, Any]]) -> list[str]:
    tools = [t for t in (*TOOLS, *REFERENCES) if any(t in m["tools"] for m in cost)]
    lines = ["| model | plain forward | " + " | ".join(f"{t} ¹" if t in REFERENCES else t for t in tools) + " |",
             "|---|---:|" + "---:|" * len(tools)]
    for model in cost:
        row = [f"{model['model']} ({model['rounds']} rounds)", _fmt_ms(model["tools"]["plain forward"]["median_s"])]
        for tool in tools:
            entry = model["tools"].get(tool)
            if entry is None:
                row.append("not run")
            elif entry["error"]:
                row.append("failed")
            elif entry["ratio"] is None:
                row.append("–")
            else:
                row.append(f"{entry['ratio']:.2f}× ({_fmt_ms(entry['median_s'])})")
        lines.append("| " + " | ".join(row) + " |")
    if "floor" in tools:
        lines += ["", "¹ Not a tool: the plain forward pass under the mechanism Vista records with, recording "
                  "nothing (a `TorchFunctionMode` that only calls each function, and global module forward "
                  "hooks that return at once). Vista's ratio less this one is what its own recording and "
                  "document building cost."]
    failures = [f"- {m['model']} / {t}: {e['error']}" for m in cost for t, e in m["tools"].items() if e["error"]]
    return lines + (["", "Failures:", *failures] if failures else [])


def _pages_table(pages: dict[str, Any]) -> list[str]:
    vista, tv = pages.get("vista", {}), pages.get("torchvista", {})
    lines = [f"Model: {pages['model']}.", "", "| measure | Vista | torchvista | torchvista / Vista |",
             "|---|---:|---:|---:|"]

    def row(label: str, key: str, fmt: Any) -> None:
        a, b = vista.get(key), tv.get(key)
        ratio = f"{b / a:.1f}×" if a and b else "–"
        lines.append(f"| {label} | {fmt(a)} | {fmt(b)} | {ratio} |")

    def ms(value: float | None) -> str:
        return "–" if value is None else f"{value:,.0f} ms"

    row("page size", "page_bytes", _bytes)
    view = pages.get("first_view", {})
    if view.get("ratio"):
        lines.append(f"| first graph drawn (from navigation start) ³ | {ms(view['vista_ms'])} | "
                     f"{ms(view['torchvista_ms'])} | {view['ratio']:.1f}× |")
    else:
        row("first graph drawn (from navigation start)", "ready_ms", ms)
    row("expand all ¹", "expand_all_ms", ms)
    first_click = vista.get("toggle_first_ms", vista.get("toggle_open_ms"))
    a, b = first_click, tv.get("toggle_open_ms")
    lines.append(f"| one + click ² | {ms(a)} | {ms(b)} | {f'{b / a:.1f}×' if a and b else '–'} |")
    if vista.get("unfold_ms") is not None:
        lines.append(f"| Vista only: unfold the ×N run of repeated blocks | {ms(vista.get('unfold_ms'))} | – | – |")
    if vista.get("block_open_ms") is not None:
        lines.append(f"| Vista only: + on one block of that run | {ms(vista.get('block_open_ms'))} | – | – |")
    lines += ["", "¹ Vista: click on its open-all button until every node is drawn. torchvista has no "
              "open-all control: first draw of the same model exported fully open "
              "(`collapse_modules_after_depth=1000`).",
              f"² The first + click after a page load. Vista: the biggest child of the model "
              f"(`{vista.get('toggled_module_path') or vista.get('toggled_module')}`, as `page_bench` picks it; "
              "the modules of a folded ×N run of repeated blocks are not candidates); "
              f"torchvista: `{tv.get('toggled_module')}` "
              "(the collapsed module holding the most nodes)."]
    if view.get("ratio"):
        lines.append(f"³ {view['rounds']} fresh loads of each page in one browser, alternating Vista and torchvista "
                     "(the first of each pair alternates too); medians of each, and the median of the "
                     f"{view['rounds']} paired ratios torchvista / Vista. The loads of the other rows, measured "
                     f"apart: Vista {ms(vista.get('ready_ms'))}, torchvista {ms(tv.get('ready_ms'))}.")
        phases = view.get("vista_phases") or {}
        if phases:
            asked, ready, answered = phases["layout-requested"], phases["graphviz-ready"], phases["layout-received"]
            lines.append(f"  Where Vista's first view goes (the viewer's marks, medians of its {view['rounds']} loads, "
                         f"ms from navigation start): first layout asked for at {asked:,.0f} (page parsed, code "
                         f"run, document read, labels measured), Graphviz's WebAssembly compiled and instantiated "
                         f"at {ready:,.0f}, first layout answered at {answered:,.0f} (Graphviz's first run, "
                         f"{answered - max(asked, ready):,.0f} ms: its functions are compiled on their first call), "
                         f"drawn at {phases['drawn']:,.0f}.")
    elif "error" in view:
        lines.append(f"- first views side by side not measured: {view['error']}")
    for name, figures in (("Vista", vista), ("torchvista", tv)):
        if "error" in figures:
            lines.append(f"- {name} page not measured: {figures['error']}")
        for note in figures.get("notes", []):
            lines.append(f"- {name}: {note}")
    return lines


def _flops(n: int | None) -> str:
    return "–" if n is None else f"{n / 1e12:.2f} T"


def _meta_table(meta: dict[str, Any]) -> list[str]:
    lines = ["| measure | value |", "|---|---:|",
             f"| layers / parameters | {meta.get('layers')} / {meta.get('parameters', 0) / 1e9:.1f} B |",
             f"| weights if allocated (fp32) | {_bytes(meta.get('weights_bytes_if_allocated'))} |",
             f"| build on meta | {_fmt_ms(meta.get('build_s'))} |",
             f"| trace time | {_fmt_ms(meta.get('trace_s'))} |",
             f"| FLOPs of every module call (first read) | {_fmt_ms(meta.get('flops_s'))} |",
             f"| FLOPs: model / one decoder layer / LM head | {_flops(meta.get('flops'))} / "
             f"{_flops(meta.get('flops_layer'))} / {_flops(meta.get('flops_lm_head'))} |",
             f"| nodes / edges / module calls | {meta.get('nodes')} / {meta.get('edges')} / {meta.get('modules')} |",
             f"| document size (JSON) | {_bytes(meta.get('document_bytes'))} |",
             f"| page size (HTML) | {_bytes(meta.get('page_bytes'))} |",
             f"| render page | {_fmt_ms(meta.get('render_s'))} |",
             f"| peak RSS after trace + JSON (before rendering) | {_bytes(meta.get('peak_rss_before_render_bytes'))} |",
             f"| peak RSS of the whole process (trace, JSON, page) | {_bytes(meta.get('peak_rss_bytes'))} |",
             f"| page first draw | {meta.get('first_draw_ms', '–')} ms |"]
    bench = meta.get("page_bench")
    if bench:
        lines.append(f"| page: expand all (every node drawn) | {bench.get('expand_all_ms')} ms |")
        lines.append(f"| page: + on the model's biggest child / unfold the run of layers | "
                     f"{bench.get('toggle_first_ms')} ms / {bench.get('unfold_ms')} ms |")
    for key in ("trace_error", "page_error", "first_draw_error", "page_bench_error", "error"):
        if meta.get(key):
            lines.append(f"\n- {key}: {meta[key]}")
    return lines


def _coverage_table(coverage: list[dict[str, Any]]) -> list[str]:
    tools = [t for t in ("vista", *PEERS) if any(t in r.get("tools", {}) for r in coverage)]
    lines = ["| architecture | " + " | ".join(tools) + " |", "|---|" + ":---:|" * len(tools)]
    counts = dict.fromkeys(tools, 0)
    details: list[str] = []
    judged = 0
    for record in coverage:
        if record.get("plain"):
            lines.append(f"| {record['architecture']} | " + " | ".join("model broken" for _ in tools) + " |")
            details.append(f"- {record['architecture']}: plain forward failed: {record['plain']}")
            continue
        judged += 1
        cells = []
        for tool in tools:
            entry = record["tools"].get(tool, {})
            if entry.get("connected"):
                counts[tool] += 1
                cells.append("✓")
            elif entry.get("produced"):
                cells.append("disconnected")
                details.append(f"- {record['architecture']} / {tool}: disconnected: {entry.get('detail')}")
            else:
                cells.append("✗ failed")
                details.append(f"- {record['architecture']} / {tool}: {entry.get('error')}")
        lines.append(f"| {record['architecture']} | " + " | ".join(cells) + " |")
    lines.append("| **connected graphs** | " + " | ".join(f"**{counts[t]}/{judged}**" for t in tools) + " |")
    return lines + (["", "Failures and disconnected graphs:", *details] if details else [])


def markdown(results: dict[str, Any]) -> str:
    """The whole results page."""
    env = results.get("environment", {})
    versions = env.get("versions", {})
    settings = results.get("settings", {})
    out = ["# Vista benchmarks", "",
           f"Last run {env.get('date')} on {env.get('nproc')} cores ({env.get('cpu')}), "
           f"{env.get('memory_gib')} GiB RAM, a shared and noisy machine; Python {env.get('python')}, "
           f"{env.get('chromium')}. Settings: "
           f"{settings.get('torch_threads', env.get('torch_threads'))} torch thread(s) in the trace-cost runs"
           f"{', smoke run' if settings.get('smoke') else ''}.", "",
           "Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".", ""]
    if settings.get("unavailable"):
        out += ["Tools that could not be run here:"]
        out += [f"- {k}: {v}" for k, v in settings["unavailable"].items()] + [""]
    measured = results.get("measured", {})

    def when(section: str) -> list[str]:
        # Sections not rerun by a partial run (--only) keep their figures and their time.
        if section not in measured:
            return []
        at, speed = measured[section]["at"], measured[section]["python_ms"]
        return [f"_Measured {at}; machine reading {speed} ms (a fixed pure-Python workload timed as the "
                "section started: the same machine reads higher when it is busier)._", ""]

    targets = results.get("targets", [])
    if targets:
        out += ["## Targets", "", "| target | result | measured |", "|---|---|---|"]
        out += [f"| {t['target']} | **{t['status']}** | {t['detail']} |" for t in targets] + [""]
    if results.get("trace_cost"):
        out += ["## Trace cost", "", *when("trace"),
                "Time to build the graph / time of a plain forward pass run right next to it, "
                "median over the rounds; same process, round-robin order, eval mode, `torch.no_grad()`. "
                "In parentheses: the tool's median time.", ""]
        out += [*_cost_table(results["trace_cost"]), ""]
    if results.get("pages"):
        out += ["## Page (headless Chromium)", "", *when("pages"), *_pages_table(results["pages"]), ""]
    if results.get("meta70b"):
        out += ["## Huge model on the meta device (Llama-style 70 B)", "", *when("meta"),
                *_meta_table(results["meta70b"]), ""]
    if results.get("diff70b"):
        out += ["## Diff of two huge traces (Llama-style 70 B on the meta device)", "", *when("diff"),
                "`vista_core.diff(a, b)` of the model with 80 layers against the same with 81 "
                "(`benchmarks/_diff70b.py`, its own process): both traced first, then the diff timed alone.", "",
                *diff_table(results["diff70b"]), ""]
    if results.get("scale"):
        out += ["## Scale: pages of 2k to 100k nodes (headless Chromium)", "", *when("scale"),
                "Medians over fresh page loads (`benchmarks/_scale.py`); Open all and the clicks until the frame "
                "after the viewer's `vista:drawn` mark; frames while the wheel zooms and the mouse drags at the "
                "Fit view; renderer RSS after Open all.", "", *scale_table(results["scale"]), ""]
    if results.get("coverage"):
        out += ["## Coverage of Hugging Face architectures (tiny configs)", "", *when("coverage"),
                "✓ = a graph was produced and every model output is reachable from the inputs along its edges; "
                "disconnected = a graph, but some output is not reachable; ✗ = the tool raised.", ""]
        out += [*_coverage_table(results["coverage"]), ""]
    for note in results.get("notes", []):
        out.append(f"- {note}")
    return "\n".join(out).rstrip() + "\n"

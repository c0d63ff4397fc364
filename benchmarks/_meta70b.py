"""A Llama-style model of 70 B parameters on the meta device, traced by Vista without memory.

Run in its own process (``python -m benchmarks._meta70b OUT_DIR``) so its peak resident set
size (``VmHWM``) is Vista's alone: it builds ``LlamaForCausalLM`` under
``torch.device("meta")`` (no weights are allocated), traces it on meta ``input_ids`` of
sequence 128, reads the FLOPs of every module call (torch's formulas, replayed on fake tensors),
writes the graph document and, when vista-render-html is installed, the HTML
page into OUT_DIR, and prints one JSON line with the figures.
"""

from __future__ import annotations

import json
import resource
import sys
import time
import warnings
from pathlib import Path
from typing import Any

__all__ = ["LLAMA_70B", "run"]

#: The Llama-2-70B shape.
LLAMA_70B: dict[str, Any] = {"hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
                             "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 32000}
SEQUENCE = 128


def _peak_rss_bytes() -> int:
    """This process's peak resident set size: ``VmHWM`` of ``/proc/self/status`` (reset by exec,
    unlike ``getrusage``'s ``ru_maxrss``, which a child started by a big parent inherits)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def run(out_dir: Path, layers: int | None = None) -> dict[str, Any]:
    """Build, trace and render; returns the figures (sizes in bytes, times in seconds)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    import vista_core

    figures: dict[str, Any] = {"rss_at_start_bytes": _peak_rss_bytes()}
    config = LlamaConfig(**(LLAMA_70B | ({"num_hidden_layers": layers} if layers else {})))
    start = time.perf_counter()
    with torch.device("meta"):
        model: torch.nn.Module = LlamaForCausalLM(config)
        model.eval()
        input_ids = torch.randint(0, config.vocab_size, (1, SEQUENCE))
    figures["build_s"] = time.perf_counter() - start
    figures["layers"] = config.num_hidden_layers
    figures["parameters"] = sum(p.numel() for p in model.parameters())
    figures["weights_bytes_if_allocated"] = sum(p.numel() * p.element_size() for p in model.parameters())
    start = time.perf_counter()
    with torch.no_grad():
        capture = vista_core.capture(model, (), kwargs={"input_ids": input_ids})
    figures["trace_s"] = time.perf_counter() - start
    graph = capture.graph
    figures["trace_error"] = None if capture.exception is None else (
        f"{type(capture.exception).__name__}: {capture.exception}")
    figures["nodes"], figures["edges"], figures["modules"] = len(graph.nodes), len(graph.edges), len(graph.modules)
    # Per-module FLOPs: the first read replays every op on fake tensors (FLOPs are lazy).
    start = time.perf_counter()
    per_module = {m.path: m.flops for m in graph.modules if m.call_index == 0}
    figures["flops_s"] = time.perf_counter() - start
    figures["flops"] = graph.root.flops
    figures["flops_layer"] = per_module.get("model.layers.0")
    figures["flops_lm_head"] = per_module.get("lm_head")
    start = time.perf_counter()
    document = graph.to_json()
    figures["to_json_s"] = time.perf_counter() - start
    figures["document_bytes"] = len(document.encode())
    figures["peak_rss_before_render_bytes"] = _peak_rss_bytes()
    document_path = out_dir / "llama70b-meta.json"
    document_path.write_text(document, encoding="utf-8")
    figures["document"] = str(document_path)
    write_page(figures, graph, out_dir / "llama70b-meta.html")
    figures["peak_rss_bytes"] = _peak_rss_bytes()
    return figures


def write_page(figures: dict[str, Any], document: Any, page_path: Path) -> bool:
    """Render ``document`` to ``page_path``, noting render_s, page_bytes and page in ``figures``
    (or page_error when vista-render-html is missing); True when the page was written."""
    try:
        from vista_render_html import render_html
    except ImportError as exc:
        figures["page_error"] = f"vista-render-html not installed: {exc}"
        return False
    start = time.perf_counter()
    html = render_html(document)
    figures["render_s"] = time.perf_counter() - start
    figures["page_bytes"] = len(html.encode())
    page_path.write_text(html, encoding="utf-8")
    figures["page"] = str(page_path)
    return True


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    print("META70B " + json.dumps(run(target, int(sys.argv[2]) if len(sys.argv) > 2 else None)), flush=True)

"""The diff of two Llama-style 70 B traces on the meta device, 80 against 81 layers.

Run in its own process (``python -m benchmarks._diff70b OUT_DIR [LAYERS]``), like
``_meta70b``: it builds both models under ``torch.device("meta")`` (no weights allocated),
traces each on the same meta ``input_ids``, then times ``vista_core.diff`` (median of
``ROUNDS`` calls, each on the two Graphs as they are; wall and CPU time), the diff document's ``to_json`` and
``summary()``, writes the document and the HTML page into OUT_DIR and prints one JSON line
with the figures. The issue's target: the diff in under a second.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from ._meta70b import LLAMA_70B, SEQUENCE, _peak_rss_bytes, write_page

__all__ = ["ROUNDS", "run"]

#: Timed diff() calls; the figure is their median.
ROUNDS = 5


def _trace(layers: int) -> Any:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    import vista_core

    config = LlamaConfig(**(LLAMA_70B | {"num_hidden_layers": layers}))
    with torch.device("meta"):
        model: torch.nn.Module = LlamaForCausalLM(config)
        model.eval()
        input_ids = torch.zeros((1, SEQUENCE), dtype=torch.long)
    with torch.no_grad():
        return vista_core.trace(model, (), kwargs={"input_ids": input_ids})


def run(out_dir: Path, layers: int = LLAMA_70B["num_hidden_layers"]) -> dict[str, Any]:
    """Trace both, diff, serialise and render; returns the figures (times in seconds)."""
    import vista_core

    figures: dict[str, Any] = {"layers_a": layers, "layers_b": layers + 1}
    start = time.perf_counter()
    a = _trace(layers)
    b = _trace(layers + 1)
    figures["trace_both_s"] = time.perf_counter() - start
    figures["nodes"] = [len(a.nodes), len(b.nodes)]
    figures["edges"] = [len(a.edges), len(b.edges)]
    figures["modules"] = [len(a.modules), len(b.modules)]
    runs, cpu = [], []
    for _ in range(ROUNDS):
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        result = vista_core.diff(a, b)
        runs.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    figures["diff_runs_s"] = runs
    figures["diff_s"] = statistics.median(runs)
    # CPU time too: on a shared machine the wall time also counts the other processes' turns.
    figures["diff_cpu_runs_s"] = cpu
    figures["diff_cpu_s"] = statistics.median(cpu)
    figures["changes"] = {s: sum(1 for c in result.changes if c.status == s) for s in ("added", "removed", "changed")}
    figures["union_nodes"] = len(result.union.nodes)
    figures["matched_nodes"] = len(result.node_matches)
    start = time.perf_counter()
    document = result.to_json()
    figures["to_json_s"] = time.perf_counter() - start
    figures["document_bytes"] = len(document.encode())
    start = time.perf_counter()
    figures["summary"] = result.summary()
    figures["summary_s"] = time.perf_counter() - start
    alone = []
    for _ in range(3):
        gc.collect()
        start = time.perf_counter()
        figures["equal_self"] = vista_core.diff(b, b).equal
        alone.append(time.perf_counter() - start)
    figures["diff_self_s"] = statistics.median(alone)
    document_path = out_dir / "llama70b-diff.json"
    document_path.write_text(document, encoding="utf-8")
    figures["document"] = str(document_path)
    if write_page(figures, document, out_dir / "llama70b-diff.html"):
        from vista_render_html import render_html

        # b's own page, to load next to the diff's: "opens like any other" on the same machine.
        plain_path = out_dir / "llama70b-81.html"
        plain_path.write_text(render_html(b), encoding="utf-8")
        figures["plain_page"] = str(plain_path)
    figures["peak_rss_bytes"] = _peak_rss_bytes()
    return figures


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    chosen = int(sys.argv[2]) if len(sys.argv) > 2 else LLAMA_70B["num_hidden_layers"]
    print("DIFF70B " + json.dumps(run(target, chosen)), flush=True)

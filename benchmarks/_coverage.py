"""Coverage: which tools build a graph of each Hugging Face architecture, and a connected one.

The parent (:func:`run_coverage`) starts a worker process (``python -m benchmarks._coverage``)
that builds each architecture of :mod:`benchmarks.hf_zoo`, checks the plain forward pass,
runs every tool once and prints one JSON line per architecture. A worker that crashes or
exceeds the per-architecture timeout is replaced and the architecture is recorded as such;
the others go on.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["run_coverage"]

_RESULT = "COVERAGE-RESULT "
_START = "COVERAGE-START "


def _one(arch_name: str, tool_names: list[str], workdir: Path) -> dict[str, Any]:
    import torch

    from ._case import Case
    from ._tools import load_tools
    from ._trace_cost import _error_text
    from .hf_zoo import build, by_name

    arch = by_name(arch_name)
    record: dict[str, Any] = {"architecture": arch.name, "model_class": arch.model_class, "plain": None,
                              "tools": {}}
    try:
        model, inputs = build(arch)
        with torch.no_grad():
            model(**inputs)
    except Exception as exc:  # the zoo entry itself is broken: no tool is judged on it  # noqa: BLE001
        record["plain"] = _error_text(exc)
        return record
    case = Case(arch.name, model, (), inputs)
    tools, missing = load_tools(workdir, tuple(tool_names))
    for name, reason in missing.items():
        record["tools"][name] = {"produced": False, "connected": False, "error": reason, "detail": None}
    for tool in tools:
        entry: dict[str, Any] = {"produced": False, "connected": False, "error": None, "detail": None}
        start = time.perf_counter()
        try:
            with torch.no_grad():
                result = tool.trace(case)
            entry["produced"] = True
        except Exception as exc:  # noqa: BLE001
            entry["error"] = _error_text(exc)
        finally:
            tool.cleanup()
        entry["seconds"] = round(time.perf_counter() - start, 3)
        if entry["produced"]:
            try:
                verdict = tool.check(result)
                entry["connected"], entry["detail"] = verdict.connected, verdict.describe()
            except Exception as exc:  # noqa: BLE001
                entry["detail"] = f"graph unreadable: {_error_text(exc)}"
            del result
        record["tools"][tool.name] = entry
    return record


def _worker(workdir: Path, tool_names: list[str], arch_names: list[str]) -> None:
    warnings.simplefilter("ignore")
    for name in arch_names:
        print(_START + name, flush=True)
        print(_RESULT + json.dumps(_one(name, tool_names, workdir)), flush=True)


def run_coverage(arch_names: list[str], tool_names: list[str], workdir: Path, timeout: float = 300.0,
                 log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """One record per architecture, in order; see the module docstring."""
    results: dict[str, dict[str, Any]] = {}
    pending = list(arch_names)
    root = Path(__file__).resolve().parent.parent
    while pending:
        cmd = [sys.executable, "-m", "benchmarks._coverage", str(workdir), ",".join(tool_names), *pending]
        with tempfile.TemporaryFile() as errors, subprocess.Popen(
                cmd, cwd=root, stdout=subprocess.PIPE, stderr=errors, text=True,
                env=os.environ | {"PYTHONWARNINGS": "ignore"}) as proc:
            assert proc.stdout is not None
            current: str | None = None
            deadline = time.monotonic() + timeout
            selector = selectors.DefaultSelector()
            selector.register(proc.stdout, selectors.EVENT_READ)
            failure: str | None = None
            while True:
                if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                    failure = f"timed out after {timeout:.0f} s"
                    proc.kill()
                    break
                line = proc.stdout.readline()
                if not line:
                    proc.wait()
                    failure = f"worker process died (exit code {proc.returncode})"
                    break
                if line.startswith(_START):
                    current = line[len(_START):].strip()
                    deadline = time.monotonic() + timeout
                elif line.startswith(_RESULT):
                    record = json.loads(line[len(_RESULT):])
                    results[record["architecture"]] = record
                    pending.remove(record["architecture"])
                    current = None
                    log("  " + _summary(record))
            selector.close()
            if not pending:
                break
            name = current or pending[0]
            errors.seek(0)
            tail = errors.read().decode(errors="replace").strip().splitlines()[-3:]
            detail = f"{failure}: {' | '.join(tail)}" if tail else failure
            results[name] = {"architecture": name, "plain": None, "crashed": detail,
                             "tools": {t: {"produced": False, "connected": False, "error": detail, "detail": None}
                                       for t in tool_names}}
            log(f"  {name}: {detail}")
            pending.remove(name)
    return [results[n] for n in arch_names]


def _summary(record: dict[str, Any]) -> str:
    if record.get("plain"):
        return f"{record['architecture']}: plain forward failed: {record['plain']}"
    marks = []
    for name, entry in record["tools"].items():
        mark = "connected" if entry["connected"] else ("disconnected" if entry["produced"] else "FAILED")
        marks.append(f"{name} {mark}")
    return f"{record['architecture']}: " + ", ".join(marks)


if __name__ == "__main__":
    _worker(Path(sys.argv[1]), sys.argv[2].split(","), sys.argv[3:])

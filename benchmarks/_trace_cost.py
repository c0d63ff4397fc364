"""Trace cost: each tool's time to build its graph divided by the plain forward time.

For one model, every tool and the plain forward pass run in the same process, in rounds. In
each round every tool runs once, in an order rotated by one per round (round robin), and each
tool call is paired with a plain forward pass right next to it (before it in even rounds,
after it in odd ones), so that the slow drift of a shared machine hits both sides of a ratio
alike. Everything runs in eval mode under ``torch.no_grad()`` (torchview forces it anyway),
with ``gc.collect()`` before each call. An untimed warm-up round comes first, unless disabled.
A tool that raises is recorded with its error and left out of later rounds.

Reported per tool: the median of its times, and its trace cost: the median over rounds of
(tool time / paired plain forward time).
"""

from __future__ import annotations

import gc
import statistics
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from ._case import Case
from ._tools import Tool

__all__ = ["ModelTiming", "ToolTiming", "measure_trace_cost"]

PLAIN = "plain forward"


@dataclass
class ToolTiming:
    """Timed runs of one tool on one model (seconds), or the error that stopped it."""

    times: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    error: str | None = None
    connectivity: str | None = None
    connected: bool | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times and self.error is None else None


@dataclass
class ModelTiming:
    """All tools on one model; ``ratio(tool)`` is its trace cost."""

    model: str
    rounds: int
    tools: dict[str, ToolTiming]

    def ratio(self, tool: str) -> float | None:
        """Median over rounds of tool time / paired plain forward time."""
        timing = self.tools.get(tool)
        if tool == PLAIN or timing is None or timing.error is not None or not timing.ratios:
            return None
        return statistics.median(timing.ratios)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "rounds": self.rounds,
            "tools": {name: {"median_s": t.median, "times_s": t.times, "ratio": self.ratio(name),
                             "paired_ratios": t.ratios,
                             "error": t.error, "connected": t.connected, "connectivity": t.connectivity}
                      for name, t in self.tools.items()},
        }


def _error_text(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" (at {last[0].filename.rsplit('site-packages/', 1)[-1]}:{last[0].lineno})" if last else ""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    cause = exc.__cause__
    if cause is not None and not message.endswith(str(cause)):
        message += f" <- {type(cause).__name__}: {str(cause).strip().splitlines()[0] if str(cause).strip() else ''}"
    return f"{type(exc).__name__}: {message[:300]}{where}"


def measure_trace_cost(case: Case, tools: list[Tool], rounds: int, warmup: bool = True,
                       log: Callable[[str], None] = print) -> ModelTiming:
    """Time ``tools`` and the plain forward pass of ``case`` over ``rounds`` round-robin rounds."""
    result = ModelTiming(case.name, rounds, {PLAIN: ToolTiming()} | {t.name: ToolTiming() for t in tools})
    runners: list[tuple[str, Tool | None]] = [(PLAIN, None), *((t.name, t) for t in tools)]

    def run_once(name: str, tool: Tool | None) -> float | None:
        timing = result.tools[name]
        if timing.error is not None:
            return None
        gc.collect()
        try:
            with torch.no_grad():
                start = time.perf_counter()
                output = case.forward() if tool is None else tool.trace(case)
                elapsed = time.perf_counter() - start
        except Exception as exc:  # a tool's failure is a result  # noqa: BLE001
            timing.error = _error_text(exc)
            log(f"    {name}: FAILED {timing.error}")
            if tool is not None:
                tool.cleanup()
            return None
        if tool is not None:
            tool.cleanup()
            if timing.connected is None and tool.builds_graph:
                try:
                    verdict = tool.check(output)
                    timing.connected, timing.connectivity = verdict.connected, verdict.describe()
                except Exception as exc:  # noqa: BLE001
                    timing.connected, timing.connectivity = False, f"graph unreadable: {_error_text(exc)}"
        del output
        return elapsed

    if warmup:
        for name, tool in runners:
            run_once(name, tool)
    for index in range(rounds):
        shift = index % len(tools) if tools else 0
        for tool in tools[shift:] + tools[:shift]:
            pair = [(PLAIN, None), (tool.name, tool)]
            times = {name: run_once(name, runner) for name, runner in (pair if index % 2 == 0 else pair[::-1])}
            plain_time, tool_time = times[PLAIN], times[tool.name]
            if plain_time is not None:
                result.tools[PLAIN].times.append(plain_time)
            if tool_time is not None:
                result.tools[tool.name].times.append(tool_time)
                if plain_time is not None:
                    result.tools[tool.name].ratios.append(tool_time / plain_time)
    summary = ", ".join(f"{n} {result.ratio(n):.2f}×" for n in result.tools if n != PLAIN and result.ratio(n))
    plain = result.tools[PLAIN].median
    log(f"  {case.name}: plain {plain * 1000:.1f} ms; {summary}" if plain else f"  {case.name}: plain forward failed")
    return result

"""What the results were measured on: versions of every tool, torch, Python, the machine."""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from typing import Any

from ._tools import tool_versions

__all__ = ["environment", "python_speed_ms"]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return None
    return round(pages * size / 2**30, 1)


def _chromium() -> str:
    executable = shutil.which("chromium")
    if executable is None:
        return "not installed"
    try:
        return subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=30,
                              check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unknown ({exc})"


def python_speed_ms(repeats: int = 7) -> float:
    """Median time of a fixed pure-Python workload (dict, tuple and string work, the kind tracing
    does): a reading of how busy the shared machine was when a section ran, to compare runs by.
    Lower is a quieter machine."""

    def work() -> int:
        table: dict[int, tuple[int, str]] = {}
        for i in range(200_000):
            table[i & 1023] = (i, str(i & 63))
        return len(table)

    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 1)


def environment() -> dict[str, Any]:
    """Versions and machine facts, for the results header."""
    import torch

    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "memory_gib": _memory_gib(),
        "torch_threads": torch.get_num_threads(),
        "chromium": _chromium(),
        "versions": tool_versions(),
    }

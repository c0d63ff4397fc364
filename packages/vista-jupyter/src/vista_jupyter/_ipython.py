"""The few things vista-jupyter asks of IPython: showing a bundle, and knowing who asks.

``trace_model(...)`` shows its graph and also returns it; when the call is the last line of
a cell, IPython's display hook would show the returned object a second time. The helpers here
let :class:`VistaGraph` recognise exactly that case (asked by the display hook, in the very
execution in which ``trace_model`` already showed it) and stay quiet, while ``display(g)``
and ``g`` in a later cell still show it.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import FrameType
from typing import Any

from IPython.core.displayhook import DisplayHook
from IPython.core.getipython import get_ipython
from IPython.display import display

__all__ = ["called_by_displayhook", "execution_count", "in_notebook", "publish"]


def in_notebook() -> bool:
    """True in a kernel that shows rich outputs (Jupyter, VS Code, Colab); False in plain Python
    and in IPython's terminal, which would print a bundle as text."""
    shell = get_ipython()
    return shell is not None and not type(shell).__module__.startswith("IPython.terminal")


def publish(bundle: Mapping[str, Any]) -> None:
    """Show a MIME bundle in the current cell's output (only called where :func:`in_notebook`)."""
    display(dict(bundle), raw=True)  # type: ignore[no-untyped-call]  # IPython.display is not annotated


def execution_count() -> int | None:
    """The running IPython shell's execution counter, or None outside IPython."""
    shell = get_ipython()
    if shell is None:
        return None
    count = getattr(shell, "execution_count", None)
    return count if isinstance(count, int) else None


def called_by_displayhook(max_depth: int = 30) -> bool:
    """True when IPython's display hook (the ``Out[n]`` of a cell's last expression) is among
    the callers of the function that calls this one."""
    frame: FrameType | None = sys._getframe(2)
    for _ in range(max_depth):
        if frame is None:
            return False
        if frame.f_code.co_name == "__call__" and isinstance(frame.f_locals.get("self"), DisplayHook):
            return True
        frame = frame.f_back
    return False

"""Re-raising the model's exception with the traceback the user would have seen without Vista.

The exception object stays the very same; only Vista's own frames (the tracer's hooks inside
vista-core, ``trace_model`` itself) are left out of its ``__traceback__``, so a notebook shows
the model's frames and the failing line, as if the model had been called directly, and
``%debug`` stops in the user's code.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

import vista_core

__all__ = ["is_vista_frame", "without_vista_frames"]

_VISTA_DIRS = tuple(str(Path(p).resolve().parent) for p in (vista_core.__file__, __file__) if p)


def is_vista_frame(filename: str) -> bool:
    """True when ``filename`` is a source file of vista-core or vista-jupyter."""
    try:
        resolved = str(Path(filename).resolve())
    except (OSError, ValueError):
        return False
    return any(resolved.startswith(d + "/") or resolved.startswith(d + "\\") for d in _VISTA_DIRS)


def without_vista_frames(tb: TracebackType | None) -> TracebackType | None:
    """A copy of the traceback chain ``tb`` without the frames of Vista's own code."""
    kept: list[TracebackType] = []
    while tb is not None:
        if not is_vista_frame(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    chain: TracebackType | None = None
    for entry in reversed(kept):
        chain = TracebackType(chain, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return chain

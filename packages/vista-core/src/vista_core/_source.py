"""Finding the user's source line of a call: the innermost frame outside torch and Vista."""

from __future__ import annotations

import linecache
import os
import sys
import traceback
from types import FrameType, TracebackType

import torch

from ._graph import SourceLocation
from ._values import short_text

__all__ = ["SourceFinder", "format_traceback", "location"]

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_OUR_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _is_internal(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_TORCH_DIR) or path.startswith(_OUR_DIR)


class SourceFinder:
    """Finds and caches the user frame of each call. Frames are identified cheaply while
    tracing (file, line, function); the source text is read once per line at the end.

    ``boundary`` is the frame that runs the traced model (``capture``'s): the search stops
    there, since the frames above it (the line calling ``trace``, a notebook helper calling
    ``capture``) did not lead to any op of the model; an op that only torch's own code led to
    has no source."""

    def __init__(self) -> None:
        self._internal: dict[str, bool] = {}
        self.boundary: FrameType | None = None

    def user_frame(self, frame: FrameType | None) -> tuple[str, int, str] | None:
        internal = self._internal
        boundary = self.boundary
        while frame is not None and frame is not boundary:
            code = frame.f_code
            filename = code.co_filename
            flag = internal.get(filename)
            if flag is None:
                flag = internal[filename] = _is_internal(filename)
            if not flag:
                return filename, frame.f_lineno, code.co_name
            frame = frame.f_back
        return None

    def here(self) -> tuple[str, int, str] | None:
        """The innermost user frame of the current call stack (Vista's frames are skipped
        like torch's)."""
        return self.user_frame(sys._getframe(1))

    def from_traceback(self, tb: TracebackType | None) -> tuple[str, int, str] | None:
        """The innermost user frame of a traceback (where the user's code raised or called)."""
        found = None
        while tb is not None:
            code = tb.tb_frame.f_code
            filename = code.co_filename
            flag = self._internal.get(filename)
            if flag is None:
                flag = self._internal[filename] = _is_internal(filename)
            if not flag:
                found = (filename, tb.tb_lineno, code.co_name)
            tb = tb.tb_next
        return found


def location(where: tuple[str, int, str] | None,
             cache: dict[tuple[str, int, str], SourceLocation] | None = None) -> SourceLocation | None:
    """The document record for a frame found by :class:`SourceFinder`; ``cache`` shares the
    records of one document between the many calls made from the same line."""
    if where is None:
        return None
    if cache is not None and where in cache:
        return cache[where]
    filename, line, function = where
    code = short_text(linecache.getline(filename, line).strip(), 200)
    found = SourceLocation(file=filename, line=line, function=function, code=code)
    if cache is not None:
        cache[where] = found
    return found


#: Longest line kept in a formatted traceback (the exception message is one line).
MAX_TRACEBACK_LINE = 4000
#: Longest formatted traceback kept; the innermost part is kept when it is cut.
MAX_TRACEBACK = 50_000


def format_traceback(exc: BaseException) -> str:
    """The exception formatted as Python prints it, without Vista's own frames, with each
    line cut to :data:`MAX_TRACEBACK_LINE` and the whole to :data:`MAX_TRACEBACK` characters."""
    te = traceback.TracebackException.from_exception(exc, limit=None)
    frames = [f for f in te.stack if not os.path.abspath(f.filename).startswith(_OUR_DIR)]
    te.stack = traceback.StackSummary.from_list(frames)
    text = "".join(short_text(line.rstrip("\n"), MAX_TRACEBACK_LINE) + ("\n" if line.endswith("\n") else "")
                   for chunk in te.format() for line in chunk.splitlines(keepends=True))
    if len(text) > MAX_TRACEBACK:
        text = "…\n" + text[-(MAX_TRACEBACK - 2):]
    return text

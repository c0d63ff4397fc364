"""Torch's own fast-path decisions, unchanged by the recorder.

Some forwards choose between a fused kernel and a slow Python path by asking
``torch.overrides.has_torch_function(...)`` (in torch 2.13: ``nn.MultiheadAttention``,
``nn.TransformerEncoderLayer`` and ``nn.TransformerEncoder``), and any active torch-function
mode makes that answer true. So that the traced model runs the path it runs without Vista,
the recorder's mode is taken off the stack exactly while such a check runs, and put back
before the next line of the forward: the decision is torch's own, and whichever path then
runs (the fused call is one op, e.g. ``torch._transformer_encoder_layer_fwd``) is recorded.

The checks are found in the bytecode of a module's ``forward`` (no list of torch's modules or
line numbers is kept). The line tracer is installed with ``sys.settrace`` from such a module's
pre-hook until its forward has passed its last check line, chained to any tracer already
installed (a debugger, coverage); a check must sit on one line, as torch's do.
"""

from __future__ import annotations

import contextlib
import dis
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

import torch

__all__ = ["LineLender", "check_lines"]

_CHECKS = frozenset({"has_torch_function", "has_torch_function_unary", "has_torch_function_variadic"})
_LOADS = frozenset({"LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF", "LOAD_FAST"})
_NO_LINES: frozenset[int] = frozenset()
_LINES: dict[types.CodeType, frozenset[int]] = {}

Tracer = Callable[[types.FrameType, str, Any], Any]


def check_lines(code: types.CodeType) -> frozenset[int]:
    """The lines of ``code`` that call a ``has_torch_function`` check (cached per code object)."""
    found = _LINES.get(code)
    if found is None:
        found = _NO_LINES
        if not _CHECKS.isdisjoint(code.co_names) or not _CHECKS.isdisjoint(code.co_varnames):
            found = frozenset(
                ins.positions.lineno
                for ins in dis.get_instructions(code)
                if ins.opname in _LOADS and ins.argval in _CHECKS
                and ins.positions is not None and ins.positions.lineno is not None
            )
        _LINES[code] = found
    return found


def forward_code(module: torch.nn.Module) -> types.CodeType | None:
    """The code object of a module's forward, under its decorators (functools.wraps), or None
    if it has none (a builtin, a script)."""
    forward: Any = getattr(module, "forward", None)
    forward = getattr(forward, "__func__", forward)
    with contextlib.suppress(Exception):  # a broken __wrapped__ chain: the outer function
        forward = inspect.unwrap(forward)
    code = getattr(forward, "__code__", None)
    return code if isinstance(code, types.CodeType) else None


class _Pending:
    """One call of a forward with checks: waiting for its frame, checking, or done."""

    __slots__ = ("module", "code", "lines", "last", "state")

    def __init__(self, module: Any, code: types.CodeType, lines: frozenset[int]) -> None:
        self.module = module
        self.code = code
        self.lines = lines
        self.last = max(lines)
        self.state = "waiting"


class LineLender:
    """Lends ``mode`` off this thread's torch-function stack around the check lines of the
    forwards it is told about (:meth:`enter` / :meth:`leave`), through a chained line tracer.

    The tracer stays installed only until every such forward has passed its last check line
    (tracing slows all Python code down), so the slow path that may follow runs at full speed.
    """

    def __init__(self, mode: Any) -> None:
        self.mode = mode
        self.calls: list[_Pending] = []
        self.previous: Any = None  # sys.gettrace(): a debugger or coverage, chained
        self.installed = False
        self.lent = False  # the mode is off the stack right now

    def enter(self, module: Any, code: types.CodeType, lines: frozenset[int]) -> None:
        self.calls.append(_Pending(module, code, lines))
        if not self.installed:
            self.previous = sys.gettrace()
            self.installed = True
            sys.settrace(self._global)

    def leave(self, module: Any) -> None:
        calls = self.calls
        for depth in range(len(calls) - 1, -1, -1):
            if calls[depth].module is module:
                del calls[depth:]
                self.settle()
                return

    def settle(self) -> None:
        """Take the tracer off once no forward is before or in its checks."""
        if self.installed and all(c.state == "done" for c in self.calls):
            self.give_back()
            self.installed = False
            sys.settrace(self.previous)
            self.previous = None

    def uninstall(self) -> None:
        """Put the mode back if it is lent and restore the previous tracer; idempotent."""
        self.calls.clear()
        self.give_back()
        self.settle()

    def give_back(self) -> None:
        if self.lent:
            if not _on_stack(self.mode):
                torch._C._push_on_torch_function_stack(self.mode)
            self.lent = False

    def _lend(self) -> None:
        # Only when the mode is alone on the stack: any other mode makes the check true plainly too.
        if torch._C._len_torch_function_stack() == 1 and torch._C._get_function_stack_at(0) is self.mode:
            self.lent = True
            torch._C._pop_torch_function_stack()

    def _global(self, frame: types.FrameType, event: str, arg: Any) -> Tracer | None:
        previous = self.previous
        local = previous(frame, event, arg) if previous is not None else None
        code = frame.f_code
        for call in reversed(self.calls):
            if call.code is code and call.state == "waiting":
                call.state = "checking"
                return _Local(self, call, local)
        return local


class _Local:
    """The line tracer of one frame of a forward with checks."""

    __slots__ = ("lender", "call", "chained")

    def __init__(self, lender: LineLender, call: _Pending, chained: Tracer | None) -> None:
        self.lender = lender
        self.call = call
        self.chained = chained

    def __call__(self, frame: types.FrameType, event: str, arg: Any) -> _Local:
        lender = self.lender
        if lender.lent:
            lender.give_back()
        call = self.call
        if call.state == "checking":
            line = frame.f_lineno
            if event == "line" and line in call.lines:
                lender._lend()
            elif event == "return" or line > call.last:
                call.state = "done"
                lender.settle()
        if self.chained is not None:
            self.chained = self.chained(frame, event, arg)
        return self


def _on_stack(mode: Any) -> bool:
    return any(torch._C._get_function_stack_at(i) is mode for i in range(torch._C._len_torch_function_stack()))

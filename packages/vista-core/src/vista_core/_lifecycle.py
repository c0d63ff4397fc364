"""Putting a trace on torch and taking it off again: the recorder's mode on the thread's
torch-function mode stack, its global module hooks and torch.compile's stance.

The recorder's mode goes to the bottom of the tracing thread's stack, under the modes the
caller entered, so the forward pass pops and pushes modes exactly as it does plainly (a mode
it leaves that was entered before the trace is that mode, never Vista's); afterwards exactly
Vista's mode is taken off, wherever it is, and every other mode stays where it is. Under the
caller's modes the recorder sees each call as torch runs it, after those modes handled it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from torch.utils.hooks import RemovableHandle

from ._compiled import hold_eager, release_eager
from ._recorder import Recorder

__all__ = ["Session", "insert_mode", "mode_removed", "remove_mode"]

_stack_length = torch._C._len_torch_function_stack
_stack_at = torch._C._get_function_stack_at
_push = torch._C._push_on_torch_function_stack
_pop = torch._C._pop_torch_function_stack


def insert_mode(mode: Any, position: int) -> None:
    """Put ``mode`` at ``position`` (0 is the bottom) of this thread's torch-function mode
    stack; the modes above it keep their order."""
    above = [_pop() for _ in range(_stack_length() - position)]
    _push(mode)
    for other in reversed(above):
        _push(other)


def remove_mode(mode: Any) -> int | None:
    """Take exactly ``mode`` off this thread's torch-function mode stack, wherever it is, and
    return where it was (``None``, touching nothing, if it is not there)."""
    for position in range(_stack_length() - 1, -1, -1):
        if _stack_at(position) is mode:
            break
    else:
        return None
    above = [_pop() for _ in range(_stack_length() - position - 1)]
    _pop()
    for other in reversed(above):
        _push(other)
    return position


@contextlib.contextmanager
def mode_removed(mode: Any) -> Iterator[None]:
    """``mode`` is off the stack inside, and back at its place afterwards (where torch must
    not see an override, e.g. while it chooses a fused fast path)."""
    position = remove_mode(mode)
    try:
        yield
    finally:
        if position is not None:
            insert_mode(mode, min(position, _stack_length()))


class Session:
    """One trace's hold on torch, from :meth:`start` to :meth:`stop`. ``stop()`` undoes what
    ``start()`` did, also after a ``start()`` cut short by an exception, and leaves what the
    forward pass did to the mode stack as it is."""

    def __init__(self, recorder: Recorder, *, quiet_wrappers: bool) -> None:
        self.recorder = recorder
        self.quiet_wrappers = quiet_wrappers
        self._eager = False
        self._handles: list[RemovableHandle] = []

    def start(self) -> None:
        """Make compiled code run eagerly, install the module hooks, insert the mode."""
        recorder = self.recorder
        self._eager = hold_eager(quiet_wrappers=self.quiet_wrappers)
        self._handles.append(register_module_forward_pre_hook(recorder._pre_hook))
        self._handles.append(register_module_forward_hook(recorder._post_hook, always_call=True))
        insert_mode(recorder, 0)

    def stop(self) -> None:
        """Take the mode off, remove the hooks, put the compile stance back."""
        try:
            self.recorder.lender.uninstall()  # the mode back if a fast-path check has it, the tracer off
            remove_mode(self.recorder)
        finally:
            try:
                while self._handles:
                    self._handles.pop().remove()
            finally:
                if self._eager:
                    self._eager = False
                    release_eager(quiet_wrappers=self.quiet_wrappers)

"""Measured wall time of each op and module call (``timing=True``, schema 1.1).

The figures come from the one traced run (a second run would move the random stream and
update buffers such as batch-norm statistics again). An op's time is ``perf_counter_ns``
right around the call of the op itself, inside the recorder, so recording it is not in it.
A module call's time is from the end of Vista's pre-hook to the start of Vista's post-hook,
less everything Vista did in between (recording each op inside it, its statistics with
``stats=True``, and the hooks of the calls inside it), which is measured as it happens; the
module's own forward pre-hooks are part of the call, its forward hooks are not (torch runs
the global hooks first). The model's time is the forward's, less all of
Vista's work. What is left in is the entry of each op into Vista's mode, a fraction of a
microsecond per op. With CUDA in use, the device is synchronised before and after each op,
so each op's kernels are in its own time (as they would not overlap the next op's launch).
"""

from __future__ import annotations

import threading
from time import perf_counter_ns
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._graph import ModuleCall, Node
    from ._recorder import CallRec

__all__ = ["Timer"]


class Timer:
    """The times of one trace, in nanoseconds: ``ops`` by node index, ``calls`` by call index
    (the root call's from :meth:`begin` and :meth:`end`). ``overhead`` is Vista's own time
    during the forward so far."""

    def __init__(self, stack: list[CallRec], thread: int) -> None:
        self.ops: dict[int, int] = {}
        self.calls: dict[int, int] = {}
        self.overhead = 0
        self.last = 0  # the time of the op run last by run()
        self._stack = stack  # the recorder's stack of open calls (one list, changed in place)
        self._thread = thread
        self._open: dict[int, tuple[int, int]] = {}  # call index -> (start, overhead then)
        self._hook_started = 0
        self._started = (0, 0)
        self.sync = torch.cuda.is_available() and torch.cuda.is_initialized()  # type: ignore[no-untyped-call]

    def run(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``func(*args, **kwargs)``, its wall time kept in ``last``."""
        if self.sync:
            torch.cuda.synchronize()
        start = perf_counter_ns()
        try:
            return func(*args, **kwargs)
        finally:
            if self.sync:
                torch.cuda.synchronize()
            self.last = perf_counter_ns() - start

    def begin(self) -> None:
        """The forward starts (the model's own call)."""
        self._started = (perf_counter_ns(), self.overhead)

    def end(self) -> None:
        """The forward has returned or raised."""
        start, overhead = self._started
        self.calls[0] = max(0, perf_counter_ns() - start - (self.overhead - overhead))

    # Global module hooks, registered around the recorder's: *_enter before its hook, *_leave
    # after it, so the time between them is the recorder's, added to ``overhead``.
    def pre_enter(self, module: Any, args: Any) -> None:
        self._hook_started = perf_counter_ns()

    def pre_leave(self, module: Any, args: Any) -> None:
        if threading.get_ident() != self._thread:
            return
        stack = self._stack
        now = perf_counter_ns()
        self.overhead += now - self._hook_started
        call = stack[-1]
        if call.module is module and call.index != 0 and call.index not in self._open:
            self._open[call.index] = (now, self.overhead)

    def post_enter(self, module: Any, args: Any, *rest: Any) -> None:
        now = perf_counter_ns()
        if threading.get_ident() != self._thread:
            return
        stack = self._stack
        for depth in range(len(stack) - 1, 0, -1):  # the call the recorder's hook will close
            call = stack[depth]
            if call.module is module:
                opened = self._open.pop(call.index, None)
                if opened is not None:
                    self.calls[call.index] = max(0, now - opened[0] - (self.overhead - opened[1]))
                break
        self._hook_started = perf_counter_ns()
        self.overhead += self._hook_started - now

    def post_leave(self, module: Any, args: Any, *rest: Any) -> None:
        if threading.get_ident() == self._thread:
            self.overhead += perf_counter_ns() - self._hook_started

    def add_times(self, nodes: Sequence[Node], modules: Sequence[ModuleCall]) -> None:
        """Put ``time_us`` on the op nodes and module calls measured (records just made by the
        tracer, which no one holds yet)."""
        setattr_ = object.__setattr__
        for index, ns in self.ops.items():
            setattr_(nodes[index], "time_us", ns / 1000)
        for index, ns in self.calls.items():
            setattr_(modules[index], "time_us", ns / 1000)

"""Putting a trace on torch and taking it off again: the recorder's mode on the thread's
torch-function mode stack, its global module hooks and torch.compile's stance.

The recorder's mode goes to the bottom of the tracing thread's stack, under the modes the
caller entered, so the forward pass pops and pushes modes exactly as it does plainly (a mode
it leaves that was entered before the trace is that mode, never Vista's); afterwards exactly
Vista's mode is taken off, wherever it is, and every other mode stays where it is. Under the
caller's modes the recorder sees each call as torch runs it, after those modes handled it.

A KeyboardInterrupt can arrive at any bytecode. While a trace runs on the main thread, Vista's
SIGINT handler stands in for the caller's: an interrupt that arrives while Vista changes or
restores torch's state waits until that is done and is then handed to the caller's handler
(which raises KeyboardInterrupt); any other interrupt goes to the caller's handler at once, so
the forward pass is interrupted exactly as it is plainly. Other threads get no signals.
"""

from __future__ import annotations

import contextlib
import gc
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

import torch
from torch.nn.modules.module import _global_forward_hooks_with_kwargs as _hooks_with_kwargs
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from torch.utils.hooks import RemovableHandle

from ._compiled import hold_eager, release_eager
from ._recorder import Recorder
from ._scripted import hold_script_calls, release_script_calls

__all__ = ["Session", "insert_mode", "interrupts_wait_in", "mode_removed", "remove_mode"]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

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


class _Interrupts:
    """The SIGINT handler held by the traces running on the main thread (a trace inside a
    trace holds it twice), the caller's handler it stands in for, and an interrupt waiting."""

    holders = 0
    caller: Any = None
    waiting = False


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    """Vista's SIGINT handler: the interrupt waits (see :class:`Session`), or goes on to the
    caller's handler."""
    if frame is not None and frame.f_code in _OWN_BYTECODE:
        _Interrupts.waiting = True
        return
    current = frame
    while current is not None:
        if current.f_code in _GUARDED:
            _Interrupts.waiting = True
            return
        current = current.f_back
    _Interrupts.caller(signum, frame)


def _hold_interrupts() -> bool:
    """Stand in for the caller's SIGINT handler (on the main thread, where signals arrive, and
    if that handler is a Python function); False if nothing was done."""
    if _Interrupts.holders == 0:
        if threading.current_thread() is not threading.main_thread():
            return False
        caller = signal.getsignal(signal.SIGINT)
        if not callable(caller) or caller is _on_interrupt:
            return False
        _Interrupts.caller = caller
        _Interrupts.waiting = False
        try:
            signal.signal(signal.SIGINT, _on_interrupt)
        except ValueError:  # not the main interpreter: signals are not ours to handle
            return False
    elif threading.current_thread() is not threading.main_thread():
        return False
    _Interrupts.holders += 1
    return True


def _release_interrupts() -> None:
    """Undo one :func:`_hold_interrupts` that returned True; the last one puts the caller's
    handler back, unless the forward pass installed one of its own meanwhile."""
    _Interrupts.holders -= 1
    if _Interrupts.holders == 0 and signal.getsignal(signal.SIGINT) is _on_interrupt:
        signal.signal(signal.SIGINT, _Interrupts.caller)


def _take_waiting() -> bool:
    """Whether an interrupt waited (and it no longer waits)."""
    waiting, _Interrupts.waiting = _Interrupts.waiting, False
    return waiting


class _Recursion:
    """Room above the recursion limit for the traces running at once (in any thread): torch's
    call path for modules with global hooks costs one more level of recursion per module call
    than the plain path, so a model nested close to the limit would fail only under trace. The
    first trace records the caller's limit, each raises it as far as it needs, the last one
    puts it back (unless the forward pass set a limit of its own meanwhile)."""

    lock = threading.Lock()
    holders = 0
    original = 0
    raised = 0


def _hold_recursion(extra: int) -> None:
    with _Recursion.lock:
        if _Recursion.holders == 0:
            _Recursion.original = _Recursion.raised = sys.getrecursionlimit()
        wanted = _Recursion.original + extra
        if wanted > _Recursion.raised and sys.getrecursionlimit() == _Recursion.raised:
            sys.setrecursionlimit(wanted)
            _Recursion.raised = wanted
        _Recursion.holders += 1


def _release_recursion() -> None:
    with _Recursion.lock:
        _Recursion.holders -= 1
        if _Recursion.holders == 0 and sys.getrecursionlimit() == _Recursion.raised:
            sys.setrecursionlimit(_Recursion.original)


class Session:
    """One trace's hold on torch. In ``capture()``::

        session = Session(recorder, quiet_wrappers=...)
        try:
            session.open()
            session.untraced(add_inputs, ...)
            try:
                session.start()
                output = model(...)
            finally:
                session.stop()
            graph = session.untraced(build, ...)
        finally:
            session.close()

    Between ``open()`` and ``close()`` Vista's SIGINT handler stands in for the caller's: an
    interrupt waits while ``open``, ``start``, ``stop`` or ``close`` runs, or the bytecode of
    ``capture`` or ``untraced`` itself (between the steps), and is raised at the end of the
    next of those methods; elsewhere (the forward pass, Vista's own work) it is raised at
    once. Each method undoes only what was done, also after an earlier step was cut short.
    """

    def __init__(self, recorder: Recorder, *, quiet_wrappers: bool, module_depth: int = 0) -> None:
        self.recorder = recorder
        self.quiet_wrappers = quiet_wrappers
        # One level per module call on the deepest path, and some for the recorder's own frames.
        self._extra_recursion = module_depth + 50
        self._recursion = False
        self._interrupts = False
        self._collecting = False
        self._eager = False
        self._scripted = False
        self._handles: list[RemovableHandle] = []

    def open(self) -> None:
        """Hold SIGINT."""
        self._interrupts = _hold_interrupts()
        self._deliver_waiting()

    def start(self) -> None:
        """Make compiled code run eagerly, make room above the recursion limit for the hooked
        module calls, route script-function calls to the recorder, install the module hooks,
        insert the mode."""
        recorder = self.recorder
        self._eager = hold_eager(quiet_wrappers=self.quiet_wrappers)
        _hold_recursion(self._extra_recursion)
        self._recursion = True
        hold_script_calls(recorder)
        self._scripted = True
        timer = recorder.timer  # its hooks go around the recorder's, to measure them
        if timer is not None:
            self._handles.append(register_module_forward_pre_hook(timer.pre_enter))
        self._handles.append(register_module_forward_pre_hook(recorder._pre_hook))
        if timer is not None:
            self._handles.append(register_module_forward_pre_hook(timer.pre_leave))
            self._handles.append(register_module_forward_hook(timer.post_enter, always_call=True))
        # with_kwargs: the call's keyword arguments are among its inputs (see Recorder._post_hook).
        self._handles.append(register_module_forward_hook(recorder._post_hook, always_call=True, with_kwargs=True))
        if timer is not None:
            self._handles.append(register_module_forward_hook(timer.post_leave, always_call=True))
        insert_mode(recorder, 0)
        self._deliver_waiting()

    def stop(self) -> None:
        """Take the mode off, remove the hooks, put the compile stance, script-function calls
        and the recursion limit back."""
        try:
            self.recorder.lender.uninstall()  # the mode back if a fast-path check has it, the tracer off
            remove_mode(self.recorder)
        finally:
            try:
                while self._handles:
                    handle = self._handles.pop()
                    handle.remove()
                    # torch's handle forgets the with_kwargs flag of a global forward hook.
                    _hooks_with_kwargs.pop(handle.id, None)
            finally:
                try:
                    if self._eager:
                        self._eager = False
                        release_eager(quiet_wrappers=self.quiet_wrappers)
                finally:
                    try:
                        if self._scripted:
                            self._scripted = False
                            release_script_calls(self.recorder)
                    finally:
                        if self._recursion:
                            self._recursion = False
                            _release_recursion()
        self._deliver_waiting()

    def close(self) -> None:
        """Undo what is still done (after an exception), resume the garbage collector if
        :meth:`untraced` paused it, and put the caller's SIGINT handler back."""
        try:
            self.stop()
        finally:
            if self._collecting:
                self._collecting = False
                gc.enable()
            if self._interrupts:
                self._interrupts = False
                waiting = _take_waiting()
                caller = _Interrupts.caller
                _release_interrupts()
                # One that arrived while the caller's handler was put back waited too.
                if _take_waiting() or waiting:
                    caller(signal.SIGINT, sys._getframe())

    def untraced(self, function: Callable[..., T], *args: Any, pause_gc: bool = False) -> T:
        """``function(*args)`` with torch functions undisturbed by anyone's modes: Vista's own
        reads of tensors are hidden from the caller's modes, which see what they see plainly.

        ``pause_gc`` pauses the cyclic garbage collector until :meth:`close` (for building the
        document: nearly every object made then is a record that lives on, so the collector's
        passes would only scan them). It is never paused while the model runs: cycles the
        model makes are collected as in a plain run."""
        if pause_gc and gc.isenabled():
            self._collecting = True
            gc.disable()
        with torch._C.DisableTorchFunction():
            return function(*args)

    def _deliver_waiting(self) -> None:
        if self._interrupts and _take_waiting():
            _Interrupts.caller(signal.SIGINT, sys._getframe())


#: Code that an interrupt must not cut short: anything running inside these frames.
_GUARDED = frozenset(f.__code__ for f in (Session.open, Session.start, Session.stop, Session.close,
                                          Session._deliver_waiting, _hold_interrupts, _release_interrupts))
#: Code whose own bytecode an interrupt waits for (not the code it calls).
_OWN_BYTECODE = {Session.untraced.__code__}


def interrupts_wait_in(function: F) -> F:
    """Make interrupts that hit ``function``'s own bytecode (between its calls) wait for the
    session's next step, as they do in :meth:`Session.untraced` (``capture`` uses it)."""
    _OWN_BYTECODE.add(function.__code__)
    return function

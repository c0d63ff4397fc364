"""Calls of ``torch.jit.script`` functions, which no torch-function mode sees (the TorchScript
interpreter runs them): while a trace runs, each such call on the tracing thread goes through
the recorder as one op, so its result has a producer fed by the tensors it was given.

``torch.jit.ScriptFunction.__call__`` is process-wide, so it is replaced once for all the
traces running at the same time (in several threads) and put back by the last one to end; a
call on a thread without a trace, or with torch functions disabled, goes straight to torch.
"""

from __future__ import annotations

import threading
from typing import Any

import torch

from ._recorder import Recorder, name_op

__all__ = ["hold_script_calls", "release_script_calls"]

_ScriptFunction = torch.jit.ScriptFunction
_ORIGINAL_CALL = _ScriptFunction.__call__
_get_ident = threading.get_ident
_torch_function_enabled = torch._C._is_torch_function_enabled


_lock = threading.Lock()
_holders = 0
_recorders: dict[int, list[Recorder]] = {}  # thread ident -> the traces running on it, innermost last
# ScriptFunction -> the callable the recorder records: one per function for the process's life
# (op names are cached by callable), as few as the script functions it defines.
_calls: dict[Any, ScriptedCall] = {}


class ScriptedCall:
    """A script function as the recorder calls, names and replays it (for its FLOPs)."""

    def __init__(self, function: Any) -> None:
        self.function = function
        qualified = str(getattr(function, "qualified_name", "") or getattr(function, "name", "script"))
        self.__module__, _, self.__qualname__ = qualified.removeprefix("__torch__.").rpartition(".")
        name_op(self, f"{self.__module__}.{self.__qualname__}" if self.__module__ else self.__qualname__,
                "TorchScript")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _ORIGINAL_CALL(self.function, *args, **kwargs)


def _call(function: Any, *args: Any, **kwargs: Any) -> Any:
    """``torch.jit.ScriptFunction.__call__`` while traces run."""
    running = _recorders.get(_get_ident())
    if not running or not _torch_function_enabled():
        return _ORIGINAL_CALL(function, *args, **kwargs)
    call = _calls.get(function)
    if call is None:
        call = _calls[function] = ScriptedCall(function)
    return running[-1].__torch_function__(call, (), args, kwargs)


def hold_script_calls(recorder: Recorder) -> None:
    """Route script-function calls on ``recorder``'s thread to it until :func:`release_script_calls`."""
    global _holders
    with _lock:
        if _holders == 0:
            setattr(_ScriptFunction, "__call__", _call)  # noqa: B010  # torch's stub makes it a method mypy will not let be assigned
        _holders += 1
        _recorders.setdefault(recorder.thread, []).append(recorder)


def release_script_calls(recorder: Recorder) -> None:
    """Undo one :func:`hold_script_calls`; the last puts torch's own ``__call__`` back."""
    global _holders
    with _lock:
        running = _recorders.get(recorder.thread, [])
        if recorder in running:
            running.remove(recorder)
        if not running:
            _recorders.pop(recorder.thread, None)
        _holders -= 1
        if _holders == 0:
            setattr(_ScriptFunction, "__call__", _ORIGINAL_CALL)  # noqa: B010  # as above

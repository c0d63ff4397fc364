# mypy: disable-error-code="no-any-return"
# (torch types nn.Module.__call__ as returning Any, so every `return module(x)` would need a cast)
"""Vista's hold on torch while a trace runs: its mode on the thread's torch-function mode
stack, its global module hooks, torch.compile's stance.

The behaviour these tests define:

- Vista's mode sits at the bottom of the tracing thread's mode stack while the forward runs,
  under every mode the caller or the forward pushed, and afterwards exactly Vista's mode is
  taken off: the stack is what a plain run leaves, also when the forward pushes a mode and
  does not pop it (a lazy one-time setup) or pops a mode that was pushed before the trace.
- A user's mode sees the very calls it sees in a plain run, and the model's output is the same.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
import torch._dynamo  # so the compile stance is set and put back under interrupts too
from _clean import bitwise_equal, torch_left_clean
from hypothesis import event, given
from hypothesis import strategies as st
from torch import nn
from torch.overrides import TorchFunctionMode

import vista_core
from vista_core._lifecycle import insert_mode, mode_removed, remove_mode

pytestmark = pytest.mark.usefixtures("torch_clean")


@pytest.fixture(autouse=True, scope="module")
def _ctrl_c_raises() -> Iterator[None]:
    """Give SIGINT Python's own handler while these tests send it: a process started in the
    background of a script inherits SIGINT ignored, and then no interrupt would arrive at all."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def mode_stack() -> list[Any]:
    return [torch._C._get_function_stack_at(i) for i in range(torch._C._len_torch_function_stack())]


def clear_stack() -> list[Any]:
    """Pop every mode (bottom first in the result), keeping a failing test from breaking the next."""
    popped = [torch._C._pop_torch_function_stack() for _ in range(torch._C._len_torch_function_stack())]
    return popped[::-1]


class Counting(TorchFunctionMode):
    """A user's mode: counts the calls it sees, by name."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def __torch_function__(self, func: Callable[..., Any], types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        self.seen.append(getattr(func, "__name__", repr(func)))
        return func(*args, **(kwargs or {}))


class LazySetup(nn.Module):
    """Enters a mode on its first call and never leaves it (a one-time setup)."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.mode: Counting | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.mode is None:
            self.mode = Counting()
            self.mode.__enter__()
        return torch.relu(self.lin(x)) * 2


class LeavesOuterMode(nn.Module):
    """Leaves a mode that was entered before it was called."""

    def __init__(self, mode: TorchFunctionMode) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.outer = mode

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.lin(x)
        self.outer.__exit__(None, None, None)
        return y.sigmoid() + 1


def test_forward_that_enters_a_mode_and_stays_in_it_leaves_that_mode_alone() -> None:
    torch.manual_seed(0)
    x = torch.randn(2, 3)
    plain = LazySetup()
    expected = plain(x)
    assert mode_stack() == [plain.mode]
    clear_stack()

    traced = LazySetup()
    traced.load_state_dict(plain.state_dict())
    try:
        graph = vista_core.trace(traced, x)
        # As after the plain run: the model's mode alone, not Vista's recorder.
        assert mode_stack() == [traced.mode]
    finally:
        clear_stack()
    assert [n.label for n in graph.ops()] == ["linear", "relu", "mul"]
    assert traced.mode is not None and plain.mode is not None
    assert traced.mode.seen == plain.mode.seen == ["linear", "relu", "mul"]
    # The second call, with the model's mode already on, is traced like the first.
    assert mode_stack() == []
    with traced.mode:
        again = vista_core.capture(traced, x)
        assert mode_stack() == [traced.mode]
    assert bitwise_equal(again.output, expected)
    assert [n.label for n in again.graph.ops()] == ["linear", "relu", "mul"]


def test_forward_that_leaves_a_mode_entered_before_the_trace() -> None:
    torch.manual_seed(0)
    x = torch.randn(2, 3)
    plain_mode, traced_mode = Counting(), Counting()
    plain = LeavesOuterMode(plain_mode)
    plain_mode.__enter__()
    expected = plain(x)
    assert mode_stack() == []

    traced = LeavesOuterMode(traced_mode)
    traced.load_state_dict(plain.state_dict())
    traced_mode.__enter__()
    try:
        result = vista_core.capture(traced, x)
        # The forward left the user's mode, as in the plain run: nothing is left on the stack.
        assert mode_stack() == []
    finally:
        clear_stack()
    assert result.exception is None
    assert bitwise_equal(result.output, expected)
    assert traced_mode.seen == plain_mode.seen == ["linear"]
    # Vista kept recording after the model's mode was gone.
    assert [n.label for n in result.graph.ops()] == ["linear", "sigmoid", "add"]


def test_mode_of_the_caller_sees_what_it_sees_in_a_plain_run() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.Linear(4, 2))
    x = torch.randn(2, 3)
    with Counting() as plain:
        expected = model(x)
    with Counting() as outer:
        before = mode_stack()
        result = vista_core.capture(model, x)
        assert mode_stack() == before == [outer]
    assert bitwise_equal(result.output, expected)
    assert outer.seen == plain.seen
    assert [n.label for n in result.graph.ops()] == ["linear", "gelu", "linear"]


def test_trace_inside_a_users_mode_that_is_left_and_entered_again_inside() -> None:
    """A forward that leaves the caller's mode and enters a new one: the new one stays, as plainly."""
    x = torch.randn(2, 3)

    class Swaps(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.outer: Counting | None = None
            self.new = Counting()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            assert self.outer is not None
            self.outer.__exit__(None, None, None)
            self.new.__enter__()
            return x.exp()

    model = Swaps()
    model.outer = Counting()
    model.outer.__enter__()
    try:
        graph = vista_core.trace(model, x)
        assert mode_stack() == [model.new]
    finally:
        clear_stack()
    assert [n.label for n in graph.ops()] == ["exp"]
    assert model.new.seen == ["exp"]


# -- the stack operations themselves ---------------------------------------------------------

def test_insert_and_remove_exactly_one_mode_keep_the_others_in_order() -> None:
    a, b, c, ours = Counting(), Counting(), Counting(), Counting()
    try:
        for m in (a, b, c):
            m.__enter__()
        insert_mode(ours, 0)
        assert mode_stack() == [ours, a, b, c]
        assert remove_mode(ours) == 0
        assert mode_stack() == [a, b, c]
        insert_mode(ours, 2)
        assert mode_stack() == [a, b, ours, c]
        with mode_removed(ours):
            assert mode_stack() == [a, b, c]
        assert mode_stack() == [a, b, ours, c]
        assert remove_mode(ours) == 2
        assert remove_mode(ours) is None  # not on the stack: nothing else is touched
        assert mode_stack() == [a, b, c]
    finally:
        clear_stack()


def test_a_trace_leaves_torch_clean_with_modes_around_it() -> None:
    model = nn.Linear(3, 3)
    with Counting(), torch_left_clean(model):
        vista_core.trace(model, torch.randn(1, 3))


# -- interrupts ------------------------------------------------------------------------------

class Small(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.inner = nn.Sequential(nn.ReLU(), nn.Linear(3, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(self.lin(x) + 1)


def _lifecycle_codes() -> frozenset[Any]:
    """The code that starts and stops a trace, whose every bytecode an interrupt may hit."""
    from torch.nn.modules import module as nn_module
    from torch.utils.hooks import RemovableHandle

    from vista_core import _compiled, _lifecycle, _trace

    functions = [
        _trace.capture, _lifecycle.Session.open, _lifecycle.Session.start, _lifecycle.Session.stop,
        _lifecycle.Session.close, _lifecycle.Session.untraced, _lifecycle.Session._deliver_waiting,
        _lifecycle._hold_interrupts, _lifecycle._hold_recursion, _lifecycle._release_recursion,
        _lifecycle._release_interrupts, _lifecycle._take_waiting, _lifecycle.insert_mode,
        _lifecycle.remove_mode, _compiled.hold_eager, _compiled.release_eager,
        nn_module.register_module_forward_hook, nn_module.register_module_forward_pre_hook,
        RemovableHandle.__init__, RemovableHandle.remove,
    ]
    return frozenset(f.__code__ for f in functions)


#: Opcodes after which CPython 3.11 and later look for a pending signal (besides a frame's start).
_CHECKS = frozenset(name for name in __import__("dis").opname
                    if name.startswith(("CALL", "PRECALL")) or name in ("JUMP_BACKWARD", "POP_JUMP_BACKWARD_IF_TRUE",
                                                                     "POP_JUMP_BACKWARD_IF_FALSE",
                                                                     "POP_JUMP_BACKWARD_IF_NONE",
                                                                     "POP_JUMP_BACKWARD_IF_NOT_NONE"))


def _interrupt_at_check(target: int, codes: frozenset[Any], model: nn.Module, x: torch.Tensor) -> tuple[str, int]:
    """Trace ``model`` with SIGINT handled, as Ctrl-C is, at the ``target``-th place in
    ``codes`` where the interpreter looks for pending signals; the outcome and the number of
    such places seen. The current SIGINT handler gets the signal there, as from CPython."""
    import dis
    import sys

    seen = 0
    last: dict[Any, str] = {}

    def local(frame: Any, event: str, arg: Any) -> Any:
        nonlocal seen
        if event == "opcode":
            previous = last.get(frame)
            last[frame] = dis.opname[frame.f_code.co_code[frame.f_lasti]]
            if previous is None or previous in _CHECKS:
                seen += 1
                if seen == target:
                    handler = signal.getsignal(signal.SIGINT)
                    assert callable(handler)
                    handler(signal.SIGINT, frame)
        return local

    def calls(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code in codes:
            frame.f_trace_opcodes = True
            return local
        return None

    outcome = "no interrupt"
    sys.settrace(calls)
    try:
        result = vista_core.capture(model, x)
    except KeyboardInterrupt:
        outcome = "raised by capture"
    else:
        if isinstance(result.exception, KeyboardInterrupt):
            outcome = "returned in Capture"
            result.graph.to_json()  # the partial graph is a document
        else:
            assert result.exception is None
    finally:
        sys.settrace(None)
    return outcome, seen


def test_interrupt_at_every_bytecode_of_start_and_stop_leaves_nothing_behind() -> None:
    """SIGINT at each place of capture(), Session.start/stop and what they call (the hooks'
    registration, the mode stack, the compile stance) where CPython handles signals: torch is
    left as it was, and the interrupt is never lost."""
    import torch._dynamo  # so the compile stance is set and put back too
    from _clean import _diff, torch_state

    model, x = Small(), torch.randn(2, 3)
    codes = _lifecycle_codes()
    _, total = _interrupt_at_check(0, codes, model, x)
    assert total > 100, "the bytecodes of start and stop were not all seen"
    outcomes: dict[str, int] = {}
    before = torch_state()
    for target in range(1, total + 1):
        outcome, _ = _interrupt_at_check(target, codes, model, x)
        problems = _diff(before, torch_state())
        assert not problems, f"interrupt at bytecode {target} of {total} left: {problems}"
        assert outcome != "no interrupt", f"the interrupt at bytecode {target} of {total} was lost"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    # Every place is outside the forward pass, where an interrupt propagates from capture().
    assert outcomes == {"raised by capture": total}, outcomes


def test_interrupt_in_the_forward_reaches_it_as_plainly() -> None:
    import _thread

    class Interrupted(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = x * 2
            _thread.interrupt_main()
            for _ in range(100):
                y = y + 1
            return y

    with torch_left_clean():
        result = vista_core.capture(Interrupted(), torch.randn(2))
    assert isinstance(result.exception, KeyboardInterrupt)
    labels = [n.label for n in result.graph.ops()]
    assert labels[0] == "mul" and len(labels) < 101


def test_interrupt_while_starting_goes_to_the_callers_handler_once() -> None:
    """A handler of the caller's own (one that does not raise) gets a deferred interrupt once,
    after Vista started, and is the handler again afterwards."""

    from vista_core import _lifecycle

    received: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        received.append(signum)

    original = _lifecycle.insert_mode

    def insert_then_interrupt(mode: Any, position: int) -> None:
        original(mode, position)
        signal.raise_signal(signal.SIGINT)  # handled at once, inside start(): it must wait

    previous = signal.signal(signal.SIGINT, handler)
    try:
        _lifecycle.insert_mode = insert_then_interrupt  # type: ignore[assignment]
        try:
            result = vista_core.capture(Small(), torch.randn(2, 3))
        finally:
            _lifecycle.insert_mode = original
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert received == [signal.SIGINT]
    assert result.exception is None
    assert [n.label for n in result.graph.ops()] == ["linear", "add", "relu", "linear"]


class Medium(nn.Module):
    """About a hundred ops and module calls: long enough that a timer lands anywhere in it."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8), nn.GELU()) for _ in range(12))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x) + x
        return x


def _interrupted_by_timer(model: nn.Module, x: torch.Tensor, delay: float) -> str:
    """Trace ``model`` while a timer raises Ctrl-C's SIGINT after ``delay`` seconds; the outcome."""
    import _thread
    import threading

    timer = threading.Timer(delay, _thread.interrupt_main)
    outcome = "no interrupt"
    try:
        timer.start()
        result = vista_core.capture(model, x)
        if isinstance(result.exception, KeyboardInterrupt):
            outcome = "returned in Capture"
            vista_core.validate_document(result.graph.to_json())
        else:
            assert result.exception is None
            outcome = "traced"
        timer.join()
        for _ in range(3):  # a signal that came in late is handled here
            (lambda: None)()
    except KeyboardInterrupt:
        outcome = "raised" if outcome == "no interrupt" else "raised after " + outcome
    while timer.is_alive():
        try:
            timer.join()
            (lambda: None)()
        except KeyboardInterrupt:
            outcome = "raised late"
    return outcome


_TRACE_SECONDS: list[float] = []


@given(fraction=st.floats(0.0, 1.3))
def test_property_interrupts_at_random_moments_leave_nothing_behind(fraction: float) -> None:
    """Ctrl-C at a random moment of a trace (hundreds of times in ``nox -s hypothesis_long``):
    torch is left as it was, and a returned partial graph is a valid document."""
    import time

    from _clean import _diff, torch_state

    torch.manual_seed(0)
    model, x = Medium(), torch.randn(2, 8)
    if not _TRACE_SECONDS:
        start = time.perf_counter()
        vista_core.capture(model, x)
        _TRACE_SECONDS.append(time.perf_counter() - start)
    before = torch_state()
    outcome = _interrupted_by_timer(model, x, fraction * _TRACE_SECONDS[0])
    problems = _diff(before, torch_state())
    assert not problems, f"an interrupt ({outcome}) after {fraction:.3f} of a trace left: {problems}"
    event(outcome)


@given(fraction=st.floats(0.0, 1.3))
def test_property_interrupts_in_a_fused_fast_path_leave_nothing_behind(fraction: float) -> None:
    """The same for a model that takes torch's fused fast path (eval, no_grad), where Vista
    takes its mode off the stack for a moment while torch chooses the path."""
    import time

    from _clean import _diff, torch_state

    torch.manual_seed(0)
    model = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 2).eval()
    x = torch.randn(2, 5, 16)
    with torch.no_grad():
        start = time.perf_counter()
        vista_core.capture(model, x)
        seconds = time.perf_counter() - start
        before = torch_state()
        outcome = _interrupted_by_timer(model, x, fraction * seconds)
        problems = _diff(before, torch_state())
    assert not problems, f"an interrupt ({outcome}) after {fraction:.3f} of a trace left: {problems}"
    event(outcome)

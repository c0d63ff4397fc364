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

from collections.abc import Callable
from typing import Any

import pytest
import torch
from _clean import bitwise_equal, torch_left_clean
from torch import nn
from torch.overrides import TorchFunctionMode

import vista_core
from vista_core._lifecycle import insert_mode, mode_removed, remove_mode

pytestmark = pytest.mark.usefixtures("torch_clean")


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

# mypy: disable-error-code="no-any-return"
# (torch types nn.Module.__call__ as returning Any, so every `return module(x)` would need a cast)
"""Source lines are the user's: an op's (or a module call's) source is the innermost frame of
user code inside the traced forward pass that led to it, and never the line that called
Vista (``trace``, ``capture``; ``trace_model`` is tested in vista-jupyter): ops that only
torch's own modules led to have no source."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import vista_core

pytestmark = pytest.mark.usefixtures("torch_clean")


class Scale(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 3  # the user's line


def sources(graph: vista_core.Graph) -> set[tuple[str, str]]:
    located = [*graph.ops(), *graph.modules]
    return {(s.function, s.code) for s in (n.source for n in located) if s is not None}


def test_ops_of_torch_modules_traced_directly_have_no_source() -> None:
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Sequential(nn.Linear(4, 2)))
    graph = vista_core.trace(model, torch.randn(2, 3))
    assert [n.label for n in graph.ops()] == ["linear", "relu", "linear"]
    assert sources(graph) == set(), "the tracing call is not where these ops come from"
    result = vista_core.capture(model, torch.randn(2, 3))
    assert sources(result.graph) == set()


def test_a_users_module_inside_torch_containers_keeps_its_own_line() -> None:
    model = nn.Sequential(nn.Linear(3, 3), nn.Sequential(Scale()))
    graph = vista_core.trace(model, torch.randn(2, 3))
    (mul,) = [n for n in graph.ops() if n.label == "mul"]
    assert mul.source is not None
    assert (mul.source.function, mul.source.code) == ("forward", "return x * 3  # the user's line")
    assert sources(graph) == {("forward", "return x * 3  # the user's line")}


def test_a_plain_function_traced_has_its_own_lines() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x) + 1  # fn's line

    graph = vista_core.trace(fn, torch.randn(2))
    assert sources(graph) == {("fn", "return torch.nn.functional.gelu(x) + 1  # fn's line")}


class TracesInside(nn.Module):
    """A forward that traces a torch module itself: for the outer trace, the inner ops come
    from the forward's line that called capture (user code), not from Vista."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inner = vista_core.capture(self.lin, x)  # the outer trace's source line
        assert sources(inner.graph) == set()
        return inner.output


def test_a_trace_inside_a_trace_names_the_line_in_the_outer_forward() -> None:
    graph = vista_core.trace(TracesInside(), torch.randn(2, 3))
    assert sources(graph) == {("forward", "inner = vista_core.capture(self.lin, x)  # the outer trace's source line")}

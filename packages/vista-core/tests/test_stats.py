"""``stats=True``: statistics of every floating op output, and the first non-finite op."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

import vista_core
from vista_core import Graph, TensorStats, TraceInputError


class Steps(torch.nn.Module):
    """Returns every intermediate tensor, so a test holds exactly the tensors the ops made."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(6, 5)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        a = self.lin(x)
        b = torch.relu(a)
        c = b * 3.0 - 1.0
        d = torch.softmax(c, dim=-1)
        return a, b, c, d


def _expect(t: torch.Tensor, stats: TensorStats | None) -> None:
    assert stats is not None
    assert stats.min == t.min().item() and stats.max == t.max().item()
    assert stats.mean == pytest.approx(t.double().mean().item(), rel=1e-12, abs=1e-12)
    # Low-precision tensors are summed in float64 (torch's own fp16 mean rounds to fp16).
    assert stats.mean == pytest.approx(t.float().mean().item(), rel=1e-5, abs=1e-6)
    assert stats.std == pytest.approx(t.float().std().item(), rel=1e-5, abs=1e-6)
    assert stats.std == pytest.approx(t.double().std().item(), rel=1e-12, abs=1e-12)
    assert (stats.nan, stats.posinf, stats.neginf) == (0, 0, 0)
    assert stats.zeros == int((t == 0).sum())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_stats_equal_torchs_own_on_the_recorded_tensors(dtype: torch.dtype) -> None:
    torch.manual_seed(0)
    model = Steps().to(dtype)
    captured = vista_core.capture(model, torch.randn(4, 6, dtype=dtype), stats=True)
    graph = captured.graph
    # Each output tensor is produced by the op the output node is fed by.
    for tensor, out_node in zip(captured.output, [n for n in graph.nodes if n.kind == "output"]):
        edge = next(e for e in graph.edges if e.target == out_node.id)
        _expect(tensor, graph.node(edge.source).outputs[edge.source_output].stats)
    assert graph.first_nonfinite is None
    relu = next(n for n in graph.ops() if n.label == "relu")
    assert relu.outputs[0].stats is not None and relu.outputs[0].stats.zeros > 0


def test_every_floating_op_output_has_stats_and_others_none() -> None:
    def f(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x.argmax(dim=0), (x > 0).float() + x

    graph = vista_core.trace(f, torch.randn(3, 4), stats=True)
    by_label = {n.label: n for n in graph.ops()}
    assert by_label["argmax"].outputs[0].stats is None  # integer
    assert by_label["gt"].outputs[0].stats is None  # bool
    assert by_label["float"].outputs[0].stats is not None
    assert by_label["add"].outputs[0].stats is not None
    # Inputs, parameters and edges carry none: statistics describe what an op produced.
    assert all(t.stats is None for n in graph.nodes if n.kind != "op" for t in n.outputs)
    assert all(e.tensor.stats is None for e in graph.edges)


def test_stats_are_of_the_tensor_as_the_op_left_it() -> None:
    def f(x: torch.Tensor) -> torch.Tensor:
        y = x * 2.0
        total = y.sum()
        y.zero_()  # a later in-place write does not change what the multiplication produced
        return total + y

    x = torch.arange(1.0, 5.0)
    graph = vista_core.trace(f, x, stats=True)
    ops = {n.label: n for n in graph.ops()}
    assert ops["mul"].outputs[0].stats == TensorStats(min=2.0, max=8.0, mean=5.0, std=pytest.approx(
        (x * 2).std().item()), nan=0, posinf=0, neginf=0, zeros=0)
    assert ops["zero_"].outputs[0].stats is not None and ops["zero_"].outputs[0].stats.zeros == 4


def test_empty_single_and_non_finite_tensors() -> None:
    def f(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return x[:0] * 1.0, x[:1] * 1.0, x / torch.tensor([0.0, 0.0, 1.0, -1.0])

    graph = vista_core.trace(f, torch.tensor([0.0, 1.0, 2.0, 3.0]), stats=True)
    empty, single, divided = (n.outputs[0].stats for n in graph.ops() if n.label in ("mul", "div"))
    assert empty == TensorStats(min=None, max=None, mean=None, std=None, nan=0, posinf=0, neginf=0, zeros=0)
    assert single == TensorStats(min=0.0, max=0.0, mean=0.0, std=None, nan=0, posinf=0, neginf=0, zeros=1)
    # 0/0 is NaN, 1/0 is +inf; min/max/mean/std are of the finite elements (2/1 and 3/-1).
    assert divided == TensorStats(min=-3.0, max=2.0, mean=-0.5, std=pytest.approx(math.sqrt(12.5)),
                                  nan=1, posinf=1, neginf=0, zeros=0)


def _first(graph: Graph) -> str | None:
    node = graph.first_nonfinite
    return None if node is None else node.label


def test_first_nonfinite_is_log_of_a_negative() -> None:
    def f(x: torch.Tensor) -> torch.Tensor:
        shifted = x - 2.0
        logged = torch.log(shifted)  # NaN where x < 2
        return (logged * 2.0).sum()

    graph = vista_core.trace(f, torch.tensor([1.0, 3.0, 4.0]), stats=True)
    assert _first(graph) == "log"
    first = graph.first_nonfinite
    assert first is not None and first.outputs[0].stats is not None and first.outputs[0].stats.nan == 1
    assert graph.to_dict()["first_nonfinite"] == first.id


def test_first_nonfinite_is_zero_over_zero() -> None:
    class Ratio(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            num = x - x  # zeros, finite
            den = x * 0.0
            return torch.exp(num / den) + 1.0

    graph = vista_core.trace(Ratio(), torch.randn(2, 3), stats=True)
    assert _first(graph) == "div"


def test_first_nonfinite_is_an_overflowing_exp_in_fp16() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    with torch.no_grad():
        model[0].weight.fill_(3.0)
        model[0].bias.zero_()
    model = model.half()

    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.exp(model(x)).softmax(-1)

    graph = vista_core.trace(f, torch.full((2, 4), 1.0, dtype=torch.float16), stats=True)
    first = graph.first_nonfinite
    assert first is not None and first.label == "exp"
    assert first.outputs[0].stats is not None and first.outputs[0].stats.posinf == 8
    # exp(12) is finite in float32: the same model in float32 has none.
    assert vista_core.trace(lambda x: torch.exp(model.float()(x)), torch.ones(2, 4), stats=True).first_nonfinite is None


def test_first_nonfinite_by_an_in_place_op() -> None:
    def f(x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        y.log_()
        return y

    assert _first(vista_core.trace(f, -torch.ones(3), stats=True)) == "log_"


def test_non_finite_model_inputs_are_not_made_by_an_op() -> None:
    graph = vista_core.trace(lambda x: (x * 2.0).exp(), torch.tensor([1.0, math.nan]), stats=True)
    assert graph.first_nonfinite is None
    mul = next(graph.ops())
    assert mul.outputs[0].stats is not None and mul.outputs[0].stats.nan == 1


def test_finite_model_has_none_and_without_stats_nothing_is_recorded() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    x = torch.randn(5, 3)
    with_stats = vista_core.trace(model, x, stats=True)
    assert with_stats.first_nonfinite is None and "first_nonfinite" not in with_stats.to_dict()
    assert all(n.outputs[0].stats is not None for n in with_stats.ops())
    plain = vista_core.trace(model, x)
    assert all(t.stats is None for n in plain.nodes for t in n.outputs)
    # The same graph otherwise: the statistics' own ops are not recorded.
    assert [(n.name, n.module) for n in plain.nodes] == [(n.name, n.module) for n in with_stats.nodes]
    assert plain.edges == with_stats.edges


def test_meta_tensors_get_no_stats() -> None:
    graph = vista_core.trace(lambda x: torch.log(x @ x), torch.empty(4, 4, device="meta"), stats=True)
    assert all(t.stats is None for n in graph.nodes for t in n.outputs)
    assert graph.first_nonfinite is None


def test_outputs_gradients_and_rng_are_unchanged() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Dropout(0.5), torch.nn.GELU())
    model.train()
    x = torch.randn(4, 8, requires_grad=True)
    torch.manual_seed(7)
    expected = model(x)
    expected.sum().backward()
    expected_grad, after_plain = x.grad.clone(), torch.get_rng_state()  # type: ignore[union-attr]
    x.grad = None
    torch.manual_seed(7)
    captured = vista_core.capture(model, x, stats=True)
    assert torch.equal(torch.get_rng_state(), after_plain)
    assert torch.equal(captured.output, expected)
    assert captured.output.requires_grad
    captured.output.sum().backward()
    assert torch.equal(x.grad, expected_grad)  # type: ignore[arg-type]


class _Calls(TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.names.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


class _AtenCalls(TorchDispatchMode):  # type: ignore[misc]  # torch leaves it untyped
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("mode", [_Calls, _AtenCalls])
def test_the_callers_modes_do_not_see_the_statistics(mode: type) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    x = torch.randn(2, 3)
    seen = []
    for stats in (False, True):
        with mode() as watching:
            vista_core.trace(model, x, stats=stats)
        seen.append(watching.names)
    assert seen[0] == seen[1] and seen[0]


def test_the_document_round_trips_and_validates() -> None:
    graph = vista_core.trace(lambda x: torch.log(x), torch.tensor([1.0, -1.0]), stats=True)
    assert Graph.from_json(graph.to_json()) == graph
    vista_core.validate_document(graph)
    stats = graph.to_dict()["nodes"][1]["outputs"][0]["stats"]
    assert stats == {"min": 0.0, "max": 0.0, "mean": 0.0, "std": None, "nan": 1, "posinf": 0, "neginf": 0, "zeros": 1}


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_bad_stats_argument_is_refused_saying_what_to_pass(value: object) -> None:
    with pytest.raises(TraceInputError, match=r"Invalid 'stats' argument: .*pass stats=True or stats=False"):
        vista_core.trace(torch.nn.ReLU(), torch.ones(2), stats=value)  # type: ignore[arg-type]

"""Coverage canary: one test per family of tensor operation. Each asserts that the op appears
as a node with its qualified name and that its edges come from the right producers."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F

import vista_core
from vista_core import Graph, Node


def trace_fn(fn: Callable[..., torch.Tensor], *inputs: torch.Tensor) -> Graph:
    return vista_core.trace(fn, inputs)


def op(graph: Graph, name: str) -> Node:
    found = [n for n in graph.ops() if n.name == name]
    assert found, f"no op {name!r} in {[n.name for n in graph.ops()]}"
    return found[0]


def sources(graph: Graph, node: Node) -> list[str]:
    """Names of the nodes feeding ``node``, in input order."""
    edges = sorted((e for e in graph.edges if e.target == node.id), key=lambda e: e.target_input)
    return [graph.node(e.source).name for e in edges]


def test_factory_functions_are_nodes_without_inputs() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        return x + torch.zeros(3) + torch.arange(3) + torch.full((3,), 2.0)

    g = trace_fn(fn, torch.ones(3))
    for name in ("torch.zeros", "torch.arange", "torch.full"):
        node = op(g, name)
        assert sources(g, node) == []
        assert [o.shape for o in node.outputs] == [(3,)]
    assert op(g, "torch.full").arguments[0].value == "(3,)"


def test_in_place_op_becomes_the_producer() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y.add_(1)
        y.relu_()
        return y.sum()

    g = trace_fn(fn, torch.randn(4))
    assert sources(g, op(g, "torch.Tensor.add_")) == ["torch.Tensor.mul"]
    assert sources(g, op(g, "torch.Tensor.relu_")) == ["torch.Tensor.add_"]
    assert sources(g, op(g, "torch.Tensor.sum")) == ["torch.Tensor.relu_"]


def test_write_through_a_view_reaches_later_readers_of_the_base() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        view = y[1:]
        view.mul_(3)
        return y.exp()

    g = trace_fn(fn, torch.randn(4))
    assert sources(g, op(g, "torch.Tensor.exp")) == ["torch.Tensor.mul_"]


def test_indexing_get_and_set() -> None:
    def fn(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        y[idx] = x[0]
        return y[:, 1:]

    g = trace_fn(fn, torch.randn(3, 4), torch.tensor([1, 2]))
    setitem = op(g, "torch.Tensor.__setitem__")
    assert sources(g, setitem) == ["torch.Tensor.clone", "idx", "torch.Tensor.__getitem__"]
    last = [n for n in g.ops() if n.name == "torch.Tensor.__getitem__"][-1]
    assert sources(g, last) == ["torch.Tensor.__setitem__"]
    assert last.arguments[1].value == "(:, 1:)"
    assert last.outputs[0].shape == (3, 3)


def test_python_functional_functions_are_one_node() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        return F.softmax(F.layer_norm(x, (4,)), dim=-1)

    g = trace_fn(fn, torch.randn(2, 4))
    assert [n.name for n in g.ops()] == ["torch.nn.functional.layer_norm", "torch.nn.functional.softmax"]
    assert sources(g, op(g, "torch.nn.functional.softmax")) == ["torch.nn.functional.layer_norm"]
    assert ("dim", "-1") in [(a.name, a.value) for a in op(g, "torch.nn.functional.softmax").arguments]


def test_c_bound_linear_reads_its_parameters() -> None:
    model = torch.nn.Linear(4, 3)
    g = vista_core.trace(model, torch.randn(2, 4))
    linear = op(g, "torch.nn.functional.linear")
    assert sources(g, linear) == ["input", "weight", "bias"]  # Linear.forward(input)
    params = [n for n in g.nodes if n.kind == "parameter"]
    assert [(n.name, n.outputs[0].shape) for n in params] == [("weight", (3, 4)), ("bias", (3,))]
    assert linear.module == g.root.id


def test_tensor_methods_and_torch_functions_keep_their_names() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        return x.sum(0) + torch.sum(x, 0) + x.mean(dim=0)

    g = trace_fn(fn, torch.randn(2, 3))
    names = [n.name for n in g.ops()]
    assert names == ["torch.Tensor.sum", "torch.sum", "torch.Tensor.add", "torch.Tensor.mean", "torch.Tensor.add"]
    assert {n.label for n in g.ops()} >= {"sum", "mean", "add"}


def test_operators_are_recorded_as_the_method_they_dispatch_to() -> None:
    def fn(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (a @ b) * 2 - a.T @ b

    g = trace_fn(fn, torch.randn(3, 3), torch.randn(3, 3))
    names = [n.name for n in g.ops()]
    # torch hands `a @ b` to torch-function modes as Tensor.matmul, `-` as Tensor.sub.
    assert names == ["torch.Tensor.matmul", "torch.Tensor.mul", "torch.Tensor.T.__get__", "torch.Tensor.matmul",
                     "torch.Tensor.sub"]
    assert op(g, "torch.Tensor.T.__get__").label == "T"
    assert sources(g, op(g, "torch.Tensor.matmul")) == ["a", "b"]
    assert sources(g, op(g, "torch.Tensor.sub")) == ["torch.Tensor.mul", "torch.Tensor.matmul"]


def test_einsum() -> None:
    g = trace_fn(lambda a, b: torch.einsum("ij,jk->ik", a, b), torch.randn(2, 3), torch.randn(3, 4))
    node = op(g, "torch.einsum")
    assert sources(g, node) == ["a", "b"]
    assert node.arguments[0].value == "'ij,jk->ik'"
    assert node.outputs[0].shape == (2, 4)


def test_scaled_dot_product_attention() -> None:
    q = torch.randn(1, 2, 5, 8)
    g = trace_fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), q, q.clone(), q.clone())
    node = op(g, "torch.nn.functional.scaled_dot_product_attention")
    assert sources(g, node) == ["q", "k", "v"]
    assert ("is_causal", "True") in [(a.name, a.value) for a in node.arguments]


def test_linalg() -> None:
    g = trace_fn(lambda a: torch.linalg.norm(torch.linalg.inv(a @ a.mT + torch.eye(3))), torch.randn(3, 3))
    assert sources(g, op(g, "torch.linalg.norm")) == ["torch.linalg.inv"]


def test_fft() -> None:
    g = trace_fn(lambda x: torch.fft.irfft(torch.fft.rfft(x), n=8), torch.randn(8))
    assert sources(g, op(g, "torch.fft.irfft")) == ["torch.fft.rfft"]
    assert op(g, "torch.fft.rfft").outputs[0].dtype == "complex64"


def test_special() -> None:
    g = trace_fn(lambda x: torch.special.erf(x) + torch.special.expit(x), torch.randn(4))
    assert sources(g, op(g, "torch.special.erf")) == ["x"]
    assert sources(g, op(g, "torch.special.expit")) == ["x"]


def test_multiple_outputs_have_ports() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        a, b = torch.chunk(x, 2)
        values, indices = x.max(dim=0)
        return b + a + values + indices

    g = trace_fn(fn, torch.randn(4, 3))
    chunk = op(g, "torch.chunk")
    assert len(chunk.outputs) == 2
    ports = sorted(e.source_output for e in g.edges if e.source == chunk.id)
    assert ports == [0, 1]
    assert len(op(g, "torch.Tensor.max").outputs) == 2


@pytest.mark.parametrize("expr", ["x.shape[0]", "x.size(0)", "x.dim()", "x.numel()", "len(x)", "x.dtype"])
def test_bookkeeping_calls_are_not_nodes(expr: str) -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        eval(expr, {"x": x})
        return x * 2

    g = trace_fn(fn, torch.randn(3, 2))
    assert [n.name for n in g.ops()] == ["torch.Tensor.mul"]


def test_constants_are_nodes_with_a_small_preview() -> None:
    table = torch.tensor([1.0, 2.0, 3.0])
    big = torch.zeros(100)

    def fn(x: torch.Tensor) -> torch.Tensor:
        return x * table + big[:3]

    g = trace_fn(fn, torch.randn(3))
    constants = [n for n in g.nodes if n.kind == "constant"]
    assert [n.value for n in constants] == ["[1.0, 2.0, 3.0]", None]
    assert sources(g, op(g, "torch.Tensor.mul")) == ["x", "constant"]

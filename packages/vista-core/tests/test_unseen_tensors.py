"""Tensors the mode cannot see are not constants: a torch.jit.script submodule is one node
with the call's inputs and outputs, writes to inference tensors (no version counters, views
without a base) reach their readers, a tensor subclass view of an op's output keeps its
producer, and a module made during the forward pass gets the path its parent holds it by."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from _clean import bitwise_equal, torch_left_clean

import vista_core
from vista_core import Graph


def _reachable(graph: Graph, start_kind: str = "input") -> set[str]:
    seen = {n.id for n in graph.nodes if n.kind == start_kind}
    todo = list(seen)
    while todo:
        node = todo.pop()
        for e in graph.edges:
            if e.source == node and e.target not in seen:
                seen.add(e.target)
                todo.append(e.target)
    return seen


def _outputs_reachable(graph: Graph) -> bool:
    outputs = {n.id for n in graph.nodes if n.kind == "output"}
    return bool(outputs) and outputs <= _reachable(graph)


class WithScripted(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU()))
        self.head = torch.nn.Linear(6, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.inner(x))


def test_a_scripted_submodule_is_one_node_fed_by_its_inputs() -> None:
    torch.manual_seed(0)
    model = WithScripted()
    x = torch.randn(3, 4)
    plain = model(x)
    with torch_left_clean(model):
        result = vista_core.capture(model, (x,))
    assert bitwise_equal(result.output, plain)
    graph = result.graph
    assert not [n for n in graph.nodes if n.kind == "constant"]
    assert _outputs_reachable(graph)
    inner = next(m for m in graph.modules if m.path == "inner")
    inside = [n for n in graph.nodes if n.module == inner.id]
    assert [(n.kind, n.label) for n in inside] == [("op", "TorchScript")]
    (node,) = inside
    assert [o.shape for o in node.outputs] == [(3, 6)]
    assert [(e.target_input, graph.node(e.source).kind) for e in graph.edges if e.target == node.id] == [(0, "input")]
    assert [(a.name, a.value) for a in node.arguments] == [("input", "tensor#0")]
    assert inner.outputs[0].source == node.id


class Writes(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        h.add_(1)
        h[:, 0] = 5.0
        view = h[:, 1:3]
        view.mul_(3)  # a write through a view: h's readers must see it
        return h * 2


@pytest.mark.parametrize("context", [torch.no_grad, torch.inference_mode], ids=["no_grad", "inference_mode"])
def test_writes_and_writes_through_views_reach_the_reader(context: Callable[[], Any]) -> None:
    torch.manual_seed(0)
    model = Writes()
    x = torch.randn(3, 4)
    with context():
        plain = model(x)
        result = vista_core.capture(model, (x,))
    assert bitwise_equal(result.output, plain)
    graph = result.graph
    ops = list(graph.ops())
    assert [n.label for n in ops] == ["linear", "add_", "setitem", "getitem", "mul_", "mul"]
    last = ops[-1]
    (source,) = [graph.node(e.source).label for e in graph.edges if e.target == last.id]
    assert source == "mul_"
    # Each write reads what the one before it wrote.
    by_label = {n.label: n for n in ops}
    assert next(graph.node(e.source).label for e in graph.edges if e.target == by_label["setitem"].id) == "add_"
    assert _outputs_reachable(graph)


class Sub(torch.Tensor):
    pass


class Subclassed(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        special = h.as_subclass(Sub)
        return (special * 2).as_subclass(torch.Tensor) + h


def test_a_subclass_view_of_an_op_output_keeps_its_producer() -> None:
    model = Subclassed()
    x = torch.randn(2, 4)
    plain = model(x)
    graph = vista_core.trace(model, (x,))
    mul = next(n for n in graph.ops() if n.label == "mul")
    assert [graph.node(e.source).label for e in graph.edges if e.target == mul.id] == ["linear"]
    assert _outputs_reachable(graph)
    assert bitwise_equal(vista_core.capture(model, (x,)).output, plain)


class MakesItsOwn(torch.nn.Module):
    """Builds a submodule during forward and calls it (BigBird does this for attention)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not hasattr(self, "attention"):
            self.attention = torch.nn.Sequential(torch.nn.Linear(4, 4))
        return self.attention(self.fc(x))


def test_a_module_made_during_forward_gets_the_path_its_parent_holds_it_by() -> None:
    graph = vista_core.trace(MakesItsOwn(), (torch.randn(2, 4),))
    paths = [m.path for m in graph.modules]
    assert paths == ["", "fc", "attention", "attention.0"]
    assert not any("<" in p for p in paths)
    assert _outputs_reachable(graph)


def test_a_module_made_before_and_swapped_in_reads_its_parameters_by_their_path() -> None:
    model = MakesItsOwn()
    model(torch.randn(2, 4))  # made now, so the trace's model index does not know it... yet
    swapped = torch.nn.Sequential(torch.nn.Linear(4, 4))

    class Swapping(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = model

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            self.body.attention = swapped
            return self.body(x)

    graph = vista_core.trace(Swapping(), (torch.randn(2, 4),))
    params = sorted(n.name for n in graph.nodes if n.kind == "parameter")
    assert params == ["body.attention.0.bias", "body.attention.0.weight", "body.fc.bias", "body.fc.weight"]
    assert not [n for n in graph.nodes if n.kind == "constant"]


class Vmapped(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.rows = RowWise()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.rows(self.fc(x)).sum(-1)


class RowWise(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.vmap(lambda row: row * 2.0 + 1.0)(x)


def test_ops_inside_vmap_read_the_tensors_it_was_given_and_its_result_is_connected() -> None:
    torch.manual_seed(0)
    model = Vmapped()
    x = torch.randn(3, 4)
    plain = model(x)
    with torch_left_clean(model):
        result = vista_core.capture(model, (x,))
    assert bitwise_equal(result.output, plain)
    graph = result.graph
    mul = next(n for n in graph.ops() if n.label == "mul")
    # The batched row inside vmap is fc's output, not a constant.
    assert [graph.node(e.source).label for e in graph.edges if e.target == mul.id] == ["linear"]
    assert not [n for n in graph.nodes if n.kind == "constant"]
    # vmap's result (a new tensor over the data of the last op inside it) leaves its module
    # call from that op, with no opaque node.
    rows = next(m for m in graph.modules if m.path == "rows")
    last = graph.node(rows.outputs[0].source)
    assert last.label == "add" and last.module == rows.id
    assert not [n for n in graph.ops() if n.label == "opaque"]
    assert _outputs_reachable(graph)


class ReturnsItsTable(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.table = torch.arange(4.0)  # a plain attribute, not a buffer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.table


def test_a_module_returning_a_tensor_it_holds_returns_a_constant_not_an_opaque_result() -> None:
    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lookup = ReturnsItsTable()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + self.lookup(x)

    graph = vista_core.trace(Model(), (torch.randn(2, 4),))
    assert not [n for n in graph.ops() if n.label in ("opaque", "TorchScript")]
    lookup = next(m for m in graph.modules if m.path == "lookup")
    assert graph.node(lookup.outputs[0].source).kind == "constant"


class VmapReadTwice(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.vmap(lambda row: row * 2.0 + 1.0)(self.fc(x))
        return y * 3.0 + y


def test_a_vmap_result_read_again_in_the_same_forward_is_the_transform_s_output() -> None:
    torch.manual_seed(0)
    model = VmapReadTwice()
    x = torch.randn(3, 4)
    plain = model(x)
    with torch_left_clean(model):
        result = vista_core.capture(model, (x,))
    assert bitwise_equal(result.output, plain)
    graph = result.graph
    assert not [n for n in graph.nodes if n.kind == "constant"]
    *_, outer_mul, outer_add = graph.ops()
    # Both reads of y come from the last op that ran inside vmap (its add).
    sources = [graph.node(e.source).label for e in graph.edges if e.target in (outer_mul.id, outer_add.id)]
    assert sources == ["add", "mul", "add"]
    assert _outputs_reachable(graph)


@pytest.mark.parametrize("wrap", [
    pytest.param(lambda t: torch.nn.Parameter(t), id="nn.Parameter"),
    pytest.param(lambda t: torch.Tensor._make_subclass(Sub, t), id="_make_subclass"),
])
def test_a_new_tensor_over_a_temporary_keeps_the_temporary_s_producer(wrap: Callable[[torch.Tensor], Any]) -> None:
    class OverTemporary(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            p = wrap(torch.ones(4) * x.sum())  # the product dies here; p holds its storage
            return x * p

    x = torch.randn(3, 4)
    graph = vista_core.trace(OverTemporary(), (x,))
    assert not [n for n in graph.nodes if n.kind == "constant"]
    last = list(graph.ops())[-1]
    assert [graph.node(e.source).label for e in graph.edges if e.target == last.id] == ["x", "mul"]
    assert _outputs_reachable(graph)


class BuildsAndInitialises(torch.nn.Module):
    """Builds a Linear during forward (its constructor's init ops run then) and initialises its
    bias once more before the first call."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not hasattr(self, "proj"):
            self.proj = torch.nn.Linear(4, 4)
            torch.nn.init.zeros_(self.proj.bias)
        return self.proj(x)


def test_parameters_of_a_module_made_and_initialised_in_forward_are_its_parameters() -> None:
    graph = vista_core.trace(BuildsAndInitialises(), (torch.randn(2, 4),))
    linear = next(n for n in graph.ops() if n.label == "linear")
    sources = [graph.node(e.source) for e in graph.edges if e.target == linear.id]
    assert [(n.kind, n.name) for n in sources] == [
        ("input", "x"), ("parameter", "proj.weight"), ("parameter", "proj.bias")]
    proj = next(m for m in graph.modules if m.path == "proj")
    assert all(n.module == proj.id for n in sources[1:])


class SwapsInAndInitialises(torch.nn.Module):
    """Swaps in a module made before the trace (held in a plain list, so the model index does not
    know it), initialises its weight and reads its bias before calling it."""

    def __init__(self, attention: torch.nn.Module) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.spare = [attention]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.attention = self.spare[0]
        torch.nn.init.normal_(self.attention[0].weight)
        offset = self.attention[0].bias * 2
        return self.attention(self.fc(x)) + offset


def test_a_parameter_read_before_its_module_is_called_is_that_parameter_not_a_constant() -> None:
    torch.manual_seed(0)
    model = SwapsInAndInitialises(torch.nn.Sequential(torch.nn.Linear(4, 4)))
    x = torch.randn(2, 4)
    graph = vista_core.trace(model, (x,))
    assert not [n for n in graph.nodes if n.kind == "constant"]
    init, mul = (next(n for n in graph.ops() if n.label == label) for label in ("normal_", "mul"))
    (weight,) = [graph.node(e.source) for e in graph.edges if e.target == init.id]
    (bias,) = [graph.node(e.source) for e in graph.edges if e.target == mul.id]
    assert (weight.kind, weight.name, weight.label) == ("parameter", "attention.0.weight", "weight")
    assert (bias.kind, bias.name, bias.label) == ("parameter", "attention.0.bias", "bias")
    # Read by the model (before the call) and by attention.0: shared, each where it is read.
    paths = {m.id: m.path for m in graph.modules}
    shared = {s.name: [paths[graph.node(n).module] for n in s.nodes] for s in graph.shared_tensors}
    assert shared == {"attention.0.weight": ["", "attention.0"], "attention.0.bias": ["", "attention.0"]}
    assert _outputs_reachable(graph)


@torch.jit.script
def scripted_gate(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.sigmoid(x) * scale


class CallsAScriptedFunction(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.head = torch.nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = scripted_gate(self.fc(x), 2.0)
        return self.head(h) + h.sum()  # its result read twice, in a child and here


def test_a_scripted_function_is_one_node_with_its_own_inputs_and_outputs() -> None:
    torch.manual_seed(0)
    model = CallsAScriptedFunction()
    x = torch.randn(3, 4)
    plain = model(x)
    with torch_left_clean(model):
        result = vista_core.capture(model, (x,))
    assert bitwise_equal(result.output, plain)
    graph = result.graph
    assert not [n for n in graph.nodes if n.kind == "constant"]
    assert _outputs_reachable(graph)
    (node,) = [n for n in graph.ops() if n.label == "TorchScript"]
    assert node.name == "test_unseen_tensors.scripted_gate"
    assert node.module == next(m.id for m in graph.modules if m.path == "")
    # Fed by what it was given (fc's output), read by head and by the sum.
    fc_ops = {n.id for n in graph.ops() if n.module == next(m.id for m in graph.modules if m.path == "fc")}
    assert [(e.source in fc_ops, e.target_input) for e in graph.edges if e.target == node.id] == [(True, 0)]
    assert [(a.name, a.value) for a in node.arguments] == [(None, "tensor#0"), (None, "2.0")]
    assert [o.shape for o in node.outputs] == [(3, 4)]
    readers = {graph.node(e.target).label for e in graph.edges if e.source == node.id}
    assert readers == {"linear", "sum"}


def test_a_scripted_function_called_outside_a_trace_or_on_another_thread_is_untouched() -> None:
    import threading

    seen: list[torch.Tensor] = []

    class CallsOnAThread(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            worker = threading.Thread(target=lambda: seen.append(scripted_gate(x, 3.0)))
            worker.start()
            worker.join()
            return x * 2

    x = torch.randn(2, 4)
    graph = vista_core.trace(CallsOnAThread(), (x,))
    assert [n.label for n in graph.ops()] == ["mul"]
    assert torch.equal(seen[0], torch.sigmoid(x) * 3.0)
    assert torch.equal(scripted_gate(x, 1.0), torch.sigmoid(x))


class ReadsAModuleItNeverCalls(torch.nn.Module):
    """Reads the weights of modules the model index does not know (held in a plain list, and
    in a local variable), calling neither."""

    def __init__(self, local: torch.nn.Module) -> None:
        super().__init__()
        self.spare = [torch.nn.Linear(4, 4)]
        self.local = [local]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        borrowed = self.local[0]
        h = torch.nn.functional.linear(x, self.spare[0].weight, self.spare[0].bias)
        return h @ borrowed.weight


def test_the_parameters_of_a_module_never_called_are_parameters_not_constants() -> None:
    torch.manual_seed(0)
    model = ReadsAModuleItNeverCalls(torch.nn.Linear(4, 4))
    x = torch.randn(2, 4)
    plain = model(x)
    with torch_left_clean(model):
        result = vista_core.capture(model, (x,))
    assert bitwise_equal(result.output, plain)
    graph = result.graph
    assert not [n for n in graph.nodes if n.kind == "constant"]
    linear = next(n for n in graph.ops() if n.label == "linear")
    sources = [graph.node(e.source) for e in graph.edges if e.target == linear.id]
    assert [(n.kind, n.name, n.label) for n in sources] == [
        ("input", "x", "x"), ("parameter", "spare.0.weight", "weight"), ("parameter", "spare.0.bias", "bias")]
    matmul = next(n for n in graph.ops() if n.label == "matmul")
    (held,) = [graph.node(e.source) for e in graph.edges if e.target == matmul.id and e.target_input == 1]
    # Found in the forward's locals before the module's attributes: named as the code names it.
    assert (held.kind, held.name, held.label) == ("parameter", "borrowed.weight", "weight")

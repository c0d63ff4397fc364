"""Every module call knows the tensors it received and returned, so a call that raises before
any op, or returns an input unchanged, is still connected, and the failure of a Python-level
raise shows the shapes its module received."""

from __future__ import annotations

import itertools

import pytest
import torch
from _clean import torch_left_clean

import vista_core
from vista_core import Graph, ModuleCall


class Checker(torch.nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        if x.shape[-1] != 8:
            raise ValueError(f"expected 8 features, got {x.shape[-1]}")
        return x


class Net(torch.nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, width)
        self.same = torch.nn.Identity()
        self.check = Checker()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.same(self.fc(x))
        return self.check(h, mask=x > 0)


def _call(graph: Graph, path: str) -> ModuleCall:
    return next(m for m in graph.modules if m.path == path)


def _node_module(graph: Graph, node_id: str) -> str:
    return graph.node(node_id).module


def test_failure_of_a_python_raise_shows_the_shapes_its_module_received() -> None:
    model = Net(width=6)
    with torch_left_clean(model):
        result = vista_core.capture(model, (torch.randn(2, 4),))
    assert isinstance(result.exception, ValueError)
    graph = result.graph
    assert graph.error is not None and graph.error.node is not None
    failure = graph.node(graph.error.node)
    assert failure.kind == "error" and failure.module == _call(graph, "check").id
    incoming = sorted((e.target_input, e.tensor.shape, e.tensor.dtype) for e in graph.edges if e.target == failure.id)
    assert incoming == [(0, (2, 6), "float32"), (1, (2, 4), "bool")]
    assert [(a.name, a.value) for a in failure.arguments] == [("x", "tensor#0"), ("mask", "tensor#1")]
    # The positional input comes from fc's linear, the keyword one from the comparison.
    sources = {e.target_input: graph.node(e.source).name for e in graph.edges if e.target == failure.id}
    assert sources == {0: "torch.nn.functional.linear", 1: "torch.Tensor.gt"}
    check = _call(graph, "check")
    assert [(t.name, t.tensor.shape) for t in check.inputs] == [("x", (2, 6)), ("mask", (2, 4))]
    assert check.outputs == ()


class TopLevelCheck(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(4, 6)

    def forward(self, x: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
        if x.shape[-1] != 8:
            raise ValueError(f"expected 8 features, got {x.shape[-1]}")
        return self.fc(x) * scale


def test_a_raise_in_the_model_s_own_forward_is_fed_by_the_model_inputs() -> None:
    model = TopLevelCheck()
    with torch_left_clean(model):
        result = vista_core.capture(model, (torch.randn(2, 4),), kwargs={"scale": 2.0})
    graph = result.graph
    assert graph.error is not None and graph.error.node is not None
    failure = graph.node(graph.error.node)
    assert failure.kind == "error" and failure.module == graph.modules[0].id
    incoming = [(graph.node(e.source).kind, graph.node(e.source).name, e.tensor.shape)
                for e in graph.edges if e.target == failure.id]
    assert incoming == [("input", "x", (2, 4))]
    assert [(a.name, a.value) for a in failure.arguments] == [("x", "tensor#0")]


def test_a_call_that_returns_its_input_unchanged_is_connected_through() -> None:
    graph = vista_core.trace(Net(width=8), (torch.randn(2, 4),))
    same = _call(graph, "same")
    assert [t.name for t in same.inputs] == ["input"] and [t.name for t in same.outputs] == ["output"]
    came, went = same.inputs[0], same.outputs[0]
    assert (came.source, came.source_output) == (went.source, went.source_output)
    assert graph.node(same.inputs[0].source).name == "torch.nn.functional.linear"
    check = _call(graph, "check")
    assert check.outputs[0].source == same.outputs[0].source  # check returns x as it came


def test_every_call_records_its_inputs_and_outputs_with_sources_inside_or_before() -> None:
    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = torch.nn.LayerNorm(8)
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x: torch.Tensor, *, scale: float = 1.0, bias: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return self.fc(self.norm(x)) * scale + bias, x

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.blocks = torch.nn.ModuleList(Block() for _ in range(3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            bias = torch.zeros(8)
            for block in self.blocks:
                x, _ = block(x, scale=0.5, bias=bias)
            return x

    graph = vista_core.trace(Model(), (torch.randn(2, 8),))
    by_id = {m.id: m for m in graph.modules}
    node_index = {n.id: i for i, n in enumerate(graph.nodes)}
    for m in graph.modules[1:]:
        assert m.inputs and m.outputs, m.path
        for t in m.inputs + m.outputs:
            assert t.tensor == graph.node(t.source).outputs[t.source_output]
    blocks = [m for m in graph.modules if m.class_name == "Block"]
    assert [[t.name for t in b.inputs] for b in blocks] == [["x", "bias"]] * 3
    assert [[t.name for t in b.outputs] for b in blocks] == [["output[0]", "output[1]"]] * 3
    for before, after in itertools.pairwise(blocks):
        assert after.inputs[0].source == before.outputs[0].source  # each block feeds the next
    # A block's own output comes from an op inside it; its second output is its input.
    for b in blocks:
        inside = _node_module(graph, b.outputs[0].source)
        while inside != b.id and by_id[inside].parent is not None:
            inside = by_id[inside].parent or ""
        assert inside == b.id
        assert b.outputs[1].source == b.inputs[0].source
        assert node_index[b.inputs[1].source] < node_index[b.outputs[0].source]


@pytest.mark.parametrize("context", [torch.no_grad, torch.inference_mode])
def test_module_inputs_and_outputs_survive_the_json_round_trip(context: type) -> None:
    with context():
        graph = vista_core.trace(Net(width=8), (torch.randn(2, 4),))
    document = graph.to_dict()
    vista_core.validate_document(document)
    assert vista_core.Graph.from_dict(document) == graph
    same = next(m for m in document["modules"] if m["path"] == "same")
    assert same["inputs"][0]["name"] == "input" and same["outputs"][0]["tensor"]["shape"] == [2, 8]


def test_a_module_input_pointing_at_an_unknown_node_is_refused() -> None:
    document = vista_core.trace(Net(width=8), (torch.randn(2, 4),)).to_dict()
    document["modules"][1]["inputs"][0]["source"] = "n999"
    with pytest.raises(vista_core.SchemaError, match=r"modules\[1\]\.inputs\[0\] refers to unknown node 'n999'"):
        vista_core.Graph.from_dict(document)

"""vista_core.diff on hand-written models: matching, the alignment, the union and the document."""

from __future__ import annotations

import json
from typing import Any

import pytest
import torch
from torch import nn

import vista_core
from vista_core import GraphDiff, diff


class Stack(nn.Module):
    """A linear stem, ``layers`` residual blocks, and optionally one op inserted mid-model."""

    def __init__(self, layers: int = 2, width: int = 3, insert: bool = False, act: str = "relu") -> None:
        super().__init__()
        self.stem = nn.Linear(4, width)
        self.blocks = nn.ModuleList([nn.Linear(width, width) for _ in range(layers)])
        self.insert, self.act = insert, act

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        for k, block in enumerate(self.blocks):
            if self.insert and k == 1:
                x = x * 2
            y = block(x)
            x = (torch.relu(y) if self.act == "relu" else torch.tanh(y)) + x
        return x.sum()


def _refactored() -> nn.Module:
    """Stack(3) rewritten (as the same class in a new revision of the code): the same modules
    and ops, from other lines and through a helper function."""

    class Stack(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Linear(4, 3)
            self.blocks = nn.ModuleList([nn.Linear(3, 3) for _ in range(3)])

        def _residual(self, block: nn.Module, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(block(x)) + x

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.stem(x)
            for block in self.blocks:
                h = self._residual(block, h)
            return h.sum()

    return Stack()


X = torch.randn(2, 4)


def _trace(model: nn.Module) -> vista_core.Graph:
    return vista_core.trace(model, (X,))


def _by_status(result: GraphDiff, element: str, status: str) -> list[vista_core.Change]:
    return [c for c in result.changes if c.element == element and c.status == status]


def test_a_graph_against_itself_is_equal_and_every_element_matches() -> None:
    graph = _trace(Stack(3))
    result = diff(graph, graph)
    assert result.equal and result.changes == ()
    assert len(result.module_matches) == len(graph.modules)
    assert len(result.node_matches) == len(graph.nodes)
    assert len(result.union.nodes) == len(graph.nodes) and len(result.union.edges) == len(graph.edges)
    assert "equal" in result.summary()
    assert result.to_dict()["equal"] is True
    assert repr(result) == "GraphDiff(Stack → Stack: equal)"


def test_a_refactor_that_keeps_the_graph_is_equal_though_its_source_lines_differ() -> None:
    before, after = _trace(Stack(3)), _trace(_refactored())
    assert [n.source for n in before.ops()] != [n.source for n in after.ops()]
    assert diff(before, after).equal


def test_an_added_layer_is_one_added_call_with_its_nodes_and_the_rest_matched() -> None:
    a, b = _trace(Stack(2)), _trace(Stack(3))
    result = diff(a, b)
    assert not result.equal
    added = _by_status(result, "module", "added")
    assert [result.union.modules[int(c.id[1:])].path for c in added] == ["blocks.2"]
    assert added[0].a is None and added[0].b is not None
    assert _by_status(result, "node", "removed") == []
    added_nodes = {result.union.node(c.id).name for c in _by_status(result, "node", "added")}
    assert added_nodes == {"blocks.2.weight", "blocks.2.bias", "torch.nn.functional.linear", "torch.relu",
                           "torch.Tensor.add"}
    assert len(result.node_matches) == len(a.nodes)
    summary = result.summary()
    assert "1 module call added under blocks: Linear (blocks.2)" in summary
    assert "Same structure" not in summary
    counts = [len([c for c in result.changes if c.status == s]) for s in ("added", "removed", "changed")]
    assert repr(result) == f"GraphDiff(Stack → Stack: {counts[0]} added, {counts[1]} removed, {counts[2]} changed)"


def test_an_op_inserted_mid_model_is_added_and_every_other_op_still_matches() -> None:
    a, b = _trace(Stack(3)), _trace(Stack(3, insert=True))
    result = diff(a, b)
    added = _by_status(result, "node", "added")
    assert [result.union.node(c.id).name for c in added] == ["torch.Tensor.mul"]
    assert len(result.node_matches) == len(a.nodes)  # nothing after the insertion is lost
    assert _by_status(result, "node", "removed") == [] and _by_status(result, "module", "added") == []
    # The op's consumer now reads the new op: that edge is removed and two are added.
    assert {c.status for c in result.changes if c.element == "edge"} == {"added", "removed"}


def test_a_changed_op_and_changed_shapes_are_listed_with_both_values() -> None:
    result = diff(_trace(Stack(2)), _trace(Stack(2, act="tanh")))
    removed = [result.union.node(c.id).name for c in _by_status(result, "node", "removed")]
    added = [result.union.node(c.id).name for c in _by_status(result, "node", "added")]
    assert removed == ["torch.relu", "torch.relu"] and added == ["torch.tanh", "torch.tanh"]
    wide = diff(_trace(Stack(2)), _trace(Stack(2, width=5)))
    linear = [c for c in wide.changes if c.element == "node" and c.fields
              and wide.union.node(c.id).name == "torch.nn.functional.linear"]
    assert len(linear) == 3
    assert {"field": "outputs[0].shape", "a": [2, 3], "b": [2, 5]} in [
        {"field": f.field, "a": f.a, "b": f.b} for f in linear[0].fields]
    stem = next(c for c in wide.changes if c.element == "module" and wide.union.modules[int(c.id[1:])].path == "stem")
    fields = {f.field: (f.a, f.b) for f in stem.fields}
    assert fields["parameters.weight.shape"] == ([3, 4], [5, 4])
    assert fields["num_params_own"] == (15, 25)
    assert fields["extra_repr"] == ("in_features=4, out_features=3, bias=True",
                                    "in_features=4, out_features=5, bias=True")
    assert "outputs[0].shape 2×3 → 2×5" in wide.summary()


def test_the_document_validates_and_the_union_is_a_graph_document() -> None:
    result = diff(_trace(Stack(2)), _trace(Stack(3, insert=True)))
    text = result.to_json()
    vista_core.validate_diff_document(text)
    data = json.loads(text)
    assert data["diff_version"] == vista_core.DIFF_VERSION
    assert data == json.loads(result.to_json(indent=2)) == result.to_dict()
    assert vista_core.Graph.from_dict(data["union"]) == result.union
    vista_core.validate_document(data["union"])
    assert data["a"] == result.a.to_dict() and data["b"] == result.b.to_dict()
    # Every union element that is not a change is in both graphs and unchanged.
    changed = {c["id"] for c in data["changes"]}
    matched = {u for _, _, u in data["matches"]["nodes"]}
    for node in data["union"]["nodes"]:
        assert node["id"] in changed or node["id"] in matched
    assert result.to_json() == diff(_trace(Stack(2)), _trace(Stack(3, insert=True))).to_json()


def test_changes_come_in_graph_order() -> None:
    result = diff(_trace(Stack(2)), _trace(Stack(3, insert=True)))
    order = {n.id: k for k, n in enumerate(result.union.nodes)}
    positions = [order[c.id] for c in result.changes if c.element == "node"]
    assert positions == sorted(positions)
    first_added_module = next(k for k, c in enumerate(result.changes) if c.element == "module" and c.status == "added")
    first_node_inside = next(k for k, c in enumerate(result.changes) if c.element == "node"
                             and result.union.node(c.id).module == result.changes[first_added_module].id)
    assert first_added_module < first_node_inside


def test_unchanged_repeated_blocks_stay_folded_in_the_union() -> None:
    a, b = _trace(Stack(3)), _trace(Stack(4))
    assert [len(block.modules) for block in a.repeated_blocks] == [3]
    union = diff(a, b).union
    (block,) = union.repeated_blocks
    assert [union.modules[int(m[1:])].path for m in block.modules] == ["blocks.0", "blocks.1", "blocks.2"]
    assert all(union.node(g).module == block.parent for g in block.glue)


def test_documents_and_json_text_are_accepted_like_graphs() -> None:
    a, b = _trace(Stack(2)), _trace(Stack(3))
    assert diff(a.to_dict(), b.to_json()).to_json() == diff(a, b).to_json()


def test_bad_arguments_say_what_to_pass() -> None:
    graph = _trace(Stack(2))
    with pytest.raises(TypeError, match=r"Invalid 'b' argument: a model \(Stack\).*vista_core.trace"):
        diff(graph, Stack(2))
    with pytest.raises(TypeError, match="Invalid 'a' argument: int 3"):
        diff(3, graph)
    with pytest.raises(vista_core.SchemaError, match=r"Invalid 'a' argument: .*missing the required field"):
        diff({"schema_version": "1.0"}, graph)
    with pytest.raises(vista_core.SchemaError, match="diff document"):
        diff(diff(graph, graph).to_dict(), graph)
    with pytest.raises(vista_core.SchemaVersionError, match=r"'9\.0'"):
        diff(graph.to_dict() | {"schema_version": "9.0"}, graph)


class _Residual(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.relu(self.fc(x))


class _Layers(nn.Module):
    """Blocks with the residual inside them (as Llama's), then a head."""

    def __init__(self, layers: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList([_Residual() for _ in range(layers)])
        self.head = nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def test_a_layer_added_after_a_run_keeps_the_whole_run_folded() -> None:
    # The last old layer now feeds the new layer instead of the head: that edge changed, the
    # layer did not, so it stays in the fold with the others.
    x = torch.randn(2, 3)
    result = diff(vista_core.trace(_Layers(3), (x,)), vista_core.trace(_Layers(4), (x,)))
    paths = {m.id: m.path for m in result.union.modules}
    removed = [c for c in result.changes if c.element == "edge" and c.status == "removed"]
    assert [paths[result.union.node(c.id.split(":")[0]).module] for c in removed] == ["layers.2"]
    (block,) = result.union.repeated_blocks
    assert [paths[m] for m in block.modules] == ["layers.0", "layers.1", "layers.2"]


class _Named(nn.Module):
    def __init__(self, name: str) -> None:
        super().__init__()
        self.stem = nn.Linear(4, 3)
        self.add_module(name, nn.Linear(3, 3))
        self.child_name = name

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(getattr(self, self.child_name)(self.stem(x)))


def test_a_renamed_call_is_matched_by_class_and_reported_as_a_path_change() -> None:
    result = diff(_trace(_Named("mlp")), _trace(_Named("ffn")))
    assert {c.status for c in result.changes} == {"changed"}
    assert len(result.node_matches) == len(result.a.nodes)
    renamed = next(c for c in result.changes if c.element == "module")
    assert [(f.field, f.a, f.b) for f in renamed.fields] == [("path", "mlp", "ffn")]
    names = {(f.a, f.b) for c in result.changes if c.element == "node" for f in c.fields if f.field == "name"}
    assert names == {("mlp.weight", "ffn.weight"), ("mlp.bias", "ffn.bias")}
    assert "path mlp → ffn (Linear)" in result.summary()


def test_the_collector_is_paused_while_diffing_and_resumed_after(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    graph = _trace(Stack(2))
    seen: list[bool] = []
    original = vista_core._diff._Differ.run

    def spy(self: Any) -> GraphDiff:
        seen.append(gc.isenabled())
        return original(self)

    monkeypatch.setattr(vista_core._diff._Differ, "run", spy)
    result = diff(graph, graph)
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        result.to_json()
        assert not gc.isenabled()  # a caller's own pause is left as it was
    finally:
        gc.enable()

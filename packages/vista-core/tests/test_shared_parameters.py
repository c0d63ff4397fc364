"""Tied and shared parameters and buffers are not data flow: each module call that reads one
has a node of its own, no parameter edge leaves the call its node is in, and the document
lists every tensor read in several calls (or held under several names) in ``shared_tensors``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from _clean import bitwise_equal

import vista_core
from vista_core import Graph, SchemaError


def leaving_parameter_edges(graph: Graph) -> list[tuple[str, str, str]]:
    """(parameter name, its call's path, the reader's call path) of every edge from a
    parameter or buffer node to a node outside the node's own module call subtree."""
    nodes = {n.id: n for n in graph.nodes}
    modules = {m.id: m for m in graph.modules}

    def inside(module: str | None, ancestor: str) -> bool:
        while module is not None:
            if module == ancestor:
                return True
            module = modules[module].parent
        return False

    found = []
    for e in graph.edges:
        source, target = nodes[e.source], nodes[e.target]
        if source.kind in ("parameter", "buffer") and not inside(target.module, source.module):
            found.append((source.name, modules[source.module].path, modules[target.module].path))
    return found


def path_of(graph: Graph, node_id: str) -> str:
    module = graph.node(node_id).module
    return next(m.path for m in graph.modules if m.id == module)


class Seq2Seq(torch.nn.Module):
    """T5's shape of tying: one embedding shared by the encoder and decoder, and an LM head
    whose weight is that embedding's."""

    def __init__(self) -> None:
        super().__init__()
        self.shared = torch.nn.Embedding(10, 6)
        self.encoder = torch.nn.ModuleDict({"embed": self.shared, "proj": torch.nn.Linear(6, 6)})
        self.decoder = torch.nn.ModuleDict({"embed": torch.nn.Embedding(10, 6), "proj": torch.nn.Linear(6, 6)})
        self.decoder["embed"].weight = self.shared.weight
        self.lm_head = torch.nn.Linear(6, 10, bias=False)
        self.lm_head.weight = self.shared.weight
        self.register_buffer("scale", torch.tensor(0.5))

    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        memory = self.encoder["proj"](self.encoder["embed"](src)).mean(1, keepdim=True)
        h = self.decoder["proj"](self.decoder["embed"](tgt)) + memory
        return self.lm_head(h * self.scale)


def test_tied_embedding_has_a_node_in_each_call_that_reads_it() -> None:
    model = Seq2Seq().eval()
    src, tgt = torch.tensor([[1, 2, 3]]), torch.tensor([[4, 5]])
    graph = vista_core.trace(model, (src, tgt))
    assert leaving_parameter_edges(graph) == []
    (tied,) = [s for s in graph.shared_tensors if s.name == "shared.weight"]
    assert tied.kind == "parameter"
    assert tied.names == ("shared.weight", "encoder.embed.weight", "decoder.embed.weight", "lm_head.weight")
    # The shared Embedding module is called (as encoder.embed) once: its path is its first name.
    assert [path_of(graph, n) for n in tied.nodes] == ["shared", "decoder.embed", "lm_head"]
    # Each node is named as the call that reads it knows the tensor.
    assert [graph.node(n).name for n in tied.nodes] == ["shared.weight", "decoder.embed.weight", "lm_head.weight"]
    assert {graph.node(n).label for n in tied.nodes} == {"weight"}
    # Each reads the tensor of the full shape, and only ops in its own call read it.
    for n in tied.nodes:
        assert graph.node(n).outputs[0].shape == (10, 6)
        readers = [e.target for e in graph.edges if e.source == n]
        assert readers and {graph.node(r).module for r in readers} == {graph.node(n).module}
    # Not tied and read once: not listed.
    assert not any(s.name.endswith("proj.weight") for s in graph.shared_tensors)
    with torch.no_grad():
        assert bitwise_equal(model(src, tgt), vista_core.capture(model, (src, tgt)).output)


def test_a_parent_reading_a_childs_parameter_gets_its_own_node() -> None:
    class Peek(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.lin(x) + self.lin.bias  # the root reads lin.bias directly

    graph = vista_core.trace(Peek(), torch.randn(2, 3))
    assert leaving_parameter_edges(graph) == []
    (bias,) = graph.shared_tensors
    assert bias.name == "lin.bias" and bias.names == ("lin.bias",)
    assert [path_of(graph, n) for n in bias.nodes] == ["lin", ""]


def test_a_parameter_passed_down_to_a_child_stays_in_its_owners_call() -> None:
    class Child(torch.nn.Module):
        def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
            return x @ w

    class Owner(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(3, 3))
            self.child = Child()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.child(x, self.w)

    graph = vista_core.trace(Owner(), torch.randn(2, 3))
    (w,) = [n for n in graph.nodes if n.kind == "parameter"]
    assert path_of(graph, w.id) == ""  # the owner's call, from which the edge goes down
    assert graph.shared_tensors == ()


def test_a_module_called_repeatedly_reads_its_weights_in_every_call() -> None:
    class Loop(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.step = torch.nn.Linear(4, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for _ in range(3):
                x = self.step(x)
            return x

    graph = vista_core.trace(Loop(), torch.randn(1, 4))
    assert leaving_parameter_edges(graph) == []
    calls = [m for m in graph.modules if m.path == "step"]
    weight, bias = graph.shared_tensors
    assert (weight.name, bias.name) == ("step.weight", "step.bias")
    for shared in (weight, bias):
        assert [graph.node(n).module for n in shared.nodes] == [m.id for m in calls]
    # Every call now holds its own parameter nodes, so all three are alike and fold.
    assert len({m.signature for m in calls}) == 1
    (block,) = graph.repeated_blocks
    assert block.modules == tuple(m.id for m in calls)


def test_a_buffer_read_by_two_modules_is_shared_not_an_edge_between_them() -> None:
    class Positions(torch.nn.Module):
        def __init__(self, table: torch.Tensor) -> None:
            super().__init__()
            self.register_buffer("table", table, persistent=False)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + self.table

    class TwoTowers(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            table = torch.arange(4.0)
            self.a, self.b = Positions(table), Positions(table)

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return self.a(x) * self.b(y)

    graph = vista_core.trace(TwoTowers(), (torch.randn(4), torch.randn(4)))
    assert leaving_parameter_edges(graph) == []
    (table,) = graph.shared_tensors
    assert table.kind == "buffer" and table.names == ("a.table", "b.table")
    assert [graph.node(n).name for n in table.nodes] == ["a.table", "b.table"]
    assert all(graph.node(n).kind == "buffer" for n in table.nodes)


def test_a_parameter_written_in_place_is_data_flow_from_the_write() -> None:
    class Writes(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("count", torch.zeros(3))
            self.inner = torch.nn.Identity()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            self.count[0].add_(1)  # through a view: the buffer itself is written
            return self.inner(x) + self.count

    model = Writes()
    graph = vista_core.trace(model, torch.randn(3))
    add_ = next(n for n in graph.ops() if n.name.endswith("add_"))
    plus = next(n for n in graph.ops() if n.label == "add")
    assert any(e.source == add_.id and e.target == plus.id for e in graph.edges)


def test_shared_tensors_round_trip_and_validate() -> None:
    graph = vista_core.trace(Seq2Seq().eval(), (torch.tensor([[1, 2]]), torch.tensor([[3]])))
    assert graph.shared_tensors
    assert Graph.from_json(graph.to_json()) == graph
    vista_core.validate_document(graph)
    data = graph.to_dict()
    data["shared_tensors"][0]["nodes"] = ["n99999"]
    with pytest.raises(SchemaError, match=r"\$\.shared_tensors\[0\] refers to unknown node 'n99999'"):
        Graph.from_dict(data)
    data = graph.to_dict()
    op = next(n.id for n in graph.ops())
    data["shared_tensors"][0]["nodes"] = [op]
    with pytest.raises(SchemaError, match=r"of kind 'op' for a shared parameter"):
        Graph.from_dict(data)


def _t5() -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
    from transformers import T5Config, T5ForConditionalGeneration

    config = T5Config(vocab_size=100, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                      decoder_start_token_id=0, tie_word_embeddings=True)
    return T5ForConditionalGeneration(config).eval(), {
        "input_ids": torch.randint(0, 100, (1, 8)), "decoder_input_ids": torch.randint(0, 100, (1, 4))}


def _whisper() -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
    from transformers import WhisperConfig, WhisperForConditionalGeneration

    config = WhisperConfig(vocab_size=100, d_model=32, encoder_layers=1, decoder_layers=1,
                           encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
                           decoder_ffn_dim=32, num_mel_bins=8, max_source_positions=8,
                           max_target_positions=16, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                           decoder_start_token_id=1)
    return WhisperForConditionalGeneration(config).eval(), {
        "input_features": torch.randn(1, 8, 16), "decoder_input_ids": torch.tensor([[1, 2, 3]])}


@pytest.mark.parametrize(("build", "tied", "readers"), [
    (_t5, "shared.weight", ["encoder.embed_tokens", "decoder.embed_tokens", "lm_head"]),
    (_whisper, "model.decoder.embed_tokens.weight", ["model.decoder.embed_tokens", "proj_out"]),
], ids=["t5", "whisper"])
def test_hugging_face_tied_embeddings_are_not_encoder_outputs(
        build: Callable[[], tuple[torch.nn.Module, dict[str, torch.Tensor]]], tied: str, readers: list[str]) -> None:
    torch.manual_seed(0)
    model, kwargs = build()
    graph = vista_core.trace(model, kwargs=kwargs)
    assert leaving_parameter_edges(graph) == []
    (shared,) = [s for s in graph.shared_tensors if s.name == tied]
    assert [path_of(graph, n) for n in shared.nodes] == readers
    assert len(shared.names) == len(readers) + (1 if tied == "shared.weight" else 0)

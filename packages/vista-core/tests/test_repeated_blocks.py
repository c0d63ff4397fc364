"""Repeated blocks are true repeats: runs of calls that are the same block of the model (one
container's numbered children, or one module called repeatedly), each feeding the next,
directly or through identical glue (residual adds, norms, casts); differently named modules
are never folded together."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import vista_core
from vista_core import Graph, SchemaError
from vista_core._analysis import role


def paths(graph: Graph, ids: tuple[str, ...]) -> list[str]:
    by_id = {m.id: m.path for m in graph.modules}
    return [by_id[i] for i in ids]


def labels(graph: Graph, ids: tuple[str, ...]) -> list[str]:
    return [graph.node(i).label for i in ids]


class Steps(torch.nn.Module):
    """The issue's model: a Linear in an `if` branch, then a loop of gated residual steps."""

    def __init__(self) -> None:
        super().__init__()
        self.pos = torch.nn.Linear(4, 4)
        self.steps = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x
        if x.sum() > -1e9:
            h = self.pos(h)
        for step in self.steps:
            h = h + torch.sigmoid(step(h))
        return h


def test_role_is_the_path_with_a_trailing_index_generalised() -> None:
    assert role("encoder.layers.11") == role("encoder.layers.0") == "encoder.layers.#"
    assert role("pos") == "pos" != role("steps.0")
    assert role("blocks.0.attn") == "blocks.0.attn"  # only the last part stands for the repeat
    assert role("") == ""


def test_a_loop_with_residual_glue_folds_and_a_differently_named_linear_does_not() -> None:
    model = Steps()
    graph = vista_core.trace(model, torch.randn(1, 4))
    (block,) = graph.repeated_blocks
    assert paths(graph, block.modules) == ["steps.0", "steps.1", "steps.2"]
    # The glue after each step (the sigmoid and the residual add), the last step's too: it is
    # the same glue, so it belongs in the folded box.
    assert labels(graph, block.glue) == ["sigmoid", "add"] * 3
    assert all(graph.node(n).module == block.parent for n in block.glue)
    x = torch.randn(1, 4)
    assert torch.equal(vista_core.capture(model, x).output, model(x))


def test_one_module_called_in_a_loop_folds_with_its_glue() -> None:
    class Twice(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.up = torch.nn.Linear(4, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for _ in range(4):
                x = self.up(x).to(torch.float64).to(torch.float32) * 2
            return x

    graph = vista_core.trace(Twice(), torch.randn(1, 4))
    (block,) = graph.repeated_blocks
    assert paths(graph, block.modules) == ["up"] * 4
    assert labels(graph, block.glue) == ["to", "to", "mul"] * 4


def test_two_differently_named_modules_of_one_class_are_not_a_run() -> None:
    class Pair(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.first = torch.nn.Linear(4, 4)
            self.second = torch.nn.Linear(4, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.second(self.first(x))

    graph = vista_core.trace(Pair(), torch.randn(1, 4))
    a, b = graph.modules[1:]
    assert a.signature == b.signature
    assert graph.repeated_blocks == ()


def test_glue_that_differs_between_pairs_splits_the_run() -> None:
    class Odd(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(4))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for i, layer in enumerate(self.layers):
                x = layer(x)
                if i == 1:
                    x = F.layer_norm(x, (4,))
            return x

    graph = vista_core.trace(Odd(), torch.randn(1, 4))
    runs = [paths(graph, b.modules) for b in graph.repeated_blocks]
    assert runs == [["layers.0", "layers.1"], ["layers.2", "layers.3"]]
    assert [b.glue for b in graph.repeated_blocks] == [(), ()]


def test_glue_that_does_not_lead_on_from_the_block_is_no_feed() -> None:
    class Side(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            outs = []
            for layer in self.layers:
                outs.append(layer(x * 1.0))  # each reads x, none reads the one before
            return torch.stack(outs)

    graph = vista_core.trace(Side(), torch.randn(1, 4))
    assert graph.repeated_blocks == ()


def test_a_residual_stack_reads_the_tensor_entering_each_block() -> None:
    class Residual(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(5))

        def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            for layer in self.layers:
                x = F.layer_norm(x + layer(x) * mask, (4,))
            return x

    graph = vista_core.trace(Residual(), (torch.randn(1, 4), torch.ones(1, 4)))
    (block,) = graph.repeated_blocks
    assert len(block.modules) == 5
    assert labels(graph, block.glue) == ["mul", "add", "layer_norm"] * 5


def test_glue_round_trips_and_bad_glue_is_named() -> None:
    graph = vista_core.trace(Steps(), torch.randn(1, 4))
    assert Graph.from_json(graph.to_json()) == graph
    vista_core.validate_document(graph)
    data = graph.to_dict()
    data["repeated_blocks"][0]["glue"] = ["n99999"]
    with pytest.raises(SchemaError, match=r"\$\.repeated_blocks\[0\]\.glue refers to unknown node 'n99999'"):
        Graph.from_dict(data)
    data = graph.to_dict()
    inner = next(n.id for n in graph.ops() if n.module != graph.repeated_blocks[0].parent)
    data["repeated_blocks"][0]["glue"] = [inner]
    with pytest.raises(SchemaError, match="not of the run's parent"):
        Graph.from_dict(data)


class NormedLayers(torch.nn.Module):
    """Blocks with a norm *module* after each: one LayerNorm called each time (``shared``) or
    one per block (``norms.0``, ``norms.1``, ...)."""

    def __init__(self, shared: bool, count: int = 3) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(count))
        self.norms = torch.nn.ModuleList(torch.nn.LayerNorm(4) for _ in range(1 if shared else count))
        self.head = torch.nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, layer in enumerate(self.layers):
            x = self.norms[i % len(self.norms)](layer(x)) * 0.5
        return self.head(x)


@pytest.mark.parametrize("shared", [True, False], ids=["one norm", "a norm per block"])
def test_a_norm_module_between_blocks_is_glue_of_the_run(shared: bool) -> None:
    graph = vista_core.trace(NormedLayers(shared), torch.randn(1, 4))
    (block,) = graph.repeated_blocks
    assert paths(graph, block.modules) == ["layers.0", "layers.1", "layers.2"]
    # Each block's norm call, the last block's too; the head after them is no glue.
    norm_paths = ["norms.0"] * 3 if shared else ["norms.0", "norms.1", "norms.2"]
    assert paths(graph, block.glue_modules) == norm_paths
    assert labels(graph, block.glue) == ["mul"] * 3
    by_id = {m.id: m for m in graph.modules}
    assert all(by_id[m].parent == block.parent for m in block.glue_modules)
    assert Graph.from_json(graph.to_json()) == graph
    vista_core.validate_document(graph)


def test_a_norm_module_after_only_some_blocks_splits_the_run() -> None:
    class Uneven(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(4))
            self.norm = torch.nn.LayerNorm(4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for i, layer in enumerate(self.layers):
                x = layer(x)
                if i == 1:
                    x = self.norm(x)
            return x

    graph = vista_core.trace(Uneven(), torch.randn(1, 4))
    runs = [paths(graph, b.modules) for b in graph.repeated_blocks]
    assert runs == [["layers.0", "layers.1"], ["layers.2", "layers.3"]]
    assert [b.glue_modules for b in graph.repeated_blocks] == [(), ()]


def test_a_module_bigger_than_the_block_is_not_glue() -> None:
    class Sandwich(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.ReLU() for _ in range(2))
            self.mlp = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 4))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.layers[1](self.mlp(self.layers[0](x)))

    graph = vista_core.trace(Sandwich(), torch.randn(1, 4))
    assert graph.repeated_blocks == ()


def test_trailing_glue_that_differs_stays_outside_the_run() -> None:
    class Tail(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(3))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for layer in self.layers[:-1]:
                x = torch.relu(layer(x))
            return torch.tanh(self.layers[-1](x))

    graph = vista_core.trace(Tail(), torch.randn(1, 4))
    (block,) = graph.repeated_blocks
    assert paths(graph, block.modules) == ["layers.0", "layers.1", "layers.2"]
    assert labels(graph, block.glue) == ["relu", "relu"]


def test_bad_glue_modules_are_named() -> None:
    graph = vista_core.trace(NormedLayers(shared=True), torch.randn(1, 4))
    data = graph.to_dict()
    data["repeated_blocks"][0]["glue_modules"] = ["m999"]
    with pytest.raises(SchemaError, match=r"\$\.repeated_blocks\[0\]\.glue_modules refers to unknown module 'm999'"):
        Graph.from_dict(data)
    data = graph.to_dict()
    data["repeated_blocks"][0]["glue_modules"] = [graph.modules[0].id]  # the root: nobody's child
    with pytest.raises(SchemaError, match="not a child of the run's parent"):
        Graph.from_dict(data)

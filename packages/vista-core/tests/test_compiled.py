"""Models that use torch.compile are traced as the eager code they compile: the same graph as
without torch.compile, nothing compiled while tracing, and the compiler left as it was.

Every compiled piece here uses a counting backend (it returns the FX graph's own forward), so
the tests see each compilation without waiting for a real compiler.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch
from _clean import torch_left_clean

import vista_core
from vista_core import Graph


class Compilations:
    """A torch.compile backend that counts the graphs it is given and runs them unchanged."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        self.count += 1
        return gm.forward


def _gate(t: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(t) * 2


class Net(torch.nn.Module):
    def __init__(self, gate: Callable[[torch.Tensor], torch.Tensor] = _gate) -> None:
        super().__init__()
        self.encoder = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU())
        self.head = torch.nn.Linear(8, 2)
        self.gate = gate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.gate(self.encoder(x)))


def _shape(graph: Graph) -> tuple[object, ...]:
    """What a reader sees: nodes (kind, op, label, module path, output shapes), edges, calls."""
    paths = {m.id: m.path for m in graph.modules}
    nodes = tuple((n.kind, n.name, n.label, paths[n.module], tuple(o.shape for o in n.outputs)) for n in graph.nodes)
    edges = tuple((e.source, e.source_output, e.target, e.target_input) for e in graph.edges)
    calls = tuple((m.path, m.class_name, m.call_index, m.num_params) for m in graph.modules)
    return nodes, edges, calls


def _eager_graph(x: torch.Tensor) -> Graph:
    torch.manual_seed(0)
    return vista_core.trace(Net(), (x,))


def _compiled_variants(backend: Compilations) -> dict[str, Callable[[], torch.nn.Module]]:
    def whole() -> torch.nn.Module:
        torch.manual_seed(0)
        return torch.compile(Net(), backend=backend)  # type: ignore[return-value]

    def submodule() -> torch.nn.Module:
        torch.manual_seed(0)
        net = Net()
        net.encoder = torch.compile(net.encoder, backend=backend)  # type: ignore[assignment]
        return net

    def in_place() -> torch.nn.Module:
        torch.manual_seed(0)
        net = Net()
        net.compile(backend=backend)
        return net

    def function() -> torch.nn.Module:
        torch.manual_seed(0)
        return Net(gate=torch.compile(_gate, backend=backend))

    return {"torch.compile(model)": whole, "torch.compile(submodule)": submodule,
            "module.compile()": in_place, "torch.compile(function)": function}


@pytest.mark.parametrize("variant", ["torch.compile(model)", "torch.compile(submodule)", "module.compile()",
                                     "torch.compile(function)"])
def test_compiled_code_is_traced_as_its_eager_graph(variant: str) -> None:
    torch._dynamo.reset()  # compiled code of earlier tests is not reused
    x = torch.randn(3, 4)
    backend = Compilations()
    model = _compiled_variants(backend)[variant]()
    expected = model(x)  # compiled once, outside the trace
    compiled_before = backend.count
    assert compiled_before >= 1
    with torch_left_clean(), warnings.catch_warnings():
        warnings.simplefilter("error")  # torch's warning about global hooks on compiled modules included
        result = vista_core.capture(model, (x,))
    assert result.exception is None
    assert torch.equal(result.output, expected)
    # Same nodes, wiring and module paths as the plain model: no wrapper call, no `_orig_mod` in
    # the paths, and the compiled function's ops (sigmoid, mul) are there.
    assert _shape(result.graph) == _shape(_eager_graph(x))
    assert backend.count == compiled_before, "something was compiled while tracing"
    # Afterwards the compiled code runs compiled again: the stance is back to default.
    torch._dynamo.reset()
    model(x)
    assert backend.count > compiled_before


def test_parameters_inside_a_compiled_submodule_keep_their_plain_names() -> None:
    torch.manual_seed(0)
    net = Net()
    net.encoder = torch.compile(net.encoder, backend=Compilations())  # type: ignore[assignment]
    graph = vista_core.trace(net, (torch.randn(2, 4),))
    names = {n.name for n in graph.nodes if n.kind == "parameter"}
    assert names == {"encoder.0.weight", "encoder.0.bias", "head.weight", "head.bias"}
    assert [m.path for m in graph.modules] == ["", "encoder", "encoder.0", "encoder.1", "head"]


def test_a_failure_inside_compiled_code_is_marked_and_reraised() -> None:
    class Bad(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 8)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.cat([self.fc(x), x], dim=0)

    model = torch.compile(Bad(), backend=Compilations())
    with torch_left_clean(), pytest.raises(RuntimeError, match="Sizes of tensors must match"):
        vista_core.trace(model, (torch.randn(2, 4),))
    result = vista_core.capture(model, (torch.randn(2, 4),))
    failed = [n for n in result.graph.nodes if n.error is not None]
    assert [n.name for n in failed] == ["torch.cat"]
    assert result.graph.root.class_name == "Bad"


@pytest.mark.parametrize("first_out", ["compiled", "plain"])
def test_overlapping_traces_in_two_threads_put_the_compiler_back(first_out: str) -> None:
    """The stance (and the warning filter) are process-wide: two traces that overlap, in either
    order of ending, must leave both as they were, and compiled code must run eagerly in both."""
    import threading

    torch._dynamo.reset()
    both_inside = threading.Barrier(2, timeout=30)
    turn = {"compiled": threading.Event(), "plain": threading.Event()}
    second_out = "plain" if first_out == "compiled" else "compiled"

    class Meet(torch.nn.Module):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            both_inside.wait()  # both traces are running now
            turn[self.name].wait(timeout=30)
            return x * 2

    def model(name: str) -> torch.nn.Module:
        torch.manual_seed(0)
        net = Net()
        net.encoder = torch.nn.Sequential(Meet(name), net.encoder)  # type: ignore[assignment]
        if name == "compiled":
            net.head = torch.compile(net.head, backend=backend)  # type: ignore[assignment]
        return net

    backend = Compilations()
    graphs: dict[str, Graph] = {}
    errors: list[BaseException] = []

    def run(name: str) -> None:
        try:
            graphs[name] = vista_core.trace(model(name), (torch.randn(2, 4),))
        except BaseException as exc:  # noqa: BLE001  # reported by the main thread
            errors.append(exc)

    with torch_left_clean():
        threads = {name: threading.Thread(target=run, args=(name,)) for name in ("compiled", "plain")}
        for t in threads.values():
            t.start()
        turn[first_out].set()
        threads[first_out].join(timeout=60)
        turn[second_out].set()
        threads[second_out].join(timeout=60)
    assert errors == []
    assert backend.count == 0, "compiled code was compiled while tracing"
    assert _shape(graphs["compiled"]) == _shape(graphs["plain"])

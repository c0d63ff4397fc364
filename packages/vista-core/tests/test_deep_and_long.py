# mypy: disable-error-code="no-any-return"
# (torch types nn.Module.__call__ as returning Any, so every `return module(x)` would need a cast)
"""Deep and long models: Vista's Python code has no recursion over the module tree or the
graph, so a model traces wherever it runs plainly, and its cost over the module tree is linear
(parameter counts, the module walk)."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from _clean import bitwise_equal
from torch import nn

import vista_core
from vista_core._trace import _parameter_totals, named_modules

pytestmark = pytest.mark.usefixtures("torch_clean")


class Level(nn.Module):
    def __init__(self, inner: nn.Module | None) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.a = inner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.lin(x)
        return x if self.a is None else self.a(x)


def deep(depth: int) -> nn.Module:
    model: nn.Module | None = None
    for _ in range(depth):
        model = Level(model)
    assert model is not None
    return model


def frames_at_the_bottom(model: nn.Module, x: torch.Tensor) -> int:
    """How deep the Python stack is in the innermost forward of a plain run."""
    found = []

    def probe(module: nn.Module, args: Any) -> None:
        if getattr(module, "a", 1) is None:
            frame, count = sys._getframe(), 0
            while frame is not None:
                frame, count = frame.f_back, count + 1  # type: ignore[assignment]
            found.append(count)

    handles = [m.register_forward_pre_hook(probe) for m in model.modules() if isinstance(m, Level)]
    try:
        model(x)
    finally:
        for h in handles:
            h.remove()
    return found[0]


def in_a_big_thread(work: Callable[[], Any]) -> Any:
    """Run ``work`` on a thread with a 256 MB C stack (the plain run of a deep model needs it)."""
    result: list[Any] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as exc:  # noqa: BLE001  # re-raised on the caller's thread
            errors.append(exc)

    old = threading.stack_size(256 << 20)
    try:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(old)
    if errors:
        raise errors[0]
    return result[0]


@pytest.mark.parametrize("depth", [3_000, pytest.param(10_000, marks=pytest.mark.slow)])
def test_deep_nesting_traces_within_the_recursion_limit_of_the_plain_run(depth: int) -> None:
    model, x = deep(depth), torch.randn(1, 2)

    def work() -> tuple[torch.Tensor, vista_core.Capture]:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(100_000)
        try:
            needed = frames_at_the_bottom(model, x)
            expected = model(x)
            # Just what the plain run needs, and a few frames for an op's own recording.
            sys.setrecursionlimit(needed + 40)
            return expected, vista_core.capture(model, x)
        finally:
            sys.setrecursionlimit(old)

    expected, result = in_a_big_thread(work)
    assert result.exception is None, repr(result.exception)
    assert bitwise_equal(result.output, expected)
    graph = result.graph
    assert len(graph.modules) == 2 * depth
    assert graph.root.num_params == 6 * depth
    assert max(m.path.count(".") for m in graph.modules) == depth - 1


_MEASURE = """
import resource, sys
sys.path.insert(0, sys.argv[1])
import torch
from test_deep_and_long import deep, in_a_big_thread
import vista_core

def work():
    sys.setrecursionlimit(100_000)
    model, x = deep(int(sys.argv[2])), torch.randn(1, 2)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    graph = vista_core.trace(model, x)
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
    floor = sum(len(m.path) for m in graph.modules)
    return floor, len(graph.to_json()), grown

print(*in_a_big_thread(work))
"""


def _document_and_memory(depth: int) -> tuple[int, int, int]:
    """(Σ len(path) over the module calls, document bytes, growth of the peak RSS during the
    trace) of ``deep(depth)``, in a fresh process (the peak RSS is the process's)."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(Path(__file__).parent), str(depth)],
                          capture_output=True, text=True, check=True)
    floor, size, grown = map(int, done.stdout.split())
    return floor, size, grown


@pytest.mark.slow
def test_document_and_trace_memory_are_linear_in_the_paths_of_the_module_calls() -> None:
    """Every module call carries its full path (the name a user writes), so Σ len(path) is the
    floor of the document, quadratic in the depth of this chain; the document and the trace's
    memory stay within a constant factor of it, a factor that does not grow with the depth."""
    ratios = {}
    for depth in (1_000, 3_000):
        floor, size, grown = _document_and_memory(depth)
        ratios[depth] = size / floor, grown / floor
    # The document holds two qualified parameter names per Linear and a constant part per record.
    assert ratios[3_000][0] <= ratios[1_000][0]
    assert ratios[3_000][0] < 3.0, ratios
    assert ratios[3_000][1] < 10.0, ratios


def test_a_long_chain_of_ops_in_one_module() -> None:
    def chain(x: torch.Tensor) -> torch.Tensor:
        for _ in range(20_000):
            x = x + 1
        return x

    graph = vista_core.trace(chain, torch.zeros(2))
    adds = list(graph.ops())
    assert len(adds) == 20_000
    # Each add reads the one before: the output is reachable from the input along the chain.
    source_of = {e.target: e.source for e in graph.edges}
    node = next(n for n in graph.nodes if n.kind == "output").id
    steps = 0
    while graph.node(node).kind != "input":
        node = source_of[node]
        steps += 1
    assert steps == 20_001


class Tied(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.encoder = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.block = nn.Linear(4, 4)
        self.decoder = nn.ModuleList([self.block, nn.Linear(4, 4), self.block])
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.embed.weight
        self.inner = nn.Sequential(nn.Sequential(self.embed))


@pytest.mark.parametrize("make", [Tied, lambda: deep(50), lambda: nn.TransformerEncoder(
    nn.TransformerEncoderLayer(8, 2, 16), 3, enable_nested_tensor=False)], ids=["tied", "deep", "encoder"])
def test_parameter_totals_count_each_tensor_once(make: Callable[[], nn.Module]) -> None:
    model = make()
    totals = _parameter_totals(model)
    for _, module in model.named_modules():
        assert totals[id(module)] == sum(p.numel() for p in module.parameters()), module


def test_module_walk_is_torchs_order() -> None:
    model = Tied()
    assert [(p, id(m)) for p, m in named_modules(model)] == [
        (p, id(m)) for p, m in model.named_modules(remove_duplicate=False)]


def test_a_module_that_contains_itself_is_refused() -> None:
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential())
    model[1].add_module("loop", model)
    with pytest.raises(vista_core.TraceInputError, match=r"'\(the model\)' contains itself, as '1.loop'"):
        vista_core.trace(model, torch.randn(1, 2))

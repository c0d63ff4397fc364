"""``timing=True``: measured wall time of every op and module call, Vista's own work left out."""

from __future__ import annotations

import time
from typing import Any

import pytest
import torch

import vista_core
from vista_core import Graph, TraceInputError
from vista_core._recorder import Recorder


class _Slow(torch.nn.Module):
    """A module whose forward spends 30 ms in Python between its ops."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.lin(x)
        time.sleep(0.03)
        return torch.relu(y)


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU())
        self.slow = _Slow()
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.slow(self.first(x)) + x)


@pytest.fixture(scope="module")
def graph() -> Graph:
    return vista_core.trace(_Net(), torch.randn(4, 8), timing=True)


def test_every_op_and_call_has_a_time(graph: Graph) -> None:
    assert all(n.time_us is not None and n.time_us >= 0 for n in graph.ops())
    assert all(m.time_us is not None and m.time_us >= 0 for m in graph.modules)
    assert all(n.time_us is None for n in graph.nodes if n.kind != "op")
    plain = vista_core.trace(_Net(), torch.randn(4, 8))
    assert all(n.time_us is None for n in plain.nodes) and all(m.time_us is None for m in plain.modules)


def test_a_call_takes_at_least_what_runs_inside_it(graph: Graph) -> None:
    # Clock readings are whole nanoseconds: sums may differ by a few of them.
    for call in graph.modules:
        inside = sum(n.time_us or 0 for n in graph.ops() if n.module == call.id)
        inside += sum(m.time_us or 0 for m in graph.modules if m.parent == call.id)
        assert call.time_us is not None and call.time_us >= inside - 0.01, call.path


def test_python_time_in_a_forward_counts(graph: Graph) -> None:
    slow = next(m for m in graph.modules if m.path == "slow")
    assert slow.time_us is not None and slow.time_us >= 30_000
    assert graph.root.time_us is not None and graph.root.time_us >= slow.time_us


def test_vistas_recording_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    # Recording each op made 20 ms slower: neither op nor module times may grow by it.
    record = Recorder._record_op

    def slow_record(self: Recorder, *args: Any) -> Any:
        time.sleep(0.02)
        return record(self, *args)

    monkeypatch.setattr(Recorder, "_record_op", slow_record)
    model = torch.nn.Sequential(*(torch.nn.Linear(4, 4) for _ in range(5)))
    started = time.perf_counter()
    graph = vista_core.trace(model, torch.randn(2, 4), timing=True)
    assert time.perf_counter() - started >= 5 * 0.02  # the recording did take that long
    assert graph.root.time_us is not None and graph.root.time_us < 20_000
    assert all(m.time_us is not None and m.time_us < 20_000 for m in graph.modules)
    assert all(n.time_us is not None and n.time_us < 20_000 for n in graph.ops())


@pytest.mark.usefixtures("torch_clean")
def test_torch_is_left_clean() -> None:
    vista_core.trace(_Net(), torch.randn(4, 8), timing=True, stats=True)
    vista_core.capture(lambda x: x @ torch.ones(5), torch.ones(3), timing=True)


def test_statistics_are_left_out_too() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    graph = vista_core.trace(model, torch.randn(2, 4), timing=True, stats=True)
    assert all(m.time_us is not None for m in graph.modules)
    assert all(n.outputs[0].stats is not None for n in graph.ops())


def test_a_function_and_a_failed_forward_are_timed() -> None:
    graph = vista_core.trace(lambda x: torch.relu(x) * 2, torch.randn(3), timing=True)
    assert graph.root.time_us is not None and all(n.time_us is not None for n in graph.ops())

    def broken(x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) @ torch.ones(5, 5)

    captured = vista_core.capture(broken, torch.randn(3), timing=True)
    assert captured.exception is not None
    relu = next(captured.graph.ops())
    assert relu.time_us is not None and captured.graph.root.time_us is not None


def test_the_summary_shows_a_time_column_when_measured(graph: Graph) -> None:
    text = graph.summary()
    header = text.splitlines()[1]
    assert header.split()[-1] == "Time"
    slow = next(line for line in text.splitlines() if line.startswith("  slow"))
    assert slow.endswith(" ms")
    assert "Measured time: " in text
    plain = vista_core.trace(_Net(), torch.randn(4, 8)).summary()
    assert "Time" not in plain.splitlines()[1] and "Measured time" not in plain


def test_times_round_trip_and_validate(graph: Graph) -> None:
    assert Graph.from_json(graph.to_json()) == graph
    vista_core.validate_document(graph)
    assert isinstance(graph.to_dict()["modules"][0]["time_us"], float)


@pytest.mark.parametrize("value", ["on", 0])
def test_a_bad_timing_argument_is_refused(value: object) -> None:
    with pytest.raises(TraceInputError, match=r"Invalid 'timing' argument: .*pass timing=True or timing=False"):
        vista_core.trace(torch.nn.ReLU(), torch.ones(2), timing=value)  # type: ignore[arg-type]

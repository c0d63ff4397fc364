# mypy: disable-error-code="no-any-return"
# (torch types nn.Module.__call__ as returning Any, so every `return module(x)` would need a cast)
"""Threads and processes: a trace records only its own thread's forward pass.

Vista's torch-function mode lives on the tracing thread's mode stack, and its global module
hooks ignore calls from other threads. So: ops and module calls that other threads run
during a trace are not in the document (even calls of the very model being traced); two
traces in two threads at once give the documents each gives alone; and a forward pass that
hands work to a thread of its own gets only its own thread's ops recorded (the worker's
result enters the graph as a constant), which is the defined limit of tracing.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import torch
from _clean import torch_left_clean
from torch import nn

import vista_core

pytestmark = pytest.mark.usefixtures("torch_clean")


class Deep(nn.Module):
    """Enough ops and module calls (about 200) that a trace takes many thread switches."""

    def __init__(self, width: int = 16, depth: int = 40) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Sequential(nn.Linear(width, width), nn.LayerNorm(width), nn.GELU()) for _ in range(depth)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x) + x * 0.5
        return x


def document(model: nn.Module, x: torch.Tensor) -> str:
    """All traces of this module run from this line, so documents are comparable."""
    return vista_core.trace(model, x).to_json()


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Switch threads every 50 µs instead of 5 ms, so traces really interleave."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(5e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


class Busy(threading.Thread):
    """Runs torch ops and module calls (including the traced model itself) until stopped."""

    def __init__(self, modules: list[nn.Module]) -> None:
        super().__init__(daemon=True)
        self.modules = modules
        self.stop = threading.Event()
        self.iterations = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            y = torch.randn(3, 16)
            while not self.stop.is_set():
                for module in self.modules:
                    y = torch.tanh(module(y)).clone()
                    y.add_(1.0)
                    y[0] = y[1]
                self.iterations += 1
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc


def test_ops_of_another_thread_are_not_recorded(fast_switching: None) -> None:
    torch.manual_seed(0)
    model, other = Deep(), nn.Sequential(nn.Linear(16, 16), nn.ReLU())
    x = torch.randn(2, 16)
    alone = document(model, x)
    busy = Busy([other, model, model.layers[3]])
    busy.start()
    try:
        overlapped = 0
        for _ in range(10):
            start = busy.iterations
            with torch_left_clean(model):
                doc = document(model, x)
            overlapped += busy.iterations > start
            assert doc == alone, "the document changed while another thread ran torch ops"
    finally:
        busy.stop.set()
        busy.join()
    assert busy.error is None, f"the busy thread failed: {busy.error!r}"
    assert overlapped >= 5, f"only {overlapped} of 10 traces overlapped with the busy thread"


def test_two_traces_in_two_threads_at_once(fast_switching: None) -> None:
    torch.manual_seed(0)
    first, second = Deep(), Deep(width=8, depth=30)
    x1, x2 = torch.randn(2, 16), torch.randn(3, 8)
    alone = {"first": document(first, x1), "second": document(second, x2), "same": document(first, x1)}
    barrier = threading.Barrier(2)

    def run(jobs: list[tuple[str, nn.Module, torch.Tensor]]) -> list[tuple[str, str]]:
        barrier.wait()
        return [(name, document(model, x)) for name, model, x in jobs * 4]

    with ThreadPoolExecutor(2) as pool, torch_left_clean(first, second):
        a = pool.submit(run, [("first", first, x1), ("same", first, x1)])
        b = pool.submit(run, [("second", second, x2), ("same", first, x1)])
        results = a.result() + b.result()
    assert len(results) == 16
    for name, doc in results:
        assert doc == alone[name], f"trace {name!r} differs when run next to another trace"


class HandsOff(nn.Module):
    """A forward pass that runs part of its work on a thread of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.before = nn.Linear(4, 4)
        self.worker_part = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.before(x)
        with ThreadPoolExecutor(1) as pool:
            z: torch.Tensor = pool.submit(self.worker_part, y).result()
        return y + z


def test_work_handed_to_a_worker_thread_is_not_recorded() -> None:
    model = HandsOff()
    x = torch.randn(2, 4)
    with torch_left_clean(model):
        graph = vista_core.trace(model, x)
    vista_core.validate_document(graph)
    assert [m.path for m in graph.modules] == ["", "before"]
    assert [n.label for n in graph.ops()] == ["linear", "add"]
    add = next(n for n in graph.ops() if n.label == "add")
    sources = {graph.node(e.source).kind for e in graph.edges if e.target == add.id}
    assert sources == {"op", "constant"}  # the worker's result arrives as a constant


def _trace_in_child(connection: Any) -> None:
    torch.manual_seed(0)
    model = Deep(depth=3)
    connection.send(document(model, torch.ones(2, 16)))
    connection.close()


def test_trace_in_another_process_gives_the_same_document() -> None:
    """A fresh interpreter (spawn: forking a process whose torch already ran threads can hang
    inside torch's thread pool, with or without Vista) writes the same document."""
    torch.manual_seed(0)
    model = Deep(depth=3)
    here = document(model, torch.ones(2, 16))
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_trace_in_child, args=(sender,), daemon=True)
    child.start()
    try:
        assert receiver.poll(120), "the child process sent no document"
        there = receiver.recv()
        child.join(30)
        assert child.exitcode == 0
    finally:
        if child.is_alive():
            child.kill()
    assert there == here


def _each_thread(count: int, target: Callable[[int], None]) -> list[BaseException]:
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            target(i)
        except BaseException as exc:  # noqa: BLE001 - collected for the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_failing_traces_in_threads_keep_their_own_exceptions(fast_switching: None) -> None:
    """Each thread's model raises its own exception object; each capture returns its own."""

    class Fails(nn.Module):
        def __init__(self, i: int) -> None:
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.exc = ValueError(f"thread {i}")

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for _ in range(50):
                x = self.lin(x).tanh()
            raise self.exc

    models = [Fails(i) for i in range(4)]
    captures: dict[int, vista_core.Capture] = {}

    def target(i: int) -> None:
        captures[i] = vista_core.capture(models[i], torch.randn(2, 4))

    assert _each_thread(4, target) == []
    for i, model in enumerate(models):
        assert captures[i].exception is model.exc
        graph = captures[i].graph
        vista_core.validate_document(graph)
        assert graph.error is not None
        assert graph.error.message == f"thread {i}"
        assert sum(1 for n in graph.ops() if n.label == "linear") == 50

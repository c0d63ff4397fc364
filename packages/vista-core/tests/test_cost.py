"""Costs in the document (schema 1.1): bytes of op outputs, parameters and buffers, and the
module calls' totals over their subtrees."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest
import torch

import vista_core
from vista_core import Graph


class _Tied(torch.nn.Module):
    """An embedding and a head sharing one weight, a buffer, a half-precision branch, and an
    in-place op: the cases where counting bytes goes wrong."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(10, 6)
        self.block = torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.ReLU(inplace=True))
        self.head = torch.nn.Linear(6, 10, bias=False)
        self.head.weight = self.embed.weight
        self.register_buffer("scale", torch.ones(6, dtype=torch.float64))
        self.low = torch.nn.Linear(6, 3).half()

    def forward(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.block(self.embed(ids)) * self.scale.float()
        return self.head(h), self.low(h.half())


@pytest.fixture(scope="module")
def graph() -> Graph:
    torch.manual_seed(0)
    return vista_core.trace(_Tied(), torch.tensor([[1, 2, 3]]))


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def test_op_and_parameter_bytes_are_shape_times_element_size(graph: Graph) -> None:
    checked = 0
    for node in graph.nodes:
        if node.kind in ("op", "parameter", "buffer"):
            expected = sum(_numel(t.shape) * getattr(torch, t.dtype).itemsize for t in node.outputs)
            assert node.bytes == expected, node
            checked += 1
        else:
            assert node.bytes is None
    assert checked > 8
    scale = next(n for n in graph.nodes if n.kind == "buffer")
    assert scale.bytes == 6 * 8  # float64
    half_linear = [n for n in graph.ops() if n.module == next(m.id for m in graph.modules if m.path == "low")]
    assert [n.bytes for n in half_linear] == [1 * 3 * 3 * 2]  # float16 output


def test_module_bytes_are_subtree_sums_of_op_bytes(graph: Graph) -> None:
    children: dict[str, list[str]] = {}
    for m in graph.modules[1:]:
        assert m.parent is not None
        children.setdefault(m.parent, []).append(m.id)

    def subtree(mid: str) -> int:
        own = sum(n.bytes or 0 for n in graph.ops() if n.module == mid)
        return own + sum(subtree(c) for c in children.get(mid, []))

    for m in graph.modules:
        assert m.bytes == subtree(m.id), m.path
    assert graph.root.bytes == sum(n.bytes or 0 for n in graph.ops()) > 0


def test_param_bytes_count_shared_weights_once(graph: Graph) -> None:
    model = _Tied()
    by_path = {m.path: m for m in graph.modules}
    assert by_path["head"].param_bytes == 10 * 6 * 4
    assert by_path["block"].param_bytes == (6 * 6 + 6) * 4
    assert by_path["low"].param_bytes == (3 * 6 + 3) * 2
    assert by_path["block.1"].param_bytes == 0
    tied_once = sum(p.numel() * p.element_size() for p in model.parameters())  # parameters() dedups
    buffers = sum(b.numel() * b.element_size() for b in model.buffers())
    assert graph.root.param_bytes == tied_once + buffers


def test_costs_round_trip_and_validate(graph: Graph) -> None:
    assert graph.schema_version == "1.1"
    data = graph.to_dict()
    assert data["modules"][0]["param_bytes"] == graph.root.param_bytes
    assert Graph.from_json(graph.to_json()) == graph
    vista_core.validate_document(data)


def test_a_one_zero_document_is_still_read(graph: Graph) -> None:
    old = copy.deepcopy(graph.to_dict())
    old["schema_version"] = "1.0"
    for record in (*old["nodes"], *old["modules"]):
        record.pop("bytes", None)
        record.pop("param_bytes", None)
    read = Graph.from_dict(old)
    vista_core.validate_document(old)
    assert read.root.bytes is None and all(n.bytes is None for n in read.nodes)
    assert read.to_dict() == old


def test_functions_and_meta_tensors_get_bytes() -> None:
    g = vista_core.trace(lambda x: torch.relu(x @ x), torch.empty(4, 4, device="meta"))
    assert [n.bytes for n in g.ops()] == [64, 64]
    assert (g.root.bytes, g.root.param_bytes) == (128, 0)


class _Replays:
    """Counts the calls of _cost.op_flops (the FLOP replay) and the ops they replay."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from vista_core import _cost

        self.calls = 0
        real = _cost.op_flops

        def counting(replays: Any) -> Any:
            self.calls += 1
            return real(replays)

        monkeypatch.setattr(_cost, "op_flops", counting)


def _model() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 3))


@pytest.mark.parametrize("read", [
    lambda g: g.root.flops,
    lambda g: next(g.ops()).flops,
    lambda g: g.to_json(),
    lambda g: g.to_dict(),
    lambda g: g.summary(),
    lambda g: copy.deepcopy(g),
    lambda g: pickle.dumps(g),
    lambda g: hash(next(g.ops())),
])
def test_flops_are_replayed_when_first_read_not_in_the_trace(monkeypatch: pytest.MonkeyPatch,
                                                             read: Callable[[Graph], object]) -> None:
    replays = _Replays(monkeypatch)
    graph = vista_core.trace(_model(), torch.randn(2, 5))
    assert replays.calls == 0
    read(graph)
    assert replays.calls == 1
    assert [n.flops for n in graph.ops()] == [2 * 2 * 5 * 7, None, 2 * 2 * 7 * 3]
    assert graph.root.flops == 2 * 2 * (5 * 7 + 7 * 3)
    graph.to_json()
    assert replays.calls == 1


def test_deferred_flops_equal_eager_ones_after_a_copy() -> None:
    graph = vista_core.trace(_model(), torch.randn(2, 5))
    copied = pickle.loads(pickle.dumps(graph))
    assert copied == graph and copied.root.flops == 2 * 2 * (5 * 7 + 7 * 3)
    assert "Deferred" not in repr(copy.deepcopy(vista_core.trace(_model(), torch.randn(2, 5))))


def test_reading_flops_inside_a_callers_mode_is_hidden_from_it() -> None:
    from torch.utils._python_dispatch import TorchDispatchMode

    class Seen(TorchDispatchMode):  # type: ignore[misc]  # torch leaves it untyped
        def __init__(self) -> None:
            super().__init__()
            self.ops: list[str] = []

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    graph = vista_core.trace(_model(), torch.randn(2, 5))
    with Seen() as seen:
        assert graph.root.flops == 2 * 2 * (5 * 7 + 7 * 3)
    assert seen.ops == []


def test_an_unread_graph_holds_no_tensor_of_the_forward() -> None:
    """FLOPs are replayed on specs when first read: until then the graph must keep no tensor
    alive, also where an op was given its tensors inside a namedtuple (a tuple subclass)."""
    import collections
    import gc
    import weakref

    pair = collections.namedtuple("pair", "first second")
    seen: list[weakref.ref[torch.Tensor]] = []

    class Model(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            a, b = x * 2, x + 1  # temporaries: nothing outside the forward holds them
            seen.extend((weakref.ref(a), weakref.ref(b)))
            return torch.cat(pair(a, b)).sum()

    graph = vista_core.trace(Model(), (torch.randn(3, 4),))
    gc.collect()
    assert [r() for r in seen] == [None, None], "the unread graph keeps the forward's tensors alive"
    cat = next(n for n in graph.ops() if n.name.endswith("cat"))
    assert cat.outputs[0].shape == (6, 4)
    assert graph.to_json()  # and the deferred figures are still made from what was kept

"""What a forward pass costs, per node and per module call: bytes and FLOPs (schema 1.1).

Bytes come from the document's own records after the trace (shapes and dtypes of the outputs,
and the model's parameters and buffers). FLOPs are torch's own (``torch.utils.flop_counter``):
while tracing, each op keeps only its function and a light copy of its arguments with every
tensor as a :class:`TensorSpec`; when the graph is built, each op runs again on fake tensors (no data)
counting with torch's FLOP formulas (once per distinct call: a model's repeated layers cost one replay).
An always-on dispatch mode during the forward would cost every aten op instead. The replays run
when the FLOPs are first read (a node's or call's ``flops``, the document, the summary), not in
the trace.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes
from torch.utils.flop_counter import flop_registry

from ._graph import Deferred, ModuleCall, Node, TensorMeta

__all__ = ["Replay", "TensorSpec", "add_costs", "element_size", "op_flops", "replay_spec", "tensor_bytes"]

_setattr = object.__setattr__
_ITEMSIZE: dict[str, int | None] = {}


def element_size(dtype: str) -> int | None:
    """Bytes of one element of the document's dtype text (``float32``: 4), None if unknown."""
    found = _ITEMSIZE.get(dtype, -1)
    if found == -1:
        candidate = getattr(torch, dtype, None)
        found = _ITEMSIZE[dtype] = candidate.itemsize if isinstance(candidate, torch.dtype) else None
    return found


def tensor_bytes(meta: TensorMeta) -> int | None:
    """Bytes of a tensor as shape × element size (None for a dtype without a size)."""
    size = element_size(meta.dtype)
    if size is None:
        return None
    numel = 1
    for d in meta.shape:
        numel *= d
    return numel * size


class TensorSpec(NamedTuple):
    """What a replay needs of a tensor argument: never the tensor itself (it would stay alive)."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device


# (function, positional arguments, keyword arguments), tensors as TensorSpec.
Replay = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]
_Tensor = torch.Tensor


def _spec(value: Any) -> Any:
    if isinstance(value, _Tensor):
        return _tuple_new(TensorSpec, (value.shape, value.stride(), value.dtype, value.device))
    kind = type(value)
    if kind is tuple or kind is list:
        return kind(map(_spec, value))
    if kind is dict:
        return {k: _spec(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)) and kind is not torch.Size:
        # A namedtuple or other sequence subclass must not keep the forward's tensors alive
        # until the FLOPs are read: its items become specs in a plain sequence of its base.
        return (tuple if isinstance(value, tuple) else list)(map(_spec, value))
    return value


_tuple_new = tuple.__new__
# Argument types kept as they are: _spec()'s last case, decided sooner.
_PLAIN = frozenset({int, float, bool, str, type(None), torch.dtype, torch.device})
_NO_KWARGS: dict[str, Any] = {}


def replay_spec(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Replay | None:
    """The op call with its tensors as specs; None for tensors without strides (nested, sparse)."""
    try:
        # _spec(args) for the common flat tuple, inlined (this runs for every op).
        spec = []
        for a in args:
            kind = type(a)
            if kind in _PLAIN:
                spec.append(a)
            elif isinstance(a, _Tensor):
                spec.append(_tuple_new(TensorSpec, (a.shape, a.stride(), a.dtype, a.device)))
            else:
                spec.append(_spec(a))
        return func, tuple(spec), _spec(kwargs) if kwargs else _NO_KWARGS
    except Exception:  # noqa: BLE001  # such tensors refuse stride(); their ops get no FLOPs
        return None


def _has_spec(value: Any) -> bool:
    if isinstance(value, TensorSpec):
        return True
    if isinstance(value, (tuple, list)):
        return any(map(_has_spec, value))
    if isinstance(value, dict):
        return any(map(_has_spec, value.values()))
    return False


def _meta(value: Any) -> Any:
    if isinstance(value, TensorSpec):
        return torch.empty_strided(value.shape, value.stride, dtype=value.dtype, device=value.device)
    kind = type(value)
    if kind is tuple or kind is list:
        return kind(map(_meta, value))
    if kind is dict:
        return {k: _meta(v) for k, v in value.items()}
    return value


def _key(replay: Replay) -> Any:
    func, args, kwargs = replay
    key = (func, _frozen(args), _frozen(kwargs))
    hash(key)  # raises TypeError for unhashable arguments: such calls are not cached
    return key


def _frozen(value: Any) -> Any:
    if isinstance(value, TensorSpec):
        return value
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, *map(_frozen, value))
    if isinstance(value, dict):
        return ("dict", *((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, slice):  # unhashable before Python 3.12; indexing a layer's tensors uses them
        return ("slice", _frozen(value.start), _frozen(value.stop), _frozen(value.step))
    return (type(value), value)  # 1, 1.0 and True are equal keys but not equal calls


# Ops that call Python on each element: a fake tensor has no data to hand them (and crashes).
_NOT_REPLAYED = frozenset({torch.Tensor.apply_, torch.Tensor.map_, torch.Tensor.map2_})


class _FlopCounter(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch leaves it untyped
    """Sums torch's own FLOP formulas (the registry FlopCounterMode reads) over the aten ops
    run; ``counted`` says whether any had a formula. FlopCounterMode itself also tracks
    modules through global hooks, which a replay does not need."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.flops = 0
        self.counted = False

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        formula = flop_registry.get(func._overloadpacket)
        if formula is not None:
            self.flops += formula(*args, **kwargs, out_val=out)
            self.counted = True
        return out


# FLOPs by call key, kept across traces: a call's figure depends on nothing else, and a model
# traced again (a notebook cell run twice) then needs no replay. Bounded: cleared when full.
_FLOPS_CACHE: dict[Any, int | None] = {}
_FLOPS_CACHE_SIZE = 4096


def op_flops(replays: Sequence[Replay | None]) -> list[int | None]:
    """The FLOPs torch's flop counter gives each op call, replayed on fake tensors; None where
    torch has no formula for any aten op the call runs (or the call cannot run on fake ones)."""
    out: list[int | None] = []
    cache = _FLOPS_CACHE
    if len(cache) > _FLOPS_CACHE_SIZE:
        cache.clear()
    rng = torch.get_rng_state()  # replays must not move the user's random stream
    mode = _FlopCounter()
    try:
        # Fake tensors of the real device, not meta ones: composite ops choose their kernels by
        # device (CPU attention runs a fused kernel, meta the math one), and so FLOPs differ.
        with FakeTensorMode(allow_non_fake_inputs=False), mode, torch.no_grad():
            for replay in replays:
                if replay is None or replay[0] in _NOT_REPLAYED or not _has_spec(replay[1:]):
                    out.append(None)
                    continue
                try:
                    key = _key(replay)
                except TypeError:
                    key = None
                if key is not None and key in cache:
                    out.append(cache[key])
                    continue
                mode.flops, mode.counted = 0, False
                try:
                    replay[0](*_meta(replay[1]), **_meta(replay[2]))
                    flops = int(mode.flops) if mode.counted else None
                except Exception:  # noqa: BLE001  # an op meta tensors cannot run: no figure
                    flops = None
                if key is not None:
                    cache[key] = flops
                out.append(flops)
    finally:
        torch.set_rng_state(rng)
    return out


def _owned_bytes(module: Any, memo: dict[int, dict[int, int]]) -> dict[int, int]:
    """{id(tensor): bytes} of the parameters and buffers of a module and its children."""
    found = memo.get(id(module))
    if found is None:
        found = {}
        for table in (module._parameters, module._buffers):
            for t in table.values():
                if t is not None:
                    found[id(t)] = t.numel() * t.element_size()
        for child in module._modules.values():
            if child is not None:
                found.update(_owned_bytes(child, memo))
        memo[id(module)] = found
    return found


class _Flops:
    """The FLOPs of one trace's op nodes and module calls, replayed when first read (see
    :class:`vista_core._graph.Deferred`): the replays cost more than the rest of building the
    document, and many traces are only drawn or diffed by structure."""

    def __init__(self, nodes: Sequence[Node], modules: Sequence[ModuleCall], parents: Sequence[int | None],
                 ops: list[int], replays: list[Replay | None]) -> None:
        self._work: tuple[Any, ...] | None = (nodes, modules, parents, ops, replays)
        self._lock = threading.Lock()
        self.deferred = Deferred(self.resolve)

    def resolve(self) -> None:
        with self._lock:  # two threads reading at once replay once
            work = self._work
            if work is None:
                return
            nodes, modules, parents, ops, replays = work
            # Hidden from the modes of whoever reads (their reads may come inside one).
            with torch._C.DisableTorchFunction(), _disable_current_modes():
                counts = op_flops(replays)
            index = {m.id: i for i, m in enumerate(modules)}
            flops = [0] * len(modules)
            for j, count in zip(ops, counts):
                _setattr(nodes[j], "flops", count)
                if count is not None:
                    flops[index[nodes[j].module]] += count
            for i in range(len(modules) - 1, 0, -1):  # children after parents: sum bottom-up
                parent = parents[i]
                if parent is not None:
                    flops[parent] += flops[i]
            for call, total in zip(modules, flops):
                _setattr(call, "flops", total)
            self._work = None  # the replays are not needed again


def add_costs(nodes: Sequence[Node], modules: Sequence[ModuleCall], call_modules: Sequence[Any],
              parents: Sequence[int | None], replays: Sequence[Replay | None],
              owned: dict[int, int] | None = None) -> None:
    """Fill in ``bytes`` of op, parameter and buffer nodes and ``bytes`` and ``param_bytes`` of
    module calls (subtree sums), and defer ``flops`` of op nodes and module calls until first
    read, on records just made by the tracer (no one holds them yet).

    ``call_modules[i]`` is the module (or function) of call ``i``, ``parents[i]`` its parent
    call's index (parents come before their children); ``replays[j]`` is node ``j``'s op call.
    ``owned`` holds the bytes of each module's parameters and buffers, its children's included,
    by module id, where known (made in linear time over the module tree; a module missing
    from it, one made during the forward pass, is summed here).
    """
    owned = {} if owned is None else owned
    index = {m.id: i for i, m in enumerate(modules)}
    activations = [0] * len(modules)
    ops = [j for j, node in enumerate(nodes) if node.kind == "op" and node.error is None]
    deferred = _Flops(nodes, modules, parents, ops, [replays[j] for j in ops]).deferred
    for j in ops:
        _setattr(nodes[j], "flops", deferred)
    sized: dict[int, int | None] = {}  # by TensorMeta: the tracer makes one per distinct tensor meta
    for node in nodes:
        kind = node.kind
        if (kind == "op" and node.error is None) or kind in ("parameter", "buffer"):
            sizes = []
            for t in node.outputs:
                size = sized.get(id(t), -1)
                if size == -1:
                    size = sized[id(t)] = tensor_bytes(t)
                sizes.append(size)
            if None in sizes:
                continue
            total = sum(sizes)  # type: ignore[arg-type]  # no None left
            _setattr(node, "bytes", total)
            if kind == "op":
                activations[index[node.module]] += total
    for i in range(len(modules) - 1, 0, -1):  # children after parents: sum bottom-up
        parent = parents[i]
        if parent is not None:
            activations[parent] += activations[i]
    memo: dict[int, dict[int, int]] = {}
    for i, (call, module) in enumerate(zip(modules, call_modules)):
        held = owned.get(id(module))
        if held is None:
            held = sum(_owned_bytes(module, memo).values()) if isinstance(module, torch.nn.Module) else 0
        _setattr(call, "bytes", activations[i])
        _setattr(call, "param_bytes", held)
        _setattr(call, "flops", deferred)

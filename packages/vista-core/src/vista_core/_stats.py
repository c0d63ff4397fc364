"""Tensor statistics of op outputs and the first non-finite op (``stats=True``, schema 1.1).

While the forward runs, each floating op output gets its statistics as one small tensor of
eight numbers, computed on the tensor as the op left it (a later in-place op may change it),
and each op notes whether its floating inputs were all finite when it was called. Nothing is
read back to Python then (no device synchronisation per op): the figures are read when the
document is built. The work runs with every torch-function and dispatch mode out of the way
and autograd off, so it is not recorded, no user mode sees it, and it changes neither outputs
nor the random stream (none of it draws random numbers).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import torch
from torch.utils._python_dispatch import _disable_current_modes

from ._graph import Node, TensorStats

__all__ = ["StatsRecorder", "add_stats"]

_Tensor = torch.Tensor
_no_torch_function = torch._C.DisableTorchFunction
_dispatch_modes = torch._C._len_torch_dispatch_stack
_is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor
_setattr = object.__setattr__
_INF = math.inf
A = TypeVar("A")
T = TypeVar("T")


def _measurable(t: _Tensor) -> bool:
    """A plain dense tensor with data: not meta, sparse, nested, or inside vmap/grad."""
    return (t.layout is torch.strided and t.device.type != "meta" and not t.is_nested
            and not _is_wrapped(t) and type(t) in (_Tensor, torch.nn.Parameter))


def _accumulator(t: _Tensor) -> torch.dtype:
    # float64 sums are exact enough for any float32 tensor; MPS has no float64.
    return torch.float32 if t.device.type == "mps" else torch.float64


def _stats_tensor(t: _Tensor) -> _Tensor | None:
    """[min, max, mean, std, nan, posinf, neginf, zeros] of ``t`` as one float64 tensor, the
    first four of its finite elements (inf or NaN where there are none, for :func:`_read`)."""
    if t.numel() == 0:
        return torch.tensor([_INF, -_INF, math.nan, math.nan, 0, 0, 0, 0], dtype=torch.float64)
    x = t.detach().to(_accumulator(t))
    finite = torch.isfinite(x)
    count = finite.sum()
    mean = torch.where(finite, x, 0).sum() / count
    centred = torch.where(finite, x - mean, 0)
    std = ((centred * centred).sum() / (count - 1)).sqrt()
    parts = [torch.where(finite, x, _INF).amin(), torch.where(finite, x, -_INF).amax(), mean, std,
             torch.isnan(x).sum(), torch.isposinf(x).sum(), torch.isneginf(x).sum(), (x == 0).sum()]
    return torch.stack([p.to(torch.float64) for p in parts])


def _all_finite(tensors: list[_Tensor]) -> _Tensor | bool | None:
    """Whether every tensor holds only finite values (a 0-dim bool tensor, read later), True
    for none, None when one cannot be read (meta, inside vmap, a subclass)."""
    found = []
    for t in tensors:
        if not _measurable(t):
            return None
        found.append(torch.isfinite(t.detach()).all())
    if not found:
        return True
    return found[0] if len(found) == 1 else torch.stack(found).all()


class StatsRecorder:
    """The statistics of one trace: per op node, its outputs' stats tensors and whether its
    inputs were finite. The recorder calls :meth:`inputs` before each op and :meth:`outputs`
    after it is recorded."""

    def __init__(self) -> None:
        #: node index -> one stats tensor (or None) per output port
        self.values: dict[int, list[_Tensor | None]] = {}
        #: node index -> whether its floating inputs were finite (see _all_finite)
        self.finite_inputs: dict[int, _Tensor | bool | None] = {}

    def inputs(self, ins: Sequence[_Tensor]) -> _Tensor | bool | None:
        """Whether the floating tensors among an op's inputs are finite, before it runs."""
        floating = [t for t in ins if t.is_floating_point()]
        if not floating:
            return True
        return _outside_modes(_all_finite, floating)

    def outputs(self, node: int, produced: Sequence[_Tensor], finite_inputs: _Tensor | bool | None) -> None:
        """Note the statistics of the tensors op ``node`` produced (its output ports, in order)."""
        self.finite_inputs[node] = finite_inputs
        self.values[node] = _outside_modes(_many, produced)


def _many(produced: Sequence[_Tensor]) -> list[_Tensor | None]:
    found: list[_Tensor | None] = []
    for t in produced:
        if t.is_floating_point() and _measurable(t):
            try:
                found.append(_stats_tensor(t))
            except Exception:  # noqa: BLE001  # a tensor type these ops refuse: no figures
                found.append(None)
        else:
            found.append(None)
    return found


def _outside_modes(function: Callable[[A], T], argument: A) -> T:
    with _no_torch_function(), torch.no_grad():
        if _dispatch_modes():
            with _disable_current_modes():
                return function(argument)
        return function(argument)


def _read(values: list[float]) -> TensorStats:
    low, high, mean, std = (v if math.isfinite(v) else None for v in values[:4])
    nan, posinf, neginf, zeros = (int(v) for v in values[4:])
    if low is None or high is None:  # no finite element: no mean or spread either
        mean = std = None
    return TensorStats(min=low, max=high, mean=mean, std=std, nan=nan, posinf=posinf, neginf=neginf, zeros=zeros)


def add_stats(nodes: Sequence[Node], recorded: StatsRecorder) -> str | None:
    """Put the statistics on the op nodes' output metadata (records just made by the tracer,
    which no one holds yet) and return the id of the first op that produced a non-finite
    value from finite inputs, or None."""
    first: str | None = None
    for index in sorted(recorded.values):
        node = nodes[index]
        found = recorded.values[index]
        if len(found) != len(node.outputs) or all(v is None for v in found):
            continue
        outputs = []
        nonfinite = False
        for meta, value in zip(node.outputs, found):
            if value is None:
                outputs.append(meta)
                continue
            stats = _read(value.tolist())
            nonfinite = nonfinite or not stats.finite
            outputs.append(dataclasses.replace(meta, stats=stats))
        _setattr(node, "outputs", tuple(outputs))
        if first is None and nonfinite:
            before = recorded.finite_inputs.get(index)
            if before is not None and bool(before):
                first = node.id
    return first

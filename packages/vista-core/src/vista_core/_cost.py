"""What a forward pass costs, per node and per module call: bytes (schema 1.1).

Computed from the document's own records after the trace (shapes and dtypes of the outputs,
and the model's parameters and buffers), so recording an op costs nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ._graph import ModuleCall, Node, TensorMeta

__all__ = ["add_costs", "element_size", "tensor_bytes"]

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


def add_costs(nodes: Sequence[Node], modules: Sequence[ModuleCall], call_modules: Sequence[Any],
              parents: Sequence[int | None]) -> None:
    """Fill in ``bytes`` of op, parameter and buffer nodes and ``bytes`` and ``param_bytes``
    of module calls, on records just made by the tracer (no one holds them yet).

    ``call_modules[i]`` is the module (or function) of call ``i``, ``parents[i]`` its parent
    call's index; parents come before their children.
    """
    index = {m.id: i for i, m in enumerate(modules)}
    activations = [0] * len(modules)
    for node in nodes:
        kind = node.kind
        if (kind == "op" and node.error is None) or kind in ("parameter", "buffer"):
            sizes = [tensor_bytes(t) for t in node.outputs]
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
        owned = sum(_owned_bytes(module, memo).values()) if isinstance(module, torch.nn.Module) else 0
        _setattr(call, "bytes", activations[i])
        _setattr(call, "param_bytes", owned)

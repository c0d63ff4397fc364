"""What differs between two matched elements of :func:`vista_core.diff`: the fields compared.

Nodes: kind, name, outputs (shape, dtype, device, requires_grad), arguments, value, error,
bytes and FLOPs; module calls: path, class, ``extra_repr``, parameter counts, parameters,
failed, the tensors in and out, bytes and FLOPs; edges: their tensor. Ids, source locations,
signatures, times and statistics are not compared (they differ between runs or refactors of
one graph). Each difference is a :class:`FieldChange` with a readable path and JSON values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._graph import Edge, ModuleCall, Node, TensorMeta

__all__ = ["FieldChange", "edge_fields", "module_fields", "node_fields"]


@dataclass(frozen=True)
class FieldChange:
    """One differing field of a matched pair: a readable path such as ``outputs[0].shape``
    and the JSON value on each side (None where the field is absent on that side)."""

    field: str
    a: Any
    b: Any


def _tensor_data(t: TensorMeta) -> dict[str, Any]:
    return {"shape": list(t.shape), "dtype": t.dtype, "device": t.device, "requires_grad": t.requires_grad}


def _compare_tensor(prefix: str, x: TensorMeta, y: TensorMeta, out: list[FieldChange]) -> None:
    if x == y:
        return
    if x.shape != y.shape:
        out.append(FieldChange(f"{prefix}.shape", list(x.shape), list(y.shape)))
    for name in ("dtype", "device", "requires_grad"):
        if getattr(x, name) != getattr(y, name):
            out.append(FieldChange(f"{prefix}.{name}", getattr(x, name), getattr(y, name)))


def _compare_tensors(prefix: str, xs: Sequence[TensorMeta], ys: Sequence[TensorMeta], out: list[FieldChange]) -> None:
    if xs == ys:
        return
    for k in range(max(len(xs), len(ys))):
        if k >= len(xs):
            out.append(FieldChange(f"{prefix}[{k}]", None, _tensor_data(ys[k])))
        elif k >= len(ys):
            out.append(FieldChange(f"{prefix}[{k}]", _tensor_data(xs[k]), None))
        else:
            _compare_tensor(f"{prefix}[{k}]", xs[k], ys[k], out)


def _compare_plain(x: object, y: object, names: Sequence[str], out: list[FieldChange]) -> None:
    for name in names:
        vx, vy = getattr(x, name), getattr(y, name)
        if vx != vy:
            out.append(FieldChange(name, vx, vy))


def node_fields(x: Node, y: Node) -> list[FieldChange]:
    if (x.name == y.name and x.arguments == y.arguments and x.flops == y.flops and x.bytes == y.bytes
            and x.value == y.value and x.error == y.error and x.kind == y.kind and x.outputs == y.outputs):
        return []  # the common case, decided without building anything
    out: list[FieldChange] = []
    _compare_plain(x, y, ("kind", "name"), out)
    _compare_tensors("outputs", x.outputs, y.outputs, out)
    if x.arguments != y.arguments:
        for k in range(max(len(x.arguments), len(y.arguments))):
            ax = None if k >= len(x.arguments) else _argument_text(x.arguments[k])
            ay = None if k >= len(y.arguments) else _argument_text(y.arguments[k])
            if ax != ay:
                out.append(FieldChange(f"arguments[{k}]", ax, ay))
    _compare_plain(x, y, ("value",), out)
    if x.error != y.error:
        out.append(FieldChange("error", None if x.error is None else dataclasses.asdict(x.error),
                               None if y.error is None else dataclasses.asdict(y.error)))
    _compare_plain(x, y, ("bytes", "flops"), out)
    return out


def _argument_text(argument: Any) -> str:
    return argument.value if argument.name is None else f"{argument.name}={argument.value}"


def module_fields(x: ModuleCall, y: ModuleCall) -> list[FieldChange]:
    out: list[FieldChange] = []
    _compare_plain(x, y, ("path", "class_name", "extra_repr", "num_params", "num_params_own", "failed"), out)
    if x.parameters != y.parameters:
        px = {p.name: p for p in x.parameters}
        py = {p.name: p for p in y.parameters}
        for name in [*px, *(n for n in py if n not in px)]:
            p, q = px.get(name), py.get(name)
            if p is None or q is None:
                out.append(FieldChange(f"parameters.{name}", None if p is None else _parameter_data(p),
                                       None if q is None else _parameter_data(q)))
                continue
            if p.shape != q.shape:
                out.append(FieldChange(f"parameters.{name}.shape", list(p.shape), list(q.shape)))
            _compare_plain_prefixed(f"parameters.{name}", p, q, ("kind", "dtype", "numel", "requires_grad"), out)
    for side in ("inputs", "outputs"):
        xs, ys = getattr(x, side), getattr(y, side)
        for k in range(max(len(xs), len(ys))):
            if k >= len(xs) or k >= len(ys):
                t = ys[k] if k >= len(xs) else xs[k]
                data = {"name": t.name, **_tensor_data(t.tensor)}
                out.append(FieldChange(f"{side}[{k}]", None if k >= len(xs) else data, None if k >= len(ys) else data))
                continue
            if xs[k].name != ys[k].name:
                out.append(FieldChange(f"{side}[{k}].name", xs[k].name, ys[k].name))
            _compare_tensor(f"{side}[{k}]", xs[k].tensor, ys[k].tensor, out)
    _compare_plain(x, y, ("bytes", "param_bytes", "flops"), out)
    return out


def _compare_plain_prefixed(prefix: str, x: object, y: object, names: Sequence[str], out: list[FieldChange]) -> None:
    for name in names:
        vx, vy = getattr(x, name), getattr(y, name)
        if vx != vy:
            out.append(FieldChange(f"{prefix}.{name}", vx, vy))


def _parameter_data(p: Any) -> dict[str, Any]:
    return {"kind": p.kind, "shape": list(p.shape), "dtype": p.dtype, "numel": p.numel,
            "requires_grad": p.requires_grad}


def edge_fields(x: Edge, y: Edge) -> list[FieldChange]:
    out: list[FieldChange] = []
    _compare_tensor("tensor", x.tensor, y.tensor, out)
    return out

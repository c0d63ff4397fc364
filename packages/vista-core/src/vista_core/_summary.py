"""``Graph.summary()``: the module tree as a text table, like torchinfo's, from the document."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._graph import Graph, ModuleCall

__all__ = ["summary"]

_HEADERS = ("Module (class)", "Output shape", "Params", "FLOPs", "Act. bytes")


def _count(n: int | None) -> str:
    return "--" if n is None else f"{n:,}"


def _scaled(n: int | None, units: tuple[str, ...], base: int) -> str:
    if n is None:
        return "--"
    value = float(n)
    for unit in units:
        if abs(value) < base or unit == units[-1]:
            return f"{n:,}" if unit == units[0] else f"{value:.2f} {unit}"
        value /= base
    return f"{n:,}"  # pragma: no cover - the loop always returns


def _flops(n: int | None) -> str:
    return _scaled(n, ("", "K", "M", "G", "T", "P"), 1000)


def _bytes(n: int | None) -> str:
    return _scaled(n, ("B", "KiB", "MiB", "GiB", "TiB"), 1024) + (" B" if n is not None and n < 1024 else "")


def _time(us: float | None) -> str:
    if us is None:
        return "--"
    if us < 1000:
        return f"{us:.1f} us"
    return f"{us / 1000:.2f} ms" if us < 1_000_000 else f"{us / 1_000_000:.2f} s"


def _shape(call: ModuleCall, graph: Graph) -> str:
    if call.parent is None:  # the root's outputs are the output nodes
        outputs = {n.id for n in graph.nodes if n.kind == "output"}
        shapes = [list(e.tensor.shape) for e in graph.edges if e.target in outputs]
    else:
        shapes = [list(t.tensor.shape) for t in call.outputs]
    if not shapes:
        return "--"
    text = ", ".join(str(s) for s in shapes[:2]) + (f", … ({len(shapes)})" if len(shapes) > 2 else "")
    return text


def summary(graph: Graph, depth: int = 3) -> str:
    """See :meth:`vista_core.Graph.summary`."""
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"Invalid 'depth' argument: {depth!r}; pass a whole number >= 0 (0: the model only).")
    timed = graph.root.time_us is not None  # traced with timing=True: a time column
    headers = (*_HEADERS, "Time") if timed else _HEADERS
    levels: dict[str, int] = {}
    rows: list[tuple[str, ...]] = []
    for call in graph.modules:
        level = 0 if call.parent is None else levels[call.parent] + 1
        levels[call.id] = level
        if level > depth:
            continue
        again = "" if call.call_index == 0 else f"#{call.call_index}"  # a module's later calls
        name = call.class_name if call.parent is None else f"{call.name}{again} ({call.class_name})"
        row = ("  " * level + name, _shape(call, graph), _count(call.num_params), _flops(call.flops),
               _bytes(call.bytes))
        rows.append((*row, _time(call.time_us)) if timed else row)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: tuple[str, ...]) -> str:
        first = cells[0].ljust(widths[0])
        return "  ".join([first, cells[1].ljust(widths[1]), *(c.rjust(w) for c, w in zip(cells[2:], widths[2:]))])

    rule = "=" * len(line(headers))
    root = graph.root
    totals = [
        f"Total params: {_count(root.num_params)}"
        + ("" if root.param_bytes is None else f" ({_bytes(root.param_bytes)} with buffers)"),
        f"Total FLOPs: {_flops(root.flops)}" + ("" if root.flops is None else f" ({root.flops:,})"),
        f"Activation bytes: {_bytes(root.bytes)}",
    ]
    if timed:
        totals.append(f"Measured time: {_time(root.time_us)} (wall time of the traced run, Vista's own work left out)")
    if root.flops is None:
        totals.append("(a schema 1.0 document: it has no FLOPs or bytes)")
    if graph.failed:
        totals.append("The forward pass failed: the figures cover what ran before the failure.")
    return "\n".join([rule, line(headers), rule, *map(line, rows), rule, *totals, rule])

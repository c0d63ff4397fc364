"""Comparing two traces: :func:`diff` matches their module calls and nodes into a :class:`GraphDiff`.

Module calls are matched top down: the roots, then the children of each matched pair by path
and by position among the siblings that share that path (the second call of ``encoder.norm``
with the second), and the children left on both sides by class. Within each matched pair of
calls, the nodes the calls own are aligned by ``_align.align`` (a sequence alignment over node
kind and op name, ties broken by output shapes), so an inserted or removed op leaves the rest
matched. Edges match when both ends match. Whatever is left unmatched is added (only in ``b``)
or removed (only in ``a``); what differs between matched ones is ``_diff_fields``'.

The result also holds the union graph (every call, node and edge of both, matched ones once
with ``b``'s values), which is what a viewer draws; its document is the diff contract.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from vista_schema import DIFF_VERSION, SchemaError, SchemaVersionError, is_diff_document, parse_json

from ._align import align, merge
from ._diff_fields import FieldChange, edge_fields, module_fields, node_fields
from ._graph import (
    _UNKNOWN,
    Edge,
    Graph,
    ModuleCall,
    Node,
    RepeatedBlock,
    SharedTensor,
    _new,
    _resolved_state,
    _setattr,
)
from ._version import SCHEMA_VERSION

__all__ = ["Change", "FieldChange", "GraphDiff", "diff"]

Element = Literal["module", "node", "edge"]
Status = Literal["added", "removed", "changed"]


@dataclass(frozen=True)
class Change:
    """One element (module call, node or edge) that differs. ``id`` is its id in the union
    graph, ``a`` and ``b`` its ids in the two traces (None on the side it is missing from).
    Edge ids read ``"<source>:<source_output>-><target>:<target_input>"``."""

    element: Element
    id: str
    a: str | None
    b: str | None
    status: Status
    fields: tuple[FieldChange, ...] = ()


@dataclass(frozen=True, repr=False)
class GraphDiff:
    """The comparison of two traces, ``a`` ("before") and ``b`` ("after"), by :func:`diff`.

    ``changes`` lists the elements that differ in graph order; ``module_matches`` and
    ``node_matches`` every matched pair as ``(a id, b id, union id)``; ``union`` is one graph
    holding both traces (each matched element once, with b's values; ids of its own).
    """

    a: Graph
    b: Graph
    union: Graph
    changes: tuple[Change, ...]
    module_matches: tuple[tuple[str, str, str], ...]
    node_matches: tuple[tuple[str, str, str], ...]

    def __repr__(self) -> str:
        # Short: the default would print both graphs and their union in full.
        counts = {s: sum(1 for c in self.changes if c.status == s) for s in ("added", "removed", "changed")}
        state = "equal" if self.equal else ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        return f"GraphDiff({self.a.root.class_name} → {self.b.root.class_name}: {state})"

    @property
    def equal(self) -> bool:
        """True when the two traces have the same graph: nothing added, removed or changed
        (source locations, ids and structural signatures are not compared)."""
        return not self.changes

    def summary(self) -> str:
        """A short text report of the changes, repeated ones grouped ("1 module call added under
        transformer.h: GPT2Block (transformer.h.2)"; "outputs[0].shape 1×8×32 → 1×8×48 (Linear,
        linear) in 8 places"), after one line of counts and one of the model's totals."""
        from ._diff_summary import summary

        return summary(self)

    def to_dict(self) -> dict[str, Any]:
        """The diff document (see vista-schema's ``schema/v1/diff.schema.json``) as plain data."""
        with _collector_paused():
            return self._data()

    def _data(self) -> dict[str, Any]:
        return {
            "diff_version": DIFF_VERSION,
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "union": self.union.to_dict(),
            "equal": self.equal,
            "changes": [_change_data(c) for c in self.changes],
            "matches": {"modules": [list(m) for m in self.module_matches],
                        "nodes": [list(n) for n in self.node_matches]},
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """The diff document as JSON text; the same two traces always give the same bytes."""
        with _collector_paused():
            return self._json(indent)

    def _json(self, indent: int | None) -> str:
        separators = (",", ":") if indent is None else (",", ": ")
        # The graphs go through Graph.to_json, which shares repeated records while writing.
        parts = {key: getattr(self, key).to_json(indent=indent) for key in ("a", "b", "union")}
        rest = {
            "equal": self.equal,
            "changes": [_change_data(c) for c in self.changes],
            "matches": {"modules": [list(m) for m in self.module_matches],
                        "nodes": [list(n) for n in self.node_matches]},
        }
        if indent is None:
            body = ",".join(f'"{key}":{text}' for key, text in parts.items())
            tail = json.dumps(rest, separators=separators, ensure_ascii=True)[1:-1]
            return f'{{"diff_version":"{DIFF_VERSION}",{body},{tail}}}'
        data = {"diff_version": DIFF_VERSION, **{k: json.loads(v) for k, v in parts.items()}, **rest}
        return json.dumps(data, indent=indent, separators=separators, ensure_ascii=True)


def _change_data(change: Change) -> dict[str, Any]:
    return {"element": change.element, "id": change.id, "a": change.a, "b": change.b, "status": change.status,
            "fields": [{"field": f.field, "a": f.a, "b": f.b} for f in change.fields]}


# -- reading the arguments ---------------------------------------------------------------------

def _as_graph(value: object, name: str) -> Graph:
    if isinstance(value, Graph):
        return value
    torch = sys.modules.get("torch")
    module_type = getattr(getattr(torch, "nn", None), "Module", None)
    if isinstance(module_type, type) and isinstance(value, module_type):
        raise TypeError(
            f"Invalid {name!r} argument: a model ({type(value).__name__}) was given. diff() compares traces: "
            "call vista_core.trace(model, inputs) on each model and pass the Graphs (or use "
            "vista_jupyter.compare(model_a, model_b, inputs))."
        )
    inner = getattr(value, "graph", None)
    if isinstance(inner, Graph):  # a vista_jupyter.VistaGraph
        return inner
    data: object = value
    if isinstance(value, (str, bytes, bytearray)):
        data = parse_json(value)
    elif not isinstance(value, dict) and callable(getattr(value, "to_dict", None)):
        data = value.to_dict()  # type: ignore[attr-defined]  # any Graph-like object
    if not isinstance(data, dict):
        raise TypeError(
            f"Invalid {name!r} argument: {type(value).__name__} {_short(value)}; pass a vista_core.Graph, its "
            "document (dict or JSON text), or a vista_jupyter.VistaGraph."
        )
    if is_diff_document(data):
        raise SchemaError(f"Invalid {name!r} argument: it is a diff document, not a graph document; pass one "
                          "of the traces (the diff's 'a' or 'b').")
    try:
        return Graph.from_dict(data)
    except SchemaVersionError:
        raise  # its message names both versions already
    except SchemaError as exc:
        raise SchemaError(f"Invalid {name!r} argument: {exc}") from exc


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- the comparison ------------------------------------------------------------------------------

def diff(a: object, b: object) -> GraphDiff:
    """Compare two traces, ``a`` ("before") and ``b`` ("after"): each a :class:`Graph`, its
    document (dict or JSON text), or a ``vista_jupyter.VistaGraph``.

    Module calls are matched by path (and by position among repeated calls of one path), the
    ops within each matched pair of calls by an alignment of their order and kind that
    tolerates inserted and removed ops; for every matched pair the fields that differ are
    listed (class, op name, arguments, output shapes, dtypes and devices, parameters, FLOPs
    and bytes). Source locations, ids and signatures are not compared, so a refactor that
    keeps the graph gives ``diff(before, after).equal``.
    """
    first, second = _as_graph(a, "a"), _as_graph(b, "b")
    with _collector_paused():
        return _Differ(first, second).run()


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused (and resumed, whatever happens): nearly every object
    a diff or its document makes lives on, so the collector's passes would only scan them and
    the two graphs again."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _coarse(node: Node) -> tuple[str, str]:
    # A parameter by its own name in its call ("weight"): its qualified name follows the call's path.
    return (node.kind, node.label if node.kind in ("parameter", "buffer") else node.name)


def _fine(node: Node) -> tuple[object, ...]:
    return tuple((t.shape, t.dtype) for t in node.outputs)


def _edge_key(edge: Edge) -> str:
    return f"{edge.source}:{edge.source_output}->{edge.target}:{edge.target_input}"


def _sibling_keys(calls: Sequence[ModuleCall]) -> list[tuple[str, int]]:
    seen: dict[str, int] = {}
    keys = []
    for call in calls:
        k = seen.get(call.path, 0)
        seen[call.path] = k + 1
        keys.append((call.path, k))
    return keys


class _Differ:
    def __init__(self, a: Graph, b: Graph) -> None:
        self.a, self.b = a, b

    def run(self) -> GraphDiff:
        a, b = self.a, self.b
        self._match_modules()
        self._match_nodes()
        self._union_nodes()
        self._union_edges()
        changes = self._changes()
        modules = tuple(self._union_modules(changes))
        union = Graph(
            schema_version=SCHEMA_VERSION,
            producer=b.producer,
            modules=modules,
            nodes=tuple(self.u_nodes),
            edges=tuple(self.u_edges),
            repeated_blocks=tuple(self._union_blocks({m.id: m.signature for m in modules})),
            shared_tensors=tuple(self._union_shared()),
            error=(dataclasses.replace(b.error, node=self.node_u_b[b.error.node])
                   if b.error is not None and b.error.node is not None else b.error),
            first_nonfinite_id=None if b.first_nonfinite_id is None else self.node_u_b[b.first_nonfinite_id],
        )
        module_matches = tuple((x.id, y.id, uid) for uid, (x, y) in zip(self.u_mod_ids, self.mod_pairs)
                               if x is not None and y is not None)
        node_matches = tuple((a.nodes[i].id, b.nodes[j].id, self.node_u_a[a.nodes[i].id])
                             for i, j in sorted(self.node_partner.items()))
        return GraphDiff(a=a, b=b, union=union, changes=tuple(changes), module_matches=module_matches,
                         node_matches=node_matches)

    # -- module calls: top down, children by (path, position among that path's calls) ---------
    def _match_modules(self) -> None:
        kids_a = self.kids_a = _children(self.a)
        kids_b = self.kids_b = _children(self.b)
        pairs: list[tuple[ModuleCall | None, ModuleCall | None]] = []
        parents: list[int | None] = []
        stack: list[tuple[ModuleCall | None, ModuleCall | None, int | None]] = [(self.a.root, self.b.root, None)]
        while stack:
            x, y, parent = stack.pop()
            index = len(pairs)
            pairs.append((x, y))
            parents.append(parent)
            ca = kids_a.get(x.id, []) if x is not None else []
            cb = kids_b.get(y.id, []) if y is not None else []
            where = {k: j for j, k in enumerate(_sibling_keys(cb))}
            matched = [(i, where[k]) for i, k in enumerate(_sibling_keys(ca)) if k in where]
            if len(matched) < min(len(ca), len(cb)):
                # Calls left on both sides (a renamed attribute, a port's own names) pair up by
                # class, in order, so their contents are still compared.
                taken_a, taken_b = {i for i, _ in matched}, {j for _, j in matched}
                left_a = [i for i in range(len(ca)) if i not in taken_a]
                left_b = [j for j in range(len(cb)) if j not in taken_b]
                by_class = align([ca[i].class_name for i in left_a], [ca[i].signature for i in left_a],
                                  [cb[j].class_name for j in left_b], [cb[j].signature for j in left_b])
                matched += [(left_a[i], left_b[j]) for i, j in by_class]
            merged = merge(len(ca), len(cb), matched)
            stack.extend((None if i is None else ca[i], None if j is None else cb[j], index)
                         for i, j in reversed(merged))
        self.mod_pairs = pairs
        self.mod_parent = parents
        self.u_mod_ids = [f"m{k}" for k in range(len(pairs))]
        self.mod_u_a = {x.id: self.u_mod_ids[k] for k, (x, _) in enumerate(pairs) if x is not None}
        self.mod_u_b = {y.id: self.u_mod_ids[k] for k, (_, y) in enumerate(pairs) if y is not None}

    # -- nodes: aligned within each matched pair of calls --------------------------------------
    def _match_nodes(self) -> None:
        own_a = _own_nodes(self.a)
        own_b = _own_nodes(self.b)
        na, nb = self.a.nodes, self.b.nodes
        partner: dict[int, int] = {}
        for x, y in self.mod_pairs:
            if x is None or y is None:
                continue
            la, lb = own_a.get(x.id, []), own_b.get(y.id, [])
            if not la or not lb:
                continue
            pairs = align([_coarse(na[i]) for i in la], [_fine(na[i]) for i in la],
                           [_coarse(nb[j]) for j in lb], [_fine(nb[j]) for j in lb])
            partner.update((la[i], lb[j]) for i, j in pairs)
        self.node_partner = partner

    def _union_nodes(self) -> None:
        na, nb = self.a.nodes, self.b.nodes
        order = merge(len(na), len(nb), sorted(self.node_partner.items()))
        self.node_pairs = [(None if i is None else na[i], None if j is None else nb[j]) for i, j in order]
        ids = self.u_node_ids = [f"n{k}" for k in range(len(order))]
        self.node_u_a = {x.id: ids[k] for k, (x, _) in enumerate(self.node_pairs) if x is not None}
        self.node_u_b = {y.id: ids[k] for k, (_, y) in enumerate(self.node_pairs) if y is not None}
        u_nodes = []
        for uid, (x, y) in zip(ids, self.node_pairs):
            if y is not None:
                u_nodes.append(_renamed(y, id=uid, module=self.mod_u_b[y.module]))
            else:
                assert x is not None
                u_nodes.append(_renamed(x, id=uid, module=self.mod_u_a[x.module]))
        self.u_nodes = u_nodes
        self.node_index = {uid: k for k, uid in enumerate(ids)}

    def _union_edges(self) -> None:
        found: dict[tuple[str, int, str, int], list[Edge | None]] = {}
        for e in self.a.edges:
            key = (self.node_u_a[e.source], e.source_output, self.node_u_a[e.target], e.target_input)
            found.setdefault(key, [None, None])[0] = e
        for e in self.b.edges:
            key = (self.node_u_b[e.source], e.source_output, self.node_u_b[e.target], e.target_input)
            found.setdefault(key, [None, None])[1] = e
        self.edge_pairs = [(key, x, y) for key, (x, y) in found.items()]
        u_edges = []
        for (source, _out, target, _port), x, y in self.edge_pairs:
            record = y if y is not None else x
            assert record is not None
            u_edges.append(_renamed(record, source=source, target=target))
        self.u_edges = u_edges

    # -- what differs, in graph order ------------------------------------------------------------
    def _changes(self) -> list[Change]:
        module_changes: dict[str, Change] = {}
        for uid, (x, y) in zip(self.u_mod_ids, self.mod_pairs):
            change = _pair_change("module", uid, x, y, module_fields)
            if change is not None:
                module_changes[uid] = change
        node_changes: dict[str, Change] = {}
        for uid, (nx, ny) in zip(self.u_node_ids, self.node_pairs):
            change = _pair_change("node", uid, nx, ny, node_fields)
            if change is not None:
                node_changes[uid] = change
        edges_into: dict[str, list[Change]] = {}
        for (source, out, target, port), ex, ey in self.edge_pairs:
            if ex is not None and ey is not None and ex.tensor == ey.tensor:
                continue
            fields = edge_fields(ex, ey) if ex is not None and ey is not None else ()
            if ex is not None and ey is not None and not fields:
                continue
            status: Status = "changed" if ex is not None and ey is not None else "added" if ex is None else "removed"
            edges_into.setdefault(target, []).append(Change(
                "edge", f"{source}:{out}->{target}:{port}", None if ex is None else _edge_key(ex),
                None if ey is None else _edge_key(ey), status, tuple(fields)))
        parent_of = {uid: (None if p is None else self.u_mod_ids[p]) for uid, p in zip(self.u_mod_ids, self.mod_parent)}
        ordered: list[Change] = []
        entered: set[str] = set()
        for node in self.u_nodes:
            chain = []
            module: str | None = node.module
            while module is not None and module not in entered:
                entered.add(module)
                chain.append(module)
                module = parent_of[module]
            ordered += [module_changes[m] for m in reversed(chain) if m in module_changes]
            if node.id in node_changes:
                ordered.append(node_changes[node.id])
            ordered += edges_into.get(node.id, ())
        ordered += [c for uid, c in module_changes.items() if uid not in entered]
        self.parent_of = parent_of
        return ordered

    # -- the union graph's records ---------------------------------------------------------------
    def _union_modules(self, changes: Sequence[Change]) -> list[ModuleCall]:
        node_module = {n.id: n.module for n in self.u_nodes}
        dirty: set[str] = set()
        changed_nodes: set[str] = set()
        for change in changes:
            if change.element == "module":
                starts = [change.id]
            elif change.element == "node":
                starts = [node_module[change.id]]
                changed_nodes.add(change.id)
            else:
                # An edge lies in the innermost call holding both its ends: the calls it leaves
                # or enters are unchanged inside (a removed layer's neighbours still fold).
                source, target = change.id.split("->")
                starts = [self._common_call(node_module[source.split(":")[0]], node_module[target.split(":")[0]])]
            for module in starts:
                current: str | None = module
                while current is not None and current not in dirty:
                    dirty.add(current)
                    current = self.parent_of[current]
        self.dirty, self.changed_nodes = dirty, changed_nodes
        out = []
        for k, (uid, (x, y)) in enumerate(zip(self.u_mod_ids, self.mod_pairs)):
            parent = self.mod_parent[k]
            record = y if y is not None else x
            assert record is not None
            node_u = self.node_u_b if y is not None else self.node_u_a
            signature = record.signature
            if x is not None and y is not None and uid in dirty:
                # Equal for two calls exactly when both sides' contents are alike, so the union's
                # contents are too: a renderer may still reuse one layout for both.
                signature = hashlib.blake2b(f"{x.signature}|{y.signature}".encode(), digest_size=8).hexdigest()
            out.append(_renamed(
                record, id=uid, parent=None if parent is None else self.u_mod_ids[parent], signature=signature,
                inputs=tuple(_renamed(t, source=node_u[t.source]) for t in record.inputs),
                outputs=tuple(_renamed(t, source=node_u[t.source]) for t in record.outputs)))
        return out

    def _common_call(self, first: str, second: str) -> str:
        ancestors = set()
        current: str | None = first
        while current is not None:
            ancestors.add(current)
            current = self.parent_of[current]
        current = second
        while current not in ancestors:
            assert current is not None  # the root is everyone's ancestor
            current = self.parent_of[current]
        return current

    def _union_blocks(self, signature: dict[str, str]) -> list[RepeatedBlock]:
        """The folds of the union: runs of a block's calls with no change inside them, and with
        unchanged glue between them, found in b's blocks and then in a's."""
        span: dict[str, tuple[int, int]] = {}
        for k, node in enumerate(self.u_nodes):
            lo, hi = span.get(node.module, (k, k))
            span[node.module] = (min(lo, k), max(hi, k))
        for uid in reversed(self.u_mod_ids):  # children come after their parent: fold upwards
            parent = self.parent_of[uid]
            if parent is not None and uid in span:
                lo, hi = span[uid]
                plo, phi = span.get(parent, (lo, hi))
                span[parent] = (min(lo, plo), max(hi, phi))
        out: list[RepeatedBlock] = []
        taken: set[str] = set()
        for graph, mod_u, node_u in ((self.b, self.mod_u_b, self.node_u_b), (self.a, self.mod_u_a, self.node_u_a)):
            for block in graph.repeated_blocks:
                parent = mod_u[block.parent]
                glue = sorted((node_u[g] for g in block.glue), key=self.node_index.__getitem__)
                run: list[str] = []
                for call in [*block.modules, None]:
                    here = None if call is None else mod_u[call]
                    if here is not None and here not in self.dirty and here not in taken and here in span:
                        run.append(here)
                        continue
                    if len(run) >= 2:
                        lo, hi = span[run[0]][0], span[run[-1]][1]
                        inside = [g for g in glue if lo <= self.node_index[g] <= hi]
                        if not any(g in self.changed_nodes for g in inside):
                            out.append(RepeatedBlock(parent=parent, modules=tuple(run),
                                                     signature=signature[run[0]], glue=tuple(inside)))
                            taken.update(run)
                    run = []
        return out

    def _union_shared(self) -> list[SharedTensor]:
        merged: dict[str, tuple[SharedTensor, list[str]]] = {}
        for graph, node_u in ((self.b, self.node_u_b), (self.a, self.node_u_a)):
            for shared in graph.shared_tensors:
                nodes = [node_u[n] for n in shared.nodes]
                if shared.name in merged:
                    merged[shared.name][1].extend(n for n in nodes if n not in merged[shared.name][1])
                else:
                    merged[shared.name] = (shared, nodes)
        return [dataclasses.replace(shared, nodes=tuple(sorted(nodes, key=self.node_index.__getitem__)))
                for shared, nodes in merged.values()]


_RecordT = TypeVar("_RecordT")


def _renamed(record: _RecordT, **ids: Any) -> _RecordT:
    """``record`` with the given id fields replaced, like ``dataclasses.replace`` but without
    re-running ``__init__`` (the union has one record per element of two graphs), and without
    the fields of a newer schema minor that the record kept (the union is of this version)."""
    fields = dict(_resolved_state(record))  # deferred FLOPs are filled in on the original only
    fields.pop(_UNKNOWN, None)
    fields.update(ids)
    copy = _new(type(record))
    _setattr(copy, "__dict__", fields)
    return copy


def _children(graph: Graph) -> dict[str, list[ModuleCall]]:
    kids: dict[str, list[ModuleCall]] = {}
    for call in graph.modules[1:]:
        assert call.parent is not None
        kids.setdefault(call.parent, []).append(call)
    return kids


def _own_nodes(graph: Graph) -> dict[str, list[int]]:
    own: dict[str, list[int]] = {}
    for k, node in enumerate(graph.nodes):
        own.setdefault(node.module, []).append(k)
    return own


def _pair_change(element: Element, uid: str, x: Any, y: Any, fields: Any) -> Change | None:
    if x is None:
        return Change(element, uid, None, y.id, "added")
    if y is None:
        return Change(element, uid, x.id, None, "removed")
    found = fields(x, y)
    return Change(element, uid, x.id, y.id, "changed", tuple(found)) if found else None

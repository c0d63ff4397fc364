"""``GraphDiff.summary()``: the changes of a diff as a few lines of text, repeated ones grouped.

Added and removed module calls are reported as whole subtrees under their parent's path;
ops added or removed elsewhere, and changed fields, are grouped by what they are (op or class,
field, both values) and where (the module path with layer numbers as ``*``), with a count.
Edges are only counted: a changed edge repeats the change of the node that produced it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._diff import GraphDiff

__all__ = ["summary"]

#: At most this many grouped lines are listed; the rest are counted in one last line.
_MAX_LINES = 12
_NUMBER = re.compile(r"(?<=\.)\d+(?=\.|$)|^\d+(?=\.|$)")


def _where(path: str) -> str:
    return _NUMBER.sub("*", path) if path else "the model"


def _value(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return "×".join(map(str, value)) if value else "scalar"
    if value is None:
        return "none"
    if isinstance(value, dict) and "type" in value and "message" in value:
        value = f"{value['type']}: {value['message']}"
    if isinstance(value, dict) and "shape" in value:
        return f"{_value(value['shape'])} {value.get('dtype', '')}".strip()
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:39] + "…"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


#: Module fields that are totals over the call's subtree: a change inside shows in them too.
_TOTALS = {"num_params": "parameters", "flops": "FLOPs", "bytes": "activation bytes",
           "param_bytes": "parameter bytes"}
#: Node fields that follow from the output shapes and dtypes.
_FROM_SHAPES = ("bytes", "flops")


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else _value(value)


def summary(result: GraphDiff) -> str:
    union = result.union
    if result.equal:
        ops = sum(1 for n in union.nodes if n.kind == "op")
        return (f"The two traces are equal: {_plural(len(union.modules), 'module call')}, {_plural(ops, 'op')} "
                f"and {_plural(len(union.edges), 'edge')} matched.")
    modules = {m.id: m for m in union.modules}
    nodes = {n.id: n for n in union.nodes}
    status = {(c.element, c.id): c.status for c in result.changes}
    counts: Counter[tuple[str, str]] = Counter((c.element, c.status) for c in result.changes)
    header = "; ".join(
        f"{label}: " + ", ".join(f"{counts[(element, s)]} {s}" for s in ("added", "removed", "changed")
                                 if counts[(element, s)])
        for element, label in (("module", "module calls"), ("node", "nodes"), ("edge", "edges"))
        if any(counts[(element, s)] for s in ("added", "removed", "changed")))
    lines = [f"{_plural(len(result.changes), 'change')} ({header})."]
    if not any(counts[(element, s)] for element in ("module", "node") for s in ("added", "removed")):
        lines.append("Same structure: every module call and node is matched; only their values differ.")

    def inside(module_id: str | None, which: str) -> bool:
        """True when the module call or one around it is itself added (removed)."""
        while module_id is not None:
            if status.get(("module", module_id)) == which:
                return True
            module_id = modules[module_id].parent
        return False

    structure: Counter[tuple[str, ...]] = Counter()
    examples: dict[tuple[str, ...], list[str]] = {}
    fields: Counter[tuple[str, str, str]] = Counter()
    whats: dict[tuple[str, str, str], list[str]] = {}
    totals: list[str] = []
    for change in result.changes:
        if change.element == "edge":
            continue
        if change.status != "changed":
            if change.element == "module":
                call = modules[change.id]
                if inside(call.parent, change.status):
                    continue
                key: tuple[str, ...] = ("module", change.status, call.path.rpartition(".")[0] or "the model",
                                        call.class_name)
                examples.setdefault(key, []).append(call.path or call.class_name)
            else:
                node = nodes[change.id]
                if inside(node.module, change.status):
                    continue
                label = node.label if node.kind == "op" else f"{node.kind} {node.label}"
                key = ("node", change.status, _where(modules[node.module].path), label)
            structure[key] += 1
            continue
        shaped = any(f.field.startswith("outputs") for f in change.fields)
        for item in change.fields:
            if change.element == "module" and item.field in _TOTALS:
                if modules[change.id].parent is None:
                    totals.append(f"{_TOTALS[item.field]} {_number(item.a)} → {_number(item.b)}")
                continue
            if change.element == "node" and item.field in _FROM_SHAPES and shaped:
                continue
            group = (item.field, _value(item.a), _value(item.b))
            fields[group] += 1
            what = modules[change.id].class_name if change.element == "module" else nodes[change.id].label
            named = whats.setdefault(group, [])
            if what not in named:
                named.append(what)
    if totals:
        lines.append("Model totals: " + ", ".join(totals) + ".")
    shown = 0
    # Whole calls first, then single nodes; each by how often it happens.
    for key, count in sorted(structure.items(), key=lambda item: (item[0][0] != "module", -item[1])):
        if shown == _MAX_LINES:
            break
        shown += 1
        if key[0] == "module":
            _, state, where, class_name = key
            paths = examples[key]
            names = ", ".join(paths[:3]) + (", …" if len(paths) > 3 else "")
            lines.append(f"{_plural(count, 'module call')} {state} under {where}: {class_name} ({names})")
        else:
            _, state, where, label = key
            lines.append(f"{label} {state} in {where}" + (f" ({count} places)" if count > 1 else ""))
    for (name, before, after), count in fields.most_common():
        if shown == _MAX_LINES:
            break
        shown += 1
        named = whats[(name, before, after)]
        who = ", ".join(named[:3]) + (", …" if len(named) > 3 else "")
        lines.append(f"{name} {before} → {after} ({who})" + (f" in {count} places" if count > 1 else ""))
    rest = len(structure) + len(fields) - shown
    if rest > 0:
        lines.append(f"… and {rest} more kinds of change (see GraphDiff.changes).")
    return "\n".join(lines)

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
    if isinstance(value, dict) and "shape" in value:
        return f"{_value(value['shape'])} {value.get('dtype', '')}".strip()
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:39] + "…"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


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
    groups: Counter[tuple[str, ...]] = Counter()
    examples: dict[tuple[str, ...], list[str]] = {}

    def whole(module_id: str, which: str) -> bool:
        """True when the module call is inside a call that is itself added (removed)."""
        parent = modules[module_id].parent
        while parent is not None:
            if status.get(("module", parent)) == which:
                return True
            parent = modules[parent].parent
        return False

    for change in result.changes:
        if change.element == "edge":
            continue
        if change.status in ("added", "removed"):
            if change.element == "module":
                call = modules[change.id]
                if whole(call.id, change.status):
                    continue
                parent = modules[call.parent].path if call.parent is not None else ""
                key: tuple[str, ...] = ("module", change.status, _where(parent), call.class_name)
                examples.setdefault(key, []).append(call.path or call.class_name)
            else:
                node = nodes[change.id]
                if status.get(("module", node.module)) == change.status or whole(node.module, change.status):
                    continue
                key = ("node", change.status, _where(modules[node.module].path), node.label)
            groups[key] += 1
            continue
        if change.element == "module":
            call = modules[change.id]
            what, where = call.class_name, _where(call.path)
        else:
            node = nodes[change.id]
            what, where = node.label, _where(modules[node.module].path)
        for item in change.fields:
            key = ("field", what, item.field, _value(item.a), _value(item.b), where)
            groups[key] += 1
    lines = [f"{_plural(len(result.changes), 'change')} ({header})."]
    for key, count in groups.most_common(_MAX_LINES):
        if key[0] == "module":
            _, state, where, class_name = key
            shown = examples[key]
            names = ", ".join(shown[:3]) + (", …" if len(shown) > 3 else "")
            lines.append(f"{_plural(count, 'module call')} {state} under {where}: {class_name} ({names})")
        elif key[0] == "node":
            _, state, where, label = key
            lines.append(f"{label} {state} in {where}" + (f" ({count} places)" if count > 1 else ""))
        else:
            _, what, name, before, after, where = key
            lines.append(f"{what} {name} {before} → {after} in {where}"
                         + (f" ({count} places)" if count > 1 else ""))
    rest = len(groups) - _MAX_LINES
    if rest > 0:
        lines.append(f"… and {rest} more kinds of change (see GraphDiff.changes).")
    return "\n".join(lines)

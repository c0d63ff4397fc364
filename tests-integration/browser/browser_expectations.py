"""What the viewer should draw, computed in Python from the document alone.

The rules come from the viewer contract: module calls at depth < d are open (the root has
depth 0); a node is drawn when its innermost module call is open and not inside a folded
run, nor glue between the calls of one; a module call whose parent is open and that is itself
closed is one collapsed box; a run of identical sibling calls (``repeated_blocks``) is one
box "×N" (its id: the run's first call); opening it (its +, or a depth that opens its calls)
shows its first call open ("1 of N") and the other calls as one box (id: the second call),
whose + unfolds the run. torch.nn modules other than containers (a Linear) stay closed at
any depth.
The first view of a failed forward pass also opens the module calls around the failed node.
The viewer also groups the model's inputs (and outputs) when at least five of them share the
head of a nested name (``cache.layers[0].keys`` …): the group is a box like a module call,
a child of the root with id ``g:output:cache``, holding those nodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class View:
    """The drawn items: node ids, collapsed boxes (id -> repeat count), open module ids."""

    nodes: frozenset[str]
    boxes: dict[str, int] = field(hash=False)
    open: frozenset[str]


GROUP_MIN = 5


def grouped(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as the viewer draws it: with its groups of inputs and outputs as module
    calls (see the module docstring). Idempotent."""
    root = doc["modules"][0]["id"]
    members: dict[str, list[str]] = {}
    for node in doc["nodes"]:
        if node["module"] != root or node["kind"] not in ("input", "output"):
            continue
        match = re.match(r"([^.\[]+)[.\[]", node["name"])
        if match:
            members.setdefault(f"g:{node['kind']}:{match.group(1)}", []).append(node["id"])
    groups = {gid: ids for gid, ids in members.items() if len(ids) >= GROUP_MIN}
    if not groups:
        return doc
    moved = {nid: gid for gid, ids in groups.items() for nid in ids}
    modules = doc["modules"] + [{"id": gid, "parent": root, "path": gid.split(":", 2)[2]} for gid in groups]
    nodes = [{**n, "module": moved[n["id"]]} if n["id"] in moved else n for n in doc["nodes"]]
    return {**doc, "modules": modules, "nodes": nodes}


def module_depths(doc: dict[str, Any]) -> dict[str, int]:
    doc = grouped(doc)
    depths: dict[str, int] = {}
    for module in doc["modules"]:  # parents come before their children
        parent = module["parent"]
        depths[module["id"]] = 0 if parent is None else depths[parent] + 1
    return depths


def folds(doc: dict[str, Any]) -> dict[str, list[str]]:
    """Fold key (first call of the run) -> the calls of the run; overlapping runs are skipped."""
    out: dict[str, list[str]] = {}
    seen: set[str] = set()
    for block in doc.get("repeated_blocks", []):
        members = list(block["modules"])
        if len(members) < 2 or seen.intersection(members):
            continue
        out[members[0]] = members
        seen.update(members)
    return out


TORCH_CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict"})


def torch_leaves(doc: dict[str, Any]) -> set[str]:
    """Calls of torch.nn modules other than containers (a Linear): the depth control and "Open
    modules" leave them, and everything inside them, closed."""
    return {m["id"] for m in doc["modules"] if m.get("class_qualname", "").startswith("torch.nn.")
            and m.get("class_name") not in TORCH_CONTAINERS}


def _opens_by_depth(doc: dict[str, Any]) -> set[str]:
    """What the depth control and "Open modules" open: no torch.nn leaf, nothing inside one, and
    no group of inputs or outputs (no level of the model)."""
    leaves = torch_leaves(doc)
    parent = {m["id"]: m["parent"] for m in doc["modules"]}
    out = set()
    for m in parent:
        if m.startswith("g:"):
            continue
        at: str | None = m
        while at is not None and at not in leaves:
            at = parent[at]
        if at is None:
            out.add(m)
    return out


def max_depth(doc: dict[str, Any]) -> int:
    """The depth at which "Open modules" leaves the view: the model's deepest level plus one."""
    doc = grouped(doc)
    depths = module_depths(doc)
    return max(depths[m] for m in _opens_by_depth(doc)) + 1


def open_at_depth(doc: dict[str, Any], depth: int, *, reveal_failed: bool = True) -> tuple[set[str], set[str]]:
    """(open modules, unfolded runs) at an initial depth: modules above `depth` open except
    torch.nn leaves. A run the depth opens is not unfolded but shown by its first call (see
    peeked_at_depth). The view of a failed forward pass starts on the failed node: its module
    calls are opened, and the runs around it unfolded, whatever the depth."""
    doc = grouped(doc)
    depths = module_depths(doc)
    movable = _opens_by_depth(doc)
    opened = {m for m, d in depths.items() if d < depth and m in movable}
    fold_of = {m: key for key, members in folds(doc).items() for m in members}
    unfolded: set[str] = set()
    failed = doc.get("error", {}).get("node")
    if reveal_failed and failed is not None:
        module = next(n["module"] for n in doc["nodes"] if n["id"] == failed)
        chain = ancestors(doc, module)
        opened.update(chain)
        unfolded = {fold_of[m] for m in chain if m in fold_of}
    return opened, unfolded


def peeked_at_depth(doc: dict[str, Any], depth: int) -> set[str]:
    """Runs shown by their first call open ("1 of N", the other calls in one box) at `depth`."""
    opened, unfolded = open_at_depth(doc, depth, reveal_failed=False)
    return {key for key in folds(grouped(doc)) if key in opened and key not in unfolded}


def view(doc: dict[str, Any], opened: set[str], unfolded: set[str], *, show_parameters: bool = True,
         show_constants: bool = True, peek: set[str] | frozenset[str] = frozenset()) -> View:
    """What is drawn with these modules open and runs unfolded; a run in `peek` (not unfolded)
    shows its first call open and its other calls, with its glue, as one box (id: its second call)."""
    doc = grouped(doc)
    runs = folds(doc)
    peek = {key for key in peek if key not in unfolded and key in runs}
    fold_of = {m: key for key, members in runs.items() for m in members}
    fold_size = {key: len(members) for key, members in folds(doc).items()}
    glue_of = {m: block["modules"][0] for block in doc.get("repeated_blocks", []) if block["modules"][0] in fold_size
               for m in block.get("glue_modules", [])}
    drawn_open: set[str] = set()
    hidden: set[str] = set()
    boxes: dict[str, int] = {}
    for module in doc["modules"]:
        mid, parent = module["id"], module["parent"]
        if parent is not None and (parent in hidden):
            hidden.add(mid)
        elif mid in fold_of and fold_of[mid] in peek and mid != fold_of[mid]:
            rest = runs[fold_of[mid]]
            boxes[rest[1]] = len(rest) - 1
            hidden.add(mid)
        elif mid in fold_of and fold_of[mid] in peek:
            drawn_open.add(mid)
        elif mid in fold_of and fold_of[mid] not in unfolded:
            boxes[fold_of[mid]] = fold_size[fold_of[mid]]
            hidden.add(mid)
        elif mid in glue_of and glue_of[mid] not in unfolded:
            hidden.add(mid)  # a glue module of a folded run is inside its box
        elif mid in opened:
            drawn_open.add(mid)
        else:
            boxes[mid] = 1
            hidden.add(mid)
    # The glue after the calls of a folded run is drawn inside its box.
    glue = {n for block in doc.get("repeated_blocks", []) if block["modules"][0] in fold_size
            and block["modules"][0] not in unfolded for n in block.get("glue", [])}
    nodes = set()
    for node in doc["nodes"]:
        if node["module"] not in drawn_open or node["id"] in glue:
            continue
        if not show_parameters and node["kind"] in ("parameter", "buffer"):
            continue
        if not show_constants and node["kind"] == "constant":
            continue
        nodes.add(node["id"])
    return View(frozenset(nodes), boxes, frozenset(drawn_open))


def view_at_depth(doc: dict[str, Any], depth: int, *, reveal_failed: bool = True, **filters: bool) -> View:
    opened, unfolded = open_at_depth(doc, depth, reveal_failed=reveal_failed)
    return view(doc, opened, unfolded, peek=peeked_at_depth(doc, depth), **filters)


def full_view(doc: dict[str, Any], **filters: bool) -> View:
    return view(doc, {m["id"] for m in grouped(doc)["modules"]}, set(folds(doc)), **filters)


def ancestors(doc: dict[str, Any], module_id: str) -> list[str]:
    """The module call and its ancestors, innermost first."""
    parent = {m["id"]: m["parent"] for m in grouped(doc)["modules"]}
    chain: list[str] = []
    current: str | None = module_id
    while current is not None:
        chain.append(current)
        current = parent[current]
    return chain

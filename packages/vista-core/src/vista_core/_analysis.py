"""Graph analyses: structural signatures of module calls and repeated blocks.

Two calls get the same signature when their subtrees hold the same classes and ops, with the
same shapes and the same wiring, whatever their names. Renderers use signatures to lay out
identical blocks once, and repeated blocks (consecutive siblings with one signature, each
feeding the next) to fold "×24" runs of transformer layers.

Signatures are computed bottom-up, like a Merkle tree: a call's signature hashes its class,
its direct items in order of first appearance (its own nodes by kind, its child calls by their
signatures), the edges whose lowest common call is this one, and the edges entering it from
outside. Every node and edge is described once, at the level where it belongs, so the work
is linear in the size of the graph (times the nesting depth for the edges' paths).
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Hashable, Sequence

__all__ = ["repeated_blocks", "role", "signatures"]

Edge = tuple[int, int, int, int]


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "backslashreplace"), usedforsecurity=False).hexdigest()[:16]


def _depths(parents: Sequence[int | None]) -> list[int]:
    depths: list[int] = []
    for parent in parents:
        depths.append(0 if parent is None else depths[parent] + 1)
    return depths


def signatures(parents: Sequence[int | None], classes: Sequence[str], node_calls: Sequence[int],
               node_keys: Sequence[Hashable], edges: Sequence[Edge]) -> list[str]:
    """One signature per call.

    Calls are given by ``parents`` (the parent's index, None for the root) and ``classes``
    (qualified class names), parents listed before their children. Nodes are given in
    execution order by ``node_calls`` (the call each belongs to) and ``node_keys`` (what makes
    two nodes alike: kind, op, arguments, shapes; never names). ``edges`` are (source node,
    source port, target node, target port).
    """
    calls = len(parents)
    depths = _depths(parents)
    # Direct items of each call in order of first appearance: "n<key>" for its own nodes,
    # a child call's index for a child (replaced by its signature once that is known).
    items: list[list[str | int]] = [[] for _ in range(calls)]
    node_slot: list[int] = []   # a node's position among its call's items
    call_slot = [-1] * calls    # a call's position among its parent's items; -1: no nodes
    key_texts: dict[Hashable, str] = {}
    for key, call in zip(node_keys, node_calls):
        text = key_texts.get(key)
        if text is None:
            text = key_texts[key] = "n" + _digest(repr(key))
        own = items[call]
        node_slot.append(len(own))
        own.append(text)
        child, parent = call, parents[call]
        while parent is not None and call_slot[child] < 0:
            call_slot[child] = len(items[parent])
            items[parent].append(child)
            child, parent = parent, parents[parent]

    # Each call's slots from the root down, as text, so that a node's path below one of its
    # calls is a slice (edges between calls need two paths each).
    chains: list[tuple[str, ...]] = []
    for call, parent in enumerate(parents):
        chains.append(() if parent is None else (*chains[parent], str(call_slot[call])))

    def path(node: int, above: int) -> str:
        """Positions leading from call ``above`` down to ``node``: the slots of the calls in
        between, then the node's own slot."""
        return "/".join((*chains[node_calls[node]][depths[above]:], str(node_slot[node])))

    wiring: list[list[str]] = [[] for _ in range(calls)]
    for source, source_port, target, target_port in edges:
        a, b = node_calls[source], node_calls[target]
        if a == b:  # most edges: inside one call
            wiring[a].append(f"{node_slot[source]}.{source_port}>{node_slot[target]}.{target_port}")
            continue
        # Calls on the target's side below the lowest common call get the edge as an input.
        entering: list[int] = []
        while depths[b] > depths[a]:
            entering.append(b)
            b = parents[b]  # type: ignore[assignment]  # deeper than a, so not the root
        while depths[a] > depths[b]:
            a = parents[a]  # type: ignore[assignment]
        while a != b:
            entering.append(b)
            a, b = parents[a], parents[b]  # type: ignore[assignment]
        for call in entering:
            wiring[call].append(f"in{path(target, call)}.{target_port}")
        wiring[a].append(f"{path(source, a)}.{source_port}>{path(target, a)}.{target_port}")

    result = [""] * calls
    for call in range(calls - 1, -1, -1):  # children have higher indices than their parents
        parts = [item if isinstance(item, str) else "c" + result[item] for item in items[call]]
        result[call] = _digest(f"{classes[call]}|{','.join(parts)}|{';'.join(wiring[call])}")
    return result


def role(path: str) -> str:
    """What a module call is in its model, for repeated blocks: its path, with a trailing
    index replaced (``layers.3`` and ``layers.7`` are both ``layers.#``), so the calls of one
    container's numbered children share a role and differently named modules never do."""
    head, dot, last = path.rpartition(".")
    return f"{head}{dot}#" if last.isdigit() else path


def repeated_blocks(parents: Sequence[int | None], node_calls: Sequence[int], edges: Sequence[Edge],
                    sigs: Sequence[str], roles: Sequence[str],
                    node_keys: Sequence[Hashable]) -> list[tuple[int, list[int], list[int]]]:
    """Runs of at least two consecutive sibling calls that are the same block of the model:
    equal signatures and equal ``roles`` (see :func:`role`), each feeding the next, directly or
    through the parent's own nodes between them (the glue: residual adds, norms, casts). The
    glue between each pair of a run must be alike (same nodes, wired alike to the block before
    it) and is part of the run. Returns (parent, calls, glue nodes) triples."""
    calls = len(parents)
    # The nodes of a call's subtree form one interval of execution order: calls nest.
    first = [-1] * calls
    last = [-1] * calls
    own: list[list[int]] = [[] for _ in range(calls)]
    for node, call in enumerate(node_calls):
        own[call].append(node)
        if first[call] < 0:
            first[call] = node
        last[call] = node
    for call in range(calls - 1, 0, -1):  # children have higher indices than their parents
        parent = parents[call]
        if parent is not None and first[call] >= 0:
            first[parent] = first[call] if first[parent] < 0 else min(first[parent], first[call])
            last[parent] = max(last[parent], last[call])
    incoming: dict[int, list[tuple[int, int, int]]] = {}
    for source, source_port, target, target_port in edges:
        incoming.setdefault(target, []).append((source, source_port, target_port))
    children: dict[int, list[int]] = {}
    for i, parent in enumerate(parents):
        if parent is not None:
            children.setdefault(parent, []).append(i)

    def inside(node: int, call: int) -> bool:
        return first[call] <= node <= last[call]

    def between(parent: int, a: int, b: int) -> tuple[bool, tuple[object, ...], list[int]]:
        """Whether call ``a`` feeds call ``b`` (directly or through the glue), a description of
        the glue and of b's inputs relative to a, and the glue nodes."""
        mine = own[parent]
        glue = mine[bisect.bisect_right(mine, last[a]):bisect.bisect_left(mine, first[b])]
        slot = {n: j for j, n in enumerate(glue)}
        entering: dict[tuple[int, int], int] = {}
        for node in range(first[a], last[a] + 1):
            for source, port, _ in incoming.get(node, ()):
                if not inside(source, a):
                    entering.setdefault((source, port), len(entering))
        reached = set()  # glue nodes that depend on a

        def where(source: int, port: int) -> tuple[object, ...]:
            if source in slot:
                return ("glue", slot[source], port)
            if inside(source, a):
                return ("block", source - first[a], port)
            found = entering.get((source, port))
            return ("input", found) if found is not None else ("outside", source, port)

        parts: list[object] = []
        for node in glue:
            parts.append(node_keys[node])
            for source, port, target_port in incoming.get(node, ()):
                if source in reached or inside(source, a):
                    reached.add(node)
                parts.append((target_port, where(source, port)))
        feeds = False
        for node in range(first[b], last[b] + 1):
            for source, port, target_port in incoming.get(node, ()):
                if not inside(source, b):
                    feeds = feeds or source in reached or inside(source, a)
                    parts.append((node - first[b], target_port, where(source, port)))
        return feeds, tuple(parts), glue

    blocks: list[tuple[int, list[int], list[int]]] = []
    for parent, kids in children.items():
        run: list[int] = [kids[0]]
        glue: list[int] = []
        pattern: tuple[object, ...] | None = None
        for kid in kids[1:]:
            prev = run[-1]
            if sigs[kid] == sigs[prev] and roles[kid] == roles[prev] and first[prev] >= 0 and first[kid] >= 0:
                feeds, described, nodes = between(parent, prev, kid)
                if feeds and (pattern is None or described == pattern):
                    run.append(kid)
                    glue.extend(nodes)
                    pattern = described
                    continue
            if len(run) > 1:
                blocks.append((parent, run, glue))
            run, glue, pattern = [kid], [], None
        if len(run) > 1:
            blocks.append((parent, run, glue))
    blocks.sort(key=lambda b: b[1][0])
    return blocks

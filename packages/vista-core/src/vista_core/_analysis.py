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

import hashlib
from collections.abc import Hashable, Sequence

__all__ = ["repeated_blocks", "signatures"]

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


def repeated_blocks(parents: Sequence[int | None], node_calls: Sequence[int], edges: Sequence[Edge],
                    sigs: Sequence[str]) -> list[tuple[int, list[int]]]:
    """Runs of at least two consecutive sibling calls with equal signatures, where each call
    consumes a tensor produced inside the one before it. Returns (parent, calls) pairs."""
    depths = _depths(parents)
    children: dict[int, list[int]] = {}
    for i, parent in enumerate(parents):
        if parent is not None:
            children.setdefault(parent, []).append(i)
    # For each edge, the two sibling calls it connects: the children of the lowest common
    # ancestor that hold its source and its target.
    feeds: set[tuple[int, int]] = set()
    for source, _sport, target, _tport in edges:
        a, b = node_calls[source], node_calls[target]
        if a == b:  # most edges: no pair of siblings involved
            continue
        while depths[a] > depths[b]:
            a = parents[a]  # type: ignore[assignment]
        while depths[b] > depths[a]:
            b = parents[b]  # type: ignore[assignment]
        if a == b:  # one end is inside the other's call
            continue
        while parents[a] != parents[b]:
            a, b = parents[a], parents[b]  # type: ignore[assignment]
        feeds.add((a, b))
    blocks: list[tuple[int, list[int]]] = []
    for parent, kids in children.items():
        run: list[int] = [kids[0]]
        for kid in kids[1:]:
            prev = run[-1]
            if sigs[kid] == sigs[prev] and (prev, kid) in feeds:
                run.append(kid)
                continue
            if len(run) > 1:
                blocks.append((parent, run))
            run = [kid]
        if len(run) > 1:
            blocks.append((parent, run))
    blocks.sort(key=lambda b: b[1][0])
    return blocks

"""Graph analyses: structural signatures of module calls and repeated blocks.

Two calls get the same signature when their subtrees hold the same classes and ops, with the
same shapes and the same wiring, whatever their names. Renderers use signatures to lay out
identical blocks once, and repeated blocks (consecutive siblings with one signature, each
feeding the next) to fold "×24" runs of transformer layers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

__all__ = ["CallShape", "NodeShape", "repeated_blocks", "signatures"]


@dataclass(frozen=True)
class CallShape:
    """What the analysis needs of one module call."""

    parent: int | None
    class_qualname: str


@dataclass(frozen=True)
class NodeShape:
    """What the analysis needs of one node: its call, and what kind of thing it is
    (names of parameters and inputs left out, so layer 3 matches layer 4)."""

    call: int
    key: Hashable


def _ancestors(calls: Sequence[CallShape]) -> list[list[int]]:
    chains: list[list[int]] = []
    for i, call in enumerate(calls):
        chains.append([i] if call.parent is None else [i, *chains[call.parent]])
    return chains


def signatures(calls: Sequence[CallShape], nodes: Sequence[NodeShape],
               edges: Sequence[tuple[int, int, int, int]]) -> list[str]:
    """One signature per call. ``edges`` are (source node, source port, target node, target
    port). Calls must be listed parents first, nodes in execution order."""
    chains = _ancestors(calls)
    chain_sets = [set(chain) for chain in chains]
    members: list[list[int]] = [[] for _ in calls]
    for n, node in enumerate(nodes):
        for c in chains[node.call]:
            members[c].append(n)
    # Position of each node inside each enclosing call's subtree.
    local: list[dict[int, int]] = [{n: i for i, n in enumerate(m)} for m in members]
    # Node keys as small numbers, so each call's description stays short.
    key_ids: dict[Hashable, int] = {}
    keys = [key_ids.setdefault(node.key, len(key_ids)) for node in nodes]
    wiring: list[list[tuple[object, ...]]] = [[] for _ in calls]
    for source, sport, target, tport in edges:
        source_chain = chain_sets[nodes[source].call]
        for c in chains[nodes[target].call]:
            if c in source_chain:
                wiring[c].append((local[c][source], sport, local[c][target], tport))
            else:
                wiring[c].append(("in", local[c][target], tport))
    key_texts = [repr(key) for key in key_ids]  # made once per distinct key
    result = []
    for c, call in enumerate(calls):
        calls_inside: dict[int, int] = {c: 0}
        local_keys: dict[int, int] = {}  # numbered by first appearance inside this call
        declared: list[object] = []
        sequence: list[int] = []
        for n in members[c]:
            node_call = nodes[n].call
            inside = calls_inside.get(node_call)
            if inside is None:
                inside = calls_inside[node_call] = len(calls_inside)
                declared.append((inside, calls[node_call].class_qualname,
                                 calls_inside.get(calls[node_call].parent or 0, -1)))
            key = keys[n]
            local_key = local_keys.get(key)
            if local_key is None:
                local_key = local_keys[key] = len(local_keys)
            sequence.append(inside)
            sequence.append(local_key)
        parts = (call.class_qualname, declared, sequence, wiring[c], [key_texts[k] for k in local_keys])
        digest = hashlib.sha1(repr(parts).encode("utf-8"), usedforsecurity=False).hexdigest()
        result.append(digest[:16])
    return result


def repeated_blocks(calls: Sequence[CallShape], nodes: Sequence[NodeShape],
                    edges: Sequence[tuple[int, int, int, int]],
                    sigs: Sequence[str]) -> list[tuple[int, list[int]]]:
    """Runs of at least two consecutive sibling calls with equal signatures, where each call
    consumes a tensor produced inside the one before it. Returns (parent, calls) pairs."""
    chains = _ancestors(calls)
    children: dict[int, list[int]] = {}
    for i, call in enumerate(calls):
        if call.parent is not None:
            children.setdefault(call.parent, []).append(i)
    # For each edge, the two sibling calls it connects: the children of the lowest common
    # ancestor that hold its source and its target.
    feeds: set[tuple[int, int]] = set()
    for source, _sport, target, _tport in edges:
        source_call, target_call = nodes[source].call, nodes[target].call
        if source_call == target_call:  # most edges: no pair of siblings involved
            continue
        if calls[source_call].parent == calls[target_call].parent:
            feeds.add((source_call, target_call))
            continue
        up_source = chains[nodes[source].call][::-1]
        up_target = chains[nodes[target].call][::-1]
        depth = 0
        while depth < min(len(up_source), len(up_target)) and up_source[depth] == up_target[depth]:
            depth += 1
        if depth < len(up_source) and depth < len(up_target):
            feeds.add((up_source[depth], up_target[depth]))
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

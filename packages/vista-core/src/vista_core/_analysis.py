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
from collections.abc import Callable, Hashable, Sequence

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

    def path(node: int, above: int) -> str:
        """Positions leading from call ``above`` down to ``node``: the slots of the calls in
        between, then the node's own slot (walked up from the node: a prefix kept per call
        would cost the square of the model's depth)."""
        steps = [str(node_slot[node])]
        call = node_calls[node]
        for _ in range(depths[call] - depths[above]):
            steps.append(str(call_slot[call]))
            call = parents[call]  # type: ignore[assignment]  # below ``above``, so not the root
        steps.reverse()
        return "/".join(steps)

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
                    node_keys: Sequence[Hashable]) -> list[tuple[int, list[int], list[int], list[int]]]:
    """Runs of at least two sibling calls that are the same block of the model: equal
    signatures and equal ``roles`` (see :func:`role`), each feeding the next, directly or
    through the glue between them: the parent's own nodes (residual adds, casts) and sibling
    calls of another role, none bigger than the block (a norm module). The glue after each
    block of a run must be alike (same nodes and calls, wired alike to the block before it) and
    is part of the run, the last block's too when it is followed by the same glue. Returns
    (parent, calls, glue nodes, glue calls) tuples; glue nodes are the parent's own."""
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

    def size(call: int) -> int:
        return last[call] - first[call] + 1 if first[call] >= 0 else 0

    def glue_after(parent: int, a: int, end: int, middle: Sequence[int]) -> tuple[
            tuple[object, ...], set[int], Callable[[int, int], tuple[object, ...]]]:
        """A description of the glue after call ``a`` up to node ``end`` (excluded): every
        node in between (the parent's own and those of the glue calls ``middle``) by its key,
        its owner and where its inputs come from relative to ``a``; the glue nodes that depend
        on ``a``; and that relative naming of a node output."""
        glue = range(last[a] + 1, end)
        owner = {c: j for j, c in enumerate(middle)}
        entering: dict[tuple[int, int], int] = {}
        for node in range(first[a], last[a] + 1):
            for source, port, _ in incoming.get(node, ()):
                if not inside(source, a):
                    entering.setdefault((source, port), len(entering))

        def where(source: int, port: int) -> tuple[object, ...]:
            if last[a] < source < end:
                return ("glue", source - last[a], port)
            if inside(source, a):
                return ("block", source - first[a], port)
            found = entering.get((source, port))
            return ("input", found) if found is not None else ("outside", source, port)

        reached: set[int] = set()  # glue nodes that depend on a
        parts: list[object] = []
        for node in glue:
            call = node_calls[node]
            while call != parent and call not in owner:  # the glue call the node is inside
                call = parents[call]  # type: ignore[assignment]  # below parent, so not the root
            parts.append((node_keys[node], owner.get(call, -1)))
            for source, port, target_port in incoming.get(node, ()):
                if source in reached or inside(source, a):
                    reached.add(node)
                parts.append((target_port, where(source, port)))
        return tuple(parts), reached, where

    def between(parent: int, a: int, b: int, middle: Sequence[int]) -> tuple[bool, tuple[object, ...]]:
        """Whether call ``a`` feeds call ``b`` (directly or through the glue), and a
        description of the glue and of b's inputs relative to a."""
        glue, reached, where = glue_after(parent, a, first[b], middle)
        feeds = False
        parts: list[object] = []
        for node in range(first[b], last[b] + 1):
            for source, port, target_port in incoming.get(node, ()):
                if not inside(source, b):
                    feeds = feeds or source in reached or inside(source, a)
                    parts.append((node - first[b], target_port, where(source, port)))
        return feeds, (glue, tuple(parts))

    blocks: list[tuple[int, list[int], list[int], list[int]]] = []
    for parent, kids in children.items():
        mine = own[parent]
        i = 0
        while i < len(kids):
            run = [kids[i]]
            runs_glue: list[int] = []  # the glue calls of the run
            pattern: tuple[object, ...] | None = None
            middle_pattern: tuple[tuple[str, str], ...] = ()
            j = i
            while first[kids[j]] >= 0:
                block = kids[j]
                k = j + 1  # the next call of the block's kind, with glue calls before it
                while k < len(kids) and not (sigs[kids[k]] == sigs[block] and roles[kids[k]] == roles[block]):
                    if roles[kids[k]] == roles[block] or size(kids[k]) > size(block):
                        k = len(kids)  # another kind of this block, or more than glue: no run here
                    k += 1
                if k >= len(kids) or first[kids[k]] < 0:
                    break
                middle = kids[j + 1 : k]
                kinds = tuple((sigs[c], roles[c]) for c in middle)
                if pattern is not None and kinds != middle_pattern:
                    break
                feeds, described = between(parent, block, kids[k], middle)
                if not feeds or (pattern is not None and described != pattern):
                    break
                run.append(kids[k])
                runs_glue.extend(middle)
                pattern, middle_pattern = described, kinds
                j = k
            if len(run) > 1 and pattern is not None:
                # The last block's glue, when it is the same as after the others.
                block = run[-1]
                tail = list(kids[j + 1 : j + 1 + len(middle_pattern)])
                count = bisect.bisect_left(mine, first[run[1]]) - bisect.bisect_right(mine, last[run[0]])
                count += sum(size(c) for c in kids[i + 1 : i + 1 + len(middle_pattern)])
                end = last[block] + 1 + count
                if (tuple((sigs[c], roles[c]) for c in tail) == middle_pattern and end - 1 <= last[parent]
                        and all(first[c] < 0 or (first[c] > last[block] and last[c] < end) for c in tail)
                        and all(node_calls[n] == parent or any(inside(n, c) for c in tail)
                                for n in range(last[block] + 1, end))
                        and glue_after(parent, block, end, tail)[0] == pattern[0]):
                    runs_glue.extend(tail)
                    j += len(tail)
                    stop = end
                else:
                    stop = last[block] + 1
                glue = mine[bisect.bisect_right(mine, last[run[0]]):bisect.bisect_left(mine, stop)]
                blocks.append((parent, run, glue, runs_glue))
                i = j + 1
            else:
                i += 1
    blocks.sort(key=lambda b: b[1][0])
    return blocks

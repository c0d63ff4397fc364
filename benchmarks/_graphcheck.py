"""Whether a graph is connected from its inputs to its outputs, for any tool's graph.

Every tool's graph is reduced to adjacency lists plus its input and output vertices; the
graph is *connected* when it has at least one output and every output is reachable from
some input along the edges.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Connectivity", "reachability"]

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Connectivity:
    """How many of a graph's outputs its inputs reach."""

    inputs: int
    outputs: int
    reached: int
    unreached: tuple[str, ...] = ()

    @property
    def connected(self) -> bool:
        """At least one input and one output, and every output reached."""
        return self.inputs > 0 and self.outputs > 0 and self.reached == self.outputs

    def describe(self) -> str:
        text = f"{self.reached}/{self.outputs} outputs reached from {self.inputs} inputs"
        if self.unreached:
            text += f"; not reached: {', '.join(self.unreached)}"
        return text


def reachability(adjacency: Mapping[K, Iterable[K]], inputs: Iterable[K], outputs: Iterable[K],
                 names: Mapping[K, str] | None = None) -> Connectivity:
    """Breadth-first search from all ``inputs``; count the ``outputs`` it reaches. With
    ``names``, the outputs not reached are listed by name."""
    sources = set(inputs)
    targets = set(outputs)
    seen = set(sources)
    queue = deque(sources)
    while queue:
        vertex = queue.popleft()
        for nxt in adjacency.get(vertex, ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    missed = tuple(sorted(names.get(t, str(t)) for t in targets - seen)) if names is not None else ()
    return Connectivity(len(sources), len(targets), len(targets & seen), missed)

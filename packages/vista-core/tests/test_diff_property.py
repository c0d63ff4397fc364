"""Property tests of vista_core.diff: the alignment is a longest common subsequence, and on
random pairs of models every element of both traces is matched or added/removed exactly once."""

from __future__ import annotations

from typing import Any

import torch
from hypothesis import given
from hypothesis import strategies as st
from torch import nn

import vista_core
from vista_core import _align

KEYS = st.lists(st.sampled_from("abcd"), max_size=12)


def _lcs_length(xs: list[str], ys: list[str]) -> int:
    table = [[0] * (len(ys) + 1) for _ in range(len(xs) + 1)]
    for i, x in enumerate(xs):
        for j, y in enumerate(ys):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def _check_pairs(xs: list[str], ys: list[str], pairs: list[tuple[int, int]]) -> None:
    assert all(xs[i] == ys[j] for i, j in pairs)
    assert [i for i, _ in pairs] == sorted({i for i, _ in pairs})
    assert [j for _, j in pairs] == sorted({j for _, j in pairs})


@given(xs=KEYS, ys=KEYS)
def test_property_the_alignment_is_a_longest_common_subsequence(xs: list[str], ys: list[str]) -> None:
    pairs = _align.align(xs, xs, ys, ys)
    _check_pairs(xs, ys, pairs)
    assert len(pairs) == _lcs_length(xs, ys)


@given(xs=KEYS, ys=KEYS, fine=st.lists(st.integers(0, 1), min_size=24, max_size=24))
def test_property_ties_are_broken_by_the_fine_key_without_losing_pairs(xs: list[str], ys: list[str],
                                                                       fine: list[int]) -> None:
    fa, fb = fine[:len(xs)] + [0] * 12, fine[12:12 + len(ys)] + [0] * 12
    pairs = _align.align(xs, fa[:len(xs)], ys, fb[:len(ys)])
    _check_pairs(xs, ys, pairs)
    assert len(pairs) == _lcs_length(xs, ys)


def test_a_shape_decides_which_of_two_alike_ops_is_kept() -> None:
    # a: linear(8), linear(16); b: linear(16). Both are linear: the one with b's shape matches.
    assert _align.align(["linear", "linear"], [8, 16], ["linear"], [16]) == [(1, 0)]
    assert _align.align(["linear", "linear"], [8, 16], ["linear"], [8]) == [(0, 0)]


@given(xs=st.lists(st.sampled_from("abc"), max_size=40), ys=st.lists(st.sampled_from("abc"), max_size=40))
def test_property_long_middles_fall_back_to_matching_blocks_and_stay_valid(
        xs: list[str], ys: list[str]) -> None:
    original = _align._DP_CELLS
    _align._DP_CELLS = 16
    try:
        pairs = _align.align(xs, xs, ys, ys)
    finally:
        _align._DP_CELLS = original
    _check_pairs(xs, ys, pairs)


# -- random pairs of models --------------------------------------------------------------------

STEPS = st.lists(st.sampled_from(["linear", "relu", "double", "block", "tanh"]), min_size=1, max_size=6)


class _Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.inner(x)) + x


class _Model(nn.Module):
    def __init__(self, steps: list[str]) -> None:
        super().__init__()
        self.steps = steps
        self.parts = nn.ModuleList([nn.Linear(4, 4) if s == "linear" else _Block() for s in steps
                                    if s in ("linear", "block")])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = iter(self.parts)
        for step in self.steps:
            if step in ("linear", "block"):
                x = next(parts)(x)
            elif step == "relu":
                x = torch.relu(x)
            elif step == "tanh":
                x = torch.tanh(x)
            else:
                x = x * 2
        return x


def _trace(steps: list[str]) -> vista_core.Graph:
    torch.manual_seed(0)
    return vista_core.trace(_Model(steps), (torch.ones(2, 4),))


def _check_accounted(result: vista_core.GraphDiff) -> None:
    a, b, union = result.a, result.b, result.union
    for element, graph, side, matches in (("node", a, "a", result.node_matches), ("node", b, "b", result.node_matches),
                                          ("module", a, "a", result.module_matches),
                                          ("module", b, "b", result.module_matches)):
        column = 0 if side == "a" else 1
        matched = [m[column] for m in matches]
        alone = [getattr(c, side) for c in result.changes
                 if c.element == element and c.status == ("removed" if side == "a" else "added")]
        records: Any = graph.nodes if element == "node" else graph.modules
        assert sorted(matched + alone) == sorted(r.id for r in records)
    assert len(union.nodes) == len(a.nodes) + len(b.nodes) - len(result.node_matches)
    assert len(union.modules) == len(a.modules) + len(b.modules) - len(result.module_matches)
    nodes_a, nodes_b = {n.id: n for n in a.nodes}, {n.id: n for n in b.nodes}
    assert all((nodes_a[x].kind, nodes_a[x].name) == (nodes_b[y].kind, nodes_b[y].name)
               for x, y, _ in result.node_matches)
    assert result.equal == (not result.changes)
    vista_core.validate_diff_document(result.to_dict())


@given(steps_a=STEPS, steps_b=STEPS)
def test_property_every_element_of_both_traces_is_matched_or_alone_once(steps_a: list[str],
                                                                       steps_b: list[str]) -> None:
    a, b = _trace(steps_a), _trace(steps_b)
    result = vista_core.diff(a, b)
    _check_accounted(result)
    if steps_a == steps_b:
        assert result.equal
    assert vista_core.diff(a, a).equal


def test_calls_in_another_order_still_make_a_valid_union() -> None:
    class Two(nn.Module):
        def __init__(self, swap: bool) -> None:
            super().__init__()
            self.left, self.right, self.swap = nn.Linear(4, 4), nn.Linear(4, 4), swap

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.left(self.right(x)) if self.swap else self.right(self.left(x))

    x = torch.ones(2, 4)
    result = vista_core.diff(vista_core.trace(Two(False), (x,)), vista_core.trace(Two(True), (x,)))
    _check_accounted(result)
    assert len(result.module_matches) == 3  # both calls found by path, though their order changed
    assert not result.equal


def test_a_long_flat_call_with_ops_inserted_far_apart_keeps_the_rest_matched() -> None:
    # Between the insertions lie ~600 × 600 node pairs: more than the exact programme's cells,
    # so the matching blocks of difflib split that middle first.
    class Flat(nn.Module):
        def __init__(self, insert: bool) -> None:
            super().__init__()
            self.insert = insert

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for k in range(600):
                x = torch.tanh(x) if k % 3 else torch.relu(x)
                if self.insert and k in (5, 590):
                    x = x * 2
            return x

    x = torch.ones(2, 4)
    a, b = vista_core.trace(Flat(False), (x,)), vista_core.trace(Flat(True), (x,))
    middle = (len(a.nodes) - 12) * (len(b.nodes) - 12)
    assert middle > _align._DP_CELLS
    result = vista_core.diff(a, b)
    assert [c.status for c in result.changes if c.element == "node"] == ["added", "added"]
    assert len(result.node_matches) == len(a.nodes)

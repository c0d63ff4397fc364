"""Sequence alignment for :func:`vista_core.diff`: which items of two sequences match, and the
order of their union.

:func:`align` pairs items with equal coarse keys (node kind and op name, or a call's class),
the most pairs possible and among those the most with equal fine keys (output shapes, or a
call's signature): a longest common subsequence with a tie-break, so an item inserted or
removed leaves the rest matched. :func:`merge` lays the two sequences out as one.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["align", "merge"]

#: Above this many cells (n × m) the middle of two sequences is aligned by difflib's matching
#: blocks first, and only the gaps between blocks by the exact dynamic programme.
_DP_CELLS = 250_000


def align(xa: Sequence[object], fa: Sequence[object], xb: Sequence[object],
           fb: Sequence[object]) -> list[tuple[int, int]]:
    """Index pairs ``(i, j)``, increasing in both, matching items with equal coarse keys
    (``xa[i] == xb[j]``): the most pairs possible, and among those the most with equal fine keys
    (``fa[i] == fb[j]``, e.g. equal output shapes)."""
    n, m = len(xa), len(xb)
    lo = 0
    while lo < n and lo < m and fa[lo] == fb[lo] and xa[lo] == xb[lo]:
        lo += 1
    hi_a, hi_b = n, m
    while hi_a > lo and hi_b > lo and fa[hi_a - 1] == fb[hi_b - 1] and xa[hi_a - 1] == xb[hi_b - 1]:
        hi_a -= 1
        hi_b -= 1
    pairs = [(i, i) for i in range(lo)]
    pairs += _middle(xa, fa, xb, fb, lo, hi_a, lo, hi_b)
    pairs += [(hi_a + k, hi_b + k) for k in range(n - hi_a)]
    return pairs


def _middle(xa: Sequence[object], fa: Sequence[object], xb: Sequence[object], fb: Sequence[object],
                  a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    n, m = a1 - a0, b1 - b0
    if n == 0 or m == 0:
        return []
    if n * m <= _DP_CELLS:
        return _dynamic(xa, fa, xb, fb, a0, a1, b0, b1)
    import difflib

    pairs: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher(None, list(xa[a0:a1]), list(xb[b0:b1]), autojunk=False)
    i = j = 0
    for block in matcher.get_matching_blocks():
        pairs += _middle(xa, fa, xb, fb, a0 + i, a0 + block.a, b0 + j, b0 + block.b)
        pairs += [(a0 + block.a + k, b0 + block.b + k) for k in range(block.size)]
        i, j = block.a + block.size, block.b + block.size
    return pairs


def _dynamic(xa: Sequence[object], fa: Sequence[object], xb: Sequence[object], fb: Sequence[object],
              a0: int, a1: int, b0: int, b1: int) -> list[tuple[int, int]]:
    n, m = a1 - a0, b1 - b0
    # A pair scores more than any number of tie-breaks, so the count of pairs comes first.
    big = min(n, m) + 1
    rows = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        key, fine = xa[a0 + i], fa[a0 + i]
        row, below = rows[i], rows[i + 1]
        for j in range(m - 1, -1, -1):
            best = below[j] if below[j] > row[j + 1] else row[j + 1]
            if xb[b0 + j] == key:
                score = below[j + 1] + big + (1 if fb[b0 + j] == fine else 0)
                if score > best:
                    best = score
            row[j] = best
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if xb[b0 + j] == xa[a0 + i] and rows[i][j] == rows[i + 1][j + 1] + big + (
                1 if fb[b0 + j] == fa[a0 + i] else 0):
            pairs.append((a0 + i, b0 + j))
            i += 1
            j += 1
        elif rows[i + 1][j] >= rows[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def merge(na: int, nb: int, pairs: Sequence[tuple[int, int]]) -> list[tuple[int | None, int | None]]:
    """The union order of two sequences of lengths ``na`` and ``nb`` given their matched index
    pairs: ``a``'s order, each unmatched ``b`` item right before the next matched one."""
    partner = dict(pairs)
    matched_b = set(partner.values())
    out: list[tuple[int | None, int | None]] = []
    j = 0
    for i in range(na):
        k = partner.get(i)
        if k is not None:
            while j < k:
                if j not in matched_b:
                    out.append((None, j))
                j += 1
            j = max(j, k + 1)
        out.append((i, k))
    out += [(None, k) for k in range(j, nb) if k not in matched_b]
    return out



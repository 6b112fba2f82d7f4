"""Compiled (numba) rows of :func:`mcr_env.scoring.shanten.shanten_batch`.

Per row: the four value-table rows (three suits, honors) of the counts, the regular value for
``k = 4 - n_melds`` sets by the same max-plus allocations as the numpy path of the tables, then
Seven Pairs, Thirteen Orphans and Honors and Knitted Tiles (``n_melds == 0``) and Knitted
Straight (``n_melds <= 1``): the minimum of the forms, as :func:`mcr_env.scoring.shanten.shanten`
(docs/rules.md §2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcr_env.scoring.shanten import (
    _KNITTED_OR_HONOR,
    _ORPHANS,
    _POW5_7,
    _POW5_9,
    KNITTED_ARRANGEMENTS,
)

_KNIT = KNITTED_ARRANGEMENTS.astype(np.int64)
_KNIT_TILES = np.array([np.flatnonzero(row) for row in KNITTED_ARRANGEMENTS], dtype=np.int64)
_KOR = _KNITTED_OR_HONOR.astype(np.int64)
_ORPH = _ORPHANS.astype(np.int64)
_P9 = _POW5_9.astype(np.int64)
_P7 = _POW5_7.astype(np.int64)


@njit(cache=True, nogil=True)
def regular_value(c, k, suit, honor, idx, bonus, offsets, g):
    """Regular shanten of counts ``c (34,)`` needing ``k`` more sets; ``g (40,)`` scratch."""
    for s in range(3):
        key = 0
        for r in range(9):
            key += c[9 * s + r] * _P9[r]
        for j in range(10):
            g[10 * s + j] = suit[key, j]
    key = 0
    for r in range(7):
        key += c[27 + r] * _P7[r]
    for j in range(10):
        g[30 + j] = honor[key, j]
    best = -1000
    for a in range(offsets[k], offsets[k + 1]):
        v = g[idx[a, 0]] + g[idx[a, 1]] + g[idx[a, 2]] + g[idx[a, 3]] + bonus[a]
        if v > best:
            best = v
    return 2 * k - best


@njit(cache=True, nogil=True)
def shanten_rows(counts, n_melds, suit, honor, idx, bonus, offsets, out):
    """``out[i]`` = shanten of ``counts[i] (34,)`` with ``n_melds[i]`` melds (validated input:
    ``(N, 34) int64`` counts 0..4, ``(N,) int64`` melds; ``suit``/``honor`` value tables,
    ``idx``/``bonus``/``offsets`` the allocations of every k)."""
    g = np.empty(40, dtype=np.int64)
    rem = np.empty(34, dtype=np.int64)
    for i in range(counts.shape[0]):
        c = counts[i]
        n = n_melds[i]
        best = regular_value(c, 4 - n, suit, honor, idx, bonus, offsets, g)
        if n == 0:
            pairs = 0
            for t in range(34):
                pairs += c[t] // 2
            best = min(best, 6 - pairs)
            got = 0
            dup = 0
            for j in range(13):
                x = c[_ORPH[j]]
                if x > 0:
                    got += 1
                if x > 1:
                    dup = 1
            best = min(best, 13 - got - dup)
            most = 0
            for a in range(6):
                m = 0
                for t in range(34):
                    if c[t] > 0 and _KOR[a, t]:
                        m += 1
                most = max(most, m)
            best = min(best, 13 - most)
        if n <= 1:
            for a in range(6):
                missing = 9
                for j in range(9):
                    if c[_KNIT_TILES[a, j]] > 0:
                        missing -= 1
                if missing - 1 >= best:
                    continue  # the rest's value is at least -1: this arrangement cannot win
                for t in range(34):
                    x = c[t]
                    if _KNIT[a, t] and x > 0:
                        x -= 1
                    rem[t] = x
                v = missing + regular_value(rem, 1 - n, suit, honor, idx, bonus, offsets, g)
                best = min(best, v)
        out[i] = best

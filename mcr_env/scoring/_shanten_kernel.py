"""Compiled (numba) rows of :func:`mcr_env.scoring.shanten.shanten_batch`.

Per row: the four value-table rows (three suits, honors) of the counts, the regular value for
``k = 4 - n_melds`` sets, then Seven Pairs, Thirteen Orphans and Honors and Knitted Tiles
(``n_melds == 0``) and Knitted Straight (``n_melds <= 1``): the minimum of the forms, as
:func:`mcr_env.scoring.shanten.shanten` (docs/rules.md §2).

The regular value is the max-plus combination of the four rows over the ways of sharing the
``k`` blocks and at most one pair (+1 when used) among the three suits and the honors. The
numpy single-hand path enumerates those allocations (175 for ``k = 4``); here the rows are
folded one at a time (a max-plus convolution over ``(blocks, pair)``): every allocation is one
path through the folds, so the maximum is the same integer, in about a sixth of the additions.

Counts may be any integer dtype (validated by :func:`rows_valid` or by the caller: 0..4, and
``13 - 3 * n`` or ``14 - 3 * n`` tiles).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcr_env.scoring.shanten import _ORPHANS, KNITTED_ARRANGEMENTS

_KNIT = KNITTED_ARRANGEMENTS.astype(np.int64)
_KNIT_TILES = np.array([np.flatnonzero(row) for row in KNITTED_ARRANGEMENTS], dtype=np.int64)
_ORPH = _ORPHANS.astype(np.int64)


@njit(cache=True, nogil=True)
def _key(c, start, length):
    """Base-5 key ``sum(c[start + r] * 5**r)`` of ``length`` counts (Horner, high rank first)."""
    key = 0
    for r in range(start + length - 1, start - 1, -1):
        key = key * 5 + c[r]
    return key


@njit(cache=True, nogil=True, inline="always")
def _fold_at(acc, row, b):
    """``(no pair, one pair)`` entries at ``b`` blocks of the max-plus fold of ``row (10,)``
    into ``acc (10,)``: the max over ``b1 + b2 = b``, ``p1 + p2 = p`` of
    ``acc[2 b1 + p1] + row[2 b2 + p2]``."""
    v0 = -1000
    v1 = -1000
    for b1 in range(b + 1):
        b2 = b - b1
        a0 = acc[2 * b1]
        r0 = row[2 * b2]
        x = a0 + r0
        if x > v0:
            v0 = x
        x = acc[2 * b1 + 1] + r0
        if x > v1:
            v1 = x
        x = a0 + row[2 * b2 + 1]
        if x > v1:
            v1 = x
    return v0, v1


@njit(cache=True, nogil=True)
def _fold(acc, row, k, out):
    """Max-plus fold of one component's table ``row (10,)`` into ``acc (10,)``, written to
    ``out[2b + p]`` for ``b <= k`` (entries above ``2k + 1`` are not written)."""
    for b in range(k + 1):
        out[2 * b], out[2 * b + 1] = _fold_at(acc, row, b)


@njit(cache=True, nogil=True)
def regular_value(c, k, suit, honor, acc, tmp):
    """Regular shanten of counts ``c (34,)`` needing ``k`` more sets (``2k`` minus the best
    ``2m + t + pair``); ``acc``/``tmp`` ``(10,) int64`` scratch."""
    row = suit[_key(c, 0, 9)]
    for j in range(2 * k + 2):
        acc[j] = row[j]
    _fold(acc, suit[_key(c, 9, 9)], k, tmp)
    _fold(tmp, suit[_key(c, 18, 9)], k, acc)
    v0, v1 = _fold_at(acc, honor[_key(c, 27, 7)], k)  # the last fold: only b = k is needed
    best = v0 if v0 >= v1 + 1 else v1 + 1
    return 2 * k - best


_IS_ORPHAN = np.zeros(34, dtype=np.bool_)
_IS_ORPHAN[_ORPH] = True


@njit(cache=True, nogil=True)
def row_shanten(c, n, suit, honor, acc, tmp, rem, pre):
    """Shanten of one hand: counts ``c (34,)``, ``n`` melds (validated), the minimum over the
    forms allowed with ``n`` melds. ``acc``/``tmp`` ``(10,)``, ``rem`` ``(34,)``, ``pre``
    ``(10,)`` int64 scratch."""
    return other_forms(
        c, n, regular_value(c, 4 - n, suit, honor, acc, tmp), suit, honor, acc, tmp, rem, pre
    )


@njit(cache=True, nogil=True)
def other_forms(c, n, best, suit, honor, acc, tmp, rem, pre):
    """:func:`row_shanten` of counts ``c (34,)`` with ``n`` melds given ``best``, its regular
    value: the minimum of ``best`` and the special forms allowed with ``n`` melds (Seven
    Pairs, Thirteen Orphans, Honors and Knitted Tiles with ``n == 0``; Knitted Straight with
    ``n <= 1``). Scratch as :func:`row_shanten`."""
    if n > 1 or best == -1:
        return best
    form_counts(c, pre)
    return forms_after_discard(c, -1, n, best, 99, pre, suit, honor, acc, tmp, rem)


@njit(cache=True, nogil=True)
def form_counts(c, pre):
    """``pre (10,) int64`` of counts ``c (34,)``: pairs (a four of a kind is two), Thirteen
    Orphans kinds present, Thirteen Orphans kinds held twice or more, honor kinds present,
    then the kinds of each knitted arrangement present (6): what the special forms'
    shanten is computed from (:func:`forms_after_discard`)."""
    pairs = 0
    for t in range(34):
        pairs += c[t] // 2
    pre[0] = pairs
    present = 0
    dup = 0
    for j in range(13):
        x = c[_ORPH[j]]
        if x > 0:
            present += 1
        if x > 1:
            dup += 1
    pre[1] = present
    pre[2] = dup
    honors = 0
    for t in range(27, 34):
        if c[t] > 0:
            honors += 1
    pre[3] = honors
    for a in range(6):
        m = 0
        for j in range(9):
            if c[_KNIT_TILES[a, j]] > 0:
                m += 1
        pre[4 + a] = m


@njit(cache=True, nogil=True, inline="always")
def closed_forms(c, t, pre, most, best):
    """The minimum of ``best`` and the shanten of the forms allowed only without melds
    (Seven Pairs, Thirteen Orphans, Honors and Knitted Tiles) of counts ``c (34,)`` minus one
    tile ``t`` (``t < 0``: none), from ``pre`` (:func:`form_counts` of ``c``) and ``most``
    (the most kinds of one knitted arrangement held after the discard; a larger value gives
    a lower bound: Seven Pairs and Thirteen Orphans stay exact)."""
    ct = c[t] if t >= 0 else 0
    gone = t >= 0 and ct == 1  # the discard removes kind t from the hand
    pairs = pre[0] - (1 if t >= 0 and ct % 2 == 0 else 0)
    if 6 - pairs < best:
        best = 6 - pairs
    present = pre[1]
    dup = pre[2]
    if t >= 0 and _IS_ORPHAN[t]:
        if gone:
            present -= 1
        elif ct == 2:
            dup -= 1
    x = 13 - present - (1 if dup > 0 else 0)
    if x < best:
        best = x
    honors = pre[3] - (1 if gone and t >= 27 else 0)
    if 13 - most - honors < best:
        best = 13 - most - honors
    return best


@njit(cache=True, nogil=True)
def forms_after_discard(c, t, n, best, cap, pre, suit, honor, acc, tmp, rem):
    """:func:`other_forms` of counts ``c (34,)`` minus one tile ``t`` (``t < 0``: none) with
    ``n`` melds, given ``best`` (the regular value of those counts) and ``pre``
    (:func:`form_counts` of ``c``: a discard changes those counts by at most one each).

    Returns the minimum of ``best`` and the allowed special forms when it is below ``cap``,
    otherwise some value >= ``cap`` (pass 99 for the exact minimum): a Knitted Straight
    arrangement is skipped when it can go below neither the minimum so far nor ``cap`` (its
    value is at least its missing tiles - 1). Scratch as :func:`row_shanten`."""
    if n > 1 or best == -1:
        return best
    gone = t >= 0 and c[t] == 1  # the discard removes kind t from the hand
    if n == 0:
        most = 0
        for a in range(6):
            m = pre[4 + a] - (1 if gone and _KNIT[a, t] else 0)
            if m > most:
                most = m
        best = closed_forms(c, t, pre, most, best)
    for a in range(6):
        missing = 9 - (pre[4 + a] - (1 if gone and _KNIT[a, t] else 0))
        if missing - 1 >= best or missing - 1 >= cap:
            continue  # the rest's value is at least -1: this arrangement cannot matter
        if n == 1:
            # the rest needs no set, only the pair: regular_value(rest, 0) is -1 with a pair,
            # else 0 (the tables' 0-block columns: 0 without a pair, 0 / _NO_PAIR with one)
            v = missing
            for u in range(34):
                x = c[u] - (1 if u == t else 0)
                if _KNIT[a, u] and x > 0:
                    x -= 1
                if x >= 2:
                    v = missing - 1
                    break
        else:
            for u in range(34):
                x = c[u] - (1 if u == t else 0)
                if _KNIT[a, u] and x > 0:
                    x -= 1
                rem[u] = x
            v = missing + regular_value(rem, 1, suit, honor, acc, tmp)
        if v < best:
            best = v
    return best


@njit(cache=True, nogil=True)
def shanten_rows(counts, n_melds, suit, honor, out):
    """``out[i]`` = shanten of ``counts[i] (34,)`` with ``n_melds[i]`` melds (validated input:
    ``(N, 34)`` integer counts 0..4, ``(N,)`` integer melds; ``suit``/``honor`` the value
    tables)."""
    acc = np.empty(10, dtype=np.int64)
    tmp = np.empty(10, dtype=np.int64)
    rem = np.empty(34, dtype=np.int64)
    pre = np.empty(10, dtype=np.int64)
    for i in range(counts.shape[0]):
        out[i] = row_shanten(counts[i], np.int64(n_melds[i]), suit, honor, acc, tmp, rem, pre)


@njit(cache=True, nogil=True)
def rows_valid(counts, n_melds, extra_lo, extra_hi):
    """Whether every row has counts in 0..4, ``n_melds`` in 0..4 and a tile total of
    ``extra_lo - 3n`` or ``extra_hi - 3n`` (the fast path of the input check; the caller
    names the offending row with the numpy check when this is False)."""
    for i in range(counts.shape[0]):
        n = np.int64(n_melds[i])
        if n < 0 or n > 4:
            return False
        total = 0
        for t in range(34):
            x = np.int64(counts[i, t])
            if x < 0 or x > 4:
                return False
            total += x
        if total != extra_lo - 3 * n and total != extra_hi - 3 * n:
            return False
    return True

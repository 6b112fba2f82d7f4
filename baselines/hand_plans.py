"""Hand plans for the rule-based agent: distances to fan-bearing hand shapes (table-based).

A legal MCR win needs 8 points without flowers (docs/rules.md §2, §6), so a plain "lowest
shanten" player completes many hands it cannot declare. The rule-based agent therefore measures
its hand against a fixed list of *plans*, each a family of winning hands that is worth >= 8
points (or nearly: a small penalty marks the plans that usually need one more small fan):

============================== ======================================================= ====
plan                           shape                                                   pen.
============================== ======================================================= ====
Regular (Chicken-like)         any four sets and a pair, fans left to chance            2
Full Flush (3)                 one suit only (24)                                       0
Half Flush (3)                 one suit plus honors (6, + usually an honor pung)        1
All Pungs                      four pungs and a pair (6, + usually another fan)         1
Upper Four / Lower Four        suit tiles 6-9 / 1-4 only (12)                           0
Pure Straight (3)              123 456 789 in one suit (16)                             0
Mixed Straight (6)             123 456 789 in three different suits (8)                 0
Mixed Triple Chow (7)          the same chow in all three suits (8)                     0
Triple Pung (9)                pungs of one rank in all three suits (16)                0
Seven Pairs                    seven pairs, no melds (24)                                0
Lesser Honors and Knitted      14 distinct honors / knitted tiles, no melds (12)        0
Thirteen Orphans               (88)                                                     0
Knitted Straight (6)           147/258/369 across the suits + a set + a pair (12)       0
============================== ======================================================= ====

The *distance* of a plan is a shanten-like count (-1 = complete hand of that plan, 0 = one
tile away, ...): required tiles still missing plus the regular shanten ``2n - V`` of the
remaining tiles, where ``V = max(2 S + T + P)`` over decompositions into S sets, T partial sets
(two-tile runs and pairs not used as the head) and P = 1 head pair, with ``S + T <= n`` for the
``n`` free sets still to build.

How it is computed (the fast rewrite; the original pure-Python version is the reference of
tests/test_rule_agent.py and gives identical distances): ``V`` is separable over the three
suits and the honors, so for every suit content (``5**9`` base-5 keys, one table with and one
without runs) a table holds ``g[k, h]`` = the best ``2 S + T`` using at most ``k`` blocks with
(h = 1) or without (h = 0) a head pair in that suit; honors use a ``5**7`` table (each honor
kind is a pung, a pair, or nothing). A hand's ``V`` is then a max-plus combination of four
table rows. The tables (about 40 MB of int8) are built once per process by compiled code
(numba, about a second) on first use. Everything else (plan pruning, the soft-min value,
the agent's decisions in :mod:`baselines.agents`) runs in numba over the batch.

Everything here works on what a seat may see: its concealed counts ``(34,) int`` and its own
melds as ``(kind, tile)`` pairs with ``kind`` in {"chow", "pung", "kong"} and ``tile`` = the
lowest tile of a chow / the tile of a pung or kong. Tile ids as in :mod:`mcr_env.tiles`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from numba import njit

Meld = tuple[str, int]
"""A meld of the seat: ``(kind, tile)``; kind "chow" (tile = lowest), "pung" or "kong"."""

PLAN_NAMES = (
    "Regular",
    "Full Flush",
    "Half Flush",
    "All Pungs",
    "Upper Four",
    "Lower Four",
    "Pure Straight",
    "Mixed Straight",
    "Mixed Triple Chow",
    "Triple Pung",
    "Seven Pairs",
    "Lesser Honors and Knitted Tiles",
    "Thirteen Orphans",
    "Knitted Straight",
)
"""The plan families, in the order their terms are summed by :func:`hand_value`."""
NUM_PLANS = len(PLAN_NAMES)
PLAN_PENALTY = {"Half Flush": 1.0, "All Pungs": 1.0, "Regular": 2.0}
"""Extra distance of plans that usually need one more small fan to reach 8 points."""
PRUNE_MARGIN = 3
"""Fixed-set plans whose missing tiles alone exceed the regular distance by more are skipped."""
ABSENT = 99
"""Distance marking a plan that is impossible with the melds (or pruned)."""

_PENALTY = np.array([PLAN_PENALTY.get(n, 0.0) for n in PLAN_NAMES], dtype=np.float64)
_NEG = -100
_POW5 = np.array([5**i for i in range(10)], dtype=np.int64)
_KNITTED_PERMS = tuple(itertools.permutations(range(3)))


def _fixed_plan_arrays():
    """The 25 fixed-set plans: (25, 3) is_chow, (25, 3) tile, (25,) plan index, unique tiles."""
    plans: list[tuple[int, list[tuple[int, int]]]] = []
    for s in range(3):
        plans.append((6, [(1, 9 * s), (1, 9 * s + 3), (1, 9 * s + 6)]))
    for perm in _KNITTED_PERMS:
        plans.append((7, [(1, 9 * perm[0]), (1, 9 * perm[1] + 3), (1, 9 * perm[2] + 6)]))
    for r in range(7):
        plans.append((8, [(1, r), (1, 9 + r), (1, 18 + r)]))
    for r in range(9):
        plans.append((9, [(0, r), (0, 9 + r), (0, 18 + r)]))
    n = len(plans)
    is_chow = np.zeros((n, 3), dtype=np.int64)
    tile = np.zeros((n, 3), dtype=np.int64)
    group = np.zeros(n, dtype=np.int64)
    utiles = np.full((n, 9), -1, dtype=np.int64)
    need = np.zeros((n, 9), dtype=np.int64)
    n_unique = np.zeros(n, dtype=np.int64)
    for p, (g, sets) in enumerate(plans):
        group[p] = g
        counts: dict[int, int] = {}
        for j, (c, t) in enumerate(sets):
            is_chow[p, j], tile[p, j] = c, t
            for u in (t, t + 1, t + 2) if c else (t, t, t):
                counts[u] = counts.get(u, 0) + 1
        n_unique[p] = len(counts)
        for i, (u, v) in enumerate(counts.items()):
            utiles[p, i], need[p, i] = u, v
    return is_chow, tile, group, utiles, need, n_unique


_FIX_CHOW, _FIX_TILE, _FIX_GROUP, _FIX_UTILES, _FIX_NEED, _FIX_NU = _fixed_plan_arrays()
_KNITTED = np.array(
    [
        [9 * suit + r for offset, suit in enumerate(perm) for r in (offset, offset + 3, offset + 6)]
        for perm in _KNITTED_PERMS
    ],
    dtype=np.int64,
)
_ORPHANS = np.array([0, 8, 9, 17, 18, 26, *range(27, 34)], dtype=np.int64)


# ------------------------------------------------------------------ tables
@njit(cache=True)
def _upd(best, src, shift, add):
    """best[k, h] = max(best[k, h], src[k - shift, h] + add) for feasible src entries."""
    for k in range(shift, 5):
        for h in range(2):
            v = src[(k - shift) * 2 + h]
            if v > _NEG // 2:
                v2 = v + add
                if v2 > best[k * 2 + h]:
                    best[k * 2 + h] = v2


@njit(cache=True)
def _build_suit_table(chows):
    """(5**9, 10) int8: g[key, 2 k + h] for every base-5 suit content (see module docstring)."""
    n = 5**9
    g = np.empty((n, 10), dtype=np.int8)
    pow5 = np.empty(10, dtype=np.int64)
    pow5[0] = 1
    for i in range(1, 10):
        pow5[i] = pow5[i - 1] * 5
    for k in range(5):
        g[0, 2 * k] = 0
        g[0, 2 * k + 1] = _NEG
    d = np.zeros(9, dtype=np.int64)
    best = np.empty(10, dtype=np.int64)
    src = np.empty(10, dtype=np.int64)
    for key in range(1, n):
        x = key
        for r in range(9):
            d[r] = x % 5
            x //= 5
        i = 0
        while d[i] == 0:
            i += 1
        for j in range(10):
            best[j] = _NEG
        p = pow5[i]
        # leave one copy of tile i unused
        for j in range(10):
            src[j] = g[key - p, j]
        _upd(best, src, 0, 0)
        if d[i] >= 3:
            for j in range(10):
                src[j] = g[key - 3 * p, j]
            _upd(best, src, 1, 2)
        if d[i] >= 2:
            for j in range(10):
                src[j] = g[key - 2 * p, j]
            _upd(best, src, 1, 1)  # pair as a partial set
            for k in range(5):  # pair as the head
                v = src[2 * k]
                if v > _NEG // 2 and v > best[2 * k + 1]:
                    best[2 * k + 1] = v
        if chows and i + 1 < 9:
            if i + 2 < 9 and d[i + 1] and d[i + 2]:
                for j in range(10):
                    src[j] = g[key - p - pow5[i + 1] - pow5[i + 2], j]
                _upd(best, src, 1, 2)
            if d[i + 1]:
                for j in range(10):
                    src[j] = g[key - p - pow5[i + 1], j]
                _upd(best, src, 1, 1)
            if i + 2 < 9 and d[i + 2]:
                for j in range(10):
                    src[j] = g[key - p - pow5[i + 2], j]
                _upd(best, src, 1, 1)
        for j in range(10):
            g[key, j] = best[j]
    return g


@njit(cache=True)
def _build_honor_table():
    """(5**7, 10) int8: the same rows for the honors (each kind: pung if >= 3, pair if 2)."""
    n = 5**7
    g = np.empty((n, 10), dtype=np.int8)
    for key in range(n):
        x = key
        s = 0
        p = 0
        for _ in range(7):
            v = x % 5
            x //= 5
            if v >= 3:
                s += 1
            elif v == 2:
                p += 1
        for k in range(5):
            ss = min(s, k)
            g[key, 2 * k] = 2 * ss + min(p, k - ss)
            g[key, 2 * k + 1] = 2 * ss + min(p - 1, k - ss) if p >= 1 else _NEG
    return g


_TABLES: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


def tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(suit table with runs, suit table pungs only, honor table)``, built on first call."""
    global _TABLES
    if _TABLES is None:
        _TABLES = (_build_suit_table(True), _build_suit_table(False), _build_honor_table())
    return _TABLES


# ------------------------------------------------------------------ distances
@njit(cache=True)
def _reg(g, hon, k0, k1, k2, kh, n, sc):
    """Regular distance ``2 n - V`` from the table rows of the three suits and the honors
    (``sc``: scratch of >= 20 int64)."""
    a = g[k0]
    b = g[k1]
    c = g[k2]
    e = hon[kh]
    # combine suit 0 and suit 1 into x0 (no head) / x1 (head), budgets 0..n, then suit 2
    x0 = sc[0:5]
    x1 = sc[5:10]
    y0 = sc[10:15]
    y1 = sc[15:20]
    for k in range(n + 1):
        b0 = _NEG
        b1 = _NEG
        for i in range(k + 1):
            j = k - i
            v = a[2 * i] + b[2 * j]
            if v > b0:
                b0 = v
            v = a[2 * i + 1] + b[2 * j]
            if v > b1:
                b1 = v
            v = a[2 * i] + b[2 * j + 1]
            if v > b1:
                b1 = v
        x0[k] = b0
        x1[k] = b1
    for k in range(n + 1):
        b0 = _NEG
        b1 = _NEG
        for i in range(k + 1):
            j = k - i
            v = x0[i] + c[2 * j]
            if v > b0:
                b0 = v
            v = x1[i] + c[2 * j]
            if v > b1:
                b1 = v
            v = x0[i] + c[2 * j + 1]
            if v > b1:
                b1 = v
        y0[k] = b0
        y1[k] = b1
    best = _NEG
    for i in range(n + 1):
        j = n - i
        v = y0[i] + e[2 * j]
        if v > best:
            best = v
        v = y1[i] + e[2 * j] + 1
        if v > best:
            best = v
        v = y0[i] + e[2 * j + 1] + 1
        if v > best:
            best = v
    return 2 * n - best


@njit(cache=True)
def _suit_key(c, s):
    k = 0
    for r in range(8, -1, -1):
        k = k * 5 + c[9 * s + r]
    return k


@njit(cache=True)
def _honor_key(c):
    k = 0
    for r in range(6, -1, -1):
        k = k * 5 + c[27 + r]
    return k


@njit(cache=True)
def _range_key(c, s, lo, hi):
    k = 0
    for r in range(8, -1, -1):
        k = k * 5 + (c[9 * s + r] if lo <= r <= hi else 0)
    return k


@njit(cache=True)
def _plan_dist(c, mchow, mtile, m, gc, gn, hon, out, rem):
    """Fill ``out (NUM_PLANS,) int64`` with the plan distances of counts ``c (34,) int64`` and
    the first ``m`` melds (``mchow[i]`` 1 for a chow, ``mtile[i]`` lowest tile / pung tile);
    ``rem (54,) int64`` is scratch whose first 34 entries are zero (left zero). Returns the
    Regular distance."""
    sc = rem[34:]
    n = 4 - m
    k0 = _suit_key(c, 0)
    k1 = _suit_key(c, 1)
    k2 = _suit_key(c, 2)
    kh = _honor_key(c)
    regular = _reg(gc, hon, k0, k1, k2, kh, n, sc)
    out[0] = regular
    msuits = 0
    any_chow = False
    upper_ok = True
    lower_ok = True
    for i in range(m):
        t = mtile[i]
        if mchow[i]:
            any_chow = True
        msuits |= 1 << (t // 9 if t < 27 else 3)
        last = t + 2 if mchow[i] else t
        for u in range(t, last + 1):
            if not (u < 27 and u % 9 >= 5):
                upper_ok = False
            if not (u < 27 and u % 9 <= 3):
                lower_ok = False
    best_full = ABSENT
    best_half = ABSENT
    for s in range(3):
        ks = k0 if s == 0 else (k1 if s == 1 else k2)
        if (msuits & ~(1 << s)) == 0:
            d = _reg(gc, hon, ks, 0, 0, 0, n, sc)
            if d < best_full:
                best_full = d
        if (msuits & ~((1 << s) | 8)) == 0:
            d = _reg(gc, hon, ks, 0, 0, kh, n, sc)
            if d < best_half:
                best_half = d
    out[1] = best_full
    out[2] = best_half
    out[3] = ABSENT if any_chow else _reg(gn, hon, k0, k1, k2, kh, n, sc)
    if upper_ok:
        out[4] = _reg(
            gc,
            hon,
            _range_key(c, 0, 5, 8),
            _range_key(c, 1, 5, 8),
            _range_key(c, 2, 5, 8),
            0,
            n,
            sc,
        )
    else:
        out[4] = ABSENT
    if lower_ok:
        out[5] = _reg(
            gc,
            hon,
            _range_key(c, 0, 0, 3),
            _range_key(c, 1, 0, 3),
            _range_key(c, 2, 0, 3),
            0,
            n,
            sc,
        )
    else:
        out[5] = ABSENT
    for g in range(6, 14):
        out[g] = ABSENT
    for p in range(_FIX_GROUP.shape[0]):
        nu = _FIX_NU[p]
        for i in range(nu):
            rem[_FIX_UTILES[p, i]] = _FIX_NEED[p, i]
        free = 0
        for i in range(m):
            hit = False
            for j in range(3):
                if _FIX_CHOW[p, j] == mchow[i] and _FIX_TILE[p, j] == mtile[i]:
                    hit = True
            if hit:
                t = mtile[i]
                if mchow[i]:
                    rem[t] -= 1
                    rem[t + 1] -= 1
                    rem[t + 2] -= 1
                else:
                    rem[t] -= 3
            else:
                free += 1
        n_free = 1 - free
        if n_free >= 0:
            missing = 0
            for i in range(nu):
                t = _FIX_UTILES[p, i]
                if rem[t] > c[t]:
                    missing += rem[t] - c[t]
            if missing <= regular + PRUNE_MARGIN:
                r0 = k0
                r1 = k1
                r2 = k2
                for i in range(nu):
                    t = _FIX_UTILES[p, i]
                    take = min(rem[t], c[t])
                    s = t // 9
                    if s == 0:
                        r0 -= take * _POW5[t % 9]
                    elif s == 1:
                        r1 -= take * _POW5[t % 9]
                    else:
                        r2 -= take * _POW5[t % 9]
                d = missing + _reg(gc, hon, r0, r1, r2, kh, n_free, sc)
                g = _FIX_GROUP[p]
                if d < out[g]:
                    out[g] = d
        for i in range(nu):
            rem[_FIX_UTILES[p, i]] = 0
    if m == 0:
        pairs = 0
        kinds = 0
        for t in range(34):
            if c[t] >= 2:
                pairs += 1
            if c[t] >= 1:
                kinds += 1
        out[10] = 6 - pairs + max(0, 7 - kinds)
        honor_kinds = 0
        for t in range(27, 34):
            if c[t]:
                honor_kinds += 1
        distinct = 0
        for q in range(_KNITTED.shape[0]):
            x = honor_kinds
            for i in range(9):
                if c[_KNITTED[q, i]]:
                    x += 1
            if x > distinct:
                distinct = x
        out[11] = 13 - min(14, distinct)
        orphan_kinds = 0
        has_pair = 0
        for i in range(_ORPHANS.shape[0]):
            t = _ORPHANS[i]
            if c[t]:
                orphan_kinds += 1
            if c[t] >= 2:
                has_pair = 1
        out[12] = 13 - orphan_kinds - has_pair
    if m <= 1:
        best = ABSENT
        for q in range(_KNITTED.shape[0]):
            missing = 0
            r0 = k0
            r1 = k1
            r2 = k2
            for i in range(9):
                t = _KNITTED[q, i]
                if c[t]:
                    s = t // 9
                    if s == 0:
                        r0 -= _POW5[t % 9]
                    elif s == 1:
                        r1 -= _POW5[t % 9]
                    else:
                        r2 -= _POW5[t % 9]
                else:
                    missing += 1
            if missing > regular + PRUNE_MARGIN:
                continue
            d = missing + _reg(gc, hon, r0, r1, r2, kh, 1 - m, sc)
            if d < best:
                best = d
        out[13] = best
    return regular


@njit(cache=True)
def _value(out, sharpness):
    """``sum exp(-sharpness * (d + penalty))`` over the present plans, in PLAN_NAMES order."""
    total = 0.0
    for i in range(out.shape[0]):
        if out[i] != ABSENT:
            total += np.exp(-sharpness * (out[i] + _PENALTY[i]))
    return total


@njit(cache=True)
def _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness):
    _plan_dist(c, mchow, mtile, m, gc, gn, hon, out, rem)
    return _value(out, sharpness)


# ------------------------------------------------------------------ public Python API
def _check(counts, melds) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    c = np.asarray(counts, dtype=np.int64).reshape(-1)
    if c.shape != (34,) or c.min() < 0 or c.max() > 4:
        raise ValueError(f"counts must be 34 values in 0..4, got {c.tolist()}")
    if len(melds) > 4:
        raise ValueError(f"at most 4 melds, got {len(melds)}")
    mchow = np.zeros(5, dtype=np.int64)
    mtile = np.zeros(5, dtype=np.int64)
    for i, (kind, tile) in enumerate(melds):
        if kind not in ("chow", "pung", "kong"):
            raise ValueError(f"meld {i}: kind must be chow, pung or kong, got {kind!r}")
        tile = int(tile)
        if kind == "chow" and not (0 <= tile < 27 and tile % 9 <= 6):
            raise ValueError(f"meld {i}: a chow's lowest tile must be a suit rank 1-7, got {tile}")
        if not 0 <= tile < 34:
            raise ValueError(f"meld {i}: tile must be in 0..33, got {tile}")
        mchow[i] = kind == "chow"
        mtile[i] = tile
    return c, mchow, mtile, len(melds)


def plan_distances(counts: Sequence[int], melds: Sequence[Meld] = ()) -> dict[str, int]:
    """Best distance of each plan family for a hand.

    Args:
        counts: ``(34,) int`` concealed tile counts (13 - 3m or 14 - 3m tiles, m = len(melds)).
        melds: the seat's melds, see :data:`Meld`.

    Returns:
        dict plan name -> distance (shanten-like; -1 complete), in :data:`PLAN_NAMES` order.
        Plans impossible with the melds are left out, and fixed-set plans whose missing tiles
        exceed the Regular distance by more than :data:`PRUNE_MARGIN` may be left out.

    Raises:
        ValueError: more than four melds, a bad meld, or a count outside 0..4.
    """
    c, mchow, mtile, m = _check(counts, melds)
    gc, gn, hon = tables()
    out = np.empty(NUM_PLANS, dtype=np.int64)
    _plan_dist(c, mchow, mtile, m, gc, gn, hon, out, np.zeros(54, dtype=np.int64))
    return {name: int(d) for name, d in zip(PLAN_NAMES, out) if d != ABSENT}


def regular_distance(counts: Sequence[int], n_sets: int, chows: bool = True) -> int:
    """Shanten of ``counts`` toward ``n_sets`` more sets plus a pair.

    ``2 n - V`` with ``V = max(2 S + T + P)`` over decompositions (``S + T <= n``, ``P`` = 1 if a
    pair is kept as the head); ``-1`` = complete. Tiles may be fewer than ``3 n + 2`` (the
    missing ones count as needed draws).

    Args:
        counts: ``(34,) int`` tile counts in 0..4.
        n_sets: sets still to build (0..4).
        chows: False restricts sets to pungs (All Pungs).

    Raises:
        ValueError: bad counts or ``n_sets`` outside 0..4.
    """
    c, _, _, _ = _check(counts, ())
    if not 0 <= int(n_sets) <= 4:
        raise ValueError(f"n_sets must be in 0..4, got {n_sets}")
    gc, gn, hon = tables()
    keys = [int(_suit_key(c, s)) for s in range(3)]
    sc = np.zeros(20, dtype=np.int64)
    return int(_reg(gc if chows else gn, hon, *keys, int(_honor_key(c)), int(n_sets), sc))


def hand_value(counts: Sequence[int], melds: Sequence[Meld] = (), sharpness: float = 1.3) -> float:
    """Soft-min score of a hand over all plans: ``sum exp(-sharpness * (distance + penalty))``.

    Higher is better; dominated by the closest plan, with a bonus for keeping several plans
    open. Used to rank discards and to decide claims (both compare hands of equal size).

    Raises:
        ValueError: as :func:`plan_distances`.
    """
    c, mchow, mtile, m = _check(counts, melds)
    gc, gn, hon = tables()
    out = np.empty(NUM_PLANS, dtype=np.int64)
    rem = np.zeros(54, dtype=np.int64)
    return float(_hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, float(sharpness)))


def view_arrays(view) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The compiled functions' inputs from a :class:`mcr_env.encoding.seat_view.SeatView`:
    contiguous ``int8`` copies of ``hand (N, 34)``, ``meld_kind (N, 4)``, ``meld_tile (N, 4)``
    and ``visible (N, 34)``."""
    return tuple(
        np.ascontiguousarray(a, dtype=np.int8)
        for a in (view.hand, view.meld_kind, view.meld_tile, view.visible)
    )


# ------------------------------------------------------------------ the rule agent's decisions
# Action layout of mcr_env.engine.actions (docs/design.md): 0 Pass, 1 Hu, 2 + t Play, 36-98 Chi,
# 99 + t Peng, 133 + t Gang, 167 + t AnGang, 201 + t BuGang.
_PASS, _HU, _PLAY, _CHI, _PENG, _GANG, _ANGANG, _BUGANG = 0, 1, 2, 36, 99, 133, 167, 201


@njit(cache=True)
def _best_discard(c, mchow, mtile, m, visible, playable, gc, gn, hon, out, rem, sharpness):
    """Best discard among tiles ``playable[t]`` held: ``(value + tie-breaks, tile)``."""
    best_v = -1.0
    best_t = -1
    for t in range(34):
        if not playable[t] or c[t] <= 0:
            continue
        c[t] -= 1
        v = _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness)
        v = v + 1e-4 * visible[t] + 1e-5 * (1.0 if t >= 27 else 0.0)
        c[t] += 1
        if v > best_v:
            best_v = v
            best_t = t
    return best_v, best_t


@njit(cache=True)
def _min_distance(c, mchow, mtile, m, gc, gn, hon, out, rem):
    """Smallest plan distance (penalties included) of a hand."""
    _plan_dist(c, mchow, mtile, m, gc, gn, hon, out, rem)
    best = 1e9
    for i in range(out.shape[0]):
        if out[i] != ABSENT:
            v = out[i] + _PENALTY[i]
            if v < best:
                best = v
    return best


@njit(cache=True)
def _unseen(c, visible, t):
    u = 4 - visible[t] - c[t]
    return u if u > 0 else 0


@njit(cache=True)
def danger(c, visible, t):
    """Heuristic deal-in danger of discarding tile ``t`` (docs/rules.md §3: the discarder pays
    the winner alone). Counts the unseen copies (4 - visible - own) of the tiles an opponent
    would need to wait on ``t``: half the unseen copies of ``t`` (pair and single waits), plus
    for a suit tile the scarcer of the two neighbours of each two-sided, edge and closed wait.
    """
    dg = 0.5 * _unseen(c, visible, t)
    if t < 27:
        r = t % 9
        if r >= 2:
            dg += min(_unseen(c, visible, t - 2), _unseen(c, visible, t - 1))
        if r <= 6:
            dg += min(_unseen(c, visible, t + 1), _unseen(c, visible, t + 2))
        if 1 <= r <= 7:
            dg += min(_unseen(c, visible, t - 1), _unseen(c, visible, t + 1))
    return dg


@njit(cache=True)
def _scratch():
    """Per-call work arrays of the row loops: counts, visible (34,) int64, meld is_chow / tile
    (5,) int64, plan distances (NUM_PLANS,) int64, the zeroed ``rem`` (54,) int64 of
    :func:`_plan_dist`, melded-pung flags (34,) bool."""
    return (
        np.empty(34, dtype=np.int64),
        np.empty(34, dtype=np.int64),
        np.zeros(5, dtype=np.int64),
        np.zeros(5, dtype=np.int64),
        np.empty(NUM_PLANS, dtype=np.int64),
        np.zeros(54, dtype=np.int64),
        np.zeros(34, dtype=np.bool_),
    )


@njit(cache=True)
def _load_melds(meld_kind, meld_tile, row, mchow, mtile, pung_at):
    """Decode row ``row``'s SeatView meld slots into ``mchow`` / ``mtile`` (chows by their
    lowest tile, kongs as pungs); ``pung_at[t]`` marks melded pungs (BuGang candidates).
    Returns the number of melds."""
    m = 0
    for slot in range(4):
        k = meld_kind[row, slot]
        if k == 1:
            mchow[m] = 1
            mtile[m] = meld_tile[row, slot] - 1
            m += 1
        elif k >= 2:
            mchow[m] = 0
            mtile[m] = meld_tile[row, slot]
            if k == 2:
                pung_at[meld_tile[row, slot]] = True
            m += 1
    return m


@njit(cache=True)
def _claim_value(kind, t, claimed, c, mchow, mtile, m, vis, gc, gn, hon, out, rem, sharpness):
    """Value of the hand after a claim: Chi (kind 3, ``t`` middle tile, ``claimed`` the
    discard) or Peng (kind 4) of ``t`` followed by the best discard, or a melded Gang (kind 5)
    of ``t`` (no discard). ``c`` is restored."""
    all_tiles = np.ones(34, dtype=np.bool_)
    mchow[m] = 1 if kind == 3 else 0
    mtile[m] = t - 1 if kind == 3 else t
    if kind == 3:
        for u in range(t - 1, t + 2):
            if u != claimed:
                c[u] -= 1
        v, _ = _best_discard(
            c, mchow, mtile, m + 1, vis, all_tiles, gc, gn, hon, out, rem, sharpness
        )
        for u in range(t - 1, t + 2):
            if u != claimed:
                c[u] += 1
        return v
    if kind == 4:
        c[t] -= 2
        v, _ = _best_discard(
            c, mchow, mtile, m + 1, vis, all_tiles, gc, gn, hon, out, rem, sharpness
        )
        c[t] += 2
        return v
    c[t] -= 3
    v = _hand_value(c, mchow, mtile, m + 1, gc, gn, hon, out, rem, sharpness)
    c[t] += 3
    return v


@njit(cache=True)
def _forced_action(legal):
    """The action a row must take without weighing plans: Hu when legal (the rule agents always
    take a legal win), else the only legal action; -1 when there is a choice."""
    if legal[_HU]:
        return _HU
    n_legal = 0
    only = -1
    for a in range(legal.shape[0]):
        if legal[a]:
            n_legal += 1
            only = a
    return only if n_legal == 1 else -1


@njit(cache=True)
def _kong_action(legal, c, mchow, mtile, m, best_v, gc, gn, hon, out, rem, sharpness, act_tile):
    """The first legal AnGang / BuGang (in action order) after which the hand's value is at
    least ``best_v`` (the best discard's), or -1. ``c`` and the melds are restored."""
    for a in range(_ANGANG, _BUGANG + 34):
        if not legal[a]:
            continue
        t = act_tile[a]
        if a < _BUGANG:
            c[t] -= 4
            mchow[m] = 0
            mtile[m] = t
            v = _hand_value(c, mchow, mtile, m + 1, gc, gn, hon, out, rem, sharpness)
            c[t] += 4
        else:
            c[t] -= 1
            v = _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness)
            c[t] += 1
        if v >= best_v:
            return a
    return -1


@njit(cache=True)
def _claim_action(
    legal,
    c,
    mchow,
    mtile,
    m,
    vis,
    claim_margin,
    gc,
    gn,
    hon,
    out,
    rem,
    sharpness,
    act_kind,
    act_tile,
    chi_claimed_tile,
):
    """A claim round's answer: the legal Chi / Peng / Gang of highest :func:`_claim_value`
    if it beats ``claim_margin`` x the current hand's value, else Pass (action 0)."""
    best_a = _PASS
    best_v = _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness) * claim_margin
    for a in range(legal.shape[0]):
        if not legal[a]:
            continue
        kind = act_kind[a]
        if kind < 3 or kind > 5:  # only Chi (3), Peng (4), Gang (5) claim
            continue
        v = _claim_value(
            kind,
            act_tile[a],
            chi_claimed_tile[a],
            c,
            mchow,
            mtile,
            m,
            vis,
            gc,
            gn,
            hon,
            out,
            rem,
            sharpness,
        )
        if v > best_v:
            best_a = a
            best_v = v
    return best_a


@njit(cache=True)
def rule_decisions(
    hand,
    meld_kind,
    meld_tile,
    visible,
    mask,
    claim_margin,
    sharpness,
    defensive,
    defend_distance,
    defend_visible,
    defend_keep,
    defend_claims,
    gc,
    gn,
    hon,
    act_kind,
    act_tile,
    chi_claimed_tile,
):
    """The RuleBasedAgent's actions for N decisions (see :class:`baselines.agents.RuleBasedAgent`).

    Args:
        hand: ``(N, 34) int8`` concealed counts; meld_kind / meld_tile ``(N, 4) int8`` as
            :class:`mcr_env.encoding.seat_view.SeatView` (1 Chi middle tile, 2 Peng, 3 Gang,
            4 AnGang); visible ``(N, 34) int8``; mask ``(N, 235) bool`` (>= 1 legal per row).
        claim_margin, sharpness: the agent's parameters.
        defensive: whether to defend; defend_distance / defend_visible: defend when the best
            plan distance (penalty included) is >= defend_distance and at least defend_visible
            tiles are visible; defend_keep: the safer discard must keep this fraction of the
            best hand value; defend_claims: pass on claims while defending.
        gc, gn, hon: :func:`tables`; act_kind, act_tile, chi_claimed_tile: ``(235,) int64``
            copies of the action tables of :mod:`mcr_env.engine.actions`.

    Returns:
        ``(N,) int64`` legal action ids.
    """
    n_rows = mask.shape[0]
    res = np.empty(n_rows, dtype=np.int64)
    c, vis, mchow, mtile, out, rem, pung_at = _scratch()
    playable = np.empty(34, dtype=np.bool_)
    for row in range(n_rows):
        legal = mask[row]
        forced = _forced_action(legal)
        if forced >= 0:
            res[row] = forced
            continue
        tot_visible = 0
        for t in range(34):
            c[t] = hand[row, t]
            vis[t] = visible[row, t]
            tot_visible += vis[t]
            playable[t] = legal[_PLAY + t]
        m = _load_melds(meld_kind, meld_tile, row, mchow, mtile, pung_at)
        late = defensive and tot_visible >= defend_visible
        has_play = False
        for t in range(34):
            if playable[t]:
                has_play = True
        if has_play:  # own turn: discard, or a concealed / added kong
            best_v, best_t = _best_discard(
                c, mchow, mtile, m, vis, playable, gc, gn, hon, out, rem, sharpness
            )
            choice = _PLAY + best_t
            kong = _kong_action(
                legal, c, mchow, mtile, m, best_v, gc, gn, hon, out, rem, sharpness, act_tile
            )
            if kong >= 0:
                res[row] = kong
                continue
            if late:
                c[best_t] -= 1
                far = _min_distance(c, mchow, mtile, m, gc, gn, hon, out, rem)
                c[best_t] += 1
                if far >= defend_distance:
                    safest = best_t
                    safest_d = danger(c, vis, best_t)
                    for t in range(34):
                        if not playable[t] or c[t] <= 0 or t == best_t:
                            continue
                        dg = danger(c, vis, t)
                        if dg >= safest_d:
                            continue
                        c[t] -= 1
                        v = _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness)
                        c[t] += 1
                        if v >= defend_keep * best_v:
                            safest, safest_d = t, dg
                    choice = _PLAY + safest
            res[row] = choice
            continue
        # claim round (Pass + Chi/Peng/Gang) or a robbing window without Hu
        if late and defend_claims and legal[_PASS]:
            if _min_distance(c, mchow, mtile, m, gc, gn, hon, out, rem) >= defend_distance:
                res[row] = _PASS
                continue
        res[row] = _claim_action(
            legal,
            c,
            mchow,
            mtile,
            m,
            vis,
            claim_margin,
            gc,
            gn,
            hon,
            out,
            rem,
            sharpness,
            act_kind,
            act_tile,
            chi_claimed_tile,
        )
    return res


NUM_FEATURES = 9
"""Channels of :func:`rule_features`."""


@njit(cache=True)
def rule_features(
    hand, meld_kind, meld_tile, visible, tile_in_play, claim_margin, sharpness, gc, gn, hon
):
    """The rule agent's evaluations as ``(N, NUM_FEATURES, 34) float32`` observation channels
    (look-ahead features: what its plan values say about each option). Reads only what the
    seat may see (its hand and melds, the visible counts, the public tile in play).

    Channels (own turn = the seat holds 14 - 3m tiles; else a claim round on ``tile_in_play``):

    0. own turn, per held tile t: hand value after discarding t / the best such value
    1. own turn, per held tile t: best plan distance (penalty included) after discarding t / 10
    2. per held tile t: :func:`danger` / 16
    3. claim round, at the tile in play x: value after Peng on x and the best discard /
       (``claim_margin`` x the current value), clipped to 0..4
    4. claim round, at x: the same for a melded Gang on x (no discard)
    5. claim round, at the middle tile of each chow containing x whose two other tiles are
       held: the same for that Chi
    6. own turn, at t: value after AnGang / BuGang of t / the best discard value, clipped 0..4
    7. everywhere: the current best plan distance (penalty included) / 10
    8. own turn: 1 at the rule agent's discard (value plus its tie-breaks), else 0
    """
    n_rows = hand.shape[0]
    res = np.zeros((n_rows, NUM_FEATURES, 34), dtype=np.float32)
    c, vis, mchow, mtile, out, rem, pung_at = _scratch()
    vals = np.zeros(34, dtype=np.float64)
    for row in range(n_rows):
        total = 0
        for t in range(34):
            c[t] = hand[row, t]
            vis[t] = visible[row, t]
            total += c[t]
        pung_at[:] = False
        m = _load_melds(meld_kind, meld_tile, row, mchow, mtile, pung_at)
        now = _min_distance(c, mchow, mtile, m, gc, gn, hon, out, rem)
        for t in range(34):
            res[row, 7, t] = now / 10.0
            if c[t] > 0:
                res[row, 2, t] = danger(c, vis, t) / 16.0
        if total % 3 == 2:  # own turn
            best = 0.0
            best_score = -1.0
            best_t = -1
            for t in range(34):
                vals[t] = 0.0
                if c[t] <= 0:
                    continue
                c[t] -= 1
                vals[t] = _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness)
                res[row, 1, t] = _min_distance(c, mchow, mtile, m, gc, gn, hon, out, rem) / 10.0
                c[t] += 1
                if vals[t] > best:
                    best = vals[t]
                score = vals[t] + 1e-4 * vis[t] + 1e-5 * (1.0 if t >= 27 else 0.0)
                if score > best_score:
                    best_score = score
                    best_t = t
            if best_t >= 0:
                res[row, 8, best_t] = 1.0
            if best > 0:
                for t in range(34):
                    res[row, 0, t] = vals[t] / best
                for t in range(34):
                    v = -1.0
                    if c[t] == 4:
                        c[t] -= 4
                        mchow[m] = 0
                        mtile[m] = t
                        v = _hand_value(c, mchow, mtile, m + 1, gc, gn, hon, out, rem, sharpness)
                        c[t] += 4
                    elif pung_at[t] and c[t] >= 1:
                        c[t] -= 1
                        v = _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness)
                        c[t] += 1
                    if v >= 0:
                        res[row, 6, t] = min(v / best, 4.0)
            continue
        x = tile_in_play[row]
        if x < 0:
            continue
        base = _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness) * claim_margin
        if base <= 0:
            continue
        if c[x] >= 2:
            v = _claim_value(4, x, x, c, mchow, mtile, m, vis, gc, gn, hon, out, rem, sharpness)
            res[row, 3, x] = min(max(v, 0.0) / base, 4.0)
        if c[x] >= 3:
            v = _claim_value(5, x, x, c, mchow, mtile, m, vis, gc, gn, hon, out, rem, sharpness)
            res[row, 4, x] = min(v / base, 4.0)
        if x < 27 and m < 4:
            r = x % 9
            for mid_r in range(max(1, r - 1), min(7, r + 1) + 1):
                mid = x - r + mid_r
                ok = True
                for u in range(mid - 1, mid + 2):
                    if u != x and c[u] <= 0:
                        ok = False
                if ok:
                    v = _claim_value(
                        3, mid, x, c, mchow, mtile, m, vis, gc, gn, hon, out, rem, sharpness
                    )
                    res[row, 5, mid] = min(max(v, 0.0) / base, 4.0)
    return res

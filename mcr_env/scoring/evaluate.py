"""Fan evaluation of a complete MCR hand (docs/rules.md §5, §6, 6a, 6b).

Design
------
A hand is scored reading by reading (:func:`readings`); a *reading* is one way to see the
tiles as a winning form: four sets and a pair (each division of the concealed tiles from
:func:`~mcr_env.scoring.decompose.regular_divisions`, melds fixed), Knitted Straight plus one
set and a pair, or one special form (Seven Pairs, Thirteen Orphans, Honors and Knitted Tiles).
Each reading's fans come from independent detectors:

1. *Tile properties* (flushes, honors, terminals, green, reversible, rank ranges, voided suit,
   All Types): functions of the set of tile kinds present, computed on 34-bit masks built from
   the :mod:`mcr_env.tiles` predicate arrays and cached by the few facts they depend on.
2. *Set shapes* (All Pungs, All Chows, Outside Hand, All Five, All Even Pungs, Tile Hog, and
   the pair-dependent Pure Terminal Chows, Three-Suited Terminal Chows, Little Four Winds,
   Little Three Dragons): from facts cached per chow tuple and per pung tuple.
3. *Set combinations*: every candidate instance ``(fan, group of sets)`` among the chows
   (Quadruple Chow ... Two Terminal Chows) and among the pungs (Big Four Winds ... Double
   Pung) is listed, then :func:`_select` chooses the instances to count by the MCR principles
   (docs/rules.md §5) as an explicit search: the chosen groups must form a *hyperforest*
   over the sets (each counted combination joins sets not yet linked to each other: this is
   non-separation plus account-once), two instances of the same fan may not share a set
   (non-identical), and the selection maximises points. Among selections with equal points the
   one whose sorted fan list comes first in :class:`Fan` order is kept. This reproduces
   PyMahjongGB 1.4.0 on every combination of four chows and of three or four pungs (checked
   exhaustively while writing this module; tests/test_scoring_evaluate.py keeps two of those
   sweeps).
4. *Per-pung fans* (:func:`_pung_fans`): Dragon Pung, Prevalent/Seat Wind, Pung of Terminals
   or Honors; a wind pung already counted by a wind fan or a wind-group fan, and every dragon
   pung, is not also a Pung of Terminals or Honors.
5. *Kongs and concealed pungs* (docs/rules.md §6b): one kong-series fan; one concealed-pung-series
   fan counting concealed kongs and concealed pungs, where a pung completed by a discarded
   winning tile is melded unless the reading has a concealed chow holding the winning tile.
6. *Win situation*: Self-Drawn, Fully Concealed / Concealed / Melded Hand, Last Tile Draw /
   Claim, Out with Replacement Tile (needs a kong), Robbing The Kong and Last Tile (decided
   with the copies of the winning tile the hand itself shows, see :func:`readings`). Wait fans
   only when the 13-tile hand waits on exactly one tile kind over all forms, Edge over Closed
   over Single by the winning tile's place in the reading (:func:`_wait_position`).
7. *Non-repeat*: fans are visited in :class:`Fan` order and each fan still present removes the
   fans :data:`~mcr_env.scoring.fans.FAN_IMPLIES` lists for it (a fan removed this way no
   longer removes anything), with PyMahjongGB's differences kept as data:
   :data:`EXTRA_IMPLIES`, :data:`PER_SET_IMPLIES`, :data:`DOWNGRADE`. Chicken Hand is added
   when nothing is left.

The preferred reading is the one with the highest total; :func:`_preferred` documents how
equal totals are resolved.

Profiles (docs/rules.md §7): every reading is scored in the requested profile (its points,
its "implies" table :data:`~mcr_env.scoring.fans.FAN_IMPLIES_BY_PROFILE` and
:data:`EXTRA_IMPLIES_BY_PROFILE`, the ``"mcr"`` kong fans of item 2 and the Melded Hand
condition of item 7) before the preferred reading is chosen, so "high over low" holds in each
profile's own points.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

from mcr_env import tiles as _tiles
from mcr_env.scoring.decompose import (
    CHOW,
    KNITTED_STRAIGHTS,
    THIRTEEN_ORPHANS_TILES,
    regular_divisions,
    seven_pairs_wait,
)
from mcr_env.scoring.fans import (
    FAN_IMPLIES,
    FAN_IMPLIES_BY_PROFILE,
    NUM_FANS,
    POINTS_ARRAY,
    PROFILES,
    Fan,
)

__all__ = [
    "MELD_CHOW",
    "MELD_PUNG",
    "MELD_KONG",
    "MELD_CONCEALED_KONG",
    "MELD_PROMOTED_KONG",
    "EXTRA_IMPLIES",
    "EXTRA_IMPLIES_BY_PROFILE",
    "PER_SET_IMPLIES",
    "DOWNGRADE",
    "evaluate",
    "readings",
    "clear_caches",
    "trim_caches",
]

F = type("F", (), {f.name: int(f) for f in Fan})
"""The fan values as plain ints, ``F.ALL_CHOWS == Fan.ALL_CHOWS``: the hot paths name fans
through this class because a plain class attribute is several times cheaper to look up than
an enum member (the values are the same ints, so dict keys and comparisons are unchanged)."""

_MEMOS: list = []


def _memo(budget: int):
    """Memoise with :func:`functools.cache` (a plain dict: no per-entry list nodes for the
    garbage collector to scan, unlike a bounded ``lru_cache``); :func:`trim_caches` empties a
    table once it holds more than ``budget`` entries."""

    def wrap(fn):
        memo = cache(fn)
        _MEMOS.append((memo, budget))
        return memo

    return wrap


def trim_caches() -> None:
    """Empty the memo tables that outgrew their budget (called periodically by the scorer)."""
    for memo, budget in _MEMOS:
        if memo.cache_info().currsize > budget:
            memo.cache_clear()


def clear_caches() -> None:
    """Empty every memo table of this module (for cold-cache benchmarks)."""
    for memo, _ in _MEMOS:
        memo.cache_clear()


MELD_CHOW, MELD_PUNG, MELD_KONG, MELD_CONCEALED_KONG, MELD_PROMOTED_KONG = 0, 1, 2, 3, 4
"""Meld kinds of :func:`evaluate`: claimed chow (tile = lowest tile), claimed pung, melded kong
claimed from a discard, concealed kong, melded kong promoted from a pung (BuGang; scored as a
melded kong except that the ``"mcr"`` profile's Melded Hand needs none, docs/rules.md §7
item 7)."""


def _plain(fans: dict) -> tuple[tuple[int, int], ...]:
    """``(fan value, count)`` pairs of plain ints (cached values the garbage collector can
    ignore)."""
    return tuple((int(f), c) for f, c in fans.items())


# ---------------------------------------------------------------------------------------------
# Tile-kind masks (bit t = tile id t)

_KINDS = range(34)
_RANK = [int(r) for r in _tiles.TILE_RANK[:34]]  # 1..9 for suit tiles
_SUIT = [int(s) for s in _tiles.TILE_SUIT[:34]]  # 0..2 suits, 3 winds, 4 dragons


def _mask_of(pred) -> int:
    return sum(1 << t for t in _KINDS if pred(t))


_M_HONOR = _mask_of(lambda t: bool(_tiles.IS_HONOR[t]))
_M_WIND = _mask_of(lambda t: _SUIT[t] == 3)
_M_DRAGON = _mask_of(lambda t: _SUIT[t] == 4)
_M_TERMINAL = _mask_of(lambda t: bool(_tiles.IS_TERMINAL[t]))
_M_SIMPLE = _mask_of(lambda t: bool(_tiles.IS_SIMPLE[t]))
_M_GREEN = _mask_of(lambda t: bool(_tiles.IS_GREEN[t]))
_M_REVERSIBLE = _mask_of(lambda t: bool(_tiles.IS_REVERSIBLE[t]))
_M_ORPHANS = _mask_of(lambda t: t in THIRTEEN_ORPHANS_TILES)
_M_SUITS = tuple(_mask_of(lambda t, s=s: _SUIT[t] == s) for s in range(3))


def _rank_mask(lo: int, hi: int) -> int:
    return _mask_of(lambda t: _SUIT[t] < 3 and lo <= _RANK[t] <= hi)


# (fan, mask every tile kind must lie in)
_RANGE_FANS = (
    (F.UPPER_TILES, _rank_mask(7, 9)),
    (F.MIDDLE_TILES, _rank_mask(4, 6)),
    (F.LOWER_TILES, _rank_mask(1, 3)),
    (F.UPPER_FOUR, _rank_mask(6, 9)),
    (F.LOWER_FOUR, _rank_mask(1, 4)),
    (F.ALL_GREEN, _M_GREEN),
    (F.REVERSIBLE_TILES, _M_REVERSIBLE),
    (F.ALL_SIMPLES, _M_SIMPLE),
    (F.ALL_TERMINALS, _M_TERMINAL),
    (F.ALL_HONORS, _M_HONOR),
)


def _tile_property_fans_of(mask: int) -> tuple[int, ...]:
    """Fans that depend only on which tile kinds are present (``mask``: bit t = kind t)."""
    out = [f for f, allowed in _RANGE_FANS if not mask & ~allowed]
    suits = sum(1 for m in _M_SUITS if mask & m)
    honors = mask & _M_HONOR
    if not mask & ~(_M_TERMINAL | _M_HONOR) and honors and mask & _M_TERMINAL:
        out.append(F.ALL_TERMINALS_AND_HONORS)
    if not honors:
        out.append(F.NO_HONORS)
        if suits == 1:
            out.append(F.FULL_FLUSH)
    elif suits == 1:
        out.append(F.HALF_FLUSH)
    if suits == 2:
        out.append(F.ONE_VOIDED_SUIT)
    if suits == 3 and mask & _M_WIND and mask & _M_DRAGON:
        out.append(F.ALL_TYPES)
    return tuple(out)


# The masks :func:`_tile_property_fans_of` tests ``mask`` against (``not mask & ~allowed``):
# the range fans', then Terminals-and-Honors'. Per group (three suits, honors) and per bit
# pattern of that group, the classes the group's kinds lie in (bit i: class i), so a mask's
# classes are the AND of four table look-ups.
_PROPERTY_CLASSES = tuple(allowed for _, allowed in _RANGE_FANS) + (_M_TERMINAL | _M_HONOR,)


def _group_classes(lo: int, width: int) -> tuple[int, ...]:
    return tuple(
        sum(1 << i for i, allowed in enumerate(_PROPERTY_CLASSES) if not (b << lo) & ~allowed)
        for b in range(1 << width)
    )


_CLASSES_M, _CLASSES_P, _CLASSES_S = (
    _group_classes(0, 9),
    _group_classes(9, 9),
    _group_classes(18, 9),
)
_CLASSES_Z = _group_classes(27, 7)
_M_SUIT0, _M_SUIT1, _M_SUIT2 = _M_SUITS
_PROPERTY_FANS: dict[int, tuple[int, ...]] = {}
_PROPERTY_PAIRS: dict[int, tuple[tuple[int, int], ...]] = {}


def _property_key(mask: int) -> int:
    """Everything :func:`_tile_property_fans_of` reads of ``mask``, as one small int: the
    classes the kinds lie in (11 bits), the number of suits present, and whether honors,
    winds, dragons and terminals are present. Equal keys, equal fans."""
    key = (
        _CLASSES_M[mask & 511]
        & _CLASSES_P[mask >> 9 & 511]
        & _CLASSES_S[mask >> 18 & 511]
        & _CLASSES_Z[mask >> 27]
    )
    if mask & _M_SUIT0:
        key += 1 << 11
    if mask & _M_SUIT1:
        key += 1 << 11
    if mask & _M_SUIT2:
        key += 1 << 11
    if mask & _M_HONOR:
        key |= 1 << 13
        if mask & _M_WIND:
            key |= 1 << 14
        if mask & _M_DRAGON:
            key |= 1 << 15
    if mask & _M_TERMINAL:
        key |= 1 << 16
    return key


def _tile_property_fans(mask: int) -> tuple[int, ...]:
    """:func:`_tile_property_fans_of`, memoised by :func:`_property_key` (a few hundred
    keys, however many masks)."""
    key = _property_key(mask)
    fans = _PROPERTY_FANS.get(key)
    if fans is None:
        fans = _PROPERTY_FANS[key] = _tile_property_fans_of(mask)
    return fans


def _tile_property_pairs(mask: int) -> tuple[tuple[int, int], ...]:
    """:func:`_tile_property_fans` as ``(fan, 1)`` pairs (a dict update adds them at once)."""
    key = _property_key(mask)
    pairs = _PROPERTY_PAIRS.get(key)
    if pairs is None:
        pairs = _PROPERTY_PAIRS[key] = tuple((f, 1) for f in _tile_property_fans_of(mask))
    return pairs


# ---------------------------------------------------------------------------------------------
# Set-combination fans: candidate instances and the selection


def _two_chows(a: int, b: int) -> int | None:
    if a // 9 == b // 9:
        gap = b - a
        if gap == 0:
            return F.PURE_DOUBLE_CHOW
        if gap == 3:
            return F.SHORT_STRAIGHT
        if gap == 6:
            return F.TWO_TERMINAL_CHOWS
        return None
    return F.MIXED_DOUBLE_CHOW if a % 9 == b % 9 else None


def _three_chows(a: int, b: int, c: int) -> int | None:
    ranks = (a % 9, b % 9, c % 9)
    suits = {a // 9, b // 9, c // 9}
    if len(suits) == 1:
        if a == c:
            return F.PURE_TRIPLE_CHOW
        if b - a == c - b and b - a in (1, 2):
            return F.PURE_SHIFTED_CHOWS
        return F.PURE_STRAIGHT if ranks == (0, 3, 6) else None
    if len(suits) == 3:
        lo, mid, hi = sorted(ranks)
        if lo == hi:
            return F.MIXED_TRIPLE_CHOW
        if (lo, mid, hi) == (0, 3, 6):
            return F.MIXED_STRAIGHT
        if mid == lo + 1 and hi == mid + 1:
            return F.MIXED_SHIFTED_CHOWS
    return None


def _four_chows(a: int, b: int, c: int, d: int) -> int | None:
    if a // 9 != d // 9:
        return None
    if a == d:
        return F.QUADRUPLE_CHOW
    step = b - a
    if step in (1, 2) and c - b == step and d - c == step:
        return F.FOUR_PURE_SHIFTED_CHOWS
    return None


def _two_pungs(a: int, b: int) -> int | None:
    if b < 27:
        return F.DOUBLE_PUNG if a // 9 != b // 9 and a % 9 == b % 9 else None
    if a >= 31:
        return F.TWO_DRAGONS_PUNGS
    return None


def _three_pungs(a: int, b: int, c: int) -> int | None:
    if c < 27:
        suits = {a // 9, b // 9, c // 9}
        if len(suits) == 1:
            return F.PURE_SHIFTED_PUNGS if b == a + 1 and c == b + 1 else None
        if len(suits) == 3:
            lo, mid, hi = sorted((a % 9, b % 9, c % 9))
            if lo == hi:
                return F.TRIPLE_PUNG
            if mid == lo + 1 and hi == mid + 1:
                return F.MIXED_SHIFTED_PUNGS
        return None
    if a >= 31:
        return F.BIG_THREE_DRAGONS
    if 27 <= a and c <= 30:
        return F.BIG_THREE_WINDS
    return None


def _four_pungs(a: int, b: int, c: int, d: int) -> int | None:
    if d < 27 and a // 9 == d // 9 and d == a + 3 and b == a + 1 and c == a + 2:
        return F.FOUR_PURE_SHIFTED_PUNGS
    if (a, b, c, d) == (27, 28, 29, 30):
        return F.BIG_FOUR_WINDS
    return None


# groups of up to 4 set positions, largest first: (positions, bitmask over positions)
_GROUPS = {
    n: tuple(
        (idx, sum(1 << i for i in idx))
        for size in (4, 3, 2)
        for idx in combinations(range(n), size)
    )
    for n in range(5)
}
_CHOW_GROUP_FN = {4: _four_chows, 3: _three_chows, 2: _two_chows}
_PUNG_GROUP_FN = {4: _four_pungs, 3: _three_pungs, 2: _two_pungs}
_BOTZONE_POINTS = POINTS_ARRAY["botzone"]


_TRIPLES = {n: tuple((idx, m) for idx, m in _GROUPS[n] if len(idx) == 3) for n in range(5)}
_PAIRS = {n: tuple((idx, m) for idx, m in _GROUPS[n] if len(idx) == 2) for n in range(5)}


def _instances(sets: tuple[int, ...], group_fn: dict) -> list[tuple[int, int]]:
    """Every ``(fan, group bitmask)`` whose sets (sorted tile ids) form that fan by themselves,
    in :data:`_GROUPS` order (largest groups first)."""
    out = []
    n = len(sets)
    if n == 4:
        fan = group_fn[4](*sets)
        if fan is not None:
            out.append((fan, 15))
    if n >= 3:
        three = group_fn[3]
        for (i, j, k), m in _TRIPLES[n]:
            fan = three(sets[i], sets[j], sets[k])
            if fan is not None:
                out.append((fan, m))
    two = group_fn[2]
    for (i, j), m in _PAIRS[n]:
        fan = two(sets[i], sets[j])
        if fan is not None:
            out.append((fan, m))
    return out


def _select(instances: list[tuple[int, int]], n_sets: int) -> tuple[int, ...]:
    """The instances to count (docs/rules.md §5), as their fans sorted by value.

    Constraints: the chosen groups form a hyperforest over the ``n_sets`` sets (every group
    links sets that are not yet linked, so no group is re-formed from sets already combined),
    and two instances of one fan never share a set. Objective: most points, then the
    lexicographically first sorted fan list."""
    if len(instances) <= 1:
        return tuple(f for f, _ in instances)
    # richest instances first, so a good bound is found early (the result does not depend on
    # the order: ties are resolved by the sorted fan list)
    instances = sorted(instances, key=lambda inst: -_BOTZONE_POINTS[inst[0]])
    best_points = -1
    best: list[int] = []
    # points still available from instance i on (branch and bound: a branch that cannot reach
    # the best total so far is cut; equal totals are still explored for the tie order)
    remaining = [0] * (len(instances) + 1)
    for i in range(len(instances) - 1, -1, -1):
        remaining[i] = remaining[i + 1] + _BOTZONE_POINTS[instances[i][0]]

    def dfs(i: int, comp: tuple[int, ...], used: dict, chosen: list[int], points: int) -> None:
        nonlocal best_points, best
        if points + remaining[i] < best_points:
            return
        if i == len(instances):
            key = sorted(chosen)
            if points > best_points or (points == best_points and key < best):
                best_points, best = points, key
            return
        fan, m = instances[i]
        members = [j for j in range(n_sets) if m >> j & 1]
        labels = {comp[j] for j in members}
        if len(labels) == len(members) and not used.get(fan, 0) & m:
            merged = min(labels)
            new_comp = tuple(merged if c in labels else c for c in comp)
            used2 = dict(used)
            used2[fan] = used.get(fan, 0) | m
            chosen.append(int(fan))
            dfs(i + 1, new_comp, used2, chosen, points + _BOTZONE_POINTS[fan])
            chosen.pop()
        dfs(i + 1, comp, used, chosen, points)

    dfs(0, tuple(range(n_sets)), {}, [], 0)
    return tuple(best)


# ---------------------------------------------------------------------------------------------
# Per-reading structure (cached): everything that does not depend on winds, melds or the win


def _counted(fans: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """``(fan, count)`` pairs of a list of fans (first-seen order)."""
    out: dict[int, int] = {}
    for f in fans:
        out[f] = out.get(f, 0) + 1
    return tuple(out.items())


_OUTSIDE_CHOW_RANKS = (0, 6)  # lowest rank index of 123 / 789
_FIVE_CHOW_RANKS = (2, 3, 4)  # 345 456 567


@_memo(32768)
def _chow_part(chows: tuple[int, ...]) -> tuple:
    """Facts about a reading's chows (sorted lowest tile ids), cached per chow tuple.

    Returns ``(fans, mask, counts, outside, five, terminal_suits)``: counted chow-combination
    fans as ``(fan, count)`` pairs; tile-kind mask; ``{tile: copies}``; every chow holds a
    terminal / a 5; for four chows of ranks 123 123 789 789, the sorted suits (else None)."""
    fans = _select(_instances(chows, _CHOW_GROUP_FN), len(chows))
    mask = 0
    counts: dict[int, int] = {}
    for c in chows:
        mask |= 7 << c
        for t in (c, c + 1, c + 2):
            counts[t] = counts.get(t, 0) + 1
    ranks = sorted(c % 9 for c in chows)
    terminal_suits = tuple(sorted(c // 9 for c in chows)) if ranks == [0, 0, 6, 6] else None
    return (
        _counted(fans),
        mask,
        counts,
        all(c % 9 in _OUTSIDE_CHOW_RANKS for c in chows),
        all(c % 9 in _FIVE_CHOW_RANKS for c in chows),
        terminal_suits,
    )


@_memo(32768)
def _pung_part(pungs: tuple[int, ...], kongs: tuple[int, ...]) -> tuple:
    """Facts about a reading's pungs and kongs (sorted tile ids; ``kongs`` a subset), cached.

    Returns ``(fans, mask, counts, outside, five, even, winds, dragons, terminal_pungs)``:
    counted pung-combination fans as ``(fan, count)`` pairs; tile-kind mask; ``{tile: 3}`` for
    pungs that are not kongs; every pung is of a terminal or honor / of a 5 / of an even suit
    rank; wind indices 0-3 of the wind pungs; number of dragon pungs; number of pungs of suit
    1s and 9s."""
    fans = _select(_instances(pungs, _PUNG_GROUP_FN), len(pungs))
    mask = 0
    for p in pungs:
        mask |= 1 << p
    return (
        _counted(fans),
        mask,
        {p: 3 for p in pungs if p not in kongs},
        not mask & _M_SIMPLE,
        all(_SUIT[p] < 3 and _RANK[p] == 5 for p in pungs),
        all(_SUIT[p] < 3 and _RANK[p] % 2 == 0 for p in pungs),
        tuple(p - 27 for p in pungs if _SUIT[p] == 3),
        sum(1 for p in pungs if _SUIT[p] == 4),
        sum(1 for p in pungs if (_M_TERMINAL >> p) & 1),
    )


def _structure(
    chows: tuple[int, ...], pungs: tuple[int, ...], kongs: tuple[int, ...], pair: int
) -> tuple[tuple[tuple[int, int], ...], int, tuple[int, ...], bool]:
    """Fans of a four-sets-and-a-pair reading that depend only on its sets.

    Args:
        chows: sorted lowest tile ids of the chows. pungs: sorted tile ids of pungs and kongs.
        kongs: sorted tile ids of the kongs (a subset of ``pungs``). pair: the pair's tile id.

    Returns:
        ``(fans, terminal_pungs, wind_pungs, wind_group)``: ``(fan, count)`` pairs; the number
        of pungs of suit 1s and 9s; the wind indices 0-3 of wind pungs; True when a wind-group
        fan (Big Three Winds, Little/Big Four Winds) covers the wind pungs.
    """
    c_fans, c_mask, c_counts, c_outside, c_five, terminal_suits = _chow_part(chows)
    p_fans, p_mask, p_counts, p_outside, p_five, p_even, winds, dragons, terminal_pungs = (
        _pung_part(pungs, kongs)
    )
    # chow-combination, pung-combination and tile-property fans are three disjoint sets
    fans = dict(c_fans)
    fans.update(p_fans)
    fans.update(_tile_property_pairs(c_mask | p_mask | 1 << pair))
    hogs = 0
    for t, n in c_counts.items():
        if n + p_counts.get(t, 0) + (2 if t == pair else 0) == 4:
            hogs += 1
    if hogs:
        fans[F.TILE_HOG] = hogs

    pair_suit = _SUIT[pair]
    pair_rank = _RANK[pair]
    if len(chows) == 4:
        if pair_suit < 3:
            fans[F.ALL_CHOWS] = 1
        if terminal_suits is not None and pair_rank == 5 and pair_suit < 3:
            a, b, c, d = terminal_suits
            if a == d == pair_suit:
                fans[F.PURE_TERMINAL_CHOWS] = 1
            elif a == b != c == d and pair_suit not in terminal_suits:
                fans[F.THREE_SUITED_TERMINAL_CHOWS] = 1
    elif not chows:
        fans[F.ALL_PUNGS] = 1
        if p_even and pair_suit < 3 and pair_rank % 2 == 0:
            fans[F.ALL_EVEN_PUNGS] = 1
    if c_outside and p_outside and not (_M_SIMPLE >> pair) & 1:
        fans[F.OUTSIDE_HAND] = 1
    if c_five and p_five and pair_suit < 3 and pair_rank == 5:
        fans[F.ALL_FIVE] = 1
    if len(winds) == 3 and pair_suit == 3:
        fans[F.LITTLE_FOUR_WINDS] = 1
    if dragons == 2 and pair_suit == 4:
        fans[F.LITTLE_THREE_DRAGONS] = 1
    elif dragons == 1:
        fans[F.DRAGON_PUNG] = 1
    return tuple(fans.items()), terminal_pungs, winds, len(winds) >= 3


# ---------------------------------------------------------------------------------------------
# Non-repeat


EXTRA_IMPLIES: dict[Fan, frozenset[Fan]] = {
    f: frozenset({Fan.FULLY_CONCEALED_HAND})
    for f, implied in FAN_IMPLIES.items()
    if Fan.CONCEALED_HAND in implied and f != Fan.FULLY_CONCEALED_HAND
}
EXTRA_IMPLIES[Fan.SEVEN_SHIFTED_PAIRS] |= {Fan.NO_HONORS}
"""PyMahjongGB 1.4.0 exclusions beyond docs/rules.md's "implies" column (data, not code): every
fan that implies Concealed Hand also removes Fully Concealed Hand (which then leaves
Self-Drawn, :data:`DOWNGRADE`); Seven Shifted Pairs also removes No Honors (it removes Full
Flush, which would otherwise no longer remove No Honors). The ``"botzone"`` profile's entry of
:data:`EXTRA_IMPLIES_BY_PROFILE`."""

EXTRA_IMPLIES_BY_PROFILE: dict[str, dict[Fan, frozenset[Fan]]] = {
    "botzone": EXTRA_IMPLIES,
    "mcr": {Fan.SEVEN_SHIFTED_PAIRS: frozenset({Fan.NO_HONORS})},
}
"""Exclusions beyond each profile's "implies" table. The ``"mcr"`` profile keeps Fully
Concealed Hand beside the self-drawn concealed special hands (docs/rules.md §7 item 3: they
score it instead of Self-Drawn; Concealed Hand stays implied) and keeps only the Seven Shifted
Pairs / No Honors exclusion."""

PER_SET_IMPLIES: dict[Fan, frozenset[Fan]] = {
    Fan.BIG_THREE_WINDS: frozenset({Fan.PUNG_OF_TERMINALS_OR_HONORS}),
}
"""Implications that hold only for the sets forming the fan (Big Three Winds: the Pung of
Terminals or Honors *of those wind pungs*, docs/rules.md §6), so they are not in
:data:`FAN_IMPLIES`. The pung counting already leaves those sets out (a 999m pung beside Big
Three Winds still scores)."""


def _implies_mask(profile: str) -> list[int]:
    """Bit mask of the fans each fan value removes (index 0 unused) in ``profile``."""
    mask = [0] * (NUM_FANS + 1)
    for table in (FAN_IMPLIES_BY_PROFILE[profile], EXTRA_IMPLIES_BY_PROFILE[profile]):
        for f, implied in table.items():
            for g in implied:
                mask[f] |= 1 << g
    return mask


_IMPLIES_MASK = {p: _implies_mask(p) for p in PROFILES}


DOWNGRADE: dict[Fan, Fan] = {Fan.FULLY_CONCEALED_HAND: Fan.SELF_DRAWN}
"""A fan removed by non-repeat that leaves a lower fan behind: Fully Concealed Hand is
Concealed Hand plus Self-Drawn, so a fan implying Concealed Hand (Seven Pairs, Thirteen Orphans,
Four Concealed Pungs, ...) leaves Self-Drawn (PyMahjongGB 1.4.0)."""


def _apply_non_repeat(fans: dict[int, int], profile: str) -> None:
    """Remove, in place, every fan implied by a higher fan still present (docs/rules.md §5) in
    ``profile``'s tables; a removed fan listed in :data:`DOWNGRADE` leaves its lower fan unless
    that is implied too."""
    implies = _IMPLIES_MASK[profile]
    removed = 0
    for f in sorted(fans):
        if removed >> f & 1:
            continue
        removed |= implies[f]
    if removed:
        for f in list(fans):
            if removed >> f & 1:
                del fans[f]
                low = DOWNGRADE.get(f)
                if low is not None and not removed >> low & 1:
                    fans[low] = 1


# ---------------------------------------------------------------------------------------------
# Waits


@_memo(131072)
def _sets_only(group: tuple[int, ...]) -> bool:
    """True if a group's counts (9 ranks of a suit, or 7 honors) split into pungs and chows
    (chows only in a suit). Shape only: a count of 5 is allowed."""
    i = 0
    n = len(group)
    while i < n and not group[i]:
        i += 1
    if i == n:
        return True
    c = group[i]
    if c >= 3:
        rest = list(group)
        rest[i] -= 3
        if _sets_only(tuple(rest)):
            return True
    if len(group) == 9 and i <= 6 and group[i + 1] and group[i + 2]:
        rest = list(group)
        rest[i] -= 1
        rest[i + 1] -= 1
        rest[i + 2] -= 1
        return _sets_only(tuple(rest))
    return False


@_memo(131072)
def _group_shape(group: tuple[int, ...]) -> int:
    """1 if the group splits into sets, 2 if into sets and one pair, else 0 (by its size mod
    3: 0 -> sets, 2 -> sets and a pair, 1 -> never)."""
    size = sum(group) % 3
    if size == 0:
        return 1 if _sets_only(group) else 0
    if size == 2:
        for r, c in enumerate(group):
            if c >= 2:
                rest = list(group)
                rest[r] -= 2
                if _sets_only(tuple(rest)):
                    return 2
    return 0


_GROUP_SLICES = ((0, 9), (9, 18), (18, 27), (27, 34))


def _is_regular_complete(counts: tuple[int, ...]) -> bool:
    """True if ``counts`` (``(34,)``, 3k + 2 tiles) splits into sets and one pair."""
    shapes = [_group_shape(counts[lo:hi]) for lo, hi in _GROUP_SLICES]
    return 0 not in shapes and shapes.count(2) == 1


def _regular_wait_kinds(standing: tuple[int, ...]) -> list[int]:
    """Tile kinds completing ``standing`` (``(34,)``, 3k + 1 tiles) as sets and a pair, shape
    only (a kind all four copies of which are held still counts, docs/rules.md §6b).

    The new tile must go to a group whose size is 1 mod 3 (it then needs a pair), or, when
    two groups have size 2 mod 3, to one of them (which then needs sets only, the other one
    the pair); every other group must split into sets by itself."""
    groups = [standing[lo:hi] for lo, hi in _GROUP_SLICES]
    sizes = [sum(g) % 3 for g in groups]
    if sizes.count(1) == 1 and sizes.count(0) == 3:
        targets = [(sizes.index(1), 2)]
    elif sizes.count(2) == 2 and sizes.count(0) == 2:
        targets = [(i, 1) for i in range(4) if sizes[i] == 2]
    else:
        return []
    out = []
    for g, need in targets:
        others_ok = all(
            _group_shape(groups[i]) == (3 - need if sizes[i] == 2 else 1)
            for i in range(4)
            if i != g
        )
        if not others_ok:
            continue
        group = groups[g]
        suited = g < 3
        pat = list(group)
        for r in range(len(group)):
            if suited:
                if not any(group[max(0, r - 2) : r + 3]):
                    continue  # an isolated tile completes nothing
            elif not group[r]:
                continue  # a lone honor completes nothing
            pat[r] += 1
            if _group_shape(tuple(pat)) == need:
                out.append(_GROUP_SLICES[g][0] + r)
            pat[r] -= 1
    return out


@_memo(65536)
def _waits_on_one_kind(standing: tuple[int, ...], n_melds: int) -> bool:
    """True when the 13-tile hand (``standing``: concealed counts) waits on exactly one kind,
    over every winning form (shape only, docs/rules.md §6b)."""
    kinds = set(_regular_wait_kinds(standing))
    if n_melds == 0:
        sp = seven_pairs_wait(standing)
        if sp >= 0:
            kinds.add(sp)
        kinds.update(_special_waits(standing))
    elif n_melds == 1:
        kinds.update(_knitted_waits(standing))
    return len(kinds) == 1


def _special_waits(standing: tuple[int, ...]) -> list[int]:
    """Tiles completing a 13-tile concealed hand as Thirteen Orphans, Honors and Knitted Tiles
    or Knitted Straight plus a set and a pair (shape only)."""
    out = []
    orphans = [standing[t] for t in THIRTEEN_ORPHANS_TILES]
    if sum(orphans) == 13:
        missing = [t for t, c in zip(THIRTEEN_ORPHANS_TILES, orphans) if c == 0]
        if not missing:
            out.extend(THIRTEEN_ORPHANS_TILES)
        elif len(missing) == 1:
            out.append(missing[0])
    if max(standing) == 1:
        held = {t for t in range(27) if standing[t]}
        for ks in KNITTED_STRAIGHTS:
            if held <= set(ks):
                # 13 distinct tiles of honors and one arrangement: any absent one completes
                out.extend(t for t in ks if not standing[t])
                out.extend(t for t in range(27, 34) if not standing[t])
    out.extend(_knitted_waits(standing))
    return out


def _knitted_waits(standing: tuple[int, ...]) -> list[int]:
    """Tiles completing Knitted Straight plus the remaining set(s) and pair (shape only)."""
    out = []
    for ks in KNITTED_STRAIGHTS:
        missing = [t for t in ks if not standing[t]]
        if len(missing) > 1:
            continue
        rest = list(standing)
        for t in ks:
            if rest[t]:
                rest[t] -= 1
        rest_t = tuple(rest)
        if missing:
            # the knitted tile is the only gap: the rest must already be sets and a pair
            if _is_regular_complete(rest_t):
                out.append(missing[0])
        else:
            out.extend(_regular_wait_kinds(rest_t))
    return out


# ---------------------------------------------------------------------------------------------
# Readings


def _situation(
    fans: dict[int, int],
    claimed: int,
    self_drawn: bool,
    last_tile: bool,
    wall_last: bool,
    robbing: bool,
    replacement: bool,
    melded_hand: bool = True,
) -> None:
    """Win-situation fans (docs/rules.md §6a 44-47, 53, 56, 58, 62, 80); ``melded_hand=False`` (the
    ``"mcr"`` profile with a promoted kong, docs/rules.md §7 item 7) withholds Melded Hand."""
    if self_drawn:
        fans[F.FULLY_CONCEALED_HAND if not claimed else F.SELF_DRAWN] = 1
        if wall_last:
            fans[F.LAST_TILE_DRAW] = 1
        if replacement:
            fans[F.OUT_WITH_REPLACEMENT_TILE] = 1
    else:
        if not claimed:
            fans[F.CONCEALED_HAND] = 1
        elif claimed == 4 and melded_hand:
            fans[F.MELDED_HAND] = 1
        if wall_last:
            fans[F.LAST_TILE_CLAIM] = 1
        if robbing:
            fans[F.ROBBING_THE_KONG] = 1
    if last_tile:
        fans[F.LAST_TILE] = 1


_KONG_FAN = {
    (1, 0): F.MELDED_KONG,
    (0, 1): F.CONCEALED_KONG,
    (2, 0): F.TWO_MELDED_KONGS,
    (0, 2): F.TWO_CONCEALED_KONGS,
    (1, 1): F.CONCEALED_KONG_AND_MELDED_KONG,
}
_CONCEALED_PUNG_FAN = {
    2: F.TWO_CONCEALED_PUNGS,
    3: F.THREE_CONCEALED_PUNGS,
    4: F.FOUR_CONCEALED_PUNGS,
}


def _finish(fans: dict[int, int], profile: str) -> tuple[int, dict[int, int]]:
    """Apply non-repeat, add Chicken Hand to an empty reading; ``(total, fans)`` in the points
    of ``profile``."""
    _apply_non_repeat(fans, profile)
    if not fans:
        fans[F.CHICKEN_HAND] = 1
    points = POINTS_ARRAY[profile]
    return sum([points[f] * c for f, c in fans.items()]), fans


def _single_wait(pair: int, win: int) -> int | None:
    """:func:`_wait_position` of a reading with no concealed set."""
    return F.SINGLE_WAIT if pair == win else None


def _wait_position(sets, pair: int, win: int) -> int | None:
    """The wait fan the winning tile's place in a reading's concealed sets allows: Edge (3 of
    12, 7 of 89) over Closed (middle of a chow) over Single (the pair); None if none."""
    fan = F.SINGLE_WAIT if pair == win else None
    for kind, t in sets:
        if kind == CHOW and t <= win <= t + 2:
            if (win == t + 2 and t % 9 == 0) or (win == t and t % 9 == 6):
                return F.EDGE_WAIT
            if win == t + 1:
                fan = F.CLOSED_WAIT
    return fan


@_memo(16384)
def _knitted_structure(
    ks: tuple[int, ...],
    sets: tuple[tuple[int, int], ...],
    meld_chows: tuple[int, ...],
    meld_pungs: tuple[int, ...],
    kongs: tuple[int, ...],
    pair: int,
) -> tuple[tuple[tuple[int, int], ...], int, tuple[int, ...]]:
    """A Knitted Straight reading (the nine knitted tiles ``ks`` standing in for three chows,
    one more set and a pair): its fans that do not depend on winds or the win (Knitted
    Straight, tile properties, Tile Hog, All Chows, Dragon Pung), the number of pungs of suit
    1s and 9s, and the wind indices of wind pungs."""
    fans: dict[int, int] = {F.KNITTED_STRAIGHT: 1}
    counts = [0] * 34
    for t in ks:
        counts[t] += 1
    counts[pair] += 2
    chows = list(meld_chows)
    pungs = list(meld_pungs)
    for kind, t in sets:
        (chows if kind == CHOW else pungs).append(t)
    for t in chows:
        counts[t] += 1
        counts[t + 1] += 1
        counts[t + 2] += 1
    for t in pungs:
        if t not in kongs:
            counts[t] += 3
    mask = 0
    for t in pungs:
        mask |= 1 << t
    for t in _KINDS:
        if counts[t]:
            mask |= 1 << t
    for f in _tile_property_fans(mask):
        fans[f] = 1
    hogs = sum(1 for c in counts if c == 4)
    if hogs:
        fans[F.TILE_HOG] = hogs
    if chows and _SUIT[pair] < 3:
        fans[F.ALL_CHOWS] = 1
    if any(_SUIT[t] == 4 for t in pungs):
        fans[F.DRAGON_PUNG] = 1
    terminal_pungs = sum(1 for t in pungs if (_M_TERMINAL >> t) & 1)
    winds = tuple(t - 27 for t in pungs if _SUIT[t] == 3)
    return _plain(fans), terminal_pungs, winds


def evaluate(
    standing: tuple[int, ...],
    win: int,
    melds: tuple[tuple[int, int], ...],
    self_drawn: bool,
    fourth: bool,
    wall_last: bool,
    about_kong: bool,
    seat: int,
    prevalent: int,
    profile: str = "botzone",
) -> dict[int, int] | None:
    """Fans of the best reading of a complete hand, ``{fan value: count}``, in ``profile``.

    Args: as :func:`readings`.

    Returns:
        The fans (Flower Tiles excluded) of the preferred reading (:func:`_preferred`:
        highest total in the profile's points, ties as PyMahjongGB 1.4.0 breaks them), or
        None when the tiles form no winning reading.
    """
    found = readings(
        standing, win, melds, self_drawn, fourth, wall_last, about_kong, seat, prevalent, profile
    )
    if not found:
        return None
    return found[_preferred(found)][1]


def _preferred(found: list[tuple[int, dict[int, int]]]) -> int:
    """Index of the reading to score among :func:`readings` (docs/rules.md §5, high over low).

    The highest total wins. Among readings with that total, the *last* one holding Pure Triple
    Chow or Triple Pung is taken if there is one, else the first. Found by experiment against
    PyMahjongGB 1.4.0 (every tie in several 10^5-hand runs and targeted one-suit searches):
    e.g. 222333444p + 234m + pair scores Pure Triple Chow + All Chows rather than Pure Shifted
    Pungs + Two Concealed Pungs (both 27), a regular reading beats Seven Pairs of equal total,
    and 66 7 88 99s + 7s with melded 678s and 789s scores the 789s reading (Edge Wait) over the
    678s one (Closed Wait), both Pure Triple Chow.
    """
    top = max(total for total, _ in found)
    best = -1
    for i, (total, fans) in enumerate(found):
        if total != top:
            continue
        if best < 0 or F.PURE_TRIPLE_CHOW in fans or F.TRIPLE_PUNG in fans:
            best = i
    return best


def readings(
    standing: tuple[int, ...],
    win: int,
    melds: tuple[tuple[int, int], ...],
    self_drawn: bool,
    fourth: bool,
    wall_last: bool,
    about_kong: bool,
    seat: int,
    prevalent: int,
    profile: str = "botzone",
) -> list[tuple[int, dict[int, int]]]:
    """Every winning reading of a hand with its fans after non-repeat, in a fixed order.

    Args:
        standing: ``(34,)`` counts of the concealed tiles without the winning tile.
        win: winning tile id. melds: ``(kind, tile)`` with kind :data:`MELD_CHOW` (tile =
            lowest tile), :data:`MELD_PUNG`, :data:`MELD_KONG`, :data:`MELD_CONCEALED_KONG`
            or :data:`MELD_PROMOTED_KONG`.
        self_drawn, fourth, wall_last, about_kong: win flags of
            :func:`mcr_env.scoring.score_win`. seat, prevalent: winds 0-3.
        profile: ``"botzone"`` (default, PyMahjongGB 1.4.0) or ``"mcr"`` (docs/rules.md
            section 7).

    Returns:
        ``(total points in the profile, {fan value: count})`` per reading: the regular divisions in
        :func:`~mcr_env.scoring.decompose.regular_divisions` order, then the Knitted Straight
        readings, then the special form (Seven Pairs, Thirteen Orphans, Honors and Knitted
        Tiles). Empty when the hand is not a win.
    """
    counts = list(standing)
    counts[win] += 1
    counts14 = tuple(counts)
    meld_chows: list[int] = []
    meld_pungs: list[int] = []
    kongs: list[int] = []
    claimed = melded_kongs = concealed_kongs = shown = 0
    promoted = False
    for kind, t in melds:
        if kind == MELD_CHOW:
            meld_chows.append(t)
            claimed += 1
            if t <= win <= t + 2:
                shown += 1
        elif kind == MELD_PUNG:
            meld_pungs.append(t)
            claimed += 1
            if t == win:
                shown += 3
        else:
            kongs.append(t)
            meld_pungs.append(t)
            if kind == MELD_CONCEALED_KONG:
                concealed_kongs += 1
            else:
                melded_kongs += 1
                claimed += 1
                promoted = promoted or kind == MELD_PROMOTED_KONG
    kongs_t = tuple(sorted(kongs))
    n_melds = len(melds)

    # Copies of the winning tile elsewhere in the hand decide Last Tile and Robbing The Kong:
    # a copy held concealed contradicts both; three copies in one's own melds make the winning
    # tile the last one whatever the flag says (PyMahjongGB 1.4.0).
    held = standing[win]
    last_tile = (fourth and not held) or shown == 3
    robbing = about_kong and not held and not shown
    replacement = about_kong and bool(kongs)
    mcr = profile == "mcr"
    base: dict[int, int] = {}
    _situation(
        base,
        claimed,
        self_drawn,
        last_tile,
        wall_last,
        robbing,
        replacement,
        melded_hand=not (mcr and promoted),  # docs/rules.md §7 item 7
    )
    n_kongs = melded_kongs + concealed_kongs
    if n_kongs >= 3:
        base[F.FOUR_KONGS if n_kongs == 4 else F.THREE_KONGS] = 1
    elif mcr and melded_kongs == concealed_kongs == 1:
        # docs/rules.md §7 item 2: one melded + one concealed kong
        base[F.TWO_MELDED_KONGS] = 1
        base[F.CONCEALED_KONG] = 1
    elif n_kongs:
        base[_KONG_FAN[melded_kongs, concealed_kongs]] = 1

    out: list[tuple[int, dict[int, int]]] = []
    one_wait: bool | None = None
    nine_gates = n_melds == 0 and _is_nine_gates(standing)

    meld_chows_t = tuple(sorted(meld_chows))
    meld_pungs_t = tuple(sorted(meld_pungs))
    for sets, pair in regular_divisions(counts14):
        concealed_pungs = concealed_kongs
        if sets:
            chows = list(meld_chows)
            pungs = list(meld_pungs)
            win_in_pung = win_in_chow = False
            for kind, t in sets:
                if kind == CHOW:
                    chows.append(t)
                    if t <= win <= t + 2:
                        win_in_chow = True
                else:
                    pungs.append(t)
                    concealed_pungs += 1
                    if t == win:
                        win_in_pung = True
            if win_in_pung and not self_drawn and not win_in_chow:
                concealed_pungs -= 1  # completed by a discard: a melded pung (docs/rules.md §6b)
            chows.sort()
            pungs.sort()
            chows_t = tuple(chows)
            pungs_t = tuple(pungs)
        else:  # four melds and the pair
            chows_t = meld_chows_t
            pungs_t = meld_pungs_t
        sfans, terminal_pungs, winds, wind_group = _structure(chows_t, pungs_t, kongs_t, pair)
        fans = base.copy()
        fans.update(sfans)
        if concealed_pungs >= 2:
            fans[_CONCEALED_PUNG_FAN[min(concealed_pungs, 4)]] = 1
        if winds or terminal_pungs:
            _pung_fans(fans, terminal_pungs - nine_gates, winds, wind_group, seat, prevalent)
        if nine_gates:
            fans[F.NINE_GATES] = 1
        wait_fan = _wait_position(sets, pair, win) if sets else _single_wait(pair, win)
        if wait_fan is not None:
            if one_wait is None:
                one_wait = _waits_on_one_kind(standing, n_melds)
            if one_wait:
                fans[wait_fan] = 1
        out.append(_finish(fans, profile))

    if n_melds <= 1 and all(counts14[r] or counts14[r + 9] or counts14[r + 18] for r in range(9)):
        for ks in KNITTED_STRAIGHTS:
            if not all(counts14[t] for t in ks):
                continue
            rest = list(counts14)
            for t in ks:
                rest[t] -= 1
            for sets, pair in regular_divisions(tuple(rest)):
                kfans, terminal_pungs, winds = _knitted_structure(
                    ks, sets, tuple(meld_chows), tuple(meld_pungs), kongs_t, pair
                )
                fans = dict(base)
                fans.update(kfans)
                _pung_fans(fans, terminal_pungs, winds, False, seat, prevalent)
                wait_fan = _wait_position(sets, pair, win)
                if wait_fan is not None:
                    if one_wait is None:
                        one_wait = _waits_on_one_kind(standing, n_melds)
                    if one_wait:
                        fans[wait_fan] = 1
                out.append(_finish(fans, profile))

    if n_melds == 0:
        special = _special_form(counts14)
        if special is not None:
            fans = dict(base)
            fans.update(special)
            out.append(_finish(fans, profile))
    return out


def _pung_fans(
    fans: dict[int, int],
    terminal_pungs: int,
    winds: tuple[int, ...],
    wind_group: bool,
    seat: int,
    prevalent: int,
) -> None:
    """Prevalent Wind, Seat Wind and Pung of Terminals or Honors (docs/rules.md §6a 59-61, 73): a
    wind pung counts as a Pung of Terminals or Honors only when neither wind fan nor a
    wind-group fan already counts it."""
    th = terminal_pungs
    for w in winds:
        if w == prevalent:
            fans[F.PREVALENT_WIND] = 1
        if w == seat:
            fans[F.SEAT_WIND] = 1
        if not wind_group and w != prevalent and w != seat:
            th += 1
    if th > 0:
        fans[F.PUNG_OF_TERMINALS_OR_HONORS] = th


def _is_nine_gates(standing: tuple[int, ...]) -> bool:
    """1112345678999 of one suit held concealed (docs/rules.md §6a; melds are checked by the
    caller)."""
    for s in range(3):
        if standing[9 * s : 9 * s + 9] == (3, 1, 1, 1, 1, 1, 1, 1, 3):
            return True
    return False


@_memo(16384)
def _special_form(counts14: tuple[int, ...]) -> tuple[tuple[int, int], ...] | None:
    """Fans of Seven Pairs, Thirteen Orphans or Honors and Knitted Tiles (14 concealed tiles),
    situation fans excluded; None when the tiles are none of them."""
    mask = 0
    for t in _KINDS:
        if counts14[t]:
            mask |= 1 << t
    if all(c in (0, 2, 4) for c in counts14):
        fans: dict[int, int] = {F.SEVEN_PAIRS: 1}
        for f in _tile_property_fans(mask):
            fans[f] = 1
        hogs = sum(1 for c in counts14 if c == 4)
        if hogs:
            fans[F.TILE_HOG] = hogs
        kinds = [t for t in _KINDS if counts14[t]]
        if len(kinds) == 7 and kinds[6] < 27 and kinds[0] // 9 == kinds[6] // 9:
            if kinds[6] - kinds[0] == 6:
                fans[F.SEVEN_SHIFTED_PAIRS] = 1
        return _plain(fans)
    if all(counts14[t] for t in THIRTEEN_ORPHANS_TILES) and not mask & ~_M_ORPHANS:
        return ((int(F.THIRTEEN_ORPHANS), 1),)
    if max(counts14) == 1:
        suited = mask & ((1 << 27) - 1)
        for ks in KNITTED_STRAIGHTS:
            ks_mask = sum(1 << t for t in ks)
            if not suited & ~ks_mask:
                fans = {}
                if (mask & _M_HONOR) == _M_HONOR:
                    fans[F.GREATER_HONORS_AND_KNITTED_TILES] = 1
                else:
                    fans[F.LESSER_HONORS_AND_KNITTED_TILES] = 1
                if suited == ks_mask:
                    fans[F.KNITTED_STRAIGHT] = 1
                for f in _tile_property_fans(mask):
                    fans[f] = 1
                return _plain(fans)
    return None

"""Decomposition of a winning hand (docs/rules.md §2, "A winning hand"; section 6b).

A *regular* hand is four sets (chow, pung, kong) and a pair; the concealed part is split here,
melds are fixed. The special forms are Seven Pairs, Thirteen Orphans, Lesser/Greater Honors and
Knitted Tiles, and Knitted Straight standing in for three chows.

Representation used throughout the scorer:

* ``counts``: a tuple of 34 ints, tile counts by tile id (``mcr_env.tiles`` order).
* a concealed *set* is ``(kind, tile)`` with ``kind`` :data:`PUNG` (``tile`` = the pung's tile)
  or :data:`CHOW` (``tile`` = the lowest tile of the chow).
* a *division* is ``(sets, pair_tile)`` with ``sets`` a tuple of concealed sets sorted by
  ``(tile, kind)``.

Suits are decomposed separately (cached by the suit's 9-count pattern) and combined, so a hand
costs a few dictionary look-ups once the patterns have been seen.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import product

PUNG = 0
"""Set kind: pung (three identical tiles)."""
CHOW = 1
"""Set kind: chow (three consecutive suit tiles); the set's tile is its lowest tile."""

THIRTEEN_ORPHANS_TILES = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
"""The 13 terminal and honor kinds of Thirteen Orphans (tile ids)."""

HONOR_TILES = (27, 28, 29, 30, 31, 32, 33)


def _knitted(a: int, b: int, c: int) -> tuple[int, ...]:
    # ranks 1,4,7 in suit a; 2,5,8 in suit b; 3,6,9 in suit c -- sorted by tile id.
    return tuple(
        sorted(
            [9 * a + r for r in (0, 3, 6)]
            + [9 * b + r for r in (1, 4, 7)]
            + [9 * c + r for r in (2, 5, 8)]
        )
    )


KNITTED_STRAIGHTS = tuple(
    _knitted(a, b, c)
    for a, b, c in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
)
"""The six knitted arrangements (147/258/369 over the three suits), 9 tile ids each, sorted."""


# ---------------------------------------------------------------------------------------------
# Per-suit decomposition


@cache
def suit_decompositions(
    pattern: tuple[int, ...],
) -> tuple[tuple[tuple[tuple[int, int], ...], int], ...]:
    """All ways to split one suit's counts into sets and at most one pair.

    Args:
        pattern: ``(9,)`` counts of ranks 1-9 of one suit (ints >= 0).

    Returns:
        Distinct ``(sets, pair_rank)`` with ``sets`` a sorted tuple of ``(kind, rank_index)``
        (rank_index 0-8; for a chow its lowest rank) and ``pair_rank`` the pair's rank index or
        -1 when this suit holds no pair.
    """
    out: set[tuple[tuple[tuple[int, int], ...], int]] = set()
    counts = list(pattern)

    def rec(i: int, sets: list[tuple[int, int]], pair: int) -> None:
        while i < 9 and counts[i] == 0:
            i += 1
        if i == 9:
            out.add((tuple(sorted(sets, key=lambda s: (s[1], s[0]))), pair))
            return
        c = counts[i]
        if pair < 0 and c >= 2:
            counts[i] -= 2
            rec(i, sets, i)
            counts[i] += 2
        if c >= 3:
            counts[i] -= 3
            sets.append((PUNG, i))
            rec(i, sets, pair)
            sets.pop()
            counts[i] += 3
        if i <= 6 and counts[i + 1] and counts[i + 2]:
            counts[i] -= 1
            counts[i + 1] -= 1
            counts[i + 2] -= 1
            sets.append((CHOW, i))
            rec(i, sets, pair)
            sets.pop()
            counts[i] += 1
            counts[i + 1] += 1
            counts[i + 2] += 1

    rec(0, [], -1)
    return tuple(sorted(out))


def _honor_decomposition(
    pattern: tuple[int, ...],
) -> tuple[tuple[tuple[int, int], ...], int] | None:
    """Honors form only pungs and one pair: ``(sets, pair_index)`` or None."""
    sets = []
    pair = -1
    for i, c in enumerate(pattern):
        if c == 0:
            continue
        if c == 3:
            sets.append((PUNG, i))
        elif c == 2 and pair < 0:
            pair = i
        else:
            return None
    return tuple(sets), pair


@lru_cache(maxsize=1 << 16)
def regular_divisions(
    counts: tuple[int, ...],
) -> tuple[tuple[tuple[tuple[int, int], ...], int], ...]:
    """All distinct divisions of concealed tiles into sets and exactly one pair.

    Args:
        counts: ``(34,)`` tile counts of the concealed tiles including the winning tile
            (``14 - 3 * melds`` tiles).

    Returns:
        Tuple of divisions ``(sets, pair_tile)``; ``sets`` holds ``(kind, tile)`` sorted by
        ``(tile, kind)`` with pungs before chows on the same tile. Divisions are ordered by that
        sorted sequence (the order a depth-first split visits them), which fixes which of
        several equal-valued readings is reported.
    """
    honors = _honor_decomposition(counts[27:34])
    if honors is None:
        return ()
    per_suit = []
    for s in range(3):
        pat = counts[9 * s : 9 * s + 9]
        if any(pat):
            d = suit_decompositions(pat)
            if not d:
                return ()
            per_suit.append((9 * s, d))
    results = []
    for combo in product(*(d for _, d in per_suit)):
        pair = honors[1] + 27 if honors[1] >= 0 else -1
        n_pairs = 1 if pair >= 0 else 0
        sets: list[tuple[int, int]] = []
        for (base, _), (ssets, spair) in zip(per_suit, combo):
            if spair >= 0:
                n_pairs += 1
                pair = base + spair
            sets.extend((k, base + r) for k, r in ssets)
        if n_pairs != 1:
            continue
        sets.extend((k, 27 + i) for k, i in honors[0])
        sets.sort(key=lambda s: (s[1], s[0]))
        results.append((tuple(sets), pair))
    results.sort(key=lambda d: [(t, k) for k, t in d[0]])
    return tuple(results)


# ---------------------------------------------------------------------------------------------
# Completeness and waits (shape only: a fifth copy of a tile is allowed)


@cache
def _suit_shape(pattern: tuple[int, ...]) -> int:
    """Bit 1: the suit splits into sets only; bit 2: into sets and one pair."""
    flags = 0
    for _, pair in suit_decompositions(pattern):
        flags |= 2 if pair >= 0 else 1
    return flags


def _honor_shape(pattern: tuple[int, ...]) -> int:
    d = _honor_decomposition(pattern)
    if d is None:
        return 0
    return 2 if d[1] >= 0 else 1


def _shape_flags(counts: tuple[int, ...]) -> tuple[int, int, int, int]:
    return (
        _suit_shape(counts[0:9]),
        _suit_shape(counts[9:18]),
        _suit_shape(counts[18:27]),
        _honor_shape(counts[27:34]),
    )


def _complete_from_flags(flags: tuple[int, ...] | list[int]) -> bool:
    # every group splits; exactly one group takes the pair.
    pair_groups = 0
    for f in flags:
        if f == 0:
            return False
        if not f & 1:
            pair_groups += 1
    if pair_groups > 1:
        return False
    if pair_groups == 1:
        return True
    return any(f & 2 for f in flags)


def is_regular_complete(counts: tuple[int, ...]) -> bool:
    """True if ``counts`` (``(34,)`` ints, ``3k + 2`` tiles) splits into sets and one pair."""
    return _complete_from_flags(_shape_flags(counts))


@cache
def _group_wait_flags(pattern: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """``(index, shape flags after adding that tile)`` for each tile of a suit (9 counts) or of
    the honors (7 counts) whose addition leaves the group splittable."""
    out = []
    suited = len(pattern) == 9
    pat = list(pattern)
    for i in range(len(pattern)):
        if suited:
            lo, hi = max(0, i - 2), min(8, i + 2)
            if not any(pattern[lo : hi + 1]):
                continue  # an isolated tile never completes anything
        elif not pattern[i]:
            continue
        pat[i] += 1
        t = tuple(pat)
        f = _suit_shape(t) if suited else _honor_shape(t)
        pat[i] -= 1
        if f:
            out.append((i, f))
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def regular_waits(counts: tuple[int, ...]) -> tuple[int, ...]:
    """Tile kinds that complete ``counts`` (``3k + 1`` concealed tiles) as sets and a pair.

    Shape only: a kind all four copies of which are already held still counts as a wait
    (docs/rules.md §6b, wait fans).

    Args:
        counts: ``(34,)`` tile counts.

    Returns:
        Sorted tile ids.
    """
    flags = list(_shape_flags(counts))
    out = []
    for group in range(4):
        lo = 9 * group
        candidates = _group_wait_flags(counts[lo : lo + 9] if group < 3 else counts[27:34])
        if not candidates:
            continue
        saved = flags[group]
        for i, f in candidates:
            flags[group] = f
            if _complete_from_flags(flags):
                out.append(lo + i)
        flags[group] = saved
    return tuple(out)


def seven_pairs_wait(counts: tuple[int, ...]) -> int:
    """The tile a 13-tile hand waits on for Seven Pairs, or -1 if it is not one tile away.

    Four identical tiles count as two pairs (docs/rules.md §2)."""
    pairs = 0
    single = -1
    for t, c in enumerate(counts):
        pairs += c // 2
        if c & 1:
            if single >= 0:
                return -1
            single = t
    return single if pairs == 6 else -1


# ---------------------------------------------------------------------------------------------
# Special forms (14 concealed tiles, no melds)


def is_seven_pairs(counts: tuple[int, ...]) -> bool:
    """Seven pairs (four identical tiles may be two pairs); ``counts`` holds 14 tiles."""
    return all(c in (0, 2, 4) for c in counts) and sum(counts) == 14


def is_thirteen_orphans(counts: tuple[int, ...]) -> bool:
    """One of each terminal and honor plus a second of one of them (14 tiles)."""
    if sum(counts) != 14:
        return False
    if any(counts[t] == 0 for t in THIRTEEN_ORPHANS_TILES):
        return False
    return sum(counts[t] for t in THIRTEEN_ORPHANS_TILES) == 14


def honors_and_knitted(counts: tuple[int, ...]) -> tuple[bool, bool, bool]:
    """Lesser/Greater Honors and Knitted Tiles on 14 concealed tiles.

    Returns:
        ``(is_form, is_greater, has_knitted_straight)``: 14 distinct tiles made of honors and
        7-9 tiles of one knitted arrangement; greater when all seven honors are present;
        knitted straight when all nine knitted tiles are present.
    """
    if sum(counts) != 14 or any(c > 1 for c in counts):
        return False, False, False
    suited = [t for t in range(27) if counts[t]]
    if not 7 <= len(suited) <= 9:
        return False, False, False
    ss = set(suited)
    if not any(ss <= set(k) for k in KNITTED_STRAIGHTS):
        return False, False, False
    return True, len(suited) == 7, len(suited) == 9


def knitted_straight_split(
    counts: tuple[int, ...],
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Find a knitted arrangement held in ``counts`` and return it with the remaining counts.

    Returns:
        ``(knitted_tiles, remaining_counts)`` or None when no arrangement is fully held.
    """
    for k in KNITTED_STRAIGHTS:
        if all(counts[t] for t in k):
            rest = list(counts)
            for t in k:
                rest[t] -= 1
            return k, tuple(rest)
    return None

"""Exact MCR fan scoring of a winning hand: :func:`score_win` (RULES.md sections 5-7).

The fan rules follow PyMahjongGB 1.4.0 (RULES.md: "where this page is silent on a scoring
detail, the arbiter is PyMahjongGB 1.4.0"), re-implemented here. Scoring is a pure function of
its arguments: no RNG, no game state.

Internally tiles are written in a *gapped* code so that tile arithmetic never crosses a suit:
characters 1-9 -> 1..9, bamboo -> 11..19, dots -> 21..29, winds E S W N -> 31..34, dragons
C F P (red, green, white) -> 35..37. A *pack* is ``(ptype, g, melded)`` with ptype
:data:`_CHOW` (g = middle tile), :data:`_PUNG`, :data:`_KONG` or :data:`_PAIR`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

from mcr_env.scoring.decompose import (
    CHOW,
    honors_and_knitted,
    is_seven_pairs,
    is_thirteen_orphans,
    knitted_straight_split,
    regular_divisions,
    regular_waits,
    seven_pairs_wait,
)
from mcr_env.scoring.fans import FAN_NAMES, NUM_FANS, POINTS_ARRAY, PROFILES, Fan
from mcr_env.tiles import FLOWER_BASE, code_to_tile, parse_tiles

__all__ = ["FanResult", "ScoreResult", "score_win", "MELD_KINDS"]

MELD_KINDS = ("CHI", "PENG", "GANG", "ANGANG", "BUGANG")
"""Accepted meld kinds; ``"BUGANG"`` (a pung promoted to a kong) scores as a melded kong."""

_CHOW, _PUNG, _KONG, _PAIR = 1, 2, 3, 4

# gapped code of each tile id
_G = tuple([t + t // 9 + 1 for t in range(27)] + [t + 4 for t in range(27, 34)])
_E, _S, _W, _N, _C, _F, _P = 31, 32, 33, 34, 35, 36, 37
_GREEN = frozenset({12, 13, 14, 16, 18, _F})
_REVERSIBLE = frozenset({21, 22, 23, 24, 25, 28, 29, 12, 14, 15, 16, 18, 19, _P})

F = Fan
_N_TABLE = NUM_FANS + 1
(
    BIG_FOUR_WINDS,
    BIG_THREE_DRAGONS,
    ALL_GREEN,
    NINE_GATES,
    FOUR_KONGS,
    SEVEN_SHIFTED_PAIRS,
    THIRTEEN_ORPHANS,
    ALL_TERMINALS,
    LITTLE_FOUR_WINDS,
    LITTLE_THREE_DRAGONS,
    ALL_HONORS,
    FOUR_CONCEALED_PUNGS,
    PURE_TERMINAL_CHOWS,
    QUADRUPLE_CHOW,
    FOUR_PURE_SHIFTED_PUNGS,
    FOUR_PURE_SHIFTED_CHOWS,
    THREE_KONGS,
    ALL_TERMINALS_AND_HONORS,
    SEVEN_PAIRS,
    GREATER_HONORS_AND_KNITTED_TILES,
    ALL_EVEN_PUNGS,
    FULL_FLUSH,
    PURE_TRIPLE_CHOW,
    PURE_SHIFTED_PUNGS,
    UPPER_TILES,
    MIDDLE_TILES,
    LOWER_TILES,
    PURE_STRAIGHT,
    THREE_SUITED_TERMINAL_CHOWS,
    PURE_SHIFTED_CHOWS,
    ALL_FIVE,
    TRIPLE_PUNG,
    THREE_CONCEALED_PUNGS,
    LESSER_HONORS_AND_KNITTED_TILES,
    KNITTED_STRAIGHT,
    UPPER_FOUR,
    LOWER_FOUR,
    BIG_THREE_WINDS,
    MIXED_STRAIGHT,
    REVERSIBLE_TILES,
    MIXED_TRIPLE_CHOW,
    MIXED_SHIFTED_PUNGS,
    CHICKEN_HAND,
    LAST_TILE_DRAW,
    LAST_TILE_CLAIM,
    OUT_WITH_REPLACEMENT_TILE,
    ROBBING_THE_KONG,
    TWO_CONCEALED_KONGS,
    ALL_PUNGS,
    HALF_FLUSH,
    MIXED_SHIFTED_CHOWS,
    ALL_TYPES,
    MELDED_HAND,
    TWO_DRAGONS_PUNGS,
    OUTSIDE_HAND,
    FULLY_CONCEALED_HAND,
    TWO_MELDED_KONGS,
    LAST_TILE,
    DRAGON_PUNG,
    PREVALENT_WIND,
    SEAT_WIND,
    CONCEALED_HAND,
    ALL_CHOWS,
    TILE_HOG,
    DOUBLE_PUNG,
    TWO_CONCEALED_PUNGS,
    CONCEALED_KONG,
    ALL_SIMPLES,
    PURE_DOUBLE_CHOW,
    MIXED_DOUBLE_CHOW,
    SHORT_STRAIGHT,
    TWO_TERMINAL_CHOWS,
    PUNG_OF_TERMINALS_OR_HONORS,
    MELDED_KONG,
    ONE_VOIDED_SUIT,
    NO_HONORS,
    EDGE_WAIT,
    CLOSED_WAIT,
    SINGLE_WAIT,
    SELF_DRAWN,
    FLOWER_TILES,
    CONCEALED_KONG_AND_MELDED_KONG,
) = range(1, _N_TABLE)
del F


# ---------------------------------------------------------------------------------------------
# Result types


@dataclass(frozen=True)
class FanResult:
    """One scored fan: ``points`` per occurrence, ``count`` occurrences (>= 1)."""

    fan: Fan
    name: str
    points: int
    count: int


@dataclass(frozen=True)
class ScoreResult:
    """Result of :func:`score_win`.

    Attributes:
        fans: the scored fans in :class:`Fan` order (Flower Tiles included when flowers > 0).
        total: points including flowers (what settlement uses, RULES.md section 3).
        total_without_flowers: points excluding flowers (the 8-point minimum applies to this).
        is_legal_win: ``total_without_flowers >= 8`` (RULES.md section 2).
    """

    fans: tuple[FanResult, ...]
    total: int
    total_without_flowers: int
    is_legal_win: bool

    def as_dict(self) -> dict[str, int]:
        """``{fan name: count}`` of the scored fans (Flower Tiles included)."""
        return {f.name: f.count for f in self.fans}


# ---------------------------------------------------------------------------------------------
# Fan helpers on gapped codes


def _is_honor(g: int) -> bool:
    return g > 30


def _is_terminal(g: int) -> bool:
    return g < 30 and g % 10 in (1, 9)


def _is_wind(g: int) -> bool:
    return 31 <= g <= 34


def _is_dragon(g: int) -> bool:
    return g >= 35


def _shifted1_unordered(a: int, b: int, c: int) -> bool:
    lo = min(a, b, c)
    return sorted((a, b, c)) == [lo, lo + 1, lo + 2]


def _four_chows_fan(t0: int, t1: int, t2: int, t3: int) -> int:
    if (t0 + 2 == t1 and t1 + 2 == t2 and t2 + 2 == t3) or (
        t0 + 1 == t1 and t1 + 1 == t2 and t2 + 1 == t3
    ):
        return FOUR_PURE_SHIFTED_CHOWS
    if t0 == t1 == t2 == t3:
        return QUADRUPLE_CHOW
    return 0


def _three_chows_fan(t0: int, t1: int, t2: int) -> int:
    s0, s1, s2 = t0 // 10, t1 // 10, t2 // 10
    r0, r1, r2 = t0 % 10, t1 % 10, t2 % 10
    if s0 != s1 and s0 != s2 and s1 != s2:
        if _shifted1_unordered(r0, r1, r2):
            return MIXED_SHIFTED_CHOWS
        if r0 == r1 == r2:
            return MIXED_TRIPLE_CHOW
        if sorted((r0, r1, r2)) == [2, 5, 8]:
            return MIXED_STRAIGHT
    else:
        if t0 + 3 == t1 and t1 + 3 == t2:
            return PURE_STRAIGHT
        if (t0 + 2 == t1 and t1 + 2 == t2) or (t0 + 1 == t1 and t1 + 1 == t2):
            return PURE_SHIFTED_CHOWS
        if t0 == t1 == t2:
            return PURE_TRIPLE_CHOW
    return 0


def _two_chows_fan(t0: int, t1: int) -> int:
    if t0 // 10 != t1 // 10:
        if t0 % 10 == t1 % 10:
            return MIXED_DOUBLE_CHOW
        return 0
    if t0 + 3 == t1 or t1 + 3 == t0:
        return SHORT_STRAIGHT
    r0, r1 = t0 % 10, t1 % 10
    if (r0 == 2 and r1 == 8) or (r0 == 8 and r1 == 2):
        return TWO_TERMINAL_CHOWS
    if t0 == t1:
        return PURE_DOUBLE_CHOW
    return 0


def _four_pungs_fan(t0: int, t1: int, t2: int, t3: int) -> int:
    if t0 < 30 and t0 + 1 == t1 and t1 + 1 == t2 and t2 + 1 == t3:
        return FOUR_PURE_SHIFTED_PUNGS
    if t0 == _E and t1 == _S and t2 == _W and t3 == _N:
        return BIG_FOUR_WINDS
    return 0


_THREE_WINDS = {(_E, _S, _W), (_E, _S, _N), (_E, _W, _N), (_S, _W, _N)}


def _three_pungs_fan(t0: int, t1: int, t2: int) -> int:
    if t0 < 30 and t1 < 30 and t2 < 30:
        s0, s1, s2 = t0 // 10, t1 // 10, t2 // 10
        r0, r1, r2 = t0 % 10, t1 % 10, t2 % 10
        if s0 != s1 and s0 != s2 and s1 != s2:
            if _shifted1_unordered(r0, r1, r2):
                return MIXED_SHIFTED_PUNGS
            if r0 == r1 == r2:
                return TRIPLE_PUNG
        elif t0 + 1 == t1 and t1 + 1 == t2:
            return PURE_SHIFTED_PUNGS
    else:
        if (t0, t1, t2) in _THREE_WINDS:
            return BIG_THREE_WINDS
        if t0 == _C and t1 == _F and t2 == _P:
            return BIG_THREE_DRAGONS
    return 0


def _two_pungs_fan(t0: int, t1: int) -> int:
    if t0 < 30 and t1 < 30:
        if t0 % 10 == t1 % 10:
            return DOUBLE_PUNG
    elif t0 >= 35 and t1 >= 35:
        return TWO_DRAGONS_PUNGS
    return 0


def _one_chow_extra_fan(t0: int, t1: int, t2: int, extra: int) -> int:
    fans = (_two_chows_fan(t0, extra), _two_chows_fan(t1, extra), _two_chows_fan(t2, extra))
    for f in (PURE_DOUBLE_CHOW, MIXED_DOUBLE_CHOW, SHORT_STRAIGHT, TWO_TERMINAL_CHOWS):
        if f in fans:
            return f
    return 0


def _exclusionary_rule(all_fans: list[int], max_cnt: int, table: list[int]) -> None:
    # "account once" / "non-identical": keep at most max_cnt of the pairwise chow fans,
    # trimming duplicates first, starting from Two Terminal Chows.
    counts = [0, 0, 0, 0]
    cnt = 0
    for f in all_fans:
        if f:
            cnt += 1
            counts[f - PURE_DOUBLE_CHOW] += 1
    limit = 1
    while cnt > max_cnt and limit >= 0:
        idx = 4
        while cnt > max_cnt and idx > 0:
            idx -= 1
            while counts[idx] > limit and cnt > max_cnt:
                counts[idx] -= 1
                cnt -= 1
        limit -= 1
    table[PURE_DOUBLE_CHOW] = counts[0]
    table[MIXED_DOUBLE_CHOW] = counts[1]
    table[SHORT_STRAIGHT] = counts[2]
    table[TWO_TERMINAL_CHOWS] = counts[3]


def _calc_4_chows(m: list[int], table: list[int]) -> None:
    f = _four_chows_fan(m[0], m[1], m[2], m[3])
    if f:
        table[f] = 1
        return
    for a, b, c, d in ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)):
        f = _three_chows_fan(m[a], m[b], m[c])
        if f:
            table[f] = 1
            f = _one_chow_extra_fan(m[a], m[b], m[c], m[d])
            if f:
                table[f] = 1
            return
    af = [
        _two_chows_fan(m[0], m[1]),
        _two_chows_fan(m[0], m[2]),
        _two_chows_fan(m[0], m[3]),
        _two_chows_fan(m[1], m[2]),
        _two_chows_fan(m[1], m[3]),
        _two_chows_fan(m[2], m[3]),
    ]
    max_cnt = 3
    if not (af[0] or af[1] or af[2]):
        max_cnt -= 1
    if not (af[0] or af[3] or af[4]):
        max_cnt -= 1
    if not (af[1] or af[3] or af[5]):
        max_cnt -= 1
    if not (af[2] or af[4] or af[5]):
        max_cnt -= 1
    if max_cnt > 0:
        _exclusionary_rule(af, max_cnt, table)


def _calc_3_chows(m: list[int], table: list[int]) -> None:
    f = _three_chows_fan(m[0], m[1], m[2])
    if f:
        table[f] = 1
        return
    af = [_two_chows_fan(m[0], m[1]), _two_chows_fan(m[0], m[2]), _two_chows_fan(m[1], m[2])]
    _exclusionary_rule(af, 2, table)


def _calc_kongs(pungs: list[tuple[int, int, bool]], table: list[int]) -> None:
    melded_kong = concealed_kong = concealed_pung = 0
    for ptype, _, melded in pungs:
        if melded:
            if ptype == _KONG:
                melded_kong += 1
        elif ptype == _KONG:
            concealed_kong += 1
        else:
            concealed_pung += 1
    kongs = melded_kong + concealed_kong
    if kongs == 0:
        if concealed_pung == 2:
            table[TWO_CONCEALED_PUNGS] = 1
        elif concealed_pung == 3:
            table[THREE_CONCEALED_PUNGS] = 1
        elif concealed_pung == 4:
            table[FOUR_CONCEALED_PUNGS] = 1
    elif kongs == 1:
        if melded_kong == 1:
            table[MELDED_KONG] = 1
            if concealed_pung == 2:
                table[TWO_CONCEALED_PUNGS] = 1
            elif concealed_pung == 3:
                table[THREE_CONCEALED_PUNGS] = 1
        else:
            table[CONCEALED_KONG] = 1
            if concealed_pung == 1:
                table[TWO_CONCEALED_PUNGS] = 1
            elif concealed_pung == 2:
                table[THREE_CONCEALED_PUNGS] = 1
            elif concealed_pung == 3:
                table[FOUR_CONCEALED_PUNGS] = 1
    elif kongs == 2:
        if concealed_kong == 0:
            table[TWO_MELDED_KONGS] = 1
            if concealed_pung == 2:
                table[TWO_CONCEALED_PUNGS] = 1
        elif concealed_kong == 1:
            # profile-dependent: botzone's extra fan; the mcr profile rewrites it (see _finish)
            table[CONCEALED_KONG_AND_MELDED_KONG] = 1
            if concealed_pung == 1:
                table[TWO_CONCEALED_PUNGS] = 1
            elif concealed_pung == 2:
                table[THREE_CONCEALED_PUNGS] = 1
        else:
            table[TWO_CONCEALED_KONGS] = 1
            if concealed_pung == 1:
                table[THREE_CONCEALED_PUNGS] = 1
            elif concealed_pung == 2:
                table[FOUR_CONCEALED_PUNGS] = 1
    elif kongs == 3:
        table[THREE_KONGS] = 1
        if concealed_kong == 1:
            if concealed_pung > 0:
                table[TWO_CONCEALED_PUNGS] = 1
        elif concealed_kong == 2:
            if concealed_pung == 0:
                table[TWO_CONCEALED_PUNGS] = 1
            else:
                table[THREE_CONCEALED_PUNGS] = 1
        elif concealed_kong == 3:
            if concealed_pung == 0:
                table[THREE_CONCEALED_PUNGS] = 1
            else:
                table[FOUR_CONCEALED_PUNGS] = 1
    else:
        table[FOUR_KONGS] = 1
        if concealed_kong == 2:
            table[TWO_CONCEALED_PUNGS] = 1
        elif concealed_kong == 3:
            table[THREE_CONCEALED_PUNGS] = 1
        elif concealed_kong == 4:
            table[FOUR_CONCEALED_PUNGS] = 1
    if len(pungs) == 4 and not table[FOUR_KONGS] and not table[FOUR_CONCEALED_PUNGS]:
        table[ALL_PUNGS] = 1
    for _, g, _ in pungs:
        if g >= 35:
            table[DRAGON_PUNG] += 1
        elif g > 30 or g % 10 in (1, 9):
            table[PUNG_OF_TERMINALS_OR_HONORS] += 1


def _calc_4_pungs(m: list[int], table: list[int]) -> None:
    f = _four_pungs_fan(m[0], m[1], m[2], m[3])
    if f:
        table[f] = 1
        return
    free = -1
    for a, b, c, d in ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)):
        f = _three_pungs_fan(m[a], m[b], m[c])
        if f:
            table[f] = 1
            free = d
            break
    if free >= 0:
        for i in range(4):
            if i == free:
                continue
            f = _two_pungs_fan(m[i], m[free])
            if f:
                table[f] += 1
                break
        return
    for a, b in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)):
        f = _two_pungs_fan(m[a], m[b])
        if f:
            table[f] += 1


def _calc_3_pungs(m: list[int], table: list[int]) -> None:
    f = _three_pungs_fan(m[0], m[1], m[2])
    if f:
        table[f] = 1
        return
    for a, b in ((0, 1), (0, 2), (1, 2)):
        f = _two_pungs_fan(m[a], m[b])
        if f:
            table[f] += 1


def _is_three_suited_terminal_chows(chows: list[int], pair: int) -> bool:
    if pair > 30 or pair % 10 != 5:
        return False
    ps = pair // 10
    c123: set[int] = set()
    c789: set[int] = set()
    for g in chows:
        s, r = g // 10, g % 10
        if s == ps:
            return False
        if r == 2:
            c123.add(s)
        elif r == 8:
            c789.add(s)
        else:
            return False
    others = {0, 1, 2} - {ps}
    return others <= c123 and others <= c789


def _is_pure_terminal_chows(chows: list[int], pair: int) -> bool:
    if pair > 30 or pair % 10 != 5:
        return False
    n123 = n789 = 0
    for g in chows:
        if g // 10 != pair // 10:
            return False
        r = g % 10
        if r == 2:
            n123 += 1
        elif r == 8:
            n789 += 1
        else:
            return False
    return n123 == 2 and n789 == 2


def _adjust_by_pair_tile(pair: int, chow_cnt: int, table: list[int]) -> None:
    if chow_cnt == 4:
        if pair < 30:
            table[ALL_CHOWS] = 1
        return
    if table[TWO_DRAGONS_PUNGS]:
        if pair >= 35:
            table[LITTLE_THREE_DRAGONS] = 1
            table[TWO_DRAGONS_PUNGS] = 0
        return
    if table[BIG_THREE_WINDS]:
        if 31 <= pair <= 34:
            table[LITTLE_FOUR_WINDS] = 1
            table[BIG_THREE_WINDS] = 0


def _adjust_by_packs_traits(packs: list[tuple[int, int, bool]], table: list[int]) -> None:
    terminal = honor = five = even = 0
    for ptype, g, _ in packs:
        if g < 30:
            r = g % 10
            if ptype == _CHOW:
                if r == 2 or r == 8:
                    terminal += 1
                elif 4 <= r <= 6:
                    five += 1
            elif r == 1 or r == 9:
                terminal += 1
            elif r == 5:
                five += 1
            elif r % 2 == 0:
                even += 1
        else:
            honor += 1
    if terminal + honor == 5:
        table[OUTSIDE_HAND] = 1
    elif five == 5:
        table[ALL_FIVE] = 1
    elif even == 5:
        table[ALL_EVEN_PUNGS] = 1


def _adjust_by_suits(tiles: list[int], table: list[int]) -> None:
    present = {g // 10 for g in tiles}
    if 3 not in present:
        table[NO_HONORS] = 1
    voided = 3 - len(present - {3})
    table[ONE_VOIDED_SUIT] += voided
    if table[ONE_VOIDED_SUIT] == 2:
        table[ONE_VOIDED_SUIT] = 0
        table[HALF_FLUSH if 3 in present else FULL_FLUSH] = 1
    if len(present) == 4:
        if any(31 <= g <= 34 for g in tiles) and any(g >= 35 for g in tiles):
            table[ALL_TYPES] = 1


def _adjust_by_tiles_traits(tiles: list[int], table: list[int]) -> None:
    if not any(g > 30 or g % 10 in (1, 9) for g in tiles):
        table[ALL_SIMPLES] = 1
    if all(g in _REVERSIBLE for g in tiles):
        table[REVERSIBLE_TILES] = 1
    if all(g in _GREEN for g in tiles):
        table[ALL_GREEN] = 1
    if table[ALL_SIMPLES]:
        return
    if all(g > 30 for g in tiles):
        table[ALL_HONORS] = 1
        return
    if all(g < 30 and g % 10 in (1, 9) for g in tiles):
        table[ALL_TERMINALS] = 1
        return
    if all(g > 30 or g % 10 in (1, 9) for g in tiles):
        table[ALL_TERMINALS_AND_HONORS] = 1


def _adjust_by_rank_range(tiles: list[int], table: list[int]) -> None:
    ranks = set()
    for g in tiles:
        if g > 30:
            return
        ranks.add(g % 10)
    if ranks <= {1, 2, 3, 4}:
        table[LOWER_FOUR if 4 in ranks else LOWER_TILES] = 1
    elif ranks <= {6, 7, 8, 9}:
        table[UPPER_FOUR if 6 in ranks else UPPER_TILES] = 1
    elif ranks <= {4, 5, 6}:
        table[MIDDLE_TILES] = 1


def _adjust_by_tiles_hog(tiles: list[int], table: list[int]) -> None:
    n_kongs = len(tiles) - 14
    fours = 0
    seen: dict[int, int] = {}
    for g in tiles:
        seen[g] = seen.get(g, 0) + 1
    for c in seen.values():
        if c == 4:
            fours += 1
    table[TILE_HOG] = fours - n_kongs


def _adjust_by_waiting_form(
    concealed_packs: list[tuple[int, int, bool]],
    n_waits: int,
    win: int,
    table: list[int],
) -> None:
    if table[MELDED_HAND] or table[FOUR_KONGS]:
        return
    if n_waits != 1:
        return
    edge = closed = single = False
    for ptype, g, _ in concealed_packs:
        if ptype == _CHOW:
            if g == win:
                closed = True
            elif g + 1 == win or g - 1 == win:
                edge = True
        elif ptype == _PAIR and g == win:
            single = True
    if edge:
        table[EDGE_WAIT] = 1
    elif closed:
        table[CLOSED_WAIT] = 1
    elif single:
        table[SINGLE_WAIT] = 1


def _adjust_fan_table(t: list[int]) -> None:
    """Remove implied fans (RULES.md section 5, non-repeat), in PyMahjongGB's order."""
    if t[BIG_FOUR_WINDS]:
        t[BIG_THREE_WINDS] = t[ALL_PUNGS] = t[PUNG_OF_TERMINALS_OR_HONORS] = 0
    if t[BIG_THREE_DRAGONS]:
        t[TWO_DRAGONS_PUNGS] = t[DRAGON_PUNG] = 0
    if t[ALL_GREEN]:
        t[HALF_FLUSH] = t[ONE_VOIDED_SUIT] = 0
    if t[NINE_GATES]:
        t[FULL_FLUSH] = t[CONCEALED_HAND] = 0
        t[PUNG_OF_TERMINALS_OR_HONORS] -= 1
        t[ONE_VOIDED_SUIT] = t[NO_HONORS] = 0
        if t[FULLY_CONCEALED_HAND]:
            t[FULLY_CONCEALED_HAND] = 0
            t[SELF_DRAWN] = 1
    if t[FOUR_KONGS]:
        t[SINGLE_WAIT] = 0
    if t[SEVEN_SHIFTED_PAIRS]:
        t[SEVEN_PAIRS] = t[FULL_FLUSH] = t[CONCEALED_HAND] = 0
        t[ONE_VOIDED_SUIT] = t[NO_HONORS] = 0
    if t[THIRTEEN_ORPHANS]:
        t[ALL_TYPES] = t[CONCEALED_HAND] = t[SINGLE_WAIT] = 0
    if t[ALL_TERMINALS]:
        t[ALL_TERMINALS_AND_HONORS] = t[ALL_PUNGS] = t[OUTSIDE_HAND] = 0
        t[PUNG_OF_TERMINALS_OR_HONORS] = t[NO_HONORS] = t[DOUBLE_PUNG] = 0
    if t[LITTLE_FOUR_WINDS]:
        t[BIG_THREE_WINDS] = t[PUNG_OF_TERMINALS_OR_HONORS] = 0
    if t[LITTLE_THREE_DRAGONS]:
        t[TWO_DRAGONS_PUNGS] = t[DRAGON_PUNG] = 0
    if t[ALL_HONORS]:
        t[ALL_TERMINALS_AND_HONORS] = t[ALL_PUNGS] = t[OUTSIDE_HAND] = 0
        t[PUNG_OF_TERMINALS_OR_HONORS] = t[ONE_VOIDED_SUIT] = 0
    if t[FOUR_CONCEALED_PUNGS]:
        t[ALL_PUNGS] = t[CONCEALED_HAND] = 0
        if t[FULLY_CONCEALED_HAND]:
            t[FULLY_CONCEALED_HAND] = 0
            t[SELF_DRAWN] = 1
    if t[PURE_TERMINAL_CHOWS]:
        t[SEVEN_PAIRS] = t[FULL_FLUSH] = t[ALL_CHOWS] = t[PURE_DOUBLE_CHOW] = 0
        t[TWO_TERMINAL_CHOWS] = t[ONE_VOIDED_SUIT] = t[NO_HONORS] = 0
    if t[QUADRUPLE_CHOW]:
        t[PURE_SHIFTED_PUNGS] = t[TILE_HOG] = t[PURE_DOUBLE_CHOW] = 0
    if t[FOUR_PURE_SHIFTED_PUNGS]:
        t[PURE_TRIPLE_CHOW] = t[ALL_PUNGS] = 0
    if t[FOUR_PURE_SHIFTED_CHOWS]:
        t[PURE_SHIFTED_CHOWS] = t[TWO_TERMINAL_CHOWS] = t[SHORT_STRAIGHT] = 0
    if t[ALL_TERMINALS_AND_HONORS]:
        t[ALL_PUNGS] = t[OUTSIDE_HAND] = t[PUNG_OF_TERMINALS_OR_HONORS] = 0
    if t[SEVEN_PAIRS]:
        t[CONCEALED_HAND] = t[SINGLE_WAIT] = 0
    if t[GREATER_HONORS_AND_KNITTED_TILES]:
        t[ALL_TYPES] = t[CONCEALED_HAND] = 0
    if t[ALL_EVEN_PUNGS]:
        t[ALL_PUNGS] = t[ALL_SIMPLES] = t[NO_HONORS] = 0
    if t[FULL_FLUSH]:
        t[ONE_VOIDED_SUIT] = t[NO_HONORS] = 0
    if t[PURE_TRIPLE_CHOW]:
        t[PURE_SHIFTED_PUNGS] = t[PURE_DOUBLE_CHOW] = 0
    if t[PURE_SHIFTED_PUNGS]:
        t[PURE_TRIPLE_CHOW] = 0
    if t[UPPER_TILES]:
        t[UPPER_FOUR] = t[NO_HONORS] = 0
    if t[MIDDLE_TILES]:
        t[ALL_SIMPLES] = t[NO_HONORS] = 0
    if t[LOWER_TILES]:
        t[LOWER_FOUR] = t[NO_HONORS] = 0
    if t[THREE_SUITED_TERMINAL_CHOWS]:
        t[ALL_CHOWS] = t[NO_HONORS] = t[MIXED_DOUBLE_CHOW] = t[TWO_TERMINAL_CHOWS] = 0
    if t[ALL_FIVE]:
        t[ALL_SIMPLES] = t[NO_HONORS] = 0
    if t[LESSER_HONORS_AND_KNITTED_TILES]:
        t[ALL_TYPES] = t[CONCEALED_HAND] = 0
    if t[UPPER_FOUR]:
        t[NO_HONORS] = 0
    if t[LOWER_FOUR]:
        t[NO_HONORS] = 0
    if t[BIG_THREE_WINDS]:
        if not t[ALL_HONORS] and not t[ALL_TERMINALS_AND_HONORS]:
            t[PUNG_OF_TERMINALS_OR_HONORS] -= 3
    if t[REVERSIBLE_TILES]:
        t[ONE_VOIDED_SUIT] = 0
    if t[LAST_TILE_DRAW]:
        t[SELF_DRAWN] = 0
    if t[OUT_WITH_REPLACEMENT_TILE]:
        t[SELF_DRAWN] = 0
    if t[ROBBING_THE_KONG]:
        t[LAST_TILE] = 0
    if t[TWO_CONCEALED_KONGS]:
        t[CONCEALED_KONG] = 0
    if t[HALF_FLUSH]:
        t[ONE_VOIDED_SUIT] = 0
    if t[MELDED_HAND]:
        t[SINGLE_WAIT] = 0
    if t[TWO_DRAGONS_PUNGS]:
        t[DRAGON_PUNG] = 0
    if t[FULLY_CONCEALED_HAND]:
        t[SELF_DRAWN] = 0
    if t[TWO_MELDED_KONGS]:
        t[MELDED_KONG] = 0
    if t[ALL_CHOWS]:
        t[NO_HONORS] = 0
    if t[ALL_SIMPLES]:
        t[NO_HONORS] = 0


def _adjust_by_winds(g: int, prevalent: int, seat: int, t: list[int]) -> None:
    deducted = (
        t[BIG_THREE_WINDS] or t[ALL_TERMINALS_AND_HONORS] or t[ALL_HONORS] or t[LITTLE_FOUR_WINDS]
    )
    delta = g - _E
    if delta == prevalent:
        t[PREVALENT_WIND] = 1
        if not deducted:
            t[PUNG_OF_TERMINALS_OR_HONORS] -= 1
    if delta == seat:
        t[SEAT_WIND] = 1
        if seat != prevalent and not deducted:
            t[PUNG_OF_TERMINALS_OR_HONORS] -= 1


def _adjust_by_win_flag(
    self_drawn: bool, fourth: bool, wall_last: bool, about_kong: bool, t: list[int]
) -> None:
    if fourth:
        t[LAST_TILE] = 1
    if wall_last:
        t[LAST_TILE_DRAW if self_drawn else LAST_TILE_CLAIM] = 1
    if about_kong:
        t[OUT_WITH_REPLACEMENT_TILE if self_drawn else ROBBING_THE_KONG] = 1
    if self_drawn:
        t[SELF_DRAWN] = 1


# ---------------------------------------------------------------------------------------------
# The scorer core


class _Ctx:
    """Per-hand constants shared by the divisions of one hand."""

    __slots__ = (
        "win",
        "self_drawn",
        "fourth",
        "wall_last",
        "about_kong",
        "seat",
        "prevalent",
        "fixed",
        "n_waits",
    )


_POINTS_BZ = POINTS_ARRAY["botzone"]


def _table_total(t: list[int], points: tuple[int, ...]) -> int:
    s = 0
    for i in range(1, FLOWER_TILES):
        if t[i]:
            s += points[i] * t[i]
    s += points[CONCEALED_KONG_AND_MELDED_KONG] * t[CONCEALED_KONG_AND_MELDED_KONG]
    return s


def _basic_form(
    sets: tuple[tuple[int, int], ...], pair_tile: int, ctx: _Ctx, base: list[int]
) -> list[int]:
    """Fan table of one regular division (PyMahjongGB's ``calculate_basic_form_fan``)."""
    t = list(base)
    win = ctx.win
    pair_g = _G[pair_tile]
    fixed = ctx.fixed
    standing_packs = []
    for kind, tile in sets:
        if kind == CHOW:
            standing_packs.append((_CHOW, _G[tile] + 1, False))
        else:
            standing_packs.append((_PUNG, _G[tile], False))
    chows = [p for p in fixed if p[0] == _CHOW] + [p for p in standing_packs if p[0] == _CHOW]
    pungs = [p for p in fixed if p[0] != _CHOW] + [p for p in standing_packs if p[0] != _CHOW]
    if not ctx.self_drawn:
        if not any(not m and g - 1 <= win <= g + 1 for _, g, m in chows):
            pungs = [(pt, g, True) if (g == win and not m) else (pt, g, m) for pt, g, m in pungs]
    if pungs:
        _calc_kongs(pungs, t)
    n_chows = len(chows)
    if n_chows == 4:
        mids = [g for _, g, _ in chows]
        if _is_three_suited_terminal_chows(mids, pair_g):
            t[THREE_SUITED_TERMINAL_CHOWS] = 1
        elif _is_pure_terminal_chows(mids, pair_g):
            t[PURE_TERMINAL_CHOWS] = 1
        else:
            mids.sort()
            _calc_4_chows(mids, t)
    elif n_chows == 3:
        mids = sorted(g for _, g, _ in chows)
        _calc_3_chows(mids, t)
    elif n_chows == 2:
        f = _two_chows_fan(chows[0][1], chows[1][1])
        if f:
            t[f] += 1
        f = _two_pungs_fan(pungs[0][1], pungs[1][1])
        if f:
            t[f] += 1
    elif n_chows == 1:
        _calc_3_pungs(sorted(g for _, g, _ in pungs), t)
    else:
        _calc_4_pungs(sorted(g for _, g, _ in pungs), t)

    _adjust_by_pair_tile(pair_g, n_chows, t)
    pair_pack = (_PAIR, pair_g, False)
    _adjust_by_packs_traits(fixed + standing_packs + [pair_pack], t)
    _adjust_by_waiting_form(standing_packs + [pair_pack], ctx.n_waits, win, t)
    _adjust_fan_table(t)
    if not t[BIG_FOUR_WINDS]:
        for _, g, _ in pungs:
            if 31 <= g <= 34:
                _adjust_by_winds(g, ctx.prevalent, ctx.seat, t)
    if not any(t):
        t[CHICKEN_HAND] = 1
    return t


def _pack_tiles(pack: tuple[int, int, bool]) -> list[int]:
    ptype, g, _ = pack
    if ptype == _CHOW:
        return [g - 1, g, g + 1]
    if ptype == _KONG:
        return [g, g, g, g]
    if ptype == _PAIR:
        return [g, g]
    return [g, g, g]


def _knitted_straight_form(counts14: tuple[int, ...], ctx: _Ctx) -> list[int] | None:
    """Knitted Straight plus one set and a pair (concealed, or with one meld), or None."""
    fixed = ctx.fixed
    split = knitted_straight_split(counts14)
    if split is None:
        return None
    knitted, rest = split
    if fixed:
        pair_tiles = [i for i, c in enumerate(rest) if c]
        if len(pair_tiles) != 1 or rest[pair_tiles[0]] != 2:
            return None
        set_pack = fixed[0]
        pair_g = _G[pair_tiles[0]]
    else:
        divs = regular_divisions(rest)
        if len(divs) != 1:
            return None
        ((kind, tile),) = divs[0][0]
        set_pack = (_CHOW, _G[tile] + 1, False) if kind == CHOW else (_PUNG, _G[tile], False)
        pair_g = _G[divs[0][1]]
    t = [0] * _N_TABLE
    t[KNITTED_STRAIGHT] = 1
    if set_pack[0] == _CHOW:
        if pair_g < 30:
            t[ALL_CHOWS] = 1
    else:
        _calc_kongs([set_pack], t)
    self_drawn = ctx.self_drawn
    _adjust_by_win_flag(self_drawn, ctx.fourth, ctx.wall_last, ctx.about_kong, t)
    if not fixed or (set_pack[0] == _KONG and not set_pack[2]):
        t[FULLY_CONCEALED_HAND if self_drawn else CONCEALED_HAND] = 1
    pair_pack = (_PAIR, pair_g, False)
    tiles = [_G[k] for k in knitted] + _pack_tiles(set_pack) + _pack_tiles(pair_pack)
    _adjust_by_suits(tiles, t)
    _adjust_by_tiles_hog(tiles, t)
    win = ctx.win
    win_id = _G.index(win)
    if not fixed:
        if rest[win_id] > 0:
            temp = list(rest)
            temp[win_id] -= 1
            n_waits = len(regular_waits(tuple(temp)))
            _adjust_by_waiting_form([set_pack, pair_pack], n_waits, win, t)
        # else: the winning tile sits only in the knitted part, no set or pair holds it, so
        # no wait fan can apply.
    elif counts14[win_id] > 1:
        t[SINGLE_WAIT] = 1
    _adjust_fan_table(t)
    if set_pack[0] != _CHOW and 31 <= set_pack[1] <= 34:
        _adjust_by_winds(set_pack[1], ctx.prevalent, ctx.seat, t)
    return t


def _special_form(counts14: tuple[int, ...], ctx: _Ctx) -> list[int] | None:
    """Seven Pairs (and Seven Shifted Pairs), Thirteen Orphans, Honors and Knitted Tiles."""
    t = [0] * _N_TABLE
    if is_seven_pairs(counts14):
        kinds = [i for i, c in enumerate(counts14) if c]
        tiles = [_G[i] for i, c in enumerate(counts14) for _ in range(c)]
        if (
            len(kinds) == 7
            and kinds[6] < 27
            and kinds[0] // 9 == kinds[6] // 9
            and kinds[6] - kinds[0] == 6
        ):
            t[SEVEN_SHIFTED_PAIRS] = 1
            _adjust_by_tiles_traits(tiles, t)
        else:
            t[SEVEN_PAIRS] = 1
            _adjust_by_suits(tiles, t)
            _adjust_by_tiles_traits(tiles, t)
            _adjust_by_rank_range(tiles, t)
            _adjust_by_tiles_hog(tiles, t)
    elif is_thirteen_orphans(counts14):
        t[THIRTEEN_ORPHANS] = 1
    else:
        ok, greater, knitted = honors_and_knitted(counts14)
        if not ok:
            return None
        if greater:
            t[GREATER_HONORS_AND_KNITTED_TILES] = 1
        else:
            t[LESSER_HONORS_AND_KNITTED_TILES] = 1
            if knitted:
                t[KNITTED_STRAIGHT] = 1
    _adjust_by_win_flag(ctx.self_drawn, ctx.fourth, ctx.wall_last, ctx.about_kong, t)
    _adjust_fan_table(t)
    return t


@lru_cache(maxsize=1 << 15)
def _score_core(
    standing: tuple[int, ...],
    win_id: int,
    fixed: tuple[tuple[int, int, bool], ...],
    self_drawn: bool,
    fourth: bool,
    wall_last: bool,
    about_kong: bool,
    seat: int,
    prevalent: int,
) -> tuple[int, ...] | None:
    """Botzone-profile fan table ``(83,)`` of the best reading, or None if not a win.

    ``standing``: ``(34,)`` counts of the concealed tiles without the winning tile.
    ``fixed``: melds as packs ``(ptype, g, melded)``.
    """
    win = _G[win_id]
    # win-flag corrections (a held copy rules out Last Tile; three visible in melds implies it)
    fixed_count = 0
    for ptype, g, _ in fixed:
        if ptype == _CHOW:
            fixed_count += win in (g - 1, g, g + 1)
        elif g == win:
            fixed_count += 4 if ptype == _KONG else 3
    in_standing = standing[win_id] > 0
    if in_standing:
        fourth = False
    if fixed_count == 3:
        fourth = True
    if about_kong:
        if self_drawn:
            if not any(p[0] == _KONG for p in fixed):
                about_kong = False
        elif fixed_count > 0 or in_standing:
            about_kong = False

    ctx = _Ctx()
    ctx.win = win
    ctx.self_drawn = self_drawn
    ctx.fourth = fourth
    ctx.wall_last = wall_last
    ctx.about_kong = about_kong
    ctx.seat = seat
    ctx.prevalent = prevalent
    ctx.fixed = list(fixed)

    counts14 = list(standing)
    counts14[win_id] += 1
    counts14 = tuple(counts14)
    n_fixed = len(fixed)

    best: list[int] | None = None
    best_total = 0
    if n_fixed <= 1:
        best = _knitted_straight_form(counts14, ctx)
        if best is None and n_fixed == 0:
            best = _special_form(counts14, ctx)
        if best is not None:
            best_total = _table_total(best, _POINTS_BZ)

    seven_pairs_special = best is not None and best[SEVEN_PAIRS] == 1
    if best is None or seven_pairs_special:
        divisions = regular_divisions(counts14)
        if divisions:
            # division-independent part of the table
            base = [0] * _N_TABLE
            _adjust_by_win_flag(self_drawn, fourth, wall_last, about_kong, base)
            if n_fixed == 0 and _is_nine_gates(standing):
                base[NINE_GATES] = 1
            melded_cnt = sum(1 for p in fixed if p[2])
            if melded_cnt == 0:
                base[FULLY_CONCEALED_HAND if self_drawn else CONCEALED_HAND] = 1
            elif melded_cnt == 4:
                base[SELF_DRAWN if self_drawn else MELDED_HAND] = 1
            elif self_drawn:
                base[SELF_DRAWN] = 1
            tiles = [_G[i] for i, c in enumerate(counts14) for _ in range(c)]
            for p in fixed:
                tiles.extend(_pack_tiles(p))
            _adjust_by_suits(tiles, base)
            _adjust_by_tiles_traits(tiles, base)
            _adjust_by_rank_range(tiles, base)
            _adjust_by_tiles_hog(tiles, base)
            waits = set(regular_waits(standing))
            if n_fixed == 0:
                sp = seven_pairs_wait(standing)
                if sp >= 0:
                    waits.add(sp)
            ctx.n_waits = len(waits)
            for sets, pair in divisions:
                t = _basic_form(sets, pair, ctx, base)
                total = _table_total(t, _POINTS_BZ)
                if total > best_total:
                    best, best_total = t, total
                elif total == best_total and (
                    t[PURE_TRIPLE_CHOW] == 1 or t[TRIPLE_PUNG] or seven_pairs_special
                ):
                    # PyMahjongGB's tie-break: prefer Pure Triple Chow / Triple Pung readings,
                    # and a regular reading over Seven Pairs
                    best = t
    if best is None:
        return None
    return tuple(best)


def _is_nine_gates(standing: tuple[int, ...]) -> bool:
    for s in range(3):
        p = standing[9 * s : 9 * s + 9]
        if p == (3, 1, 1, 1, 1, 1, 1, 1, 3):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Input validation and the public entry point

_MELD_PTYPE = {"CHI": _CHOW, "PENG": _PUNG, "GANG": _KONG, "BUGANG": _KONG, "ANGANG": _KONG}


def _tile_id(x: object, what: str) -> int:
    if isinstance(x, str):
        try:
            t = code_to_tile(x)
        except ValueError as e:
            raise ValueError(f"{what}: {e}") from None
    elif isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        t = int(x)
        if not 0 <= t < FLOWER_BASE + 8:
            raise ValueError(f"{what}: unknown tile id {t} (expected 0..33)")
    else:
        raise TypeError(f"{what} must be a tile id (int) or Botzone code (str), got {x!r}")
    if t >= FLOWER_BASE:
        raise ValueError(f"{what}: flower {x!r} is not a playing tile (pass flowers=N instead)")
    return t


def _check_bool(x: object, what: str) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise TypeError(f"{what} must be a bool, got {type(x).__name__} {x!r}")


def _check_int(x: object, what: str, lo: int, hi: int) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{what} must be an int in {lo}..{hi}, got {type(x).__name__} {x!r}")
    x = int(x)
    if not lo <= x <= hi:
        raise ValueError(f"{what} must be in {lo}..{hi}, got {x}")
    return x


def _parse_hand(hand: object) -> list[int]:
    if isinstance(hand, str):
        ids = parse_tiles(hand)
    elif isinstance(hand, (list, tuple, np.ndarray)):
        items = hand.tolist() if isinstance(hand, np.ndarray) else hand
        if all(type(x) is int and 0 <= x < 34 for x in items):
            return list(items)  # fast path: plain tile ids
        ids = [_tile_id(x, "hand tile") for x in items]
    else:
        raise TypeError(
            f"hand must be a str or a list/tuple of tile ids or codes, got {type(hand).__name__}"
        )
    for t in ids:
        if t >= FLOWER_BASE:
            raise ValueError("hand: flowers are not part of the hand (pass flowers=N instead)")
    return ids


def _parse_melds(melds: object) -> list[tuple[str, int, int]]:
    if not isinstance(melds, (list, tuple)):
        raise TypeError(f"melds must be a list/tuple of (kind, tile, offer), got {melds!r}")
    if len(melds) > 4:
        raise ValueError(f"at most 4 melds, got {len(melds)}")
    out = []
    for i, m in enumerate(melds):
        if not isinstance(m, (list, tuple)) or len(m) != 3:
            raise TypeError(f"meld {i} must be a (kind, tile, offer) tuple, got {m!r}")
        kind, tile, offer = m
        if not isinstance(kind, str):
            raise TypeError(f"meld {i}: kind must be a str, got {kind!r}")
        kind = kind.upper()
        if kind not in _MELD_PTYPE:
            raise ValueError(f"meld {i}: unknown kind {m[0]!r} (expected one of {MELD_KINDS})")
        t = _tile_id(tile, f"meld {i} tile")
        if isinstance(offer, (bool, np.bool_)) or not isinstance(offer, (int, np.integer)):
            raise TypeError(f"meld {i}: offer must be an int, got {offer!r}")
        offer = int(offer)
        if kind == "ANGANG":
            if offer != 0:
                raise ValueError(f"meld {i}: a concealed kong (ANGANG) has offer 0, got {offer}")
        elif not 1 <= offer <= 3:
            raise ValueError(f"meld {i}: offer must be 1..3 for {kind}, got {offer}")
        if kind == "CHI" and (t >= 27 or t % 9 in (0, 8)):
            raise ValueError(
                f"meld {i}: Chi tile is the middle tile of the chow and must be a suit 2-8, "
                f"got {m[1]!r}"
            )
        out.append((kind, t, offer))
    return out


def score_win(
    hand,
    win_tile,
    melds=(),
    *,
    is_self_drawn: bool = False,
    is_4th_tile: bool = False,
    is_wall_last: bool = False,
    is_about_kong: bool = False,
    seat_wind: int = 0,
    prevalent_wind: int = 0,
    flowers: int = 0,
    profile: str = "mcr",
) -> ScoreResult:
    """Score a winning hand exactly (RULES.md sections 5-7).

    Args:
        hand: the concealed tiles WITHOUT the winning tile: a list/tuple/``(n,) int`` array of
            tile ids (0-33) or Botzone codes, or one string in Botzone or compact notation.
            ``13 - 3 * len(melds)`` tiles.
        win_tile: the winning tile (id or Botzone code).
        melds: ``(kind, tile, offer)`` tuples: ``"CHI"`` (tile = middle tile, offer 1..3 = which
            of the three tiles was claimed), ``"PENG"``, ``"GANG"`` (melded kong; offer 1..3 =
            claimed from left/across/right), ``"BUGANG"`` (promoted kong, scored as a melded
            kong) or ``"ANGANG"`` (concealed kong, offer 0). At most 4.
        is_self_drawn: won on a self-drawn tile (else on a discard or a robbed kong).
        is_4th_tile: the other three copies of the winning tile are visible (Last Tile).
        is_wall_last: won on the last tile of the wall / the discard after it.
        is_about_kong: won on a kong replacement (self-drawn) / by robbing a kong (discard).
        seat_wind, prevalent_wind: 0..3 = East, South, West, North.
        flowers: number of flowers 0..8 (1 point each, not counted toward the 8-point minimum).
        profile: ``"mcr"`` (default) or ``"botzone"`` (identical to PyMahjongGB 1.4.0),
            RULES.md section 7.

    Returns:
        :class:`ScoreResult` of the highest-scoring reading (ties: the first reading in
        PyMahjongGB's order, so both the total and the fan list match it).

    Raises:
        TypeError: an argument has the wrong type (non-bool flag, non-int wind, bad meld tuple).
        ValueError: unknown tile code, wrong tile count, a fifth copy of a tile, a Chi on an
            honor or with a terminal middle tile, an offer out of range, more than 4 melds,
            flowers outside 0..8, winds outside 0..3, an unknown profile, or a hand that is not
            a win.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (expected one of {PROFILES})")
    self_drawn = _check_bool(is_self_drawn, "is_self_drawn")
    fourth = _check_bool(is_4th_tile, "is_4th_tile")
    wall_last = _check_bool(is_wall_last, "is_wall_last")
    about_kong = _check_bool(is_about_kong, "is_about_kong")
    seat = _check_int(seat_wind, "seat_wind", 0, 3)
    prevalent = _check_int(prevalent_wind, "prevalent_wind", 0, 3)
    n_flowers = _check_int(flowers, "flowers", 0, 8)
    ids = _parse_hand(hand)
    win_id = _tile_id(win_tile, "win_tile")
    parsed = _parse_melds(melds)
    expected = 13 - 3 * len(parsed)
    if len(ids) != expected:
        raise ValueError(
            f"wrong tile count: {len(parsed)} meld(s) need {expected} concealed tiles besides "
            f"the winning tile, got {len(ids)}"
        )
    standing = [0] * 34
    for t in ids:
        standing[t] += 1
    total_counts = list(standing)
    total_counts[win_id] += 1
    fixed = []
    for kind, t, offer in parsed:
        ptype = _MELD_PTYPE[kind]
        if ptype == _CHOW:
            for u in (t - 1, t, t + 1):
                total_counts[u] += 1
        else:
            total_counts[t] += 4 if ptype == _KONG else 3
        g = _G[t]
        fixed.append((ptype, g, offer != 0))
    for t, c in enumerate(total_counts):
        if c > 4:
            from mcr_env.tiles import tile_to_code

            raise ValueError(f"{c} copies of tile {tile_to_code(t)} (at most 4 exist)")
    table = _score_core(
        tuple(standing),
        win_id,
        tuple(fixed),
        self_drawn,
        fourth,
        wall_last,
        about_kong,
        seat,
        prevalent,
    )
    if table is None:
        raise ValueError("not a winning hand: the tiles form no regular or special winning shape")
    return _make_result(table, n_flowers, profile)


@lru_cache(maxsize=1 << 14)
def _make_result(table: tuple[int, ...], n_flowers: int, profile: str) -> ScoreResult:
    t = list(table)
    if profile == "mcr" and t[CONCEALED_KONG_AND_MELDED_KONG]:
        # RULES.md section 7: one concealed + one melded kong = Two Melded Kongs + Concealed Kong
        t[CONCEALED_KONG_AND_MELDED_KONG] = 0
        t[TWO_MELDED_KONGS] = 1
        t[CONCEALED_KONG] = 1
    points = POINTS_ARRAY[profile]
    fans = []
    total = 0
    t[FLOWER_TILES] = 0
    for v in range(1, _N_TABLE):
        c = t[v]
        if c:
            fans.append(_fan_result(v, points[v], c))
            total += points[v] * c
        elif v == FLOWER_TILES and n_flowers:
            fans.append(_fan_result(FLOWER_TILES, 1, n_flowers))
    return ScoreResult(tuple(fans), total + n_flowers, total, total >= 8)


@cache
def _fan_result(v: int, points: int, count: int) -> FanResult:
    f = Fan(v)
    return FanResult(f, FAN_NAMES[f], points, count)

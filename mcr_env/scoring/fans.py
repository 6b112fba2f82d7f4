"""The 81 MCR fans: enum, English names, points per profile and "implies" tables.

docs/rules.md §6, §7. Values 1..81 follow the docs/rules.md table order; value 82 is the
botzone-profile extra fan "Concealed Kong and Melded Kong" (PyMahjongGB's 明暗杠).
"""

from __future__ import annotations

from enum import IntEnum
from types import MappingProxyType


class Fan(IntEnum):
    """The MCR fans in docs/rules.md §6 order (values 1..81), plus botzone's extra fan (82)."""

    BIG_FOUR_WINDS = 1
    BIG_THREE_DRAGONS = 2
    ALL_GREEN = 3
    NINE_GATES = 4
    FOUR_KONGS = 5
    SEVEN_SHIFTED_PAIRS = 6
    THIRTEEN_ORPHANS = 7
    ALL_TERMINALS = 8
    LITTLE_FOUR_WINDS = 9
    LITTLE_THREE_DRAGONS = 10
    ALL_HONORS = 11
    FOUR_CONCEALED_PUNGS = 12
    PURE_TERMINAL_CHOWS = 13
    QUADRUPLE_CHOW = 14
    FOUR_PURE_SHIFTED_PUNGS = 15
    FOUR_PURE_SHIFTED_CHOWS = 16
    THREE_KONGS = 17
    ALL_TERMINALS_AND_HONORS = 18
    SEVEN_PAIRS = 19
    GREATER_HONORS_AND_KNITTED_TILES = 20
    ALL_EVEN_PUNGS = 21
    FULL_FLUSH = 22
    PURE_TRIPLE_CHOW = 23
    PURE_SHIFTED_PUNGS = 24
    UPPER_TILES = 25
    MIDDLE_TILES = 26
    LOWER_TILES = 27
    PURE_STRAIGHT = 28
    THREE_SUITED_TERMINAL_CHOWS = 29
    PURE_SHIFTED_CHOWS = 30
    ALL_FIVE = 31
    TRIPLE_PUNG = 32
    THREE_CONCEALED_PUNGS = 33
    LESSER_HONORS_AND_KNITTED_TILES = 34
    KNITTED_STRAIGHT = 35
    UPPER_FOUR = 36
    LOWER_FOUR = 37
    BIG_THREE_WINDS = 38
    MIXED_STRAIGHT = 39
    REVERSIBLE_TILES = 40
    MIXED_TRIPLE_CHOW = 41
    MIXED_SHIFTED_PUNGS = 42
    CHICKEN_HAND = 43
    LAST_TILE_DRAW = 44
    LAST_TILE_CLAIM = 45
    OUT_WITH_REPLACEMENT_TILE = 46
    ROBBING_THE_KONG = 47
    TWO_CONCEALED_KONGS = 48
    ALL_PUNGS = 49
    HALF_FLUSH = 50
    MIXED_SHIFTED_CHOWS = 51
    ALL_TYPES = 52
    MELDED_HAND = 53
    TWO_DRAGONS_PUNGS = 54
    OUTSIDE_HAND = 55
    FULLY_CONCEALED_HAND = 56
    TWO_MELDED_KONGS = 57
    LAST_TILE = 58
    DRAGON_PUNG = 59
    PREVALENT_WIND = 60
    SEAT_WIND = 61
    CONCEALED_HAND = 62
    ALL_CHOWS = 63
    TILE_HOG = 64
    DOUBLE_PUNG = 65
    TWO_CONCEALED_PUNGS = 66
    CONCEALED_KONG = 67
    ALL_SIMPLES = 68
    PURE_DOUBLE_CHOW = 69
    MIXED_DOUBLE_CHOW = 70
    SHORT_STRAIGHT = 71
    TWO_TERMINAL_CHOWS = 72
    PUNG_OF_TERMINALS_OR_HONORS = 73
    MELDED_KONG = 74
    ONE_VOIDED_SUIT = 75
    NO_HONORS = 76
    EDGE_WAIT = 77
    CLOSED_WAIT = 78
    SINGLE_WAIT = 79
    SELF_DRAWN = 80
    FLOWER_TILES = 81
    CONCEALED_KONG_AND_MELDED_KONG = 82


NUM_FANS = 82
"""Number of :class:`Fan` members (81 MCR fans plus the botzone extra fan)."""

_NAMES_AND_POINTS = (
    ("Big Four Winds", 88),
    ("Big Three Dragons", 88),
    ("All Green", 88),
    ("Nine Gates", 88),
    ("Four Kongs", 88),
    ("Seven Shifted Pairs", 88),
    ("Thirteen Orphans", 88),
    ("All Terminals", 64),
    ("Little Four Winds", 64),
    ("Little Three Dragons", 64),
    ("All Honors", 64),
    ("Four Concealed Pungs", 64),
    ("Pure Terminal Chows", 64),
    ("Quadruple Chow", 48),
    ("Four Pure Shifted Pungs", 48),
    ("Four Pure Shifted Chows", 32),
    ("Three Kongs", 32),
    ("All Terminals and Honors", 32),
    ("Seven Pairs", 24),
    ("Greater Honors and Knitted Tiles", 24),
    ("All Even Pungs", 24),
    ("Full Flush", 24),
    ("Pure Triple Chow", 24),
    ("Pure Shifted Pungs", 24),
    ("Upper Tiles", 24),
    ("Middle Tiles", 24),
    ("Lower Tiles", 24),
    ("Pure Straight", 16),
    ("Three-Suited Terminal Chows", 16),
    ("Pure Shifted Chows", 16),
    ("All Five", 16),
    ("Triple Pung", 16),
    ("Three Concealed Pungs", 16),
    ("Lesser Honors and Knitted Tiles", 12),
    ("Knitted Straight", 12),
    ("Upper Four", 12),
    ("Lower Four", 12),
    ("Big Three Winds", 12),
    ("Mixed Straight", 8),
    ("Reversible Tiles", 8),
    ("Mixed Triple Chow", 8),
    ("Mixed Shifted Pungs", 8),
    ("Chicken Hand", 8),
    ("Last Tile Draw", 8),
    ("Last Tile Claim", 8),
    ("Out with Replacement Tile", 8),
    ("Robbing The Kong", 8),
    ("Two Concealed Kongs", 8),
    ("All Pungs", 6),
    ("Half Flush", 6),
    ("Mixed Shifted Chows", 6),
    ("All Types", 6),
    ("Melded Hand", 6),
    ("Two Dragons Pungs", 6),
    ("Outside Hand", 4),
    ("Fully Concealed Hand", 4),
    ("Two Melded Kongs", 4),
    ("Last Tile", 4),
    ("Dragon Pung", 2),
    ("Prevalent Wind", 2),
    ("Seat Wind", 2),
    ("Concealed Hand", 2),
    ("All Chows", 2),
    ("Tile Hog", 2),
    ("Double Pung", 2),
    ("Two Concealed Pungs", 2),
    ("Concealed Kong", 2),
    ("All Simples", 2),
    ("Pure Double Chow", 1),
    ("Mixed Double Chow", 1),
    ("Short Straight", 1),
    ("Two Terminal Chows", 1),
    ("Pung of Terminals or Honors", 1),
    ("Melded Kong", 1),
    ("One Voided Suit", 1),
    ("No Honors", 1),
    ("Edge Wait", 1),
    ("Closed Wait", 1),
    ("Single Wait", 1),
    ("Self-Drawn", 1),
    ("Flower Tiles", 1),
    ("Concealed Kong and Melded Kong", 5),
)

FAN_NAMES: MappingProxyType[Fan, str] = MappingProxyType(
    {Fan(i + 1): name for i, (name, _) in enumerate(_NAMES_AND_POINTS)}
)
"""English name of each fan (PyMahjongGB 1.4.0 spelling, docs/rules.md §6)."""

FAN_BY_NAME: MappingProxyType[str, Fan] = MappingProxyType({v: k for k, v in FAN_NAMES.items()})
"""Inverse of :data:`FAN_NAMES`."""

PROFILES = ("mcr", "botzone")
"""Scoring profiles (docs/rules.md §7); ``"mcr"`` is the default."""

_MCR_POINTS = {Fan(i + 1): pts for i, (_, pts) in enumerate(_NAMES_AND_POINTS)}
_BOTZONE_POINTS = dict(_MCR_POINTS)
_BOTZONE_POINTS[Fan.TWO_CONCEALED_KONGS] = 6

FAN_POINTS: MappingProxyType[Fan, int] = MappingProxyType(_MCR_POINTS)
"""Points per occurrence of each fan in the default ``"mcr"`` profile (Flower Tiles: 1 each).

``Fan.CONCEALED_KONG_AND_MELDED_KONG`` (5) is only ever scored in the ``"botzone"`` profile."""

FAN_POINTS_BY_PROFILE: MappingProxyType[str, MappingProxyType[Fan, int]] = MappingProxyType(
    {"mcr": FAN_POINTS, "botzone": MappingProxyType(_BOTZONE_POINTS)}
)
"""Points per occurrence for each profile (docs/rules.md §7): botzone has Two Concealed
Kongs = 6."""

# Point tables indexed by fan value (index 0 unused), for the scorer's hot loop.
POINTS_ARRAY = {
    p: tuple([0] + [FAN_POINTS_BY_PROFILE[p][Fan(v)] for v in range(1, NUM_FANS + 1)])
    for p in PROFILES
}


def _implies(*pairs: tuple[Fan, tuple[Fan, ...]]) -> MappingProxyType[Fan, frozenset[Fan]]:
    return MappingProxyType({f: frozenset(imp) for f, imp in pairs})


F = Fan
FAN_IMPLIES: MappingProxyType[Fan, frozenset[Fan]] = _implies(
    (
        F.BIG_FOUR_WINDS,
        (
            F.BIG_THREE_WINDS,
            F.ALL_PUNGS,
            F.SEAT_WIND,
            F.PREVALENT_WIND,
            F.PUNG_OF_TERMINALS_OR_HONORS,
        ),
    ),
    (F.BIG_THREE_DRAGONS, (F.DRAGON_PUNG, F.TWO_DRAGONS_PUNGS)),
    (F.ALL_GREEN, (F.HALF_FLUSH, F.ONE_VOIDED_SUIT)),
    (F.NINE_GATES, (F.FULL_FLUSH, F.CONCEALED_HAND, F.FULLY_CONCEALED_HAND, F.NO_HONORS)),
    (
        F.FOUR_KONGS,
        (
            F.THREE_KONGS,
            F.TWO_MELDED_KONGS,
            F.TWO_CONCEALED_KONGS,
            F.MELDED_KONG,
            F.CONCEALED_KONG,
            F.CONCEALED_KONG_AND_MELDED_KONG,
            F.ALL_PUNGS,
            F.SINGLE_WAIT,
        ),
    ),
    (F.SEVEN_SHIFTED_PAIRS, (F.SEVEN_PAIRS, F.FULL_FLUSH, F.CONCEALED_HAND, F.SINGLE_WAIT)),
    (F.THIRTEEN_ORPHANS, (F.ALL_TYPES, F.CONCEALED_HAND, F.SINGLE_WAIT)),
    (
        F.ALL_TERMINALS,
        (
            F.ALL_PUNGS,
            F.OUTSIDE_HAND,
            F.PUNG_OF_TERMINALS_OR_HONORS,
            F.NO_HONORS,
            F.DOUBLE_PUNG,
            F.ALL_TERMINALS_AND_HONORS,
        ),
    ),
    (F.LITTLE_FOUR_WINDS, (F.BIG_THREE_WINDS, F.PUNG_OF_TERMINALS_OR_HONORS)),
    (F.LITTLE_THREE_DRAGONS, (F.DRAGON_PUNG, F.TWO_DRAGONS_PUNGS)),
    (F.ALL_HONORS, (F.ALL_PUNGS, F.OUTSIDE_HAND, F.PUNG_OF_TERMINALS_OR_HONORS)),
    (
        F.FOUR_CONCEALED_PUNGS,
        (F.ALL_PUNGS, F.CONCEALED_HAND, F.THREE_CONCEALED_PUNGS, F.TWO_CONCEALED_PUNGS),
    ),
    (
        F.PURE_TERMINAL_CHOWS,
        (
            F.SEVEN_PAIRS,
            F.FULL_FLUSH,
            F.ALL_CHOWS,
            F.PURE_DOUBLE_CHOW,
            F.TWO_TERMINAL_CHOWS,
            F.NO_HONORS,
        ),
    ),
    (F.QUADRUPLE_CHOW, (F.PURE_TRIPLE_CHOW, F.PURE_DOUBLE_CHOW, F.PURE_SHIFTED_PUNGS, F.TILE_HOG)),
    (F.FOUR_PURE_SHIFTED_PUNGS, (F.PURE_SHIFTED_PUNGS, F.PURE_TRIPLE_CHOW, F.ALL_PUNGS)),
    (
        F.FOUR_PURE_SHIFTED_CHOWS,
        (F.PURE_SHIFTED_CHOWS, F.SHORT_STRAIGHT, F.TWO_TERMINAL_CHOWS),
    ),
    (
        F.THREE_KONGS,
        (
            F.TWO_MELDED_KONGS,
            F.TWO_CONCEALED_KONGS,
            F.MELDED_KONG,
            F.CONCEALED_KONG,
            F.CONCEALED_KONG_AND_MELDED_KONG,
        ),
    ),
    (
        F.ALL_TERMINALS_AND_HONORS,
        (F.ALL_PUNGS, F.OUTSIDE_HAND, F.PUNG_OF_TERMINALS_OR_HONORS),
    ),
    (F.SEVEN_PAIRS, (F.CONCEALED_HAND, F.SINGLE_WAIT)),
    (
        F.GREATER_HONORS_AND_KNITTED_TILES,
        (
            F.LESSER_HONORS_AND_KNITTED_TILES,
            F.ALL_TYPES,
            F.CONCEALED_HAND,
            F.SINGLE_WAIT,
        ),
    ),
    (F.ALL_EVEN_PUNGS, (F.ALL_PUNGS, F.ALL_SIMPLES, F.NO_HONORS)),
    (F.FULL_FLUSH, (F.NO_HONORS, F.ONE_VOIDED_SUIT)),
    (F.PURE_TRIPLE_CHOW, (F.PURE_DOUBLE_CHOW, F.PURE_SHIFTED_PUNGS)),
    (F.PURE_SHIFTED_PUNGS, (F.PURE_TRIPLE_CHOW,)),
    (F.UPPER_TILES, (F.UPPER_FOUR, F.NO_HONORS)),
    (F.MIDDLE_TILES, (F.ALL_SIMPLES, F.NO_HONORS)),
    (F.LOWER_TILES, (F.LOWER_FOUR, F.NO_HONORS)),
    (F.PURE_STRAIGHT, (F.SHORT_STRAIGHT, F.TWO_TERMINAL_CHOWS)),
    (
        F.THREE_SUITED_TERMINAL_CHOWS,
        (F.ALL_CHOWS, F.MIXED_DOUBLE_CHOW, F.TWO_TERMINAL_CHOWS, F.NO_HONORS),
    ),
    (F.ALL_FIVE, (F.ALL_SIMPLES, F.NO_HONORS)),
    (F.TRIPLE_PUNG, (F.DOUBLE_PUNG,)),
    (F.THREE_CONCEALED_PUNGS, (F.TWO_CONCEALED_PUNGS,)),
    (
        F.LESSER_HONORS_AND_KNITTED_TILES,
        (F.ALL_TYPES, F.CONCEALED_HAND, F.SINGLE_WAIT),
    ),
    (F.UPPER_FOUR, (F.NO_HONORS,)),
    (F.LOWER_FOUR, (F.NO_HONORS,)),
    (F.REVERSIBLE_TILES, (F.ONE_VOIDED_SUIT,)),
    (F.MIXED_TRIPLE_CHOW, (F.MIXED_DOUBLE_CHOW,)),
    (F.LAST_TILE_DRAW, (F.SELF_DRAWN,)),
    (F.OUT_WITH_REPLACEMENT_TILE, (F.SELF_DRAWN,)),
    (F.ROBBING_THE_KONG, (F.LAST_TILE,)),
    (F.TWO_CONCEALED_KONGS, (F.CONCEALED_KONG, F.TWO_CONCEALED_PUNGS)),
    (F.HALF_FLUSH, (F.ONE_VOIDED_SUIT,)),
    (F.MELDED_HAND, (F.SINGLE_WAIT,)),
    (F.TWO_DRAGONS_PUNGS, (F.DRAGON_PUNG,)),
    (F.FULLY_CONCEALED_HAND, (F.CONCEALED_HAND, F.SELF_DRAWN)),
    (F.TWO_MELDED_KONGS, (F.MELDED_KONG,)),
    (F.CONCEALED_KONG_AND_MELDED_KONG, (F.CONCEALED_KONG, F.MELDED_KONG)),
    (F.ALL_CHOWS, (F.NO_HONORS,)),
    (F.ALL_SIMPLES, (F.NO_HONORS,)),
)
"""For each fan, the fans it implies (not counted in addition), from docs/rules.md §6: the
``"botzone"`` profile's table (PyMahjongGB 1.4.0); :data:`FAN_IMPLIES_BY_PROFILE` has the
``"mcr"`` one.

Fans that imply only *some* occurrences of a counted fan (e.g. Dragon Pung implies the Pung of
Terminals or Honors *of that pung*) are listed only where the whole fan is excluded; the scorer
applies the per-pung deductions itself. A result of :func:`score_win` never contains a fan
together with a fan listed as implied by it in its profile's table (checked by the tests)."""

MCR_IMPLIES_CHANGES: MappingProxyType[Fan, tuple[frozenset[Fan], frozenset[Fan]]] = (
    MappingProxyType(
        {
            # docs/rules.md §7 item 3: Nine Gates combines with Fully Concealed Hand
            # when self-drawn; item 5: and never with Pung of Terminals or Honors
            F.NINE_GATES: (
                frozenset({F.FULLY_CONCEALED_HAND}),
                frozenset({F.PUNG_OF_TERMINALS_OR_HONORS}),
            ),
            # item 4: All Green combines with Half Flush when it holds Green Dragons
            F.ALL_GREEN: (frozenset({F.HALF_FLUSH}), frozenset()),
            # item 6: All Terminals may score Double Pung
            F.ALL_TERMINALS: (frozenset({F.DOUBLE_PUNG}), frozenset()),
        }
    )
)
"""How the ``"mcr"`` profile's "implies" table differs from :data:`FAN_IMPLIES`:
``{fan: (no longer implied, implied in addition)}`` (docs/rules.md §7, items 3-6; item 3's
other special hands are in :data:`mcr_env.scoring.evaluate.EXTRA_IMPLIES_BY_PROFILE`, item 7
is a condition of Melded Hand, not an implication)."""


def _mcr_implies() -> MappingProxyType[Fan, frozenset[Fan]]:
    table = dict(FAN_IMPLIES)
    for f, (dropped, added) in MCR_IMPLIES_CHANGES.items():
        table[f] = (table[f] - dropped) | added
    return MappingProxyType(table)


FAN_IMPLIES_BY_PROFILE: MappingProxyType[str, MappingProxyType[Fan, frozenset[Fan]]] = (
    MappingProxyType({"mcr": _mcr_implies(), "botzone": FAN_IMPLIES})
)
"""The "implies" table of each profile (docs/rules.md §6, §7): ``"botzone"`` is
:data:`FAN_IMPLIES`, ``"mcr"`` applies :data:`MCR_IMPLIES_CHANGES` to it."""
del F

"""The ``mcr`` profile restated from the ``botzone`` one, item by item (docs/rules.md §7).

A checker for tests and ``scripts/diff_scoring.py --profiles``: it takes every reading of a
hand as the ``botzone`` profile scores it (PyMahjongGB 1.4.0, checked separately by the
differential test), applies each difference of docs/rules.md §7 to that reading's fans as the
rules state it, and picks the best reading in ``mcr`` points. The scorer reaches the ``mcr``
result differently (its own "implies" tables, applied before non-repeat), so agreement of the
two is a check of the scorer against the written statements. Each item that changed a
reading is reported, so every difference between the profiles is classified by its item.
"""

from __future__ import annotations

from mcr_env.scoring.evaluate import (
    MELD_CHOW,
    MELD_CONCEALED_KONG,
    MELD_KONG,
    MELD_PUNG,
    _preferred,
    readings,
)
from mcr_env.scoring.fans import FAN_NAMES, POINTS_ARRAY, Fan
from mcr_env.testing.hands import WinningHand

__all__ = ["SPECIAL_CONCEALED_FANS", "mcr_from_botzone"]

SPECIAL_CONCEALED_FANS = frozenset(
    {
        Fan.NINE_GATES,
        Fan.SEVEN_SHIFTED_PAIRS,
        Fan.THIRTEEN_ORPHANS,
        Fan.FOUR_CONCEALED_PUNGS,
        Fan.SEVEN_PAIRS,
        Fan.GREATER_HONORS_AND_KNITTED_TILES,
        Fan.LESSER_HONORS_AND_KNITTED_TILES,
    }
)
"""The concealed special hands of docs/rules.md §7 item 3."""

_GREEN_DRAGON = 32
_BOTZONE_MELD = {
    "CHI": lambda t: (MELD_CHOW, t - 1),
    "PENG": lambda t: (MELD_PUNG, t),
    "GANG": lambda t: (MELD_KONG, t),
    "BUGANG": lambda t: (MELD_KONG, t),
    "ANGANG": lambda t: (MELD_CONCEALED_KONG, t),
}
_MCR_POINTS = POINTS_ARRAY["mcr"]


def _double_pungs_of_all_terminals(wh: WinningHand) -> int:
    """Double Pungs of an All Terminals hand read as four pungs and a pair: per rank (1, 9),
    two suits with a pung make one Double Pung (three make a Triple Pung instead)."""
    counts = [0] * 34
    for t in (*wh.hand, wh.win_tile):
        counts[t] += 1
    for _kind, t, _offer in wh.melds:
        counts[t] += 3
    n = 0
    for rank in (0, 8):
        suits = sum(1 for s in range(3) if counts[9 * s + rank] >= 3)
        n += suits == 2
    return n


def _restate(wh: WinningHand, fans: dict[int, int]) -> tuple[dict[int, int], set[int]]:
    """One ``botzone`` reading's fans turned into ``mcr`` fans, and the §7 items that changed
    it (item 1 changes points only and is reported when Two Concealed Kongs is present)."""
    out = dict(fans)
    items: set[int] = set()
    if Fan.TWO_CONCEALED_KONGS in out:
        items.add(1)
    if out.pop(Fan.CONCEALED_KONG_AND_MELDED_KONG, 0):
        out[Fan.TWO_MELDED_KONGS] = 1
        out[Fan.CONCEALED_KONG] = 1
        items.add(2)
    if wh.is_self_drawn and SPECIAL_CONCEALED_FANS & set(out):
        out.pop(Fan.SELF_DRAWN, None)
        out[Fan.FULLY_CONCEALED_HAND] = 1
        items.add(3)
    tiles = set(wh.hand) | {wh.win_tile} | {t for _k, t, _o in wh.melds}
    if Fan.ALL_GREEN in out and _GREEN_DRAGON in tiles:
        out[Fan.HALF_FLUSH] = 1
        items.add(4)
    if Fan.NINE_GATES in out and out.pop(Fan.PUNG_OF_TERMINALS_OR_HONORS, 0):
        items.add(5)
    if Fan.ALL_TERMINALS in out and Fan.SEVEN_PAIRS not in out:
        n = _double_pungs_of_all_terminals(wh)
        if n:
            out[Fan.DOUBLE_PUNG] = n
            items.add(6)
    if Fan.MELDED_HAND in out and any(k == "BUGANG" for k, _t, _o in wh.melds):
        del out[Fan.MELDED_HAND]
        if Fan.FOUR_KONGS not in out:  # Four Kongs implies Single Wait itself
            out[Fan.SINGLE_WAIT] = 1
        items.add(7)
    return out, items


def mcr_from_botzone(wh: WinningHand) -> tuple[int, dict[str, int], set[int]]:
    """The ``mcr`` score of a hand restated from its ``botzone`` readings.

    Returns:
        ``(total including flowers, {fan name: count}, items)``: what ``score_win(...,
        profile="mcr")`` must return (same form as ``ScoreResult.total`` / ``as_dict()``), and
        the §7 items that changed any reading (empty: the profiles must agree).

    Raises:
        ValueError: the hand is not a win (as :func:`mcr_env.scoring.score_win`).
    """
    # botzone readings: a promoted kong is a melded kong (the differential test checks that
    # score_win agrees with PyMahjongGB on BUGANG melds)
    melds = tuple(_BOTZONE_MELD[k](t) for k, t, _o in wh.melds)
    counts = [0] * 34
    for t in wh.hand:
        counts[t] += 1
    found = readings(
        tuple(counts),
        wh.win_tile,
        melds,
        wh.is_self_drawn,
        wh.is_4th_tile,
        wh.is_wall_last,
        wh.is_about_kong,
        wh.seat_wind,
        wh.prevalent_wind,
        "botzone",
    )
    if not found:
        raise ValueError(f"not a winning hand: {wh}")
    restated = []
    items: set[int] = set()
    for _total, fans in found:
        new, changed = _restate(wh, fans)
        items |= changed
        restated.append((sum(_MCR_POINTS[f] * c for f, c in new.items()), new))
    total, fans = restated[_preferred(restated)]
    names = {FAN_NAMES[Fan(f)]: c for f, c in sorted(fans.items())}
    if wh.flowers:
        names[FAN_NAMES[Fan.FLOWER_TILES]] = wh.flowers
    return total + wh.flowers, names, items

"""Exact MCR fan scoring of a winning hand: :func:`score_win` (docs/rules.md §5-§7).

This module parses and validates the input and builds the result; the fans themselves are
found by :func:`mcr_env.scoring.evaluate.evaluate` (our own reading-by-reading evaluator, see
its module docstring). The botzone profile is PyMahjongGB 1.4.0 exactly (docs/rules.md §7); the
mcr profile differs only as docs/rules.md §7 says. Scoring is a pure function of its
arguments: no RNG, no game state.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from mcr_env._checks import check_int
from mcr_env.scoring.evaluate import (
    MELD_CHOW,
    MELD_CONCEALED_KONG,
    MELD_KONG,
    MELD_PROMOTED_KONG,
    MELD_PUNG,
    evaluate,
    trim_caches,
)
from mcr_env.scoring.fans import FAN_NAMES, POINTS_ARRAY, PROFILES, Fan
from mcr_env.tiles import FLOWER_BASE, parse_tile, parse_tiles, tile_to_code

__all__ = ["FanResult", "ScoreResult", "NotAWinError", "score_win", "score_counts", "MELD_KINDS"]

MELD_KINDS = ("CHI", "PENG", "GANG", "ANGANG", "BUGANG")
"""Accepted meld kinds; ``"BUGANG"`` (a pung promoted to a kong) scores as a melded kong
(``"GANG"``) for every fan, except that in the ``"mcr"`` profile a hand holding one scores no
Melded Hand (docs/rules.md §7 item 7)."""


class NotAWinError(ValueError):
    """The tiles form no winning reading (docs/rules.md §2, "A winning hand")."""


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
        total: points including flowers (what settlement uses, docs/rules.md §3).
        total_without_flowers: points excluding flowers (the 8-point minimum applies to this).
        is_legal_win: ``total_without_flowers >= 8`` (docs/rules.md §2).
    """

    fans: tuple[FanResult, ...]
    total: int
    total_without_flowers: int
    is_legal_win: bool

    def as_dict(self) -> dict[str, int]:
        """``{fan name: count}`` of the scored fans (Flower Tiles included)."""
        return {f.name: f.count for f in self.fans}


# ---------------------------------------------------------------------------------------------
# Input parsing and validation

_MELD_KIND = {
    "CHI": MELD_CHOW,
    "PENG": MELD_PUNG,
    "GANG": MELD_KONG,
    "BUGANG": MELD_PROMOTED_KONG,
    "ANGANG": MELD_CONCEALED_KONG,
}


def _tile_id(x: object, what: str) -> int:
    """Playing tile id of one tile (:func:`mcr_env.tiles.parse_tile`: id, Botzone code or
    compact tile); errors are prefixed with ``what``."""
    if isinstance(x, str):
        try:
            t = parse_tile(x)
        except ValueError as e:
            raise ValueError(f"{what}: {e}") from None
    elif isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        t = int(x)
        if not 0 <= t < FLOWER_BASE + 8:
            raise ValueError(f"{what}: unknown tile id {t} (expected 0..33)")
    else:
        raise TypeError(
            f"{what} must be a tile id (int) or one tile code (str: '5m', 'E' or 'W5'), got {x!r}"
        )
    if t >= FLOWER_BASE:
        raise ValueError(
            f"{what}: flower {tile_to_code(t)} is not a playing tile (pass flowers=N instead)"
        )
    return t


_EVAL_MELD = {
    (kind, t): (k, t - 1 if k == MELD_CHOW else t)
    for kind, k in _MELD_KIND.items()
    for t in range(34)
}
"""``(kind, tile)`` of a validated meld -> the evaluator's ``(kind, tile)`` (a chow is named by
its lowest tile)."""

_PLAIN_MELDS = {
    (kind, t, offer): _EVAL_MELD[kind, t]
    for kind in _MELD_KIND
    for t in range(34)
    for offer in range(4)
    if (offer == 0) == (kind == "ANGANG") and (kind != "CHI" or (t < 27 and t % 9 not in (0, 8)))
}
"""Every valid ``(kind, tile id, offer)`` meld tuple in canonical form (upper-case kind, int
tile and offer) -> the evaluator's ``(kind, tile)``."""


def _plain_melds(melds: object) -> list[tuple[int, int]] | None:
    """The evaluator's melds when ``melds`` is a list/tuple of at most 4 valid canonical
    ``(str, int, int)`` tuples, else None (the caller then validates with :func:`_parse_melds`)."""
    if type(melds) not in (list, tuple) or len(melds) > 4:
        return None
    out = []
    for m in melds:
        if type(m) is not tuple:
            return None
        try:
            e = _PLAIN_MELDS.get(m)  # equal to a key: a 3-tuple of a kind and two numbers
        except TypeError:  # unhashable contents
            return None
        # equal is not enough: 5.0 or True would match 5 or 1
        if e is None or type(m[1]) is not int or type(m[2]) is not int:
            return None
        out.append(e)
    return out


def _check_bool(x: object, what: str) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise TypeError(f"{what} must be a bool, got {type(x).__name__} {x!r}")


def _check_int(x: object, what: str, lo: int, hi: int) -> int:
    return check_int(x, what, lo, hi, what=f"in {lo}..{hi}")


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
        if kind not in _MELD_KIND:
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
                f"got {tile_to_code(t)}"
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
    """Score a winning hand exactly (docs/rules.md §5-§7).

    Args:
        hand: the concealed tiles WITHOUT the winning tile: a list/tuple/``(n,) int`` array of
            tile ids (0-33) or single tiles in either notation (``"W5"`` or ``"5m"``), or one
            string in Botzone or compact notation. ``13 - 3 * len(melds)`` tiles.
        win_tile: the winning tile: an id or one tile in either notation (``4``, ``"W5"``,
            ``"5m"``; :func:`mcr_env.tiles.parse_tile`). Meld tiles likewise.
        melds: ``(kind, tile, offer)`` tuples: ``"CHI"`` (tile = middle tile, offer 1..3 = which
            of the three tiles was claimed), ``"PENG"``, ``"GANG"`` (melded kong; offer 1..3 =
            claimed from left/across/right), ``"BUGANG"`` (a melded kong made by adding a tile
            to a melded pung; offer = that pung's; scored as ``"GANG"`` for every fan, except
            that the ``"mcr"`` profile scores no Melded Hand with one, docs/rules.md §7
            item 7) or ``"ANGANG"`` (concealed kong, offer 0). At most 4.
        is_self_drawn: won on a self-drawn tile (else on a discard or a robbed kong).
        is_4th_tile: the other three copies of the winning tile are visible (Last Tile).
        is_wall_last: won on the last tile of the wall / the discard after it.
        is_about_kong: won on a kong replacement (self-drawn) / by robbing a kong (discard).
        seat_wind, prevalent_wind: 0..3 = East, South, West, North.
        flowers: number of flowers 0..8 (1 point each, not counted toward the 8-point minimum).
        profile: ``"mcr"`` (default) or ``"botzone"`` (identical to PyMahjongGB 1.4.0),
            docs/rules.md §7.

    Returns:
        :class:`ScoreResult` of the highest-scoring reading (equal totals are resolved as
        PyMahjongGB 1.4.0 resolves them, so both the total and the fan list match it; see
        :func:`mcr_env.scoring.evaluate._preferred`).

    Raises:
        TypeError: an argument has the wrong type (non-bool flag, non-int wind, bad meld tuple).
        ValueError: unknown tile code, wrong tile count, a fifth copy of a tile, a Chi on an
            honor or with a terminal middle tile, an offer out of range, more than 4 melds,
            flowers outside 0..8, winds outside 0..3 or an unknown profile.
        NotAWinError: (a ValueError) the tiles form no winning reading.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (expected one of {PROFILES})")
    # fast paths for already-valid plain values; anything else goes through the checkers
    self_drawn = (
        is_self_drawn
        if type(is_self_drawn) is bool
        else _check_bool(is_self_drawn, "is_self_drawn")
    )
    fourth = is_4th_tile if type(is_4th_tile) is bool else _check_bool(is_4th_tile, "is_4th_tile")
    wall_last = (
        is_wall_last if type(is_wall_last) is bool else _check_bool(is_wall_last, "is_wall_last")
    )
    about_kong = (
        is_about_kong
        if type(is_about_kong) is bool
        else _check_bool(is_about_kong, "is_about_kong")
    )
    seat = (
        seat_wind
        if type(seat_wind) is int and 0 <= seat_wind <= 3
        else _check_int(seat_wind, "seat_wind", 0, 3)
    )
    prevalent = (
        prevalent_wind
        if type(prevalent_wind) is int and 0 <= prevalent_wind <= 3
        else _check_int(prevalent_wind, "prevalent_wind", 0, 3)
    )
    n_flowers = (
        flowers
        if type(flowers) is int and 0 <= flowers <= 8
        else _check_int(flowers, "flowers", 0, 8)
    )
    standing = [0] * 34
    if type(hand) is list or type(hand) is tuple:  # fast path: plain tile ids
        for t in hand:
            if type(t) is not int or not 0 <= t < 34:
                standing = None
                break
            standing[t] += 1
    else:
        standing = None
    if standing is None:
        hand = _parse_hand(hand)
        standing = [0] * 34
        for t in hand:
            standing[t] += 1
    win_id = (
        win_tile if type(win_tile) is int and 0 <= win_tile < 34 else _tile_id(win_tile, "win_tile")
    )
    fixed = _plain_melds(melds)
    if fixed is None:
        fixed = [_EVAL_MELD[kind, t] for kind, t, _offer in _parse_melds(melds)]
    expected = 13 - 3 * len(fixed)
    if len(hand) != expected:
        raise ValueError(
            f"wrong tile count: {len(fixed)} meld(s) need {expected} concealed tiles besides "
            f"the winning tile, got {len(hand)}"
        )
    used = standing.copy()
    used[win_id] += 1
    for k, t in fixed:
        if k == MELD_CHOW:
            used[t] += 1
            used[t + 1] += 1
            used[t + 2] += 1
        else:
            used[t] += 3 if k == MELD_PUNG else 4
    if max(used) > 4:
        t = max(range(34), key=used.__getitem__)
        raise ValueError(f"{used[t]} copies of tile {tile_to_code(t)} (at most 4 exist)")
    return score_counts(
        tuple(standing),
        win_id,
        tuple(fixed),
        self_drawn,
        fourth,
        wall_last,
        about_kong,
        seat,
        prevalent,
        n_flowers,
        profile,
    )


def score_counts(
    standing: tuple,
    win: int,
    melds: tuple,
    self_drawn: bool,
    fourth: bool,
    wall_last: bool,
    about_kong: bool,
    seat: int,
    prevalent: int,
    flowers: int,
    profile: str,
) -> ScoreResult:
    """:func:`score_win` of a hand already in the evaluator's form, without the input checks
    (docs/rules.md §5-§7): for callers that build the arguments from a valid game state, such
    as the engine (:class:`mcr_env.engine.MCREngine`), one call per complete hand.
    :func:`score_win` validates its arguments and then calls this function, so both give the
    same result for the same hand.

    Args:
        standing: ``(34,)`` tuple of int counts of the concealed tiles without the winning
            tile (``13 - 3 * len(melds)`` tiles; with the winning tile and the melds at most 4
            copies of a kind).
        win: winning tile id 0..33.
        melds: tuple of ``(kind, tile)`` int pairs of the evaluator
            (:data:`~mcr_env.scoring.evaluate.MELD_CHOW` with the chow's LOWEST tile,
            ``MELD_PUNG``, ``MELD_KONG``, ``MELD_CONCEALED_KONG``, ``MELD_PROMOTED_KONG``).
        self_drawn, fourth, wall_last, about_kong: the flags of :func:`score_win`, bools.
        seat, prevalent: winds 0..3. flowers: 0..8. profile: ``"mcr"`` or ``"botzone"``.

    Returns:
        :class:`ScoreResult`, as :func:`score_win`.

    Raises:
        NotAWinError: the tiles form no winning reading. Arguments outside the ranges above
            are not diagnosed (use :func:`score_win` for unchecked input).
    """
    fans = _score_core(
        standing, win, melds, self_drawn, fourth, wall_last, about_kong, seat, prevalent, profile
    )
    if fans is None:
        raise NotAWinError("not a winning hand: the tiles form no regular or special winning shape")
    return _make_result(fans, flowers, profile)


_TRIM_EVERY = 1 << 16
_calls = 0


def _score_core(*args) -> tuple[tuple[int, int], ...] | None:
    """:func:`~mcr_env.scoring.evaluate.evaluate` as sorted ``(fan, count)`` pairs; every
    :data:`_TRIM_EVERY` hands the memo tables that grew too large are emptied.

    Not memoised as a whole: a whole hand rarely repeats (callers that replay hands, like the
    engine, keep their own cache), and every entry kept is more for the garbage collector to
    scan."""
    global _calls
    _calls += 1
    if _calls % _TRIM_EVERY == 0:
        trim_caches()
        if _make_result.cache_info().currsize > _TRIM_EVERY:
            _make_result.cache_clear()
    fans = evaluate(*args)
    return None if fans is None else tuple(sorted(fans.items()))


@cache
def _make_result(fans: tuple[tuple[int, int], ...], n_flowers: int, profile: str) -> ScoreResult:
    table = dict(fans)
    if n_flowers:
        table[Fan.FLOWER_TILES] = n_flowers
    points = POINTS_ARRAY[profile]
    out = []
    total = 0
    for v in sorted(table):
        c = table[v]
        out.append(_fan_result(v, points[v], c))
        total += points[v] * c
    without = total - n_flowers
    return ScoreResult(tuple(out), total, without, without >= 8)


@cache
def _fan_result(v: int, points: int, count: int) -> FanResult:
    f = Fan(v)
    return FanResult(f, FAN_NAMES[f], points, count)

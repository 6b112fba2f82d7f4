"""The original pure-Python RuleBasedAgent and its hand plans (before the table-based
rewrite in :mod:`baselines.hand_plans`), kept only here as the slow reference of the
equality tests (tests/test_rule_agent.py). Do not import it outside the tests.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

Meld = tuple[str, int]
"""A meld of the seat: ``(kind, tile)``; kind "chow" (tile = lowest), "pung" or "kong"."""

_SUIT_SLICES = ((0, 9), (9, 18), (18, 27))
_HONORS = range(27, 34)
_KNITTED_PERMS = tuple(itertools.permutations(range(3)))


# ------------------------------------------------------------------ per-suit decompositions
def _pareto(options: set[tuple[int, int, int]]) -> tuple[tuple[int, int, int], ...]:
    """Keep the (sets, partials, pairs) triples not dominated in all three coordinates."""
    opts = sorted(options, reverse=True)
    keep: list[tuple[int, int, int]] = []
    for o in opts:
        if not any(k[0] >= o[0] and k[1] >= o[1] and k[2] >= o[2] for k in keep):
            keep.append(o)
    return tuple(keep)


@functools.lru_cache(maxsize=200_000)
def suit_options(counts: tuple[int, ...], chows: bool) -> tuple[tuple[int, int, int], ...]:
    """Pareto-optimal ways to cut one suit into (sets, partial sets, pairs).

    Args:
        counts: counts of the suit's ranks (9 for a suit; length 1 for one honor kind).
        chows: whether runs (chows and two-tile run partials) may be used.

    Returns:
        tuple of ``(sets, partials, pairs)``; pairs are counted apart so the caller can use one
        as the hand's pair and the rest as partial sets.
    """
    c = list(counts)
    i = next((k for k, v in enumerate(c) if v), -1)
    if i < 0:
        return ((0, 0, 0),)
    out: set[tuple[int, int, int]] = set()

    def rec(new: list[int], ds: int, dt: int, dp: int) -> None:
        for s, t, p in suit_options(tuple(new), chows):
            out.add((s + ds, t + dt, p + dp))

    # leave one copy of tile i unused
    c[i] -= 1
    rec(c, 0, 0, 0)
    c[i] += 1
    if c[i] >= 3:
        c[i] -= 3
        rec(c, 1, 0, 0)
        c[i] += 3
    if c[i] >= 2:
        c[i] -= 2
        rec(c, 0, 0, 1)
        c[i] += 2
    if chows and i + 1 < len(c):
        if i + 2 < len(c) and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            rec(c, 1, 0, 0)
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1
        if c[i + 1]:
            c[i] -= 1
            c[i + 1] -= 1
            rec(c, 0, 1, 0)
            c[i] += 1
            c[i + 1] += 1
        if i + 2 < len(c) and c[i + 2]:
            c[i] -= 1
            c[i + 2] -= 1
            rec(c, 0, 1, 0)
            c[i] += 1
            c[i + 2] += 1
    return _pareto(out)


def _honor_options(counts: Sequence[int]) -> tuple[int, int, int]:
    """Honors cannot form runs: each kind is independently a pung, a pair or nothing useful."""
    s = p = 0
    for v in counts:
        if v >= 3:
            s += 1
        elif v == 2:
            p += 1
    return (s, 0, p)


def regular_distance(counts: Sequence[int], n_sets: int, chows: bool = True) -> int:
    """Shanten of ``counts`` toward ``n_sets`` more sets plus a pair.

    ``2 n - 2 S - T - P`` maximised over decompositions, with ``S + T <= n`` partials counted
    and ``P`` = 1 if a pair is kept. ``-1`` = complete; tiles may be fewer than ``3 n + 2`` (the
    missing ones count as needed draws).

    Args:
        counts: ``(34,) int`` tile counts.
        n_sets: sets still to build (0..4).
        chows: False restricts sets to pungs (All Pungs).
    """
    return _regular_distance(tuple(int(v) for v in counts), int(n_sets), bool(chows))


@functools.lru_cache(maxsize=500_000)
def _regular_distance(c: tuple[int, ...], n_sets: int, chows: bool) -> int:
    combos = [suit_options(c[a:b], chows) for a, b in _SUIT_SLICES]
    hs, _, hp = _honor_options(c[27:34])
    best = -10
    for x0 in combos[0]:
        for x1 in combos[1]:
            for x2 in combos[2]:
                s = min(x0[0] + x1[0] + x2[0] + hs, n_sets)
                t = x0[1] + x1[1] + x2[1]
                p = x0[2] + x1[2] + x2[2] + hp
                pair = 1 if p > 0 else 0
                partials = min(t + p - pair, n_sets - s)
                value = 2 * s + partials + pair
                if value > best:
                    best = value
    return 2 * n_sets - best


# ------------------------------------------------------------------ plans
def _meld_tiles(meld: Meld) -> list[int]:
    kind, tile = meld
    return [tile, tile + 1, tile + 2] if kind == "chow" else [tile]


def _suit_of(tile: int) -> int:
    return tile // 9 if tile < 27 else 3


def _set_need(sets: Sequence[Meld]) -> dict[int, int]:
    need: dict[int, int] = {}
    for kind, tile in sets:
        for t in [tile, tile + 1, tile + 2] if kind == "chow" else [tile, tile, tile]:
            need[t] = need.get(t, 0) + 1
    return need


def _build_tables():
    suit_sets = [frozenset(range(a, b)) for a, b in _SUIT_SLICES]
    honors = frozenset(_HONORS)
    upper = frozenset(t for t in range(27) if t % 9 >= 5)
    lower = frozenset(t for t in range(27) if t % 9 <= 3)
    fixed: list[tuple[str, tuple[Meld, ...]]] = []
    for s in range(3):
        fixed.append(("Pure Straight", (("chow", 9 * s), ("chow", 9 * s + 3), ("chow", 9 * s + 6))))
    for perm in _KNITTED_PERMS:
        sets = (("chow", 9 * perm[0]), ("chow", 9 * perm[1] + 3), ("chow", 9 * perm[2] + 6))
        fixed.append(("Mixed Straight", sets))
    for r in range(7):
        fixed.append(("Mixed Triple Chow", (("chow", r), ("chow", 9 + r), ("chow", 18 + r))))
    for r in range(9):
        fixed.append(("Triple Pung", (("pung", r), ("pung", 9 + r), ("pung", 18 + r))))
    fixed_need = [(name, sets, _set_need(sets)) for name, sets in fixed]
    knitted = []
    for perm in _KNITTED_PERMS:
        knitted.append(
            tuple(
                9 * suit + r
                for offset, suit in enumerate(perm)
                for r in (offset, offset + 3, offset + 6)
            )
        )
    orphans = (0, 8, 9, 17, 18, 26, *range(27, 34))
    return suit_sets, honors, upper, lower, fixed_need, knitted, orphans


_SUIT_SETS, _HONOR_SET, _UPPER, _LOWER, _FIXED, _KNITTED, _ORPHANS = _build_tables()

PLAN_PENALTY = {"Half Flush": 1.0, "All Pungs": 1.0, "Regular": 2.0}
"""Extra distance of plans that usually need one more small fan to reach 8 points."""
PRUNE_MARGIN = 3
"""Fixed-set plans whose missing tiles alone exceed the regular distance by more are skipped."""


def _restricted(c: tuple[int, ...], allowed: frozenset[int]) -> tuple[int, ...]:
    return tuple(v if t in allowed else 0 for t, v in enumerate(c))


def plan_distances(counts: Sequence[int], melds: Sequence[Meld] = ()) -> dict[str, int]:
    """Best distance of each plan family for a hand.

    Args:
        counts: ``(34,) int`` concealed tile counts (13 - 3m or 14 - 3m tiles, m = len(melds)).
        melds: the seat's melds, see :data:`Meld`.

    Returns:
        dict plan name -> distance (shanten-like; -1 complete). Plans impossible with the melds
        are left out. Plan names are the fan names of docs/rules.md §6 plus "Regular".
        Fixed-set plans further than ``PRUNE_MARGIN`` beyond "Regular" may be left out.

    Raises:
        ValueError: more than four melds or a count outside 0..4.
    """
    c = tuple(int(v) for v in counts)
    if len(c) != 34 or min(c) < 0 or max(c) > 4:
        raise ValueError(f"counts must be 34 values in 0..4, got {list(c)}")
    if len(melds) > 4:
        raise ValueError(f"at most 4 melds, got {len(melds)}")
    return dict(_plan_distances(c, tuple((str(k), int(t)) for k, t in melds)))


@functools.lru_cache(maxsize=200_000)
def _plan_distances(c: tuple[int, ...], melds: tuple[Meld, ...]) -> tuple[tuple[str, int], ...]:
    m = len(melds)
    n = 4 - m
    out: dict[str, int] = {}
    meld_tiles = [t for meld in melds for t in _meld_tiles(meld)]
    meld_suits = {_suit_of(t) for t in meld_tiles}

    regular = _regular_distance(c, n, True)
    out["Regular"] = regular
    best_full = best_half = 99
    for s in range(3):
        if meld_suits <= {s}:
            best_full = min(best_full, _regular_distance(_restricted(c, _SUIT_SETS[s]), n, True))
        if meld_suits <= {s, 3}:
            d = _regular_distance(_restricted(c, _SUIT_SETS[s] | _HONOR_SET), n, True)
            best_half = min(best_half, d)
    if best_full < 99:
        out["Full Flush"] = best_full
    if best_half < 99:
        out["Half Flush"] = best_half
    if all(k != "chow" for k, _ in melds):
        out["All Pungs"] = _regular_distance(c, n, False)
    for name, allowed in (("Upper Four", _UPPER), ("Lower Four", _LOWER)):
        if all(t in allowed for t in meld_tiles):
            out[name] = _regular_distance(_restricted(c, allowed), n, True)
    norm_melds = [("pung" if k == "kong" else k, t) for k, t in melds]
    for name, sets, need in _FIXED:
        remaining = dict(need)
        free_melds = 0
        for meld in norm_melds:
            if meld in sets:
                for t in _meld_tiles(meld) if meld[0] == "chow" else [meld[1]] * 3:
                    remaining[t] -= 1
            else:
                free_melds += 1
        n_free = 4 - len(sets) - free_melds
        if n_free < 0:
            continue
        missing = sum(max(v - c[t], 0) for t, v in remaining.items())
        if missing > regular + PRUNE_MARGIN:
            continue
        rest = list(c)
        for t, v in remaining.items():
            rest[t] -= min(v, c[t])
        d = missing + _regular_distance(tuple(rest), n_free, True)
        if d < out.get(name, 99):
            out[name] = d
    if m == 0:
        pairs = sum(1 for v in c if v >= 2)
        kinds = sum(1 for v in c if v >= 1)
        out["Seven Pairs"] = 6 - pairs + max(0, 7 - kinds)
        honor_kinds = sum(1 for v in c[27:] if v)
        distinct = max(honor_kinds + sum(1 for t in k if c[t]) for k in _KNITTED)
        out["Lesser Honors and Knitted Tiles"] = 13 - min(14, distinct)
        orphan_kinds = sum(1 for t in _ORPHANS if c[t])
        has_pair = int(any(c[t] >= 2 for t in _ORPHANS))
        out["Thirteen Orphans"] = 13 - orphan_kinds - has_pair
    if m <= 1:
        best = 99
        for k in _KNITTED:
            missing = sum(1 for t in k if not c[t])
            if missing > regular + PRUNE_MARGIN:
                continue
            rest = list(c)
            for t in k:
                if rest[t]:
                    rest[t] -= 1
            best = min(best, missing + _regular_distance(tuple(rest), 1 - m, True))
        if best < 99:
            out["Knitted Straight"] = best
    return tuple(out.items())


def hand_value(counts: Sequence[int], melds: Sequence[Meld] = (), sharpness: float = 1.3) -> float:
    """Soft-min score of a hand over all plans: ``sum exp(-sharpness * (distance + penalty))``.

    Higher is better; dominated by the closest plan, with a bonus for keeping several plans
    open. Used to rank discards and to decide claims (both compare hands of equal size).
    """
    total = 0.0
    for name, d in plan_distances(counts, melds).items():
        total += math.exp(-sharpness * (d + PLAN_PENALTY.get(name, 0.0)))
    return total


# ---------------------------------------------------------------------------- the agent
import numpy as np  # noqa: E402

from mcr_env.engine.actions import (  # noqa: E402
    ACTION_KIND,
    ACTION_TILE,
    CHI_CLAIMED_TILE,
    HU,
    PASS,
    ActionKind,
)


class ReferenceRuleAgent:
    """Plan-steered heuristic player (greedy, deterministic).

    * Hu whenever it is legal (the engine makes Hu legal only for >= 8-point wins).
    * Discards: keep the hand whose :func:`baselines.hand_plans.hand_value` (soft-min over
      distances to fan-bearing plans: flushes, All Pungs, straights, Seven Pairs, knitted
      hands, ...) is highest; ties go to the tile with more visible copies.
    * Kongs (AnGang/BuGang): taken when the hand is not worse than after the best discard.
    * Claims (Chi/Peng/Gang): taken when the hand after the claim (and its best discard) is
      worth more than ``claim_margin`` times the current hand.

    Reads only its :class:`SeatView` (own hand, own melds, public visible counts).

    Args:
        claim_margin: multiplicative margin a claim must beat (> 1 = reluctant to meld).
        sharpness: soft-min sharpness of :func:`hand_value`.
    """

    needs_obs = False
    needs_view = True

    def __init__(
        self, claim_margin: float = 1.15, sharpness: float = 1.3, name: str = "rule"
    ) -> None:
        if claim_margin <= 0 or sharpness <= 0:
            raise ValueError("claim_margin and sharpness must be positive")
        self.claim_margin = float(claim_margin)
        self.sharpness = float(sharpness)
        self.name = name

    def act(self, obs, mask: np.ndarray, view=None) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        if view is None:
            raise ValueError("RuleBasedAgent needs a SeatView (needs_view=True)")
        out = np.empty(mask.shape[0], dtype=np.int64)
        for i in range(mask.shape[0]):
            out[i] = self._act_one(mask[i], view.hand[i], view.melds(i), view.visible[i])
        return out

    # -------------------------------------------------------------- one decision
    def _value(self, counts: np.ndarray, melds: list[Meld]) -> float:
        return hand_value(counts, melds, self.sharpness)

    def _best_discard(
        self, counts: np.ndarray, melds: list[Meld], visible: np.ndarray, tiles
    ) -> tuple[float, int]:
        best_v, best_t = -1.0, -1
        for t in tiles:
            if counts[t] <= 0:
                continue
            counts[t] -= 1
            v = self._value(counts, melds) + 1e-4 * float(visible[t]) + 1e-5 * (t >= 27)
            counts[t] += 1
            if v > best_v:
                best_v, best_t = v, int(t)
        return best_v, best_t

    def _act_one(self, legal: np.ndarray, hand, melds: list[Meld], visible) -> int:
        if legal[HU]:
            return HU
        ids = np.flatnonzero(legal)
        if ids.size == 1:
            return int(ids[0])
        kinds = ACTION_KIND[ids]
        counts = hand.astype(np.int64).copy()
        plays = ids[kinds == ActionKind.PLAY]
        if plays.size:  # ACT or DISCARD decision
            best_v, best_t = self._best_discard(counts, melds, visible, ACTION_TILE[plays])
            choice = 2 + best_t
            for a in ids[(kinds == ActionKind.ANGANG) | (kinds == ActionKind.BUGANG)]:
                t = int(ACTION_TILE[a])
                new = counts.copy()
                if ACTION_KIND[a] == ActionKind.ANGANG:
                    new[t] -= 4
                    new_melds = [*melds, ("kong", t)]
                else:
                    new[t] -= 1
                    new_melds = [("kong", t) if m == ("pung", t) else m for m in melds]
                if self._value(new, new_melds) >= best_v:
                    return int(a)
            return int(choice)
        # claim round (Pass + Chi/Peng/Gang) or robbing window without Hu
        best_a, best_v = PASS, self._value(counts, melds) * self.claim_margin
        for a in ids:
            kind = ACTION_KIND[a]
            t = int(ACTION_TILE[a])
            new = counts.copy()
            if kind == ActionKind.CHI:
                claimed = int(CHI_CLAIMED_TILE[a])
                for u in (t - 1, t, t + 1):
                    if u != claimed:
                        new[u] -= 1
                v, _ = self._best_discard(new, [*melds, ("chow", t - 1)], visible, range(34))
            elif kind == ActionKind.PENG:
                new[t] -= 2
                v, _ = self._best_discard(new, [*melds, ("pung", t)], visible, range(34))
            elif kind == ActionKind.GANG:
                new[t] -= 3
                v = self._value(new, [*melds, ("kong", t)])
            else:
                continue
            if v > best_v:
                best_a, best_v = int(a), v
        return int(best_a)

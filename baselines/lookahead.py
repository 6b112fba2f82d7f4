"""The look-ahead rule agent's decisions: the rule agent's plans plus the next draw.

:class:`baselines.agents.RuleBasedAgent` ranks discards by the soft-min plan value
:func:`baselines.hand_plans.hand_value` of the 13 tiles that remain, which ignores how many
copies of the tiles the hand needs are still available. The look-ahead agent
(:class:`baselines.agents.LookaheadAgent`, spec ``rule-lookahead``) ranks them by the expected
value of the hand after its *next draw* (tile efficiency, "ukeire" weighted by the plan
values)::

    EV(d) = sum_t u(t) * V(h - d + t) / sum_t u(t),     u(t) = 4 - visible(t) - own(t)

where ``h`` is the 14-tile hand, ``V`` is :func:`baselines.hand_plans.hand_value` of the
14-tile hand (its plan distances count the best 13 of the 14 tiles, so a useless draw leaves
the value of ``h - d``), and ``u(t)`` are the copies of ``t`` the seat cannot see (none of
them in its own hand, discards or open melds; docs/rules.md §1: four copies of each of the 34
kinds). Only the ``top_k`` discards of highest :func:`hand_value` are looked ahead; the others
are never chosen. Hu, kongs and claims follow the rule agent with its
own ``claim_margin``. Everything reads the seat's own view only (its hand and melds, the
public visible counts).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from baselines.hand_plans import (
    _PLAY,
    _claim_action,
    _forced_action,
    _hand_value,
    _kong_action,
    _load_melds,
    _scratch,
    rule_features,
)

DEFAULTS = {"claim_margin": 1.6, "sharpness": 1.3, "top_k": 4}
"""The look-ahead agent's default parameters, chosen by duplicate evaluation against the rule
agent (README, "Training"): claim margins 1.4-2.0 and ``top_k`` 4-34 measured alike."""


@njit(cache=True)
def _unseen_all(c, vis, u):
    """``u[t] = max(0, 4 - vis[t] - c[t])`` for all 34 kinds; returns their sum."""
    total = 0
    for t in range(34):
        x = 4 - vis[t] - c[t]
        if x < 0:
            x = 0
        u[t] = x
        total += x
    return total


@njit(cache=True)
def draw_value(c, mchow, mtile, m, u, u_total, gc, gn, hon, out, rem, sharpness):
    """Expected :func:`hand_value` after one draw from the unseen tiles: ``sum_t u[t] *
    V(c + t) / u_total`` for the 13 - 3m tiles ``c (34,) int64`` (restored), ``u (34,) int64``
    unseen copies; with no unseen tile, ``V(c)``."""
    if u_total <= 0:
        return _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness)
    acc = 0.0
    for t in range(34):
        if u[t] <= 0 or c[t] >= 4:
            continue
        c[t] += 1
        acc += u[t] * _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness)
        c[t] -= 1
    return acc / u_total


@njit(cache=True)
def lookahead_discard(
    c, mchow, mtile, m, vis, playable, top_k, gc, gn, hon, out, rem, sharpness, vals, ev
):
    """The look-ahead discard of a 14 - 3m tile hand ``c (34,) int64`` (restored) among
    ``playable`` held tiles. Fills ``vals (34,) float64`` with the plain value after each
    discard (0 where not playable) and ``ev (34,) float64`` with the expected value after the
    next draw of the ``top_k`` best (ties: lower tile first; ``-1`` elsewhere). Returns the
    chosen tile: the best expected value, ties to more visible copies, then honors, then the
    lower tile (the rule agent's tie-breaks); ``-1`` when nothing is playable."""
    u = np.empty(34, dtype=np.int64)
    u_total = _unseen_all(c, vis, u)
    order = np.empty(34, dtype=np.int64)
    n = 0
    for t in range(34):
        vals[t] = 0.0
        ev[t] = -1.0
        if not playable[t] or c[t] <= 0:
            continue
        c[t] -= 1
        vals[t] = _hand_value(c, mchow, mtile, m, gc, gn, hon, out, rem, sharpness)
        c[t] += 1
        order[n] = t
        n += 1
    k = top_k if top_k < n else n
    for i in range(k):  # selection of the top_k by plain value, stable
        best = i
        for j in range(i + 1, n):
            if vals[order[j]] > vals[order[best]]:
                best = j
        tmp = order[i]
        order[i] = order[best]
        order[best] = tmp
    best_s = -1.0
    best_t = -1
    for i in range(k):
        t = order[i]
        c[t] -= 1
        ev[t] = draw_value(c, mchow, mtile, m, u, u_total, gc, gn, hon, out, rem, sharpness)
        c[t] += 1
        s = ev[t] + 1e-4 * vis[t] + 1e-5 * (1.0 if t >= 27 else 0.0)
        if s > best_s or (s == best_s and t < best_t):
            best_s = s
            best_t = t
    return best_t


@njit(cache=True)
def lookahead_decisions(
    hand,
    meld_kind,
    meld_tile,
    visible,
    mask,
    claim_margin,
    sharpness,
    top_k,
    gc,
    gn,
    hon,
    act_kind,
    act_tile,
    chi_claimed_tile,
):
    """The LookaheadAgent's actions for N decisions (:class:`baselines.agents.LookaheadAgent`).

    Args:
        hand: ``(N, 34) int8`` concealed counts; meld_kind / meld_tile ``(N, 4) int8`` as
            :class:`mcr_env.encoding.seat_view.SeatView`; visible ``(N, 34) int8``; mask
            ``(N, 235) bool`` (>= 1 legal per row).
        claim_margin, sharpness: as the rule agent; top_k: discards looked ahead (>= 1).
        gc, gn, hon: :func:`baselines.hand_plans.tables`; act_kind, act_tile,
            chi_claimed_tile: ``(235,) int64`` action tables of :mod:`mcr_env.engine.actions`.

    Returns:
        ``(N,) int64`` legal action ids.
    """
    n_rows = mask.shape[0]
    res = np.empty(n_rows, dtype=np.int64)
    c, vis, mchow, mtile, out, rem, pung_at = _scratch()
    playable = np.empty(34, dtype=np.bool_)
    vals = np.zeros(34, dtype=np.float64)
    ev = np.zeros(34, dtype=np.float64)
    for row in range(n_rows):
        legal = mask[row]
        forced = _forced_action(legal)
        if forced >= 0:
            res[row] = forced
            continue
        has_play = False
        for t in range(34):
            c[t] = hand[row, t]
            vis[t] = visible[row, t]
            playable[t] = legal[_PLAY + t]
            if playable[t]:
                has_play = True
        pung_at[:] = False
        m = _load_melds(meld_kind, meld_tile, row, mchow, mtile, pung_at)
        if has_play:  # own turn: discard, or a concealed / added kong (as the rule agent)
            best_t = lookahead_discard(
                c,
                mchow,
                mtile,
                m,
                vis,
                playable,
                top_k,
                gc,
                gn,
                hon,
                out,
                rem,
                sharpness,
                vals,
                ev,
            )
            best_v = 0.0
            for t in range(34):
                if vals[t] > best_v:
                    best_v = vals[t]
            kong = _kong_action(
                legal, c, mchow, mtile, m, best_v, gc, gn, hon, out, rem, sharpness, act_tile
            )
            res[row] = kong if kong >= 0 else _PLAY + best_t
            continue
        # claim round (Pass + Chi/Peng/Gang) or a robbing window without Hu: as the rule
        # agent (comparing claims by the expected value after the next draw measured no
        # better: +1.99 vs +1.95 points per hand over 6,000 duplicate hands)
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


NUM_LOOK_FEATURES = 10
"""Channels of :func:`lookahead_features`."""


@njit(cache=True)
def lookahead_features(
    hand, meld_kind, meld_tile, visible, tile_in_play, claim_margin, sharpness, top_k, gc, gn, hon
):
    """The look-ahead agent's evaluations as ``(N, NUM_LOOK_FEATURES, 34) float32`` channels.

    Channels 0-7 are those of :func:`baselines.hand_plans.rule_features` computed with this
    agent's ``claim_margin`` and ``sharpness``; then (own turn = the seat holds 14 - 3m tiles):

    8. own turn: 1 at the look-ahead agent's discard (:func:`lookahead_discard` over all held
       tiles), else 0
    9. own turn, at each looked-ahead discard t: expected value after the next draw / the best
       such value (0 elsewhere)

    Reads only what the seat may see (its hand and melds, the visible counts, the public tile
    in play).
    """
    base = rule_features(
        hand, meld_kind, meld_tile, visible, tile_in_play, claim_margin, sharpness, gc, gn, hon
    )
    n_rows = hand.shape[0]
    res = np.zeros((n_rows, NUM_LOOK_FEATURES, 34), dtype=np.float32)
    c, vis, mchow, mtile, out, rem, pung_at = _scratch()
    playable = np.empty(34, dtype=np.bool_)
    vals = np.zeros(34, dtype=np.float64)
    ev = np.zeros(34, dtype=np.float64)
    for row in range(n_rows):
        for ch in range(8):
            for t in range(34):
                res[row, ch, t] = base[row, ch, t]
        total = 0
        for t in range(34):
            c[t] = hand[row, t]
            vis[t] = visible[row, t]
            playable[t] = c[t] > 0
            total += c[t]
        if total % 3 != 2:
            continue
        pung_at[:] = False
        m = _load_melds(meld_kind, meld_tile, row, mchow, mtile, pung_at)
        best_t = lookahead_discard(
            c, mchow, mtile, m, vis, playable, top_k, gc, gn, hon, out, rem, sharpness, vals, ev
        )
        if best_t < 0:
            continue
        res[row, 8, best_t] = 1.0
        top = 0.0
        for t in range(34):
            if ev[t] > top:
                top = ev[t]
        if top > 0:
            for t in range(34):
                if ev[t] > 0:
                    res[row, 9, t] = ev[t] / top
    return res

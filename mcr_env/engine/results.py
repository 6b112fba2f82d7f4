"""Compiled assembly of the engine's scoring inputs (docs/rules.md §2, §5-§7).

The exact scorer stays Python (:func:`mcr_env.scoring.score.score_counts`); what it is called
with comes from one kernel call per batch of hands: :func:`score_keys_kernel` reads the
(game, seat) hands to score from the state's buffers and writes one flat integer row per
hand, everything the score depends on: the concealed counts without the winning tile, the
winning tile, the melds in the evaluator's ``(kind, tile)`` form, the four win flags, the
winds, the flowers and the scoring profile. The row, as a tuple, is the key of the engine's
exact-scoring cache and is unpacked into :func:`score_counts`'s arguments by
:func:`score_args`. :func:`wins_kernel` then settles the scored wins of a step in one call
(the engine builds the ``HandResult`` objects).
"""

from __future__ import annotations

from numba import njit

from mcr_env.engine.kernels import output_views, state_views
from mcr_env.engine.state import EndReason, MeldKind, Phase
from mcr_env.scoring.evaluate import (
    MELD_CHOW,
    MELD_CONCEALED_KONG,
    MELD_KONG,
    MELD_PROMOTED_KONG,
    MELD_PUNG,
)
from mcr_env.scoring.fans import PROFILES
from mcr_env.scoring.settlement import settle_row

__all__ = ["KEY_LEN", "score_keys_kernel", "score_args", "wins_kernel"]

_M_CHI = int(MeldKind.CHI)
_M_PENG = int(MeldKind.PENG)
_M_GANG = int(MeldKind.GANG)
_M_ANGANG = int(MeldKind.ANGANG)
_P_ACT = int(Phase.ACT)
_P_ROB = int(Phase.ROB)
_P_OVER = int(Phase.OVER)
_E_SELF = int(EndReason.SELF_DRAWN)
_E_DISCARD = int(EndReason.DISCARD)

K_WIN = 34
"""Column of the winning tile in a key row (columns 0-33: concealed counts without it)."""
K_MELDS = 35
"""Column of the number of melds; the melds follow as 4 ``(kind, tile)`` pairs (-1 unused)."""
K_FLAGS = 44
"""Columns of self-drawn, Last Tile (the other three copies visible), last tile of the
wall, kong (replacement draw or robbing): 0/1."""
K_SEAT = 48
"""Columns of the seat wind, the prevalent wind, the flowers and the profile index
(:data:`mcr_env.scoring.fans.PROFILES`)."""
K_OK = 52
"""Column set to 1 when the hand holds ``14 - 3 * melds`` tiles with the winning tile, 0
for a seat whose tiles are unknown (a seat view given to ``load_state``: no Hu)."""
KEY_LEN = 53
"""Integers in a key row."""


@njit(cache=True, nogil=True)
def score_keys_kernel(rows, profile, s8, s16, s32, out):
    """Scoring inputs of the hands ``rows (n, 4) int64`` of ``(game, seat, win tile, rob)``,
    written to ``out (n, KEY_LEN) int64`` (column layout: the ``K_*`` constants).

    A row with win tile -1 is the hand of the seat deciding now: its drawn tile in
    ``Phase.ACT``, else the tile in play (robbing in ``Phase.ROB``). Self-drawn in
    ``Phase.ACT`` (the drawn tile is in the counts; the other phases add the tile in play).
    Flags as docs/rules.md §6a defines them: Last Tile when the three other copies are
    visible to all (discards and open melds); last tile of the wall when the seat that
    would draw next (after the winner, or after the discarder) has no tile left (never
    when robbing a kong); kong: a replacement draw, or robbing. Winds relative to the
    dealer. ``profile``: index into :data:`~mcr_env.scoring.fans.PROFILES`.
    """
    views = state_views(s8, s16, s32)
    meld_kind, meld_tile, meld_added, n_melds = views[0], views[1], views[4], views[5]
    visible_count, flower_count, phase = views[11], views[12], views[14]
    tile_in_play, played_by, after_kong, tiles_left = views[16], views[17], views[18], views[19]
    dealer, prevalent_wind, hand, drawn_tile, angang_tile = (
        views[20],
        views[21],
        views[28],
        views[29],
        views[30],
    )
    for i in range(rows.shape[0]):
        g = rows[i, 0]
        s = rows[i, 1]
        t = rows[i, 2]
        self_drawn = phase[g] == _P_ACT
        if t < 0:
            t = drawn_tile[g, s] if self_drawn else tile_in_play[g]
            rob = phase[g] == _P_ROB
        else:
            rob = rows[i, 3] != 0
        if t < 0:  # no tile known (a seat view given to load_state)
            out[i, K_OK] = 0
            continue
        n = n_melds[g, s]
        total = 0
        for u in range(34):
            c = hand[g, s, u]
            out[i, u] = c
            total += c
        if self_drawn:
            out[i, t] -= 1
        else:
            total += 1
        out[i, K_WIN] = t
        out[i, K_MELDS] = n
        for j in range(4):
            kind = -1
            tile = -1
            if j < n:
                mk = meld_kind[g, s, j]
                tile = meld_tile[g, s, j]
                if mk == _M_ANGANG:
                    kind = MELD_CONCEALED_KONG
                    tile = angang_tile[g, s, j]
                elif mk == _M_CHI:
                    kind = MELD_CHOW
                    tile -= 1  # the evaluator names a chow by its lowest tile
                elif mk == _M_PENG:
                    kind = MELD_PUNG
                elif meld_added[g, s, j]:
                    kind = MELD_PROMOTED_KONG
                else:
                    kind = MELD_KONG
            out[i, K_MELDS + 1 + 2 * j] = kind
            out[i, K_MELDS + 2 + 2 * j] = tile
        vis = visible_count[g, t] - (0 if self_drawn else 1)
        if self_drawn:
            wall_last = tiles_left[g, (s + 1) % 4] <= 0
            about_kong = after_kong[g]
        else:
            wall_last = (not rob) and tiles_left[g, (played_by[g] + 1) % 4] <= 0
            about_kong = rob
        out[i, K_FLAGS] = 1 if self_drawn else 0
        out[i, K_FLAGS + 1] = 1 if vis >= 3 else 0
        out[i, K_FLAGS + 2] = 1 if wall_last else 0
        out[i, K_FLAGS + 3] = 1 if about_kong else 0
        out[i, K_SEAT] = (s - dealer[g]) % 4
        out[i, K_SEAT + 1] = prevalent_wind[g]
        out[i, K_SEAT + 2] = flower_count[g, s]
        out[i, K_SEAT + 3] = profile
        out[i, K_OK] = 1 if total == 14 - 3 * n else 0


def score_args(key: tuple) -> tuple:
    """The positional arguments of :func:`mcr_env.scoring.score.score_counts` of one key row
    of :func:`score_keys_kernel` (a tuple of ``KEY_LEN`` ints with ``K_OK`` = 1)."""
    n = key[K_MELDS]
    melds = tuple((key[K_MELDS + 1 + 2 * j], key[K_MELDS + 2 + 2 * j]) for j in range(n))
    return (
        key[:34],
        key[K_WIN],
        melds,
        key[K_FLAGS] == 1,
        key[K_FLAGS + 1] == 1,
        key[K_FLAGS + 2] == 1,
        key[K_FLAGS + 3] == 1,
        key[K_SEAT],
        key[K_SEAT + 1],
        key[K_SEAT + 2],
        PROFILES[key[K_SEAT + 3]],
    )


@njit(cache=True, nogil=True)
def wins_kernel(wins, tiles, totals, pay, s8, s16, s32, o8, o32, o64):
    """End the hands won in ``wins (n, 4) int64`` rows ``(game, EndReason, winner, from)``
    on tile ``tiles[i]`` worth ``totals[i]`` points (flowers included): the settlement per
    seat (:func:`mcr_env.scoring.settlement.settle_row`, docs/rules.md §3) is written to
    ``pay (n, 4) int32`` and applied (docs/rules.md §2-§3).

    A win on a discard or a robbed kong moves the won tile into the winner's hand: the
    discard is marked claimed, a robbed kong (a promoted pung: ``meld_added``) reverts to
    the pung it was (the robbed tile, seen by all, stays counted in ``visible_count``, as a
    won discard does). Then phase OVER, end reason, winner, payer (-1 self-drawn), rewards
    per seat, per player (``player_at_seat``) and added to ``match_scores``, ``hand_over``.
    """
    views = state_views(s8, s16, s32)
    meld_kind, meld_tile, meld_added, n_melds = views[0], views[1], views[4], views[5]
    discard_claimed, n_discards, phase = views[7], views[9], views[14]
    player_at_seat, match_scores, winner, win_from = views[23], views[24], views[25], views[26]
    end_reason, hand = views[27], views[28]
    outs = output_views(o8, o32, o64)
    hand_over, rewards, player_rewards = outs[2], outs[6], outs[7]
    for i in range(wins.shape[0]):
        g = wins[i, 0]
        reason = wins[i, 1]
        w = wins[i, 2]
        d = wins[i, 3]
        t = tiles[i]
        settle_row(w, totals[i], -1 if reason == _E_SELF else d, pay[i])
        if reason != _E_SELF:
            if reason == _E_DISCARD:
                discard_claimed[g, d, n_discards[g, d] - 1] = True
            else:
                for j in range(n_melds[g, d]):
                    if meld_kind[g, d, j] == _M_GANG and meld_tile[g, d, j] == t:
                        if meld_added[g, d, j]:
                            meld_kind[g, d, j] = _M_PENG
                            meld_added[g, d, j] = False
                            break
            hand[g, w, t] += 1
        phase[g] = _P_OVER
        end_reason[g] = reason
        winner[g] = w
        win_from[g] = d
        for s in range(4):
            x = pay[i, s]
            rewards[g, s] = x
            p = player_at_seat[g, s]
            player_rewards[g, p] = x
            match_scores[g, p] += x
        hand_over[g] = True

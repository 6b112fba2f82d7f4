"""``planes-v0`` (what one seat may see) and ``oracle-v0`` (plus everything hidden).

Both produce ``(C, 34) float32`` planes: channel c, column t = tile kind t (Botzone order, 0-33).
Seats are relative to the observer: r = 0 self, 1 next (downstream), 2 across, 3 previous.
"Broadcast" pieces hold one number per channel, repeated over the 34 columns. The channel table
(offsets, ranges) is generated into ``docs/observations.md`` by ``scripts/gen_obs_docs.py``.

``planes-v0`` reads only public fields of the state and the observer's own private entries
(``hand``, ``drawn_tile``, ``angang_tile`` of that seat): another seat's concealed kong counts
(``angang_count``) but its tile does not appear. ``oracle-v0`` = ``planes-v0`` followed by pieces
of scope ``"oracle"`` (other hands, other concealed kongs, the wall); it is for oracle-guided
training only, never for acting in evaluation.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from mcr_env.encoding.base import EncodeContext, Encoder, Piece, register_encoder
from mcr_env.engine.state import MeldKind, Phase

_T = 34
_TILES = np.arange(_T)


def _per_seat_counts(state, tiles: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``(B, 4, K)`` tile ids with ``valid`` mask -> ``(B, 4, 34)`` int counts (bincount)."""
    b = tiles.shape[0]
    rows = np.broadcast_to(np.arange(b * 4).reshape(b, 4, 1), tiles.shape)
    idx = rows[valid] * _T + tiles[valid].astype(np.intp)
    return np.bincount(idx, minlength=b * 4 * _T).reshape(b, 4, _T)


def _onehot_rows(out: np.ndarray, tiles: np.ndarray) -> None:
    """``out (N, 34)``: set 1 at ``tiles (N,)`` where ``0 <= tile < 34``."""
    ok = (tiles >= 0) & (tiles < _T)
    out[np.nonzero(ok)[0], tiles[ok].astype(np.intp)] = 1.0


def _thermometer(out: np.ndarray, counts: np.ndarray) -> None:
    """``out (N, K, 34)``: channel k = ``counts (N, 34) >= k + 1``."""
    for k in range(out.shape[1]):
        out[:, k] = counts > k


# --------------------------------------------------------------------------- per-game caches
def _meld_counts(ctx: EncodeContext, kind: MeldKind) -> np.ndarray:
    """``(B, 4, 34)`` per absolute seat: melds of ``kind`` by tile (one bincount for all kinds)."""

    def build():
        s = ctx.state
        b = s.meld_kind.shape[0]
        ok = s.meld_tile >= 0
        rows = np.broadcast_to(np.arange(b * 4).reshape(b, 4, 1), ok.shape)[ok]
        idx = (rows * 5 + s.meld_kind[ok].astype(np.intp)) * _T + s.meld_tile[ok].astype(np.intp)
        return np.bincount(idx, minlength=b * 4 * 5 * _T).reshape(b, 4, 5, _T)

    return ctx.cached("melds", build)[:, :, int(kind)]


def _discard_counts(ctx: EncodeContext) -> np.ndarray:
    def build():
        s = ctx.state
        return _per_seat_counts(s, s.discards, s.discards >= 0)

    return ctx.cached("discards", build)


def _own_angang(ctx: EncodeContext) -> np.ndarray:
    """``(N, 34)`` int: 1 at each tile of the observer's concealed kongs."""

    def build():
        tiles = ctx.own(ctx.state.angang_tile)  # (N, 4) own slots only
        out = np.zeros((tiles.shape[0], _T), dtype=np.int64)
        ok = tiles >= 0
        np.add.at(out, (np.nonzero(ok)[0], tiles[ok].astype(np.intp)), 1)
        return out

    return ctx.cached("own_angang", build)


# --------------------------------------------------------------------------- private pieces
def _fill_hand(ctx, out):
    _thermometer(out, ctx.own(ctx.state.hand))


def _fill_drawn(ctx, out):
    _onehot_rows(out[:, 0], ctx.own(ctx.state.drawn_tile))


def _fill_own_angang(ctx, out):
    out[:, 0] = _own_angang(ctx)


def _fill_unseen(ctx, out):
    s = ctx.state
    unseen = (
        4
        - ctx.own(s.hand).astype(np.int64)
        - s.visible_count[ctx.games].astype(np.int64)
        - 4 * _own_angang(ctx)
    )
    _thermometer(out, unseen)


# --------------------------------------------------------------------------- public pieces
def _fill_chi(ctx, out):
    mid = ctx.gather_seats(_meld_counts(ctx, MeldKind.CHI))  # (N, 4, 34) chow middles
    out[:] = mid
    out[:, :, 1:] += mid[:, :, :-1]  # tile t is the high tile of the chow around t - 1
    out[:, :, :-1] += mid[:, :, 1:]  # tile t is the low tile of the chow around t + 1


def _fill_peng(ctx, out):
    out[:] = ctx.gather_seats(_meld_counts(ctx, MeldKind.PENG))


def _fill_gang(ctx, out):
    out[:] = ctx.gather_seats(_meld_counts(ctx, MeldKind.GANG))


def _fill_angang_count(ctx, out):
    n = (ctx.state.meld_kind == MeldKind.ANGANG).sum(axis=2)  # (B, 4)
    out[:] = ctx.gather_seats(n)[:, :, None]


def _fill_discards(ctx, out):
    out[:] = ctx.gather_seats(_discard_counts(ctx))


N_RECENT = 4


def _fill_recent(ctx, out):
    s = ctx.state
    n = ctx.gather_seats(s.n_discards).astype(np.intp)  # (N, 4)
    g = ctx.games[:, None]
    for k in range(N_RECENT):
        pos = n - 1 - k
        ok = pos >= 0
        tiles = np.where(ok, s.discards[g, ctx.rel, np.maximum(pos, 0)], -1)  # (N, 4)
        for r in range(4):
            _onehot_rows(out[:, 4 * r + k], tiles[:, r])


def _fill_flowers(ctx, out):
    out[:] = ctx.gather_seats(ctx.state.flower_count)[:, :, None]


def _fill_tile_in_play(ctx, out):
    _onehot_rows(out[:, 0], ctx.state.tile_in_play[ctx.games])


def _rel_onehot(ctx, out, abs_seat: np.ndarray) -> None:
    """Broadcast one-hot of the relative seat of ``abs_seat (N,)`` (-1 = none: all zero)."""
    ok = abs_seat >= 0
    r = (abs_seat.astype(np.intp) - ctx.seats) % 4
    out[np.nonzero(ok)[0], r[ok]] = 1.0


def _fill_played_by(ctx, out):
    _rel_onehot(ctx, out, ctx.state.played_by[ctx.games])


def _fill_current_seat(ctx, out):
    s = ctx.state
    cur = np.where(s.phase[ctx.games] == Phase.OVER, -1, s.current_seat[ctx.games])
    _rel_onehot(ctx, out, cur)


def _fill_seat_wind(ctx, out):
    wind = (ctx.seats - ctx.state.dealer[ctx.games].astype(np.intp)) % 4
    out[np.arange(ctx.games.shape[0]), 0, 27 + wind] = 1.0


def _fill_prevalent_wind(ctx, out):
    w = ctx.state.prevalent_wind[ctx.games].astype(np.intp)
    out[np.arange(ctx.games.shape[0]), 0, 27 + w] = 1.0


TILES_LEFT_SCALE = 144.0


def _fill_tiles_left(ctx, out):
    out[:] = (ctx.gather_seats(ctx.state.tiles_left) / TILES_LEFT_SCALE)[:, :, None]


def _fill_wall_empty(ctx, out):
    out[:] = (ctx.gather_seats(ctx.state.tiles_left) <= 0)[:, :, None]


def _fill_phase(ctx, out):
    ph = ctx.state.phase[ctx.games].astype(np.intp)
    out[np.arange(ph.shape[0]), ph] = 1.0


def _fill_after_kong(ctx, out):
    out[:, 0] = ctx.state.after_kong[ctx.games][:, None]


# --------------------------------------------------------------------------- oracle pieces
def _fill_other_hands(ctx, out):
    hands = ctx.gather_seats(ctx.state.hand)  # (N, 4, 34)
    for r in range(1, 4):
        _thermometer(out[:, 4 * (r - 1) : 4 * r], hands[:, r])


def _fill_other_angang(ctx, out):
    tiles = ctx.gather_seats(ctx.state.angang_tile)  # (N, 4 rel, 4 slots)
    for r in range(1, 4):
        for j in range(tiles.shape[2]):
            t = tiles[:, r, j]
            ok = t >= 0
            out[np.nonzero(ok)[0], r - 1, t[ok].astype(np.intp)] += 1.0


def _wall_live(state) -> np.ndarray:
    """``(B, 144) bool``: wall slots not drawn yet (front <= slot < back of their segment)."""
    s = state
    slots = np.arange(s.wall.shape[1])
    botzone = _is_botzone(s)
    seg = np.where(botzone[:, None], np.minimum(slots // 34, 3)[None, :], 0)  # (B, 144)
    front = np.take_along_axis(s.wall_front.astype(np.intp), seg, axis=1)
    back = np.take_along_axis(s.wall_back.astype(np.intp), seg, axis=1)
    return (slots[None, :] >= front) & (slots[None, :] < back) & (s.wall >= 0)


def _is_botzone(state) -> np.ndarray:
    """``(B,) bool``: the game uses the four-wall ``botzone`` layout (segments 1-3 in use)."""
    return (state.wall_back[:, 1:] > 0).any(axis=1)


def _fill_wall_remaining(ctx, out):
    def build():
        s = ctx.state
        live = _wall_live(s) & (s.wall < _T)
        b = s.wall.shape[0]
        rows = np.broadcast_to(np.arange(b)[:, None], s.wall.shape)
        idx = rows[live] * _T + s.wall[live].astype(np.intp)
        return np.bincount(idx, minlength=b * _T).reshape(b, _T)

    _thermometer(out, ctx.cached("wall_remaining", build)[ctx.games])


def _fill_next_draw(ctx, out):
    s = ctx.state
    g = ctx.games
    botzone = _is_botzone(s)[g]
    seg = np.where(botzone[:, None], ctx.rel, 0)  # (N, 4) wall segment each rel seat draws from
    front = s.wall_front[g[:, None], seg].astype(np.intp)
    back = s.wall_back[g[:, None], seg].astype(np.intp)
    ok = front < back
    tiles = np.where(ok, s.wall[g[:, None], np.minimum(front, s.wall.shape[1] - 1)], -1)
    for r in range(4):
        _onehot_rows(out[:, r], tiles[:, r])


# --------------------------------------------------------------------------- the pieces
def _planes_pieces() -> list[Piece]:
    P = Piece
    return [
        P("hand", 4, "private", 0, 1, "own concealed hand: channel k = count >= k+1", _fill_hand),
        P("drawn_tile", 1, "private", 0, 1, "the tile own seat just drew (ACT phase)", _fill_drawn),
        P("own_angang", 1, "private", 0, 1, "tiles of own concealed kongs", _fill_own_angang),
        P(
            "chi",
            4,
            "public",
            0,
            4,
            "channel r: number of seat r's chows containing the tile",
            _fill_chi,
        ),
        P("peng", 4, "public", 0, 1, "channel r: seat r has a pung of the tile", _fill_peng),
        P(
            "gang",
            4,
            "public",
            0,
            1,
            "channel r: seat r has a melded kong of the tile (Gang or BuGang)",
            _fill_gang,
        ),
        P(
            "angang_count",
            4,
            "public",
            0,
            4,
            "channel r: number of concealed kongs of seat r (broadcast; tile not shown)",
            _fill_angang_count,
        ),
        P(
            "discards",
            4,
            "public",
            0,
            4,
            "channel r: copies of the tile seat r has discarded (claimed ones included)",
            _fill_discards,
        ),
        P(
            "recent_discards",
            4 * N_RECENT,
            "public",
            0,
            1,
            "channel 4r+k: seat r's (k+1)-th most recent discard (k=0 newest), one-hot",
            _fill_recent,
        ),
        P(
            "flowers",
            4,
            "public",
            0,
            8,
            "channel r: flowers seat r has set aside (broadcast)",
            _fill_flowers,
        ),
        P(
            "unseen",
            4,
            "private",
            0,
            1,
            "copies not visible to own seat (4 - own hand - own concealed kongs - public "
            "discards/melds/tile in play): channel k = unseen >= k+1",
            _fill_unseen,
        ),
        P(
            "tile_in_play",
            1,
            "public",
            0,
            1,
            "the discard being answered (CLAIM) or the tile added by BuGang (ROB), one-hot",
            _fill_tile_in_play,
        ),
        P(
            "played_by",
            4,
            "public",
            0,
            1,
            "channel r: seat r played the tile in play (broadcast one-hot)",
            _fill_played_by,
        ),
        P(
            "current_seat",
            4,
            "public",
            0,
            1,
            "channel r: it is seat r's turn (drawer/discarder; none when over), broadcast",
            _fill_current_seat,
        ),
        P(
            "seat_wind",
            1,
            "public",
            0,
            1,
            "own seat wind: 1 at its wind tile (F1..F4)",
            _fill_seat_wind,
        ),
        P(
            "prevalent_wind",
            1,
            "public",
            0,
            1,
            "prevalent wind: 1 at its wind tile (F1..F4)",
            _fill_prevalent_wind,
        ),
        P(
            "tiles_left",
            4,
            "public",
            0,
            1,
            "channel r: tiles seat r may still draw / 144 (broadcast)",
            _fill_tiles_left,
        ),
        P(
            "wall_empty",
            4,
            "public",
            0,
            1,
            "channel r: seat r has no tile left to draw (broadcast)",
            _fill_wall_empty,
        ),
        P(
            "phase",
            5,
            "public",
            0,
            1,
            "decision asked, one-hot broadcast: ACT, DISCARD, CLAIM, ROB, OVER",
            _fill_phase,
        ),
        P(
            "after_kong",
            1,
            "public",
            0,
            1,
            "the ACT decision follows a kong replacement draw (broadcast)",
            _fill_after_kong,
        ),
    ]


def _oracle_pieces() -> list[Piece]:
    P = Piece
    return [
        P(
            "other_hands",
            12,
            "oracle",
            0,
            1,
            "channel 4(r-1)+k: concealed hand of seat r (1..3), count >= k+1",
            _fill_other_hands,
        ),
        P(
            "other_angang",
            3,
            "oracle",
            0,
            1,
            "channel r-1: tiles of seat r's concealed kongs (r = 1..3)",
            _fill_other_angang,
        ),
        P(
            "wall_remaining",
            4,
            "oracle",
            0,
            1,
            "undrawn wall tiles (all segments, flowers excluded): channel k = count >= k+1",
            _fill_wall_remaining,
        ),
        P(
            "next_draw",
            4,
            "oracle",
            0,
            1,
            "channel r: next front-of-wall tile seat r would draw (zero if a flower or none)",
            _fill_next_draw,
        ),
    ]


PLANES_V0_DESCRIPTION = (
    "Tile-count planes of everything one seat may see: own hand, all melds (another seat's "
    "concealed kong only as a count), discards, flowers, unseen tiles, the tile in play, winds, "
    "wall sizes and the decision asked. Seats relative to the observer."
)
ORACLE_V0_DESCRIPTION = (
    "planes-v0 followed by hidden information (other concealed hands and concealed kongs, the "
    "wall): for oracle-guided training only."
)


# --------------------------------------------------------------------------- fused planes-v0
# The piece functions above are the readable reference; the encoders below compute the same
# planes-v0 bytes in one fused pass (checked by tests/test_encoding_golden.py and against a
# plain piece-by-piece Encoder along whole games):
# * the per-seat tile counts (chows, pungs, kongs, discards) of every game are kept in a cache
#   (:class:`_SeatCounts`) that stores the inputs it was computed from and, at each call,
#   recomputes only the (game, seat) rows whose discards or melds differ from them: so it is
#   exact for any state, however it was reached, and cheap when few rows changed (a step
#   changes at most one seat's discards and melds per game);
# * the cache keeps the seat axis twice (seats 0 1 2 3 0 1 2 3): the four relative seats of an
#   observer at seat s are the slice s:s+4, gathered for all observers at once through a
#   strided window view;
# * values are written as uint8 into one buffer converted to float32 in a single pass (the
#   only non-integer piece, ``tiles_left``, is written afterwards).

_SB_CHI, _SB_PENG, _SB_GANG, _SB_DISCARDS = 0, 1, 2, 3
_SB_CHANNELS = 4
_K4 = np.arange(4, dtype=np.int8)[None, :, None]
_M_CHI, _M_PENG, _M_GANG, _M_ANGANG = (
    int(MeldKind.CHI),
    int(MeldKind.PENG),
    int(MeldKind.GANG),
    int(MeldKind.ANGANG),
)
_P_OVER = int(Phase.OVER)
_MELD_CHANNEL = np.full(5, -1, dtype=np.intp)
_MELD_CHANNEL[_M_PENG] = _SB_PENG
_MELD_CHANNEL[_M_GANG] = _SB_GANG
_RECENT_K = np.arange(N_RECENT)[None, None, :]
_RECENT_CH = 4 * np.arange(4)[:, None] + np.arange(N_RECENT)[None, :]  # (4 rel, K)


class _SeatCounts:
    """Per-seat public tile counts of B games, seat axis doubled, validated by input diffs.

    Attributes:
        counts: ``(B, 4, 8, 34) uint8``: channel 0 chows containing the tile, 1 pungs, 2 melded
            kongs, 3 discards (claimed included), for seats 0..3 then again 0..3.
    """

    def __init__(self, b: int, discard_slots: int, meld_slots: int):
        self.counts = np.zeros((b, _SB_CHANNELS, 8, _T), dtype=np.uint8)
        # inputs the counts were computed from (-2: never computed, differs from any state)
        self.discards = np.full((b, 4, discard_slots), -2, dtype=np.int8)
        self.meld_kind = np.full((b, 4, meld_slots), -2, dtype=np.int8)
        self.meld_tile = np.full((b, 4, meld_slots), -2, dtype=np.int8)

    def update(self, state) -> np.ndarray:
        """Bring the counts up to date with ``state``; returns ``counts``."""
        d = state.discards
        gi, si = np.nonzero((d != self.discards).any(axis=2))
        if gi.size:
            rows = d[gi, si]  # (R, 48)
            self.discards[gi, si] = rows
            r = gi.size
            idx = np.arange(r, dtype=np.intp)[:, None] * (_T + 1) + 1 + rows
            cnt = np.bincount(idx.reshape(-1), minlength=r * (_T + 1)).reshape(r, _T + 1)[:, 1:]
            self.counts[gi, _SB_DISCARDS, si] = cnt
            self.counts[gi, _SB_DISCARDS, si + 4] = cnt
        kind, tile = state.meld_kind, state.meld_tile
        changed = (kind != self.meld_kind) | (tile != self.meld_tile)
        gi, si = np.nonzero(changed.any(axis=2))
        if gi.size:
            self.meld_kind[gi, si] = kind[gi, si]
            self.meld_tile[gi, si] = tile[gi, si]
            k, t = kind[gi, si], tile[gi, si]  # (R, 4 slots)
            block = np.zeros((gi.size, 3, _T), dtype=np.uint8)  # chi, peng, gang
            ri, j = np.nonzero((t >= 0) & (k != _M_CHI))  # pungs/kongs: unique per tile
            block[ri, _MELD_CHANNEL[k[ri, j]], t[ri, j]] = 1
            for jj in range(k.shape[1]):  # chows may repeat: add slot by slot
                ri = np.nonzero(k[:, jj] == _M_CHI)[0]
                mid = t[ri, jj].astype(np.intp)
                for dt in (-1, 0, 1):
                    block[ri, _SB_CHI, mid + dt] += 1
            self.counts[gi, :3, si] = block
            self.counts[gi, :3, si + 4] = block
        return self.counts


def _windows(arr: np.ndarray, axis: int) -> np.ndarray:
    """Read-only view of ``arr`` (doubled seat axis ``axis`` of length 8) with a new axis 1 of
    length 4 (the observer's absolute seat s) and ``axis`` cut to 4 (seats s .. s+3)."""
    shape = list(arr.shape)
    strides = list(arr.strides)
    shape[axis] = 4
    shape.insert(1, 4)
    strides.insert(1, arr.strides[axis])
    return as_strided(arr, tuple(shape), tuple(strides), writeable=False)


def _set_onehot(u8: np.ndarray, channel: int, tiles: np.ndarray) -> None:
    """``u8[i, channel, tiles[i]] = 1`` where ``0 <= tiles[i] < 34`` (``u8`` zeroed)."""
    ok = np.nonzero((tiles >= 0) & (tiles < _T))[0]
    u8[ok, channel, tiles[ok]] = 1


def _fused_planes_v0(ctx: EncodeContext, out: np.ndarray, counts: np.ndarray) -> None:
    """Write the 75 planes-v0 channels of ``out (N, >= 75, 34) float32`` (see the note above);
    ``out`` may be uninitialised: all 75 channels are assigned. ``counts``: the up-to-date
    :attr:`_SeatCounts.counts` of ``ctx.state``."""
    st = ctx.state
    g, s = ctx.games, ctx.seats
    n = g.shape[0]
    off = _OFFSETS
    rows = np.arange(n)
    grel = g[:, None], ctx.rel  # index of (N, 4 rel) per-seat values
    u8 = np.zeros((n, _C, _T), dtype=np.uint8)
    # ---- per absolute seat, for the four relative seats of each observer (r = seat s + r)
    rel = _windows(counts, 2)[g, s]  # (N, 4 ch, 4 rel, 34)
    o = off["chi"]  # chi, peng, gang: consecutive
    u8[:, o : o + 12] = rel[:, _SB_CHI : _SB_GANG + 1].reshape(n, 12, _T)
    o = off["discards"]
    u8[:, o : o + 4] = rel[:, _SB_DISCARDS]
    o = off["angang_count"]
    angang = (st.meld_kind[g] == _M_ANGANG).sum(axis=2)  # (N, 4 abs)
    u8[:, o : o + 4] = np.take_along_axis(angang, ctx.rel, axis=1)[:, :, None]
    o = off["flowers"]
    u8[:, o : o + 4] = st.flower_count[grel][:, :, None]
    o = off["played_by"]  # played_by, current_seat: consecutive one-hots of relative seats
    pb = st.played_by[g]
    ok = np.nonzero(pb >= 0)[0]
    u8[ok, o + (pb[ok] - s[ok]) % 4] = 1
    cur = st.current_seat[g]
    ok = np.nonzero(st.phase[g] != _P_OVER)[0]
    u8[ok, o + 4 + (cur[ok] - s[ok]) % 4] = 1
    o = off["wall_empty"]
    left = st.tiles_left[grel]  # (N, 4 rel) int16
    u8[:, o : o + 4] = (left <= 0)[:, :, None]
    # recent discards (channel 4r + k): one gather of (N, 4 rel, K) tiles, one scatter
    pos = st.n_discards[grel].astype(np.intp)[:, :, None] - 1 - _RECENT_K  # (N, 4, K)
    ni, ri, ki = np.nonzero(pos >= 0)
    tiles = st.discards[g[ni], ctx.rel[ni, ri], pos[ni, ri, ki]]
    u8[ni, off["recent_discards"] + _RECENT_CH[ri, ki], tiles] = 1
    # ---- the observer's own (private) channels
    hand = st.hand[g, s]  # (N, 34) int8
    o = off["hand"]
    u8[:, o : o + 4] = hand[:, None, :] > _K4
    _set_onehot(u8, off["drawn_tile"], st.drawn_tile[g, s])
    own_kong = u8[:, off["own_angang"]]
    ak = st.angang_tile[g, s]  # (N, 4); a tile is in at most one own concealed kong
    ri, j = np.nonzero(ak >= 0)
    own_kong[ri, ak[ri, j]] = 1
    unseen = 4 - hand - st.visible_count[g] - 4 * own_kong.view(np.int8)  # int8: -12..4
    o = off["unseen"]
    u8[:, o : o + 4] = unseen[:, None, :] > _K4
    # ---- per game / per observer broadcasts
    _set_onehot(u8, off["tile_in_play"], st.tile_in_play[g])
    u8[rows, off["seat_wind"], 27 + (s - st.dealer[g]) % 4] = 1
    u8[rows, off["prevalent_wind"], 27 + st.prevalent_wind[g]] = 1
    u8[rows, off["phase"] + st.phase[g]] = 1
    u8[:, off["after_kong"]] = st.after_kong[g][:, None]
    out[:, :_C] = u8  # one uint8 -> float32 pass
    o = off["tiles_left"]
    out[:, o : o + 4] = (left / TILES_LEFT_SCALE)[:, :, None]  # float64 -> float32, as the piece


class _PlanesEncoder(Encoder):
    """An encoder whose first channels are planes-v0, computed fused (byte-identical to the
    pieces); any further pieces (oracle) are filled by their own functions. Holds one
    :class:`_SeatCounts` cache per batch size (exact whatever states it is given)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._counts: dict[tuple, _SeatCounts] = {}

    def _fill(self, ctx: EncodeContext, out: np.ndarray) -> None:
        st = ctx.state
        key = st.discards.shape + st.meld_kind.shape
        cache = self._counts.get(key)
        if cache is None:
            if len(self._counts) >= 4:  # a few batch sizes at most; drop the oldest
                self._counts.pop(next(iter(self._counts)))
            cache = self._counts[key] = _SeatCounts(
                st.discards.shape[0], st.discards.shape[2], st.meld_kind.shape[2]
            )
        _fused_planes_v0(ctx, out, cache.update(st))
        rest = self.pieces[len(_PLANES_PIECES) :]
        if rest:
            out[:, _C:] = 0.0
            self._fill_pieces(ctx, out, rest)


_PLANES_PIECES = _planes_pieces()
_C = sum(p.channels for p in _PLANES_PIECES)
_OFFSETS = Encoder("planes-v0", _PLANES_PIECES).offsets
_OFFSETS = {name: off for name, (off, _) in _OFFSETS.items()}


def make_planes_v0() -> Encoder:
    """The ``planes-v0`` encoder (C = 75)."""
    return _PlanesEncoder("planes-v0", _planes_pieces(), PLANES_V0_DESCRIPTION)


def make_oracle_v0() -> Encoder:
    """The ``oracle-v0`` encoder: ``planes-v0`` channels first, then the oracle pieces."""
    return _PlanesEncoder("oracle-v0", _planes_pieces() + _oracle_pieces(), ORACLE_V0_DESCRIPTION)


def make_reference(encoder_id: str) -> Encoder:
    """The same channels as ``encoder_id`` ("planes-v0" or "oracle-v0") filled piece by piece by
    the readable reference functions (slow; for tests of the fused path).

    Raises:
        ValueError: another id.
    """
    pieces = {"planes-v0": _planes_pieces, "oracle-v0": lambda: _planes_pieces() + _oracle_pieces()}
    if encoder_id not in pieces:
        raise ValueError(f"no reference for {encoder_id!r}; valid: planes-v0, oracle-v0")
    return Encoder(encoder_id, pieces[encoder_id](), "reference implementation")


register_encoder("planes-v0", make_planes_v0)
register_encoder("oracle-v0", make_oracle_v0)

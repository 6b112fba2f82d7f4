"""``planes-v0`` (what one seat may see) and ``oracle-v0`` (plus everything hidden).

Both produce ``(C, 34) float32`` planes: channel c, column t = tile kind t (Botzone order, 0-33).
Seats are relative to the observer: r = 0 self, 1 next (downstream), 2 across, 3 previous.
"Broadcast" pieces hold one number per channel, repeated over the 34 columns. The channel table
(offsets, ranges) is generated into ``docs/observations.md`` by ``scripts/gen_obs_docs.py``.

``planes-v0`` reads only public fields of the state and the observer's own private entries
(``hand``, ``drawn_tile``, ``angang_tile`` of that seat): another seat's concealed kong counts
(``angang_count``) but its tile does not appear. ``oracle-v0`` = ``planes-v0`` followed by pieces
of scope ``"oracle"`` (other hands, other concealed kongs, the wall); it is for oracle-guided
training only, never for acting in evaluation. ``planes-v1`` = ``planes-v0`` followed by the
match context (hand number in the match, each player's running score; public), for 16-hand
matches (docs/rules.md §4); ``planes-v0`` stays byte-identical.
"""

from __future__ import annotations

import numpy as np

from mcr_env.encoding import kernels as _k
from mcr_env.encoding.base import EncodeContext, Encoder, Piece, register_encoder
from mcr_env.engine.state import EndReason, MeldKind, Phase

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


_P_OVER = int(Phase.OVER)
_R_DISCARD = int(EndReason.DISCARD)
_R_ROB = int(EndReason.ROB_KONG)


# --------------------------------------------------------------------------- private pieces
def _fill_hand(ctx, out):
    _thermometer(out, ctx.own(ctx.state.hand))


def _fill_drawn(ctx, out):
    _onehot_rows(out[:, 0], ctx.own(ctx.state.drawn_tile))


def _fill_own_angang(ctx, out):
    out[:, 0] = _own_angang(ctx)


def _won_discard(state, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``(N,) bool``: the observer (``games``, ``seats`` ``(N,)``) won the hand on a discard or
    by robbing a kong and the hand is over: the won tile (still ``tile_in_play``; seen by every
    seat) then sits both in its concealed hand and in ``visible_count``, and ``unseen`` must
    count it once."""
    return (
        (state.phase[games] == _P_OVER)
        & np.isin(state.end_reason[games], (_R_DISCARD, _R_ROB))
        & (state.winner[games] == seats)
        & (state.tile_in_play[games] >= 0)
    )


def _fill_unseen(ctx, out):
    s = ctx.state
    unseen = (
        4
        - ctx.own(s.hand).astype(np.int64)
        - s.visible_count[ctx.games].astype(np.int64)
        - 4 * _own_angang(ctx)
    )
    won = np.nonzero(_won_discard(s, ctx.games, ctx.seats))[0]
    unseen[won, s.tile_in_play[ctx.games[won]].astype(np.intp)] += 1  # counted twice above
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


# --------------------------------------------------------------------------- compiled encoders
# The piece functions above are the readable reference; the registered encoders write the same
# bytes with the numba row kernels of :mod:`mcr_env.encoding.kernels` (one call per encode
# whatever N is; checked by tests/test_encoding_golden.py, against the piece-by-piece Encoder
# along whole games, and against a plain-Python restatement in tests/test_encoding_kernels.py).


def _state_rows(st, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
    """``planes-v0`` channels of ``out (N, >= 75, 34)`` float32 (or uint8: tile counts where
    float32 has ``tiles_left / 144``) for valid ``games``, ``seats`` ``(N,) intp``
    (:func:`mcr_env.encoding.kernels.planes_v0_rows`)."""
    _k.planes_v0_rows(
        games,
        seats,
        out,
        st.meld_kind,
        st.meld_tile,
        st.discards,
        st.n_discards,
        st.visible_count,
        st.flower_count,
        st.phase,
        st.current_seat,
        st.tile_in_play,
        st.played_by,
        st.after_kong,
        st.tiles_left,
        st.dealer,
        st.prevalent_wind,
        st.winner,
        st.end_reason,
        st.hand,
        st.drawn_tile,
        st.angang_tile,
        TILES_LEFT_SCALE if out.dtype == np.float32 else 1.0,
    )


def _oracle_rows(st, games, seats, out, c0: int) -> None:
    _k.oracle_rows(
        games, seats, out, c0, st.hand, st.angang_tile, st.wall, st.wall_front, st.wall_back
    )


def _match_rows(st, games, seats, out, c0: int) -> None:
    _k.match_rows(games, seats, out, c0, st.hand_number, st.player_at_seat, st.match_scores)


class _PlanesEncoder(Encoder):
    """An encoder whose first channels are planes-v0, written by the compiled row kernel
    (byte-identical to the pieces); the further pieces (oracle, match) by their kernels when
    they are exactly those pieces, else by their own piece functions."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        rest = tuple(p.name for p in self.pieces[len(_PLANES_PIECES) :])
        self._rest = {(): None, _ORACLE_NAMES: _oracle_rows, _MATCH_NAMES: _match_rows}.get(
            rest, "pieces"
        )
        if self._rest in (None, _oracle_rows):  # counts, 0/1 and tiles_left: all fit uint8
            self.dtypes = (np.dtype(np.float32), np.dtype(np.uint8))
            divisor = np.ones(self.num_channels, dtype=np.float32)
            divisor[self.piece_slice("tiles_left")] = TILES_LEFT_SCALE
            self._divisors = {np.dtype(np.uint8): divisor}

    def _fill(self, ctx: EncodeContext, out: np.ndarray) -> None:
        self._fill_rows(ctx.state, ctx.games, ctx.seats, out, ctx)

    def _fill_rows(self, st, games, seats, out, ctx: EncodeContext | None = None) -> None:
        """All channels of ``out (N, C, 34) float32`` for valid ``games``, ``seats`` ``(N,)
        intp`` (no argument checks: :meth:`encode` does them). The kernels write C-contiguous
        arrays (rows viewed flat); another ``out`` is filled through a contiguous copy."""
        if not out.flags.c_contiguous:
            tmp = np.empty(out.shape, dtype=out.dtype)
            self._fill_rows(st, games, seats, tmp, ctx)
            out[...] = tmp
            return
        _state_rows(st, games, seats, out)
        if self._rest is None:
            return
        if self._rest == "pieces":
            out[:, _C:] = 0.0
            self._fill_pieces(
                ctx or EncodeContext(st, games, seats), out, self.pieces[len(_PLANES_PIECES) :]
            )
        else:
            self._rest(st, games, seats, out, _C)


_PLANES_PIECES = _planes_pieces()
_C = sum(p.channels for p in _PLANES_PIECES)


def make_planes_v0() -> Encoder:
    """The ``planes-v0`` encoder (C = 75)."""
    return _PlanesEncoder("planes-v0", _planes_pieces(), PLANES_V0_DESCRIPTION)


def make_oracle_v0() -> Encoder:
    """The ``oracle-v0`` encoder: ``planes-v0`` channels first, then the oracle pieces."""
    return _PlanesEncoder("oracle-v0", _planes_pieces() + _oracle_pieces(), ORACLE_V0_DESCRIPTION)


def make_reference(encoder_id: str) -> Encoder:
    """The same channels as ``encoder_id`` ("planes-v0" or "oracle-v0") filled piece by piece by
    the readable reference functions (slow; for tests of the fused path; also "planes-v1").

    Raises:
        ValueError: another id.
    """
    pieces = {
        "planes-v0": _planes_pieces,
        "oracle-v0": lambda: _planes_pieces() + _oracle_pieces(),
        "planes-v1": lambda: _planes_pieces() + _match_pieces(),
    }
    if encoder_id not in pieces:
        raise ValueError(f"no reference for {encoder_id!r}; valid: {', '.join(pieces)}")
    return Encoder(encoder_id, pieces[encoder_id](), "reference implementation")


# --------------------------------------------------------------------------- planes-v1: match
SCORE_SCALE = 100.0
"""Running match scores are given in hundreds of points, clipped to +-SCORE_CLIP."""
SCORE_CLIP = 20.0


def _fill_match_hand(ctx, out):
    h = ctx.state.hand_number[ctx.games].astype(np.intp)
    out[np.arange(h.shape[0]), h] = 1.0


def _fill_match_scores(ctx, out):
    s = ctx.state
    g = ctx.games
    abs_seat = (ctx.seats[:, None] + np.arange(4)[None, :]) % 4  # (N, 4) seat at relative r
    players = s.player_at_seat[g[:, None], abs_seat].astype(np.intp)  # (N, 4)
    scores = s.match_scores[g[:, None], players].astype(np.float32) / SCORE_SCALE
    out[:] = np.clip(scores, -SCORE_CLIP, SCORE_CLIP)[:, :, None]


def _match_pieces() -> list[Piece]:
    P = Piece
    return [
        P(
            "match_hand",
            16,
            "public",
            0,
            1,
            "hand number in the match 1..16, one-hot broadcast (single hands: hand 1)",
            _fill_match_hand,
        ),
        P(
            "match_scores",
            4,
            "public",
            -SCORE_CLIP,
            SCORE_CLIP,
            "channel r: running match score of the player at relative seat r, points / 100, "
            "clipped to +-20 (broadcast)",
            _fill_match_scores,
        ),
    ]


PLANES_V1_DESCRIPTION = (
    "planes-v0 followed by the match context: hand number in the match and every player's "
    "running score (seats relative to the observer); seat and prevalent winds are planes-v0's. "
    "For 16-hand matches (docs/rules.md §4); in single hands hand 1 and zero scores."
)


def make_planes_v1() -> Encoder:
    """The ``planes-v1`` encoder (C = 95): ``planes-v0`` channels first (byte-identical), then
    ``match_hand`` (16) and ``match_scores`` (4)."""
    return _PlanesEncoder("planes-v1", _planes_pieces() + _match_pieces(), PLANES_V1_DESCRIPTION)


_ORACLE_NAMES = tuple(p.name for p in _oracle_pieces())
_MATCH_NAMES = tuple(p.name for p in _match_pieces())


def _check_kernel_layout() -> None:
    """The kernels' hard-coded channel offsets equal the pieces' (RuntimeError otherwise)."""
    layouts = (
        (_planes_pieces(), _k.PLANES_V0_OFFSETS, _k.PLANES_V0_CHANNELS),
        (_oracle_pieces(), _k.ORACLE_OFFSETS, _k.ORACLE_CHANNELS),
        (_match_pieces(), _k.MATCH_OFFSETS, _k.MATCH_CHANNELS),
    )
    for pieces, offsets, channels in layouts:
        enc = Encoder("layout", pieces)
        got = {name: off for name, (off, _) in enc.offsets.items()}
        if got != offsets or enc.num_channels != channels:
            raise RuntimeError(f"encoder kernels' channel offsets {offsets} differ from {got}")
    if (_k.N_RECENT, _k.TILES_LEFT_SCALE, _k.SCORE_SCALE, _k.SCORE_CLIP) != (
        N_RECENT,
        TILES_LEFT_SCALE,
        SCORE_SCALE,
        SCORE_CLIP,
    ):
        raise RuntimeError("encoder kernels' constants differ from the pieces'")


_check_kernel_layout()
register_encoder("planes-v0", make_planes_v0)
register_encoder("oracle-v0", make_oracle_v0)
register_encoder("planes-v1", make_planes_v1)

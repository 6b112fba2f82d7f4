"""What one seat knows, kept as the engine's ``GameState`` and updated from Botzone requests.

:class:`SeatTracker` writes every announced event (draws, discards, claims, kongs) into a
one-game :class:`~mcr_env.engine.state.GameState`: the public fields and the seat's own
private fields, exactly as the engine's :meth:`~mcr_env.engine.state.GameState.seat_view` of
that seat holds them at the same decision (the other seats' private fields and the wall stay
at their sentinels: the seat cannot know them). It is bookkeeping only: which actions are legal
(and whether a Hu scores 8) is decided by the engine, from this state
(:meth:`mcr_env.engine.core.MCREngine.load_state`), so the package holds no rule of its own
(docs/design.md).

Layout: the Botzone judge's duplicate layout, the engine's ``botzone`` wall layout: four
34-tile walls, seat 0 deals, seat winds are the seat numbers, ``tiles_left[s]`` counts what is
left of seat s's own wall (21 after the deal), docs/rules.md §9.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from mcr_env.botzone.protocol import Request, RequestError
from mcr_env.engine.state import BOTZONE_SEGMENT, GameState, MeldKind, Phase
from mcr_env.tiles import tile_to_code

_CHI, _PENG, _GANG, _ANGANG = (
    int(k) for k in (MeldKind.CHI, MeldKind.PENG, MeldKind.GANG, MeldKind.ANGANG)
)
_ACT, _DISCARD, _CLAIM, _ROB = (int(p) for p in (Phase.ACT, Phase.DISCARD, Phase.CLAIM, Phase.ROB))
_DEALT = 13


class SeatTracker:
    """The state one seat may see, built from the requests it receives.

    Args:
        seat: the seat, or None to take it from the ``0`` request.

    Attributes:
        state: ``GameState`` with B = 1 (public fields, own private fields; the rest at
            sentinels).
        seat: own seat (-1 before the ``0`` request).
        last: the last :class:`Request` applied (None at first).

    Raises (from :meth:`apply`):
        RequestError: a request that does not fit the game so far (a tile not in hand, a claim
            with no discard to claim, a request before ``0``/``1``, ...).
    """

    def __init__(self, seat: int | None = None):
        self.state = GameState.empty(1)
        self.seat = -1 if seat is None else int(seat)
        self.last: Request | None = None
        self._kong = False  # a kong was declared: the next draw is its replacement
        self._own_angang = -1  # tile of the own concealed kong just answered
        self._dealt = False

    def copy(self) -> SeatTracker:
        """An independent copy (state arrays copied)."""
        c = SeatTracker(self.seat)
        c.state = self.state.copy()
        c.last, c._kong, c._own_angang, c._dealt = (
            self.last,
            self._kong,
            self._own_angang,
            self._dealt,
        )
        return c

    # ------------------------------------------------------------------ helpers
    def _need_deal(self, req: Request) -> None:
        if not self._dealt:
            raise RequestError(f"request {req.to_line()!r} before the deal (request 1)")

    def _take(self, tile: int, n: int, what: str) -> None:
        """Remove n copies of ``tile`` from the own hand."""
        h = self.state.hand[0, self.seat]
        if h[tile] < n:
            raise RequestError(f"{what}: own hand holds {int(h[tile])} of tile {tile}, needs {n}")
        h[tile] -= n

    def _add_meld(self, p: int, kind: int, tile: int, frm: int, claimed: int) -> int:
        st = self.state
        j = int(st.n_melds[0, p])
        if j >= st.meld_kind.shape[2]:
            raise RequestError(f"seat {p} would have more than {j} melds")
        st.meld_kind[0, p, j] = kind
        st.meld_tile[0, p, j] = tile
        st.meld_from[0, p, j] = frm
        st.meld_claimed[0, p, j] = claimed
        st.n_melds[0, p] += 1
        return j

    def _claimed_discard(self, req: Request) -> tuple[int, int]:
        """(discarder, tile) of the discard a claim takes; marks it claimed."""
        st = self.state
        if int(st.phase[0]) != _CLAIM:
            raise RequestError(f"{req.to_line()!r}: no discard to claim")
        d, t = int(st.played_by[0]), int(st.tile_in_play[0])
        if d == req.player:
            raise RequestError(f"{req.to_line()!r}: seat {d} claims its own discard")
        st.discard_claimed[0, d, int(st.n_discards[0, d]) - 1] = True
        return d, t

    def _discard(self, p: int, t: int) -> None:
        st = self.state
        if p == self.seat:
            self._take(t, 1, f"own discard of tile {t}")
            st.drawn_tile[0, p] = -1
        k = int(st.n_discards[0, p])
        if k >= st.discards.shape[2]:
            raise RequestError(f"seat {p} has more than {k} discards")
        st.discards[0, p, k] = t
        st.discard_order[0, p, k] = st.total_discards[0]
        st.n_discards[0, p] += 1
        st.total_discards[0] += 1
        st.visible_count[0, t] += 1
        st.tile_in_play[0] = t
        st.played_by[0] = p
        st.phase[0] = _CLAIM
        st.current_seat[0] = p
        st.after_kong[0] = False

    def _claimer_to_discard(self, p: int) -> None:
        st = self.state
        st.phase[0] = _DISCARD
        st.current_seat[0] = p
        st.tile_in_play[0] = -1
        st.played_by[0] = -1
        st.after_kong[0] = False

    # ------------------------------------------------------------------ events
    def apply(self, req: Request, own_angang: int = -1) -> None:
        """Apply one request to the state.

        Args:
            req: the parsed request.
            own_angang: for ``3 <own seat> GANG`` after the own draw: the tile of the concealed
                kong the seat declared (the request does not name it). Ignored otherwise.

        Raises:
            RequestError: the request does not fit the game so far (class docstring), or it
                would make a tile kind appear more than 4 times among the own concealed tiles,
                the own concealed kongs and the public tiles (docs/rules.md §1: 4 copies).
        """
        self._apply(req, own_angang)
        if self._dealt:
            self._check_copies(req)

    def _check_copies(self, req: Request) -> None:
        """RequestError if a tile kind is seen more than 4 times by this seat (own concealed
        tiles + own concealed kongs + ``visible_count``, the public copies)."""
        st = self.state
        seen = st.hand[0, self.seat].astype(np.int64) + st.visible_count[0]
        kongs = st.angang_tile[0, self.seat, : int(st.n_melds[0, self.seat])]
        for t in kongs[kongs >= 0]:
            seen[int(t)] += 4
        if (seen > 4).any():
            t = int(np.argmax(seen))
            raise RequestError(
                f"request {req.to_line()!r}: seat {self.seat} would see {int(seen[t])} copies "
                f"of {tile_to_code(t)} (4 exist)"
            )

    def _apply(self, req: Request, own_angang: int) -> None:
        st = self.state
        k = req.kind
        if k == "seat":
            if self.seat not in (-1, req.player):
                raise RequestError(
                    f"request 0 gives seat {req.player}, tracker is seat {self.seat}"
                )
            self.seat = req.player
            st.dealer[0] = 0
            st.prevalent_wind[0] = req.quan
            st.hand_number[0] = 0
            st.player_at_seat[0] = np.arange(4)
            st.match_scores[0] = 0
        elif self.seat < 0:
            raise RequestError(f"request {req.to_line()!r} before request 0")
        elif k == "deal":
            me = self.seat
            st.hand[0, me] = np.bincount(np.asarray(req.hand, dtype=np.int64), minlength=34)
            st.tiles_left[0] = BOTZONE_SEGMENT - _DEALT
            pos = 0
            for s, c in enumerate(req.flower_counts):
                for f in req.flowers[pos : pos + c]:
                    st.flowers[0, s, f - 34] = True
                st.flower_count[0, s] = c
                pos += c
            st.phase[0] = _ACT
            st.current_seat[0] = 0
            self._dealt = True
        elif k in ("draw", "DRAW", "buhua"):
            self._need_deal(req)
            p = self.seat if k == "draw" else req.player
            if k == "DRAW" and p == self.seat:
                raise RequestError("'3 p DRAW' names the own seat; an own draw is request 2")
            if st.tiles_left[0, p] <= 0:
                raise RequestError(f"{req.to_line()!r}: seat {p}'s wall is empty")
            st.tiles_left[0, p] -= 1
            if k == "buhua":
                st.flower_count[0, p] += 1
                st.flowers[0, p, req.tile - 34] = True
            else:
                st.phase[0] = _ACT
                st.current_seat[0] = p
                st.tile_in_play[0] = -1
                st.played_by[0] = -1
                st.after_kong[0] = self._kong
                self._kong = False
                if p == self.seat:
                    st.hand[0, p, req.tile] += 1
                    st.drawn_tile[0, p] = req.tile
        elif k == "PLAY":
            self._need_deal(req)
            if int(st.phase[0]) != _ACT or int(st.current_seat[0]) != req.player:
                raise RequestError(f"{req.to_line()!r}: seat {req.player} has not drawn")
            self._discard(req.player, req.tile)
        elif k in ("PENG", "CHI"):
            self._need_deal(req)
            p = req.player
            d, t = self._claimed_discard(req)
            if k == "PENG":
                if p == self.seat:
                    self._take(t, 2, "own PENG")
                self._add_meld(p, _PENG, t, d, t)
                st.visible_count[0, t] += 2
            else:
                if (d + 1) % 4 != p:
                    raise RequestError(f"{req.to_line()!r}: only seat {(d + 1) % 4} may CHI")
                m = req.middle
                if t // 9 != m // 9 or abs(t - m) > 1:
                    raise RequestError(f"{req.to_line()!r}: the chow of {m} does not hold {t}")
                for x in (m - 1, m, m + 1):
                    if x != t:
                        if p == self.seat:
                            self._take(x, 1, "own CHI")
                        st.visible_count[0, x] += 1
                self._add_meld(p, _CHI, m, d, t)
            self._claimer_to_discard(p)
            self._discard(p, req.tile)
        elif k == "GANG":
            self._need_deal(req)
            p = req.player
            if int(st.phase[0]) == _ACT and int(st.current_seat[0]) == p:  # concealed kong
                tile = -1
                if p == self.seat:
                    if own_angang < 0:
                        raise RequestError("own concealed GANG: the kong tile is needed")
                    self._take(own_angang, 4, "own concealed GANG")
                    st.drawn_tile[0, p] = -1
                    tile = own_angang
                j = self._add_meld(p, _ANGANG, -1, -1, -1)
                if p == self.seat:
                    st.angang_tile[0, p, j] = tile
            else:
                d, t = self._claimed_discard(req)
                if p == self.seat:
                    self._take(t, 3, "own GANG")
                self._add_meld(p, _GANG, t, d, t)
                st.visible_count[0, t] += 3
                st.tile_in_play[0] = -1
                st.played_by[0] = -1
            self._kong = True
        elif k == "BUGANG":
            self._need_deal(req)
            p, t = req.player, req.tile
            if int(st.phase[0]) != _ACT or int(st.current_seat[0]) != p:
                raise RequestError(f"{req.to_line()!r}: seat {p} has not drawn")
            slots = np.nonzero((st.meld_kind[0, p] == _PENG) & (st.meld_tile[0, p] == t))[0]
            if slots.size == 0:
                raise RequestError(f"{req.to_line()!r}: seat {p} has no melded pung of {t}")
            if p == self.seat:
                self._take(t, 1, "own BUGANG")
                st.drawn_tile[0, p] = -1
            st.meld_kind[0, p, slots[0]] = _GANG
            st.meld_added[0, p, slots[0]] = True
            st.visible_count[0, t] += 1
            st.tile_in_play[0] = t
            st.played_by[0] = p
            st.phase[0] = _ROB
            self._kong = True
        else:  # pragma: no cover - parse_request returns only the kinds above
            raise RequestError(f"unknown request kind {k!r}")
        self.last = req

    def claim_state(self, action_kind: str, middle: int = -1) -> GameState:
        """The state after the own PENG/CHI of the tile in play, before the discard that
        follows (the engine's ``Phase.DISCARD`` decision), as a copy.

        Args:
            action_kind: "PENG" or "CHI".
            middle: CHI: the chow's middle tile.
        """
        c = self.copy()
        st = c.state
        me = c.seat
        d, t = c._claimed_discard(Request(action_kind, player=me))
        if action_kind == "PENG":
            c._take(t, 2, "own PENG")
            c._add_meld(me, _PENG, t, d, t)
            st.visible_count[0, t] += 2
        else:
            for x in (middle - 1, middle, middle + 1):
                if x != t:
                    c._take(x, 1, "own CHI")
                    st.visible_count[0, x] += 1
            c._add_meld(me, _CHI, middle, d, t)
        c._claimer_to_discard(me)
        return st

    def view_fields(self) -> dict[str, np.ndarray]:
        """The tracked fields as a dict (every non-hidden ``GameState`` field), for comparison
        with ``GameState.seat_view(seat)``."""
        hidden = {"wall", "wall_front", "wall_back"}
        return {
            f.name: getattr(self.state, f.name)
            for f in dataclasses.fields(self.state)
            if f.name not in hidden
        }

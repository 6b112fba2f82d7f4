"""What an acting seat may see, as a struct of arrays (the input of non-neural agents).

An encoding of the state for one seat, like the planes of :mod:`mcr_env.encoding.planes`, so it
lives in the encoding layer (docs/design.md: engine -> encoding -> envs): the envs build
it for opponents with ``needs_view`` and :mod:`mcr_env.eval` re-exports it. Built from the
engine's ``GameState`` reading only public fields and the acting seat's own private entries
(the same split as :meth:`mcr_env.engine.state.GameState.seat_view`; no hidden information
reaches an agent).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# MeldKind values of mcr_env.engine.state (CHI=1, PENG=2, GANG=3, ANGANG=4).
from mcr_env.engine.state import MeldKind

_CHI, _PENG, _GANG, _ANGANG = (
    int(k) for k in (MeldKind.CHI, MeldKind.PENG, MeldKind.GANG, MeldKind.ANGANG)
)


@dataclass
class SeatView:
    """What N acting seats may see, gathered from a ``GameState`` (struct of arrays, dim N).

    Only public fields and the acting seat's own private fields are read (docs/design.md: no hidden
    information); the tile of the seat's own concealed kongs comes from its private
    ``angang_tile``.
    """

    hand: np.ndarray
    """(N, 34) int8: the seat's concealed tile counts (drawn tile included)."""
    meld_kind: np.ndarray
    """(N, 4) int8, 0 = empty: MeldKind of the seat's meld slots (1 Chi, 2 Peng, 3 Gang,
    4 AnGang)."""
    meld_tile: np.ndarray
    """(N, 4) int8, -1 = empty: pung/kong tile or chow middle tile (own AnGang tile filled in)."""
    visible: np.ndarray
    """(N, 34) int8: copies of each kind visible to all (discards, open melds, tile in play)."""
    seat_wind: np.ndarray
    """(N,) int8: seat wind 0 = East .. 3 = North."""
    prevalent_wind: np.ndarray
    """(N,) int8: prevalent wind 0 = East .. 3 = North."""

    @classmethod
    def from_state(cls, state, games: np.ndarray, seats: np.ndarray) -> SeatView:
        """Gather the views of ``seats[i]`` in game ``games[i]``.

        Args:
            state: a ``mcr_env.engine.state.GameState`` with batch B.
            games: ``(N,) int`` game indices in 0..B-1.
            seats: ``(N,) int`` absolute seats 0..3.

        Raises:
            ValueError: shapes differ or indices are out of range.
        """
        games = np.asarray(games, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        if games.shape != seats.shape or games.ndim != 1:
            raise ValueError(f"games {games.shape} and seats {seats.shape} must be equal (N,)")
        if games.size and (games.min() < 0 or games.max() >= state.batch_size):
            raise ValueError("game index out of range")
        if seats.size and (seats.min() < 0 or seats.max() > 3):
            raise ValueError("seat index out of range 0..3")
        kind = state.meld_kind[games, seats].copy()
        tile = state.meld_tile[games, seats].copy()
        own_angang = state.angang_tile[games, seats]
        tile = np.where(kind == _ANGANG, own_angang, tile).astype(np.int8)
        seat_wind = ((seats - state.dealer[games].astype(np.int64)) % 4).astype(np.int8)
        return cls(
            hand=state.hand[games, seats].copy(),
            meld_kind=kind,
            meld_tile=tile,
            visible=state.visible_count[games].copy(),
            seat_wind=seat_wind,
            prevalent_wind=state.prevalent_wind[games].copy(),
        )

    def melds(self, i: int) -> list[tuple[str, int]]:
        """Row ``i``'s melds as ``(kind, tile)``: "chow" (lowest tile), "pung", "kong"."""
        out: list[tuple[str, int]] = []
        for k, t in zip(self.meld_kind[i], self.meld_tile[i]):
            if k == _CHI:
                out.append(("chow", int(t) - 1))
            elif k == _PENG:
                out.append(("pung", int(t)))
            elif k in (_GANG, _ANGANG):
                out.append(("kong", int(t)))
        return out

"""Observation encoders built from named pieces, and the encoder registry.

An encoder turns the game state seen from one seat into a ``(C, 34)`` array. It is a sequence of
:class:`Piece` objects, each with a name, a number of channels, a value range, a one-line
description and the *scope* of information it reads: ``"public"`` (everyone sees it),
``"private"`` (the observing seat's own hand, drawn tile, concealed kongs) or ``"oracle"``
(hidden from the observing seat: other hands, the wall). Offsets follow from the order, so every
channel has a name and an offset (as in OpenSpiel's observers); the channel table in
``docs/observations.md`` is generated from the pieces by ``scripts/gen_obs_docs.py``.

Encoding is batched: ``encode(state, games (N,), seats (N,)) -> (N, C, 34)`` for any list of
(game, seat) pairs, vectorized over N. Quantities shared by all seats of a game are computed once
per game (``(B, 4, 34)``, absolute seats) and then gathered with the seats relative to the
observer (0 self, 1 next, 2 across, 3 previous: relative seat ``r`` is absolute seat
``(seat + r) % 4``).

Versioning: an encoder id (``planes-v0``) is frozen once released; changing any channel makes a
new id (docs/design.md, Observations).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

NUM_TILE_KINDS = 34
SCOPES = ("public", "private", "oracle")


class EncodeContext:
    """The (game, seat) pairs being encoded and per-game quantities cached for this call.

    Attributes:
        state: the engine's ``GameState`` (read-only).
        games: ``(N,) intp`` game (batch row) of each pair.
        seats: ``(N,) intp`` absolute observing seat of each pair.
        rel: ``(N, 4) intp`` absolute seat of relative seat r (``(seat + r) % 4``).
    """

    def __init__(self, state: Any, games: np.ndarray, seats: np.ndarray):
        self.state = state
        self.games = games
        self.seats = seats
        self.rel = (seats[:, None] + np.arange(4)[None, :]) % 4
        self._cache: dict[str, np.ndarray] = {}

    def cached(self, key: str, fn: Callable[[], np.ndarray]) -> np.ndarray:
        """``fn()`` computed once per encode call under ``key``."""
        v = self._cache.get(key)
        if v is None:
            v = fn()
            self._cache[key] = v
        return v

    def gather_seats(self, per_game: np.ndarray) -> np.ndarray:
        """``(B, 4, ...)`` per absolute seat -> ``(N, 4, ...)`` per relative seat."""
        return per_game[self.games[:, None], self.rel]

    def own(self, per_game: np.ndarray) -> np.ndarray:
        """``(B, 4, ...)`` per absolute seat -> ``(N, ...)`` of the observing seat."""
        return per_game[self.games, self.seats]


@dataclass(frozen=True)
class Piece:
    """A named block of channels.

    Attributes:
        name: unique within the encoder (``"hand"``, ``"discards"``, ...).
        channels: number of channels (``C_piece``).
        scope: ``"public"``, ``"private"`` (the observer's own secrets) or ``"oracle"``.
        low, high: range of the values written.
        description: one line for the channel table (what channel k means).
        fill: ``fill(ctx, out)`` writes the piece into ``out`` ``(N, channels, 34) float32``
            (zero-initialised).
    """

    name: str
    channels: int
    scope: str
    low: float
    high: float
    description: str
    fill: Callable[[EncodeContext, np.ndarray], None]

    def __post_init__(self) -> None:
        if self.scope not in SCOPES:
            raise ValueError(f"piece {self.name!r}: scope {self.scope!r} not in {SCOPES}")
        if self.channels < 1:
            raise ValueError(f"piece {self.name!r}: channels must be >= 1")


class Encoder:
    """A versioned observation encoder: ``(state, games, seats) -> (N, C, 34) float32``.

    Args:
        encoder_id: registry id (``"planes-v0"``).
        pieces: the pieces in channel order.
        description: one paragraph for the docs.

    Attributes:
        num_channels: C.
        offsets: ``{piece name: (offset, channels)}``.
        shape: ``(C, 34)``.
        dtype: ``np.float32``, the default observation dtype.
        dtypes: the observation dtypes :meth:`encode` can write (``dtype`` first). The
            compiled ``planes-v0`` and ``oracle-v0`` encoders also write ``np.uint8``: the
            same planes a quarter of the bytes, every channel the same value except those
            with a fractional scale (``tiles_left``: the count, not the count / 144); see
            :meth:`divisor`.
    """

    dtype = np.float32
    dtypes: tuple[np.dtype, ...] = (np.dtype(np.float32),)
    _divisors: dict[np.dtype, np.ndarray] = {}

    def __init__(self, encoder_id: str, pieces: list[Piece], description: str = ""):
        names = [p.name for p in pieces]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate piece names in encoder {encoder_id!r}: {names}")
        self.id = encoder_id
        self.pieces = tuple(pieces)
        self.description = description
        self.offsets: dict[str, tuple[int, int]] = {}
        off = 0
        for p in self.pieces:
            self.offsets[p.name] = (off, p.channels)
            off += p.channels
        self.num_channels = off
        self.shape = (off, NUM_TILE_KINDS)

    def __repr__(self) -> str:
        return f"Encoder({self.id!r}, C={self.num_channels})"

    @property
    def scopes(self) -> frozenset[str]:
        """Scopes read by the pieces (an honest encoder has no ``"oracle"``)."""
        return frozenset(p.scope for p in self.pieces)

    def check_dtype(self, dtype: Any) -> np.dtype:
        """``dtype`` as a ``np.dtype`` if the encoder writes it (one of :attr:`dtypes`).

        Raises:
            TypeError: not a dtype.
            ValueError: a dtype this encoder does not write (the message lists them).
        """
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"obs dtype must be a numpy dtype, got {dtype!r}") from None
        if dt not in self.dtypes:
            valid = ", ".join(d.name for d in self.dtypes)
            raise ValueError(f"encoder {self.id!r} writes dtypes {valid}, not {dt.name}")
        return dt

    def divisor(self, dtype: Any) -> np.ndarray:
        """``(C,) float32`` per-channel divisors of the observations written as ``dtype``:
        ``obs.astype(np.float32) / divisor[:, None]`` equals the float32 observation bit for
        bit (all ones for float32; for uint8 144 on the ``tiles_left`` channels, whose float32
        value is the count / 144, correctly rounded either way).

        Raises:
            TypeError / ValueError: as :meth:`check_dtype`.
        """
        dt = self.check_dtype(dtype)
        d = self._divisors.get(dt)
        return np.ones(self.num_channels, dtype=np.float32) if d is None else d.copy()

    def piece_slice(self, name: str) -> slice:
        """Channel slice of piece ``name``.

        Raises:
            KeyError: no such piece (the message lists the pieces).
        """
        if name not in self.offsets:
            raise KeyError(
                f"encoder {self.id!r} has no piece {name!r}; pieces: {list(self.offsets)}"
            )
        off, n = self.offsets[name]
        return slice(off, off + n)

    def encode(
        self, state: Any, games: Any = None, seats: Any = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Observations of (game, seat) pairs.

        Args:
            state: engine ``GameState`` with batch size B.
            games: ``(N,)`` ints in 0..B-1 (``None`` with ``seats=None``: all ``B * 4`` pairs in
                order game-major, i.e. the result reshapes to ``(B, 4, C, 34)``).
            seats: ``(N,)`` absolute seats 0..3.
            out: optional ``(N, C, 34)`` buffer to write into (entirely overwritten), of one
                of :attr:`dtypes` (float32, or uint8 for the compact observations of
                ``planes-v0``/``oracle-v0``: :meth:`divisor`).

        Returns:
            ``(N, C, 34) float32`` (``out`` if given).

        Raises:
            ValueError: shapes differ, or a game/seat index is out of range.
            TypeError: indices are not integers.
        """
        b = int(state.phase.shape[0])
        if games is None and seats is None:
            games = np.repeat(np.arange(b), 4)
            seats = np.tile(np.arange(4), b)
        elif games is None or seats is None:
            raise ValueError("give both games and seats, or neither")
        games = np.asarray(games)
        seats = np.asarray(seats)
        for name, arr in (("games", games), ("seats", seats)):
            if arr.ndim != 1:
                raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
            if arr.size and not np.issubdtype(arr.dtype, np.integer):
                raise TypeError(f"{name} must be integers, got {arr.dtype}")
        if games.shape != seats.shape:
            raise ValueError(f"games {games.shape} and seats {seats.shape} differ in shape")
        games = games.astype(np.intp, copy=False)
        seats = seats.astype(np.intp, copy=False)
        if games.size and (games.min() < 0 or games.max() >= b):
            raise ValueError(f"game index out of range 0..{b - 1}")
        if seats.size and (seats.min() < 0 or seats.max() > 3):
            raise ValueError("seat index out of range 0..3")
        n = games.shape[0]
        if out is not None and (
            out.shape != (n, self.num_channels, NUM_TILE_KINDS) or out.dtype not in self.dtypes
        ):
            valid = "/".join(d.name for d in self.dtypes)
            raise ValueError(
                f"out must be ({n}, {self.num_channels}, 34) {valid}, got {out.shape} {out.dtype}"
            )
        return self.encode_rows(state, games, seats, out)

    def encode_rows(
        self, state: Any, games: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """:meth:`encode` without its argument checks, for callers whose pairs are valid by
        construction (the envs): ``games``, ``seats`` ``(N,) intp`` in range; ``out`` None (a
        new ``(N, C, 34) float32`` array) or an ``(N, C, 34)`` buffer of one of
        :attr:`dtypes`. Returns ``out``."""
        if out is None:
            out = np.empty((games.shape[0], self.num_channels, NUM_TILE_KINDS), dtype=np.float32)
        if games.shape[0]:
            self._fill_rows(state, games, seats, out)
        return out

    def _fill_rows(self, state: Any, games: np.ndarray, seats: np.ndarray, out: np.ndarray):
        """Every channel of ``out (N, C, 34) float32`` for the valid pairs (N >= 1)."""
        self._fill(EncodeContext(state, games, seats), out)

    def _fill(self, ctx: EncodeContext, out: np.ndarray) -> None:
        """Write every channel of ``out (N, C, 34) float32`` (uninitialised on entry): zero it,
        then let each piece fill its channels. Subclasses may fuse pieces for speed; the
        result must stay byte-identical to this reference."""
        out[...] = 0.0
        self._fill_pieces(ctx, out, self.pieces)

    def _fill_pieces(self, ctx: EncodeContext, out: np.ndarray, pieces) -> None:
        """Each piece of ``pieces`` fills its channels of ``out`` (assumed zeroed there)."""
        for p in pieces:
            off, c = self.offsets[p.name]
            p.fill(ctx, out[:, off : off + c])

    def channel_table(self) -> list[dict[str, Any]]:
        """One row per piece: name, offset, channels, scope, range, description."""
        return [
            {
                "name": p.name,
                "offset": self.offsets[p.name][0],
                "channels": p.channels,
                "scope": p.scope,
                "low": p.low,
                "high": p.high,
                "description": p.description,
            }
            for p in self.pieces
        ]


def as_grid(obs: np.ndarray) -> np.ndarray:
    """``(..., C, 34)`` planes -> ``(..., C, 4, 9)`` suit-by-rank view (a copy).

    Rows: characters, bamboo, dots, honors (F1-F4, J1-J3, then two zero columns).

    Raises:
        ValueError: the last axis is not 34.
    """
    obs = np.asarray(obs)
    if obs.shape[-1] != NUM_TILE_KINDS:
        raise ValueError(f"last axis must be 34 tile kinds, got shape {obs.shape}")
    pad = np.zeros(obs.shape[:-1] + (2,), dtype=obs.dtype)
    return np.concatenate([obs, pad], axis=-1).reshape(obs.shape[:-1] + (4, 9))


_REGISTRY: dict[str, Callable[[], Encoder]] = {}
_INSTANCES: dict[str, Encoder] = {}


def register_encoder(encoder_id: str, factory: Callable[[], Encoder]) -> None:
    """Register ``factory`` under ``encoder_id``.

    Raises:
        ValueError: the id is already registered (ids are frozen once released).
    """
    if encoder_id in _REGISTRY:
        raise ValueError(f"encoder id {encoder_id!r} is already registered")
    _REGISTRY[encoder_id] = factory


def get_encoder(encoder_id: str) -> Encoder:
    """The encoder registered under ``encoder_id`` (``"planes-v0"``, ``"oracle-v0"``).

    Raises:
        TypeError: ``encoder_id`` is not a str.
        ValueError: unknown id (the message lists the registered ids).
    """
    if not isinstance(encoder_id, str):
        raise TypeError(f"encoder id must be a str, got {type(encoder_id).__name__}")
    _load_builtin()
    if encoder_id not in _REGISTRY:
        raise ValueError(f"unknown encoder {encoder_id!r}; registered: {', '.join(_REGISTRY)}")
    enc = _INSTANCES.get(encoder_id)
    if enc is None:
        enc = _INSTANCES[encoder_id] = _REGISTRY[encoder_id]()
    return enc


def resolve_encoder(encoder: Any) -> Encoder:
    """An encoder from an id (:func:`get_encoder`) or an encoder object (returned as is: any
    object with ``encode(state, games, seats)`` and ``shape``, e.g. the baselines' feature
    encoders), as the envs' ``encoder=`` arguments take it.

    Raises:
        TypeError: neither a str nor an object with ``encode`` and ``shape``.
        ValueError: unknown id.
    """
    if isinstance(encoder, str):
        return get_encoder(encoder)
    if not (callable(getattr(encoder, "encode", None)) and hasattr(encoder, "shape")):
        raise TypeError(
            f"encoder must be an encoder id (str, one of {', '.join(encoder_ids())}) or an "
            f"encoder object with encode() and shape, got {type(encoder).__name__}"
        )
    return encoder


def encoder_ids() -> tuple[str, ...]:
    """Registered encoder ids."""
    _load_builtin()
    return tuple(_REGISTRY)


def _load_builtin() -> None:
    from mcr_env.encoding import planes  # noqa: F401  (registers planes-v0, oracle-v0)

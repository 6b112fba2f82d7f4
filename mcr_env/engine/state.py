"""Batched game state: a struct of numpy arrays with a leading batch dimension B.

Every field of :class:`GameState` carries a one-line comment: shape, dtype, sentinel, meaning.
Fields are grouped by who may see them (docs/design.md, engine contract):

* ``public``  -- visible to all four seats (melds except the tile of a concealed kong, discards,
  flowers, the tile in play, phase, seat to act, tiles left, winds, hand number, scores).
* ``private`` -- per seat: row ``[:, s]`` (or the entries owned by seat ``s``) may be seen by
  seat ``s`` only (concealed hand counts, the tile just drawn, the tile of its concealed kongs).
* ``hidden``  -- visible to nobody (wall contents and pointers).

The scope of a field is in its dataclass metadata (``field(metadata={"scope": ...})``);
:func:`fields_in_scope` lists them, and :meth:`GameState.seat_view` returns exactly what one seat
may see (public fields plus that seat's private entries, other seats' private entries masked
with the field's sentinel). Encoders should read from ``seat_view`` so that information-leak
tests can check them.

Conventions: seats are absolute indices 0..3 in play order (0 -> 1 -> 2 -> 3 -> 0). Seat winds
are ``(seat - dealer) % 4`` (0 = East). Tile ids are those of :mod:`mcr_env.tiles`: 0-33
playing tiles, 34-41 flowers. The sentinel for "no tile" / "no seat" is -1 unless stated.

The engine (:mod:`mcr_env.engine.core`) owns and mutates the arrays in place; treat the state
as read-only outside the engine (copy with :meth:`GameState.copy`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from mcr_env._checks import check_int

MAX_MELDS = 4
"""Meld slots per seat (a hand has at most four melds)."""
DISCARD_CAPACITY = 48
"""Discard slots per seat. A seat takes at most ~44 turns in a hand (92 wall draws shared by four
seats plus at most 16 claims); the engine raises RuntimeError if this capacity is ever exceeded."""
WALL_CAPACITY = 144
"""Wall slots: 144 tiles in the ``official`` layout, 136 (4 x 34) in the ``botzone`` layout."""
BOTZONE_SEGMENT = 34
"""Tiles per seat wall in the ``botzone`` layout."""

# Per-game shape and dtype of every GameState field, in dataclass field order.
_FIELD_SHAPES = {
    "meld_kind": ((4, MAX_MELDS), np.int8),
    "meld_tile": ((4, MAX_MELDS), np.int8),
    "meld_from": ((4, MAX_MELDS), np.int8),
    "meld_claimed": ((4, MAX_MELDS), np.int8),
    "meld_added": ((4, MAX_MELDS), np.bool_),
    "n_melds": ((4,), np.int8),
    "discards": ((4, DISCARD_CAPACITY), np.int8),
    "discard_claimed": ((4, DISCARD_CAPACITY), np.bool_),
    "discard_order": ((4, DISCARD_CAPACITY), np.int16),
    "n_discards": ((4,), np.int8),
    "total_discards": ((), np.int16),
    "visible_count": ((34,), np.int8),
    "flower_count": ((4,), np.int8),
    "flowers": ((4, 8), np.bool_),
    "phase": ((), np.int8),
    "current_seat": ((), np.int8),
    "tile_in_play": ((), np.int8),
    "played_by": ((), np.int8),
    "after_kong": ((), np.bool_),
    "tiles_left": ((4,), np.int16),
    "dealer": ((), np.int8),
    "prevalent_wind": ((), np.int8),
    "hand_number": ((), np.int16),
    "player_at_seat": ((4,), np.int8),
    "match_scores": ((4,), np.int32),
    "winner": ((), np.int8),
    "win_from": ((), np.int8),
    "end_reason": ((), np.int8),
    "hand": ((4, 34), np.int8),
    "drawn_tile": ((4,), np.int8),
    "angang_tile": ((4, MAX_MELDS), np.int8),
    "wall": ((WALL_CAPACITY,), np.int8),
    "wall_front": ((4,), np.int16),
    "wall_back": ((4,), np.int16),
}

BUFFER_DTYPES = (np.int8, np.int16, np.int32)
"""dtypes of the three buffers a :class:`GameState` made by ``empty`` lives in (bool fields
are views of the int8 buffer), so the kernels take three arrays instead of one per field."""


def _field_layout() -> tuple[dict, tuple[int, ...]]:
    layout, sizes = {}, [0, 0, 0]
    for name, (shape, dtype) in _FIELD_SHAPES.items():
        group = 0 if dtype in (np.int8, np.bool_) else BUFFER_DTYPES.index(dtype)
        layout[name] = (group, sizes[group], shape, dtype)
        sizes[group] += int(np.prod(shape))
    return layout, tuple(sizes)


FIELD_LAYOUT, BUFFER_SIZES = _field_layout()
_FIRST_OF_GROUP = tuple(
    next(name for name, (g, off, _s, _d) in FIELD_LAYOUT.items() if g == group and off == 0)
    for group in range(len(BUFFER_DTYPES))
)
"""``FIELD_LAYOUT[name] = (buffer, offset, per-game shape, dtype)``: field ``name`` of a state
of B games is ``buffer[B * offset : B * (offset + prod(shape))]`` viewed as ``(B, *shape)``;
``BUFFER_SIZES``: elements per game of each buffer (the buffers hold B times that). Fields are
laid out field by field (each field's B rows together), in dataclass field order."""


class Phase(IntEnum):
    """What kind of decision a game is waiting for (``GameState.phase``)."""

    ACT = 0
    """The current seat has just drawn (or taken a kong replacement): Hu, AnGang, BuGang, Play."""
    DISCARD = 1
    """The current seat has just made a Chi or Peng: it must Play (discard)."""
    CLAIM = 2
    """A discard is in play: the other seats answer Hu, Peng, Gang, Chi (next seat only), Pass."""
    ROB = 3
    """A BuGang tile is in play (robbing window): the other seats answer Hu or Pass."""
    OVER = 4
    """The hand is over (win, exhaustive draw, or penalty)."""


class MeldKind(IntEnum):
    """Kinds of meld slot (``GameState.meld_kind``)."""

    NONE = 0
    """Empty slot."""
    CHI = 1
    """Melded chow; ``meld_tile`` is its middle tile."""
    PENG = 2
    """Melded pung."""
    GANG = 3
    """Melded kong: claimed from a discard (Gang) or made by adding to a pung (BuGang)."""
    ANGANG = 4
    """Concealed kong; its tile is private to the owner (``angang_tile``)."""


class EndReason(IntEnum):
    """How a hand ended (``GameState.end_reason``)."""

    NONE = 0
    """The hand is still being played."""
    SELF_DRAWN = 1
    """Hu on a drawn tile (including kong replacements)."""
    DISCARD = 2
    """Hu on a discarded tile."""
    ROB_KONG = 3
    """Hu on the tile added by a BuGang (Robbing the Kong)."""
    EXHAUSTIVE = 4
    """No tile left and nobody won: nobody pays."""
    PENALTY = 5
    """An illegal action was punished (``illegal_action="penalize"``)."""


SCOPES = ("public", "private", "hidden")


def _f(scope: str, sentinel: int | None = None):
    return field(default=None, metadata={"scope": scope, "sentinel": sentinel})


@dataclass
class GameState:
    """State of B independent games (struct of arrays, leading dim B).

    Build one with :meth:`GameState.empty`; the engine fills it on ``reset``.
    """

    # ---------------------------------------------------------------- public: melds
    meld_kind: np.ndarray = _f("public", 0)
    """(B, 4, 4) int8, 0 = empty: MeldKind of meld slot j of seat s, slots filled in order."""
    meld_tile: np.ndarray = _f("public", -1)
    """(B, 4, 4) int8, -1 = empty OR concealed kong (tile hidden): pung/kong tile, chow middle."""
    meld_from: np.ndarray = _f("public", -1)
    """(B, 4, 4) int8, -1 = empty/concealed kong: absolute seat the meld was claimed from."""
    meld_claimed: np.ndarray = _f("public", -1)
    """(B, 4, 4) int8, -1 = empty/concealed kong: the tile id taken from the discard."""
    meld_added: np.ndarray = _f("public", 0)
    """(B, 4, 4) bool: this melded kong was made by BuGang (added to a pung)."""
    n_melds: np.ndarray = _f("public", 0)
    """(B, 4) int8: number of filled meld slots (concealed kongs included)."""
    # ---------------------------------------------------------------- public: discards
    discards: np.ndarray = _f("public", -1)
    """(B, 4, 48) int8, -1 = empty slot: tiles discarded by seat s in order."""
    discard_claimed: np.ndarray = _f("public", 0)
    """(B, 4, 48) bool: that discard was claimed (Chi/Peng/Gang) and now sits in a meld."""
    discard_order: np.ndarray = _f("public", -1)
    """(B, 4, 48) int16, -1 = empty: global index of that discard in the hand (0, 1, 2, ...)."""
    n_discards: np.ndarray = _f("public", 0)
    """(B, 4) int8: number of discards of seat s (claimed ones included)."""
    total_discards: np.ndarray = _f("public", 0)
    """(B,) int16: discards made in the hand so far (all seats)."""
    visible_count: np.ndarray = _f("public", 0)
    """(B, 34) int8: copies of each kind visible to all: unclaimed discards + open melds
    (chows, pungs, melded kongs; concealed kongs excluded), the tile in play included."""
    # ---------------------------------------------------------------- public: flowers
    flower_count: np.ndarray = _f("public", 0)
    """(B, 4) int8: flowers set aside by seat s (each scores 1 point for its owner)."""
    flowers: np.ndarray = _f("public", 0)
    """(B, 4, 8) bool: which flowers (H1..H8, index tile - 34) seat s has set aside."""
    # ---------------------------------------------------------------- public: turn
    phase: np.ndarray = _f("public", 4)
    """(B,) int8: Phase of the decision the game waits for (Phase.OVER when the hand ended)."""
    current_seat: np.ndarray = _f("public", -1)
    """(B,) int8: seat whose turn it is (the drawer/discarder; in CLAIM/ROB, the player of the
    tile in play)."""
    tile_in_play: np.ndarray = _f("public", -1)
    """(B,) int8, -1 = none: the discard (CLAIM) or the BuGang tile (ROB) being answered."""
    played_by: np.ndarray = _f("public", -1)
    """(B,) int8, -1 = none: seat that played ``tile_in_play``."""
    after_kong: np.ndarray = _f("public", 0)
    """(B,) bool: the current ACT decision follows a kong replacement draw (Gang/AnGang/BuGang)
    that was not a flower (a tile replacing a flower is an ordinary draw)."""
    tiles_left: np.ndarray = _f("public", 0)
    """(B, 4) int16: tiles seat s could still draw (official: the whole wall, same for all
    seats; botzone: seat s's own 34-tile wall)."""
    # ---------------------------------------------------------------- public: table
    dealer: np.ndarray = _f("public", 0)
    """(B,) int8: seat of the dealer (East) in this hand."""
    prevalent_wind: np.ndarray = _f("public", 0)
    """(B,) int8: prevalent (round) wind, 0 = East .. 3 = North."""
    hand_number: np.ndarray = _f("public", 0)
    """(B,) int16: hand index in the match, 0..15 (always 0 in single-hand mode)."""
    player_at_seat: np.ndarray = _f("public", -1)
    """(B, 4) int8: player (0..3, player 0 = East of hand 1) sitting at seat s in this hand."""
    match_scores: np.ndarray = _f("public", 0)
    """(B, 4) int32: cumulative points per PLAYER over finished hands of the match."""
    # ---------------------------------------------------------------- public: result
    winner: np.ndarray = _f("public", -1)
    """(B,) int8, -1 = none/not over: seat that won the hand."""
    win_from: np.ndarray = _f("public", -1)
    """(B,) int8, -1 = self-drawn/none: seat that paid as discarder (incl. robbed kong)."""
    end_reason: np.ndarray = _f("public", 0)
    """(B,) int8: EndReason of the hand (EndReason.NONE while it is being played)."""
    # ---------------------------------------------------------------- private (per seat)
    hand: np.ndarray = _f("private", 0)
    """(B, 4, 34) int8: concealed tile counts of seat s (drawn tile included; no flowers)."""
    drawn_tile: np.ndarray = _f("private", -1)
    """(B, 4) int8, -1 = none: tile seat s just drew and may still act on (ACT phase only)."""
    angang_tile: np.ndarray = _f("private", -1)
    """(B, 4, 4) int8, -1 = slot is not a concealed kong: tile of seat s's concealed kong."""
    # ---------------------------------------------------------------- hidden
    wall: np.ndarray = _f("hidden", -1)
    """(B, 144) int8, -1 = unused slot: wall tiles in draw order (official: one wall of 144,
    replacements from the back; botzone: seat s's wall is slots 34*s .. 34*s+33, every tile
    taken from its front, kong replacements included: docs/rules.md §2)."""
    wall_front: np.ndarray = _f("hidden", 0)
    """(B, 4) int16: next front (normal draw) slot of wall segment k (official: only k = 0)."""
    wall_back: np.ndarray = _f("hidden", 0)
    """(B, 4) int16: one past the last undrawn slot of segment k (official replacements take
    back - 1; botzone: stays 34*k + 34)."""

    # ------------------------------------------------------------------------------------------
    @classmethod
    def empty(cls, batch_size: int) -> GameState:
        """All fields allocated for ``batch_size`` games and set to their sentinels."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"batch_size must be an int, got {type(batch_size).__name__}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        b = int(batch_size)
        bufs = tuple(
            np.empty(b * size, dtype=dtype) for dtype, size in zip(BUFFER_DTYPES, BUFFER_SIZES)
        )
        kwargs = {}
        for f in dataclasses.fields(cls):
            group, offset, shape, dtype = FIELD_LAYOUT[f.name]
            size = int(np.prod(shape))
            view = bufs[group][b * offset : b * (offset + size)].reshape((b, *shape))
            if dtype is np.bool_:
                view = view.view(np.bool_)
            view[...] = f.metadata["sentinel"]
            kwargs[f.name] = view
        return cls(**kwargs)

    def packed_buffers(self) -> tuple[np.ndarray, ...] | None:
        """The three buffers (:data:`BUFFER_DTYPES`) every field of a state made by
        :meth:`empty` or :meth:`copy` is a view of (the engine's kernels take these), or None
        when the fields are arrays of their own (a state built from arrays)."""
        b = self.batch_size
        bufs = []
        for group, dtype in enumerate(BUFFER_DTYPES):
            # the buffer is the array the group's first field is a view of
            root = getattr(self, _FIRST_OF_GROUP[group])
            while isinstance(root.base, np.ndarray):
                root = root.base
            if root.dtype != dtype or root.ndim != 1 or root.size != b * BUFFER_SIZES[group]:
                return None
            bufs.append(root)
        b = self.batch_size
        for f in dataclasses.fields(self):
            group, offset, _shape, dtype = FIELD_LAYOUT[f.name]
            arr = getattr(self, f.name)
            start = bufs[group].__array_interface__["data"][0]
            start += b * offset * np.dtype(BUFFER_DTYPES[group]).itemsize
            if arr.__array_interface__["data"][0] != start or not arr.flags.c_contiguous:
                return None
        return tuple(bufs)

    @property
    def batch_size(self) -> int:
        """B, the number of games."""
        return int(self.phase.shape[0])

    def copy(self) -> GameState:
        """A deep copy (every array copied; the copy's fields are views of its own buffers, as
        :meth:`empty` makes them)."""
        out = GameState.empty(self.batch_size)
        for f in dataclasses.fields(self):
            np.copyto(getattr(out, f.name), getattr(self, f.name))
        return out

    def seat_wind(self) -> np.ndarray:
        """``(B, 4) int8``: seat wind of each seat (0 = East), ``(seat - dealer) % 4``."""
        return ((np.arange(4, dtype=np.int8)[None, :] - self.dealer[:, None]) % 4).astype(np.int8)

    def seat_view(self, seat: int) -> dict[str, np.ndarray]:
        """Everything ``seat`` may see, as a dict of arrays (copies).

        Public fields are returned whole. Private fields keep only ``seat``'s own entries
        (``hand[:, seat]``, ``drawn_tile[:, seat]``, ``angang_tile[:, seat]``); other seats'
        entries are set to the field's sentinel, so the shapes stay ``(B, 4, ...)``. Hidden
        fields are left out.

        Raises:
            TypeError: ``seat`` is not an int.
            ValueError: ``seat`` is not 0..3.
        """
        check_int(seat, "seat", 0, 3)
        out: dict[str, np.ndarray] = {}
        for f in dataclasses.fields(self):
            scope = f.metadata["scope"]
            if scope == "hidden":
                continue
            arr = getattr(self, f.name)
            if scope == "public":
                out[f.name] = arr.copy()
            else:
                masked = np.full_like(arr, f.metadata["sentinel"])
                masked[:, seat] = arr[:, seat]
                out[f.name] = masked
        return out


def fields_in_scope(scope: str) -> tuple[str, ...]:
    """Names of the :class:`GameState` fields in ``scope`` ("public", "private" or "hidden").

    Raises:
        ValueError: unknown scope.
    """
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; valid: {', '.join(SCOPES)}")
    return tuple(f.name for f in dataclasses.fields(GameState) if f.metadata["scope"] == scope)

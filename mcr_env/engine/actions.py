"""Action ids: the 235-action layout shared by the engine, masks and agents (docs/design.md).

====== ===================================================================================
ids    action
====== ===================================================================================
0      Pass
1      Hu
2-35   Play (discard) tile t: ``2 + t``
36-98  Chi: ``36 + 21 * suit + 3 * (middle_rank - 2) + claimed`` with suit 0..2 (W, T, B),
       middle rank 2..8, ``claimed`` = which tile of the chow came from the discard
       (0 lowest, 1 middle, 2 highest)
99-132 Peng on tile t: ``99 + t``
133-166 Gang (melded kong from a discard) on tile t: ``133 + t``
167-200 AnGang (concealed kong) of tile t: ``167 + t``
201-234 BuGang (add to a melded pung) of tile t: ``201 + t``
====== ===================================================================================

The numeric layout lives here, at the engine layer, because legal masks are built in it, and
so do the plain readable names (:func:`action_name`, ``ACTION_NAMES``: ``"Pass"``, ``"Hu"``,
``"Play W3"``, ``"Chi T3 (claimed T2)"``, ``"Peng B5"``, ``"Gang F1"``, ``"AnGang J2"``,
``"BuGang W5"``), which game records use; :mod:`mcr_env.encoding.actions` re-exports both and
adds name parsing and Botzone strings.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from mcr_env.tiles import tile_to_code

NUM_ACTIONS = 235
"""A: number of action ids."""

PASS = 0
HU = 1
PLAY_OFFSET = 2
CHI_OFFSET = 36
PENG_OFFSET = 99
GANG_OFFSET = 133
ANGANG_OFFSET = 167
BUGANG_OFFSET = 201


class ActionKind(IntEnum):
    """Kinds of action in the layout's order."""

    PASS = 0
    HU = 1
    PLAY = 2
    CHI = 3
    PENG = 4
    GANG = 5
    ANGANG = 6
    BUGANG = 7


_BOUNDS = (
    (PASS, PASS + 1, ActionKind.PASS),
    (HU, HU + 1, ActionKind.HU),
    (PLAY_OFFSET, CHI_OFFSET, ActionKind.PLAY),
    (CHI_OFFSET, PENG_OFFSET, ActionKind.CHI),
    (PENG_OFFSET, GANG_OFFSET, ActionKind.PENG),
    (GANG_OFFSET, ANGANG_OFFSET, ActionKind.GANG),
    (ANGANG_OFFSET, BUGANG_OFFSET, ActionKind.ANGANG),
    (BUGANG_OFFSET, NUM_ACTIONS, ActionKind.BUGANG),
)

ACTION_KIND = np.empty(NUM_ACTIONS, dtype=np.int8)
"""``(235,) int8``: :class:`ActionKind` of every action id."""
ACTION_TILE = np.full(NUM_ACTIONS, -1, dtype=np.int8)
"""``(235,) int8``: tile of the action (for Chi: the *middle* tile of the chow); -1 for Pass/Hu."""
CHI_CLAIMED = np.full(NUM_ACTIONS, -1, dtype=np.int8)
"""``(235,) int8``: for Chi ids, which chow tile was claimed (0 lowest, 1 middle, 2 highest)."""
CHI_CLAIMED_TILE = np.full(NUM_ACTIONS, -1, dtype=np.int8)
"""``(235,) int8``: for Chi ids, the tile id taken from the discard; -1 otherwise."""

for _lo, _hi, _kind in _BOUNDS:
    ACTION_KIND[_lo:_hi] = _kind
for _t in range(34):
    for _off in (PLAY_OFFSET, PENG_OFFSET, GANG_OFFSET, ANGANG_OFFSET, BUGANG_OFFSET):
        ACTION_TILE[_off + _t] = _t
for _suit in range(3):
    for _mid in range(2, 9):
        for _claimed in range(3):
            _a = CHI_OFFSET + 21 * _suit + 3 * (_mid - 2) + _claimed
            ACTION_TILE[_a] = 9 * _suit + _mid - 1
            CHI_CLAIMED[_a] = _claimed
            CHI_CLAIMED_TILE[_a] = 9 * _suit + _mid - 1 + _claimed - 1


def _check_tile(tile: int, what: str) -> int:
    if isinstance(tile, bool) or not isinstance(tile, (int, np.integer)):
        raise TypeError(f"{what} tile must be an int tile id, got {type(tile).__name__}")
    if not 0 <= tile < 34:
        raise ValueError(f"{what} tile {tile} out of range 0..33")
    return int(tile)


def play_action(tile: int) -> int:
    """Action id of discarding ``tile`` (0..33)."""
    return PLAY_OFFSET + _check_tile(tile, "Play")


def peng_action(tile: int) -> int:
    """Action id of Peng on ``tile``."""
    return PENG_OFFSET + _check_tile(tile, "Peng")


def gang_action(tile: int) -> int:
    """Action id of a melded Gang on the discarded ``tile``."""
    return GANG_OFFSET + _check_tile(tile, "Gang")


def angang_action(tile: int) -> int:
    """Action id of AnGang (concealed kong) of ``tile``."""
    return ANGANG_OFFSET + _check_tile(tile, "AnGang")


def bugang_action(tile: int) -> int:
    """Action id of BuGang (adding ``tile`` to a melded pung)."""
    return BUGANG_OFFSET + _check_tile(tile, "BuGang")


def chi_action(middle: int, claimed: int) -> int:
    """Action id of Chi forming the chow with middle tile ``middle``, claiming tile ``claimed``.

    Both are tile ids; ``claimed`` must be one of ``middle - 1, middle, middle + 1``.

    Raises:
        ValueError: ``middle`` is an honor or a 1/9, or ``claimed`` is not in the chow.
    """
    middle = _check_tile(middle, "Chi middle")
    claimed = _check_tile(claimed, "Chi claimed")
    if middle >= 27 or middle % 9 in (0, 8):
        raise ValueError(f"Chi middle tile {middle} must be a suit tile of rank 2..8")
    if claimed - middle not in (-1, 0, 1):
        raise ValueError(f"claimed tile {claimed} is not part of the chow around {middle}")
    suit, rank = divmod(middle, 9)
    return CHI_OFFSET + 21 * suit + 3 * (rank + 1 - 2) + (claimed - middle + 1)


def decode_action(action: int) -> tuple[ActionKind, int, int]:
    """Decode an action id into ``(kind, tile, claimed_tile)``.

    ``tile`` is the action's tile (Chi: the middle tile; -1 for Pass/Hu); ``claimed_tile`` is the
    tile taken from the discard for Chi, -1 otherwise.

    Raises:
        ValueError: ``action`` is outside 0..234.
    """
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"action must be an int, got {type(action).__name__}")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action} out of range 0..{NUM_ACTIONS - 1}")
    a = int(action)
    return ActionKind(int(ACTION_KIND[a])), int(ACTION_TILE[a]), int(CHI_CLAIMED_TILE[a])


_KIND_WORD = {
    ActionKind.PLAY: "Play",
    ActionKind.PENG: "Peng",
    ActionKind.GANG: "Gang",
    ActionKind.ANGANG: "AnGang",
    ActionKind.BUGANG: "BuGang",
}


def _name(a: int) -> str:
    kind, tile, claimed = decode_action(a)
    if kind == ActionKind.PASS:
        return "Pass"
    if kind == ActionKind.HU:
        return "Hu"
    if kind == ActionKind.CHI:
        return f"Chi {tile_to_code(tile)} (claimed {tile_to_code(claimed)})"
    return f"{_KIND_WORD[kind]} {tile_to_code(tile)}"


ACTION_NAMES: tuple[str, ...] = tuple(_name(a) for a in range(NUM_ACTIONS))
"""Readable name of every action id, index = id (235 strings)."""


def action_name(action: int) -> str:
    """Readable name of an action id: ``"Play W3"``, ``"Chi T3 (claimed T2)"``, ``"Hu"`` ...

    Chi names the middle tile of the chow and the tile claimed from the discard.

    Raises:
        TypeError: ``action`` is not an int.
        ValueError: ``action`` is outside 0..234.
    """
    decode_action(action)  # validates type and range
    return ACTION_NAMES[int(action)]

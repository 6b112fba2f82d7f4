"""The 235-action layout with readable names and Botzone response strings.

The numeric layout (offsets, :func:`chi_action`, :func:`decode_action`, ``ACTION_KIND`` ...)
lives in :mod:`mcr_env.engine.actions` and is re-exported here unchanged; this module adds

* readable names: :func:`action_name` (``"Pass"``, ``"Hu"``, ``"Play W3"``,
  ``"Chi T3 (claimed T2)"``, ``"Peng B5"``, ``"Gang F1"``, ``"AnGang J2"``, ``"BuGang W5"``) and
  ``ACTION_NAMES`` (all 235), both defined in the engine layer and re-exported, and their
  inverse :func:`parse_action_name`;
* Botzone response strings (the Chinese-Standard-Mahjong judge on botzone.org): :func:`to_botzone`
  and :func:`from_botzone`.

Botzone vs our layout. Botzone folds a claim and the discard that follows it into one response:
``"PENG T6"`` = Peng the tile just discarded, then discard T6; ``"CHI T3 T7"`` = Chi forming the
chow whose middle tile is T3 (the claimed tile is the tile just discarded), then discard T7. In
our layout these are two decisions (docs/design.md, "Chi/Peng and the discard that follows are two
decisions"). Hence:

* ``to_botzone(claim, next_play)`` takes the Chi/Peng id *and* the Play id (or tile) that
  followed it; for every other action ``next_play`` must be ``None``.
* ``from_botzone(text, last_tile=...)`` returns a tuple of one id, or two ids ``(claim, play)``
  for PENG/CHI. Botzone's ``"GANG"`` without a tile (melded kong of the last discard) and CHI/PENG
  need the tile being claimed, which the response does not repeat: pass it as ``last_tile``.
  ``"GANG W1"`` (with a tile) is a concealed kong (AnGang) in one's own turn.

Errors: :class:`BotzoneFormatError` (a malformed Botzone string) and :class:`ActionNameError`
(an unknown readable name); both subclass ``ValueError``. Bad action ids raise ``ValueError``
(out of range) or ``TypeError`` (not an int), as :func:`decode_action` does.
"""

from __future__ import annotations

import numpy as np

from mcr_env.engine.actions import (
    ACTION_KIND,
    ACTION_NAMES,
    ACTION_TILE,
    ANGANG_OFFSET,
    BUGANG_OFFSET,
    CHI_CLAIMED,
    CHI_CLAIMED_TILE,
    CHI_OFFSET,
    GANG_OFFSET,
    HU,
    NUM_ACTIONS,
    PASS,
    PENG_OFFSET,
    PLAY_OFFSET,
    ActionKind,
    action_name,
    angang_action,
    bugang_action,
    chi_action,
    decode_action,
    gang_action,
    peng_action,
    play_action,
)
from mcr_env.tiles import code_to_tile, tile_to_code

__all__ = [
    "ACTION_KIND",
    "ACTION_NAMES",
    "ACTION_TILE",
    "ANGANG_OFFSET",
    "BUGANG_OFFSET",
    "CHI_CLAIMED",
    "CHI_CLAIMED_TILE",
    "CHI_OFFSET",
    "GANG_OFFSET",
    "HU",
    "NUM_ACTIONS",
    "PASS",
    "PENG_OFFSET",
    "PLAY_OFFSET",
    "ActionKind",
    "ActionNameError",
    "BotzoneFormatError",
    "action_name",
    "angang_action",
    "bugang_action",
    "chi_action",
    "decode_action",
    "from_botzone",
    "gang_action",
    "parse_action_name",
    "peng_action",
    "play_action",
    "to_botzone",
]


class BotzoneFormatError(ValueError):
    """A Botzone response string is malformed, or cannot be expressed in the other direction."""


class ActionNameError(ValueError):
    """A readable action name is not one of :data:`ACTION_NAMES`."""


_NAME_TO_ID = {n.upper(): a for a, n in enumerate(ACTION_NAMES)}


def parse_action_name(name: str) -> int:
    """Action id of a readable name (case and surrounding/inner whitespace runs ignored).

    Raises:
        TypeError: ``name`` is not a str.
        ActionNameError: ``name`` is not one of :data:`ACTION_NAMES`.
    """
    if not isinstance(name, str):
        raise TypeError(f"action name must be a str, got {type(name).__name__}")
    key = " ".join(name.split()).upper()
    a = _NAME_TO_ID.get(key)
    if a is None:
        raise ActionNameError(
            f"unknown action name {name!r} (expected e.g. 'Pass', 'Hu', 'Play W3', "
            "'Chi T3 (claimed T2)', 'Peng B5', 'Gang F1', 'AnGang J2', 'BuGang W5')"
        )
    return a


def _play_tile(next_play: int | np.integer | str) -> int:
    """Tile discarded by ``next_play``: a Play action id (2..35) or a Botzone tile code."""
    if isinstance(next_play, str):
        t = code_to_tile(next_play)
        if t >= 34:
            raise BotzoneFormatError(f"a flower ({next_play}) cannot be discarded")
        return t
    kind, tile, _ = decode_action(next_play)
    if kind != ActionKind.PLAY:
        raise BotzoneFormatError(
            f"next_play must be a Play action (ids {PLAY_OFFSET}..{CHI_OFFSET - 1}), "
            f"got {action_name(next_play)} ({int(next_play)})"
        )
    return tile


def to_botzone(action: int, next_play: int | str | None = None) -> str:
    """Botzone response string of an action.

    Args:
        action: action id (0..234).
        next_play: for Chi and Peng only (required there): the Play action id, or the Botzone
            code of the tile, discarded right after the claim (Botzone folds both into one
            response). Must be ``None`` for every other kind.

    Returns:
        ``"PASS"``, ``"HU"``, ``"PLAY W3"``, ``"PENG T6"`` (T6 = the discard after the Peng),
        ``"CHI T3 T7"`` (T3 = middle tile of the chow, T7 = the discard after), ``"GANG"`` (melded
        kong of the last discard: Botzone omits the tile), ``"GANG W1"`` (AnGang), ``"BUGANG W5"``.

    Raises:
        TypeError / ValueError: ``action`` is not a valid id.
        BotzoneFormatError: ``next_play`` missing for Chi/Peng, given for another kind, or not a
            Play action.
    """
    kind, tile, _ = decode_action(action)
    if kind in (ActionKind.CHI, ActionKind.PENG):
        if next_play is None:
            raise BotzoneFormatError(
                f"{action_name(action)}: Botzone's {kind.name} response includes the discard "
                "that follows; pass next_play (a Play action id or a tile code)"
            )
        play = tile_to_code(_play_tile(next_play))
        if kind == ActionKind.PENG:
            return f"PENG {play}"
        return f"CHI {tile_to_code(tile)} {play}"
    if next_play is not None:
        raise BotzoneFormatError(
            f"next_play is only meaningful for Chi/Peng, not for {action_name(action)}"
        )
    if kind == ActionKind.PASS:
        return "PASS"
    if kind == ActionKind.HU:
        return "HU"
    if kind == ActionKind.PLAY:
        return f"PLAY {tile_to_code(tile)}"
    if kind == ActionKind.GANG:
        return "GANG"
    if kind == ActionKind.ANGANG:
        return f"GANG {tile_to_code(tile)}"
    return f"BUGANG {tile_to_code(tile)}"


def _tile_arg(tok: str, text: str) -> int:
    try:
        t = code_to_tile(tok)
    except ValueError as e:
        raise BotzoneFormatError(f"bad tile {tok!r} in Botzone response {text!r}") from e
    if t >= 34:
        raise BotzoneFormatError(f"flower {tok!r} cannot appear in response {text!r}")
    return t


def _last_tile(last_tile: int | str | None, verb: str, text: str) -> int:
    if last_tile is None:
        raise BotzoneFormatError(
            f"{verb} in {text!r} claims the last discard, which the response does not name; "
            "pass last_tile (tile id or code)"
        )
    if isinstance(last_tile, str):
        return _tile_arg(last_tile, text)
    if isinstance(last_tile, bool) or not isinstance(last_tile, (int, np.integer)):
        raise TypeError(f"last_tile must be a tile id or code, got {type(last_tile).__name__}")
    if not 0 <= last_tile < 34:
        raise ValueError(f"last_tile {last_tile} out of range 0..33")
    return int(last_tile)


def from_botzone(text: str, last_tile: int | str | None = None) -> tuple[int, ...]:
    """Action ids of a Botzone response string.

    Args:
        text: ``"PASS"``, ``"HU"``, ``"PLAY W3"``, ``"PENG T6"``, ``"CHI T3 T7"``, ``"GANG"``,
            ``"GANG W1"``, ``"BUGANG W5"`` (case-insensitive, extra whitespace ignored).
        last_tile: the tile being claimed (tile id or code); required for ``PENG``, ``CHI`` and
            tile-less ``GANG``, ignored otherwise.

    Returns:
        ``(action,)``, or ``(claim, play)`` for PENG and CHI.

    Raises:
        TypeError: ``text`` is not a str.
        BotzoneFormatError: unknown verb, wrong number of tiles, bad tile code, missing
            ``last_tile``, or a CHI whose claimed tile is not in the named chow.
    """
    if not isinstance(text, str):
        raise TypeError(f"Botzone response must be a str, got {type(text).__name__}")
    toks = text.split()
    if not toks:
        raise BotzoneFormatError("empty Botzone response")
    verb, args = toks[0].upper(), toks[1:]
    n_args = {"PASS": (0,), "HU": (0,), "PLAY": (1,), "PENG": (1,), "CHI": (2,), "GANG": (0, 1)}
    n_args["BUGANG"] = (1,)
    if verb not in n_args:
        raise BotzoneFormatError(
            f"unknown Botzone verb {toks[0]!r} in {text!r} "
            "(expected PASS, HU, PLAY, PENG, CHI, GANG, BUGANG)"
        )
    if len(args) not in n_args[verb]:
        raise BotzoneFormatError(
            f"{verb} takes {' or '.join(map(str, n_args[verb]))} tile(s), got {len(args)} "
            f"in {text!r}"
        )
    tiles = [_tile_arg(tok, text) for tok in args]
    if verb == "PASS":
        return (PASS,)
    if verb == "HU":
        return (HU,)
    if verb == "PLAY":
        return (play_action(tiles[0]),)
    if verb == "BUGANG":
        return (bugang_action(tiles[0]),)
    if verb == "GANG":
        if tiles:
            return (angang_action(tiles[0]),)
        return (gang_action(_last_tile(last_tile, verb, text)),)
    claimed = _last_tile(last_tile, verb, text)
    if verb == "PENG":
        return (peng_action(claimed), play_action(tiles[0]))
    try:
        chi = chi_action(tiles[0], claimed)
    except ValueError as e:
        raise BotzoneFormatError(f"bad CHI {text!r} with last tile {claimed}: {e}") from e
    return (chi, play_action(tiles[1]))

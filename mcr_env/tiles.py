"""Tiles: ids, suits, predicates, notation and glyphs (docs/rules.md §1).

Tile ids follow the Botzone order:

====== ========================== ============ ============
ids    kinds                      Botzone      compact
====== ========================== ============ ============
0-8    characters 1-9             W1..W9       1m..9m
9-17   bamboo 1-9                 T1..T9       1s..9s
18-26  dots 1-9                   B1..B9       1p..9p
27-30  winds East South West North F1..F4      1z..4z (E S W N)
31-33  dragons Red Green White    J1..J3       5z..7z (C F P)
34-41  flowers (8 bonus tiles)    H1..H8       --
====== ========================== ============ ============

Two notations are parsed and written:

* Botzone codes, whitespace separated: ``"W1 T9 F3 J2 H5"``; order is kept.
* Compact notation: runs of ranks followed by a suit letter, ``"123m456s789p1234z"``; honors may
  also be written as single letters ``E S W N C F P``. Flowers have no compact form. Whitespace
  is ignored. Formatting sorts the tiles (m, s, p, z groups).

One tile anywhere (a winning tile, a meld tile, an element of a list) is read by
:func:`parse_tile`: an id, a Botzone code or one compact tile (``4``, ``"W5"``, ``"5m"``).
Every parser raises :class:`ValueError` naming the offending token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import IntEnum

import numpy as np

NUM_TILE_KINDS = 34
"""Number of playing tile kinds (ids 0-33)."""
NUM_FLOWERS = 8
"""Number of flower (bonus) tiles."""
FLOWER_BASE = 34
"""Id of the first flower H1; flowers are ids 34-41."""
NUM_TILE_IDS = NUM_TILE_KINDS + NUM_FLOWERS
"""Number of distinct tile ids (playing kinds plus the 8 individual flowers)."""
COPIES_PER_KIND = 4
NUM_PLAYING_TILES = NUM_TILE_KINDS * COPIES_PER_KIND  # 136
NUM_TILES = NUM_PLAYING_TILES + NUM_FLOWERS  # 144

EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
RED, GREEN, WHITE = 31, 32, 33


class Suit(IntEnum):
    """Tile suits in the Botzone order; the value is the index of the suit."""

    CHARACTERS = 0
    BAMBOO = 1
    DOTS = 2
    WIND = 3
    DRAGON = 4
    FLOWER = 5


class Wind(IntEnum):
    """Seat and prevalent winds (docs/rules.md §2)."""

    EAST = 0
    SOUTH = 1
    WEST = 2
    NORTH = 3


_BOTZONE_SUIT_LETTERS = "WTBFJH"
_COMPACT_SUIT_LETTERS = "mspz"
_HONOR_LETTERS = "ESWNCFP"  # 1z..7z

# Unicode Mahjong Tiles block.
_GLYPHS = (
    [chr(0x1F007 + i) for i in range(9)]  # characters
    + [chr(0x1F010 + i) for i in range(9)]  # bamboo
    + [chr(0x1F019 + i) for i in range(9)]  # dots
    + [chr(0x1F000 + i) for i in range(4)]  # winds E S W N
    + [chr(0x1F004), chr(0x1F005), chr(0x1F006)]  # red, green, white dragons
    + [chr(0x1F022 + i) for i in range(8)]  # plum orchid bamboo chrysanthemum spring..winter
)


def _suit_and_rank(t: int) -> tuple[int, int]:
    if t < 27:
        return t // 9, t % 9 + 1
    if t < 31:
        return Suit.WIND, t - 26
    if t < 34:
        return Suit.DRAGON, t - 30
    return Suit.FLOWER, t - 33


TILE_SUIT = np.array([_suit_and_rank(t)[0] for t in range(NUM_TILE_IDS)], dtype=np.int8)
"""``(42,) int8``: :class:`Suit` of each tile id."""
TILE_RANK = np.array([_suit_and_rank(t)[1] for t in range(NUM_TILE_IDS)], dtype=np.int8)
"""``(42,) int8``: rank of each tile id: 1-9 in suits, 1-4 winds, 1-3 dragons, 1-8 flowers."""

_ids = np.arange(NUM_TILE_KINDS)
IS_SUITED = _ids < 27
"""``(34,) bool``: characters, bamboo or dots."""
IS_HONOR = _ids >= 27
"""``(34,) bool``: winds and dragons."""
IS_TERMINAL = IS_SUITED & np.isin(TILE_RANK[:34], (1, 9))
"""``(34,) bool``: 1 or 9 of a suit."""
IS_TERMINAL_OR_HONOR = IS_TERMINAL | IS_HONOR
IS_SIMPLE = IS_SUITED & ~IS_TERMINAL
"""``(34,) bool``: suit tiles 2-8."""
IS_GREEN = np.isin(_ids, (10, 11, 12, 14, 16, GREEN))
"""``(34,) bool``: T2 T3 T4 T6 T8 J2 (All Green)."""
IS_REVERSIBLE = np.isin(_ids, (18, 19, 20, 21, 22, 25, 26, 10, 12, 13, 14, 16, 17, WHITE))
"""``(34,) bool``: B1-B5 B8 B9, T2 T4 T5 T6 T8 T9, J3 (Reversible Tiles)."""
del _ids


def _check_id(t: int) -> int:
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
        raise TypeError(f"tile id must be an int, got {type(t).__name__} {t!r}")
    t = int(t)
    if not 0 <= t < NUM_TILE_IDS:
        raise ValueError(f"tile id {t} out of range 0..{NUM_TILE_IDS - 1}")
    return t


def is_flower(t: int) -> bool:
    """True for flower ids 34-41."""
    return _check_id(t) >= FLOWER_BASE


def is_honor(t: int) -> bool:
    """True for winds and dragons (ids 27-33)."""
    t = _check_id(t)
    return 27 <= t < 34


def is_terminal(t: int) -> bool:
    """True for the 1 and 9 of each suit."""
    t = _check_id(t)
    return t < 27 and t % 9 in (0, 8)


def is_green(t: int) -> bool:
    """True for the green tiles of All Green (docs/rules.md §1)."""
    t = _check_id(t)
    return t < 34 and bool(IS_GREEN[t])


def is_reversible(t: int) -> bool:
    """True for the tiles of Reversible Tiles (docs/rules.md §1)."""
    t = _check_id(t)
    return t < 34 and bool(IS_REVERSIBLE[t])


def suit_of(t: int) -> Suit:
    """The :class:`Suit` of a tile id."""
    return Suit(int(TILE_SUIT[_check_id(t)]))


def rank_of(t: int) -> int:
    """Rank of a tile: 1-9 in a suit, 1-4 for winds, 1-3 for dragons, 1-8 for flowers."""
    return int(TILE_RANK[_check_id(t)])


# ---------------------------------------------------------------------------------------------
# Botzone codes


def tile_to_code(t: int) -> str:
    """Botzone code of a tile id: ``0 -> "W1"``, ``33 -> "J3"``, ``34 -> "H1"``."""
    t = _check_id(t)
    return f"{_BOTZONE_SUIT_LETTERS[TILE_SUIT[t]]}{TILE_RANK[t]}"


_CODE_TO_ID = {tile_to_code(t): t for t in range(NUM_TILE_IDS)}


def code_to_tile(code: str) -> int:
    """Tile id of one Botzone code (case-insensitive).

    Raises:
        TypeError: ``code`` is not a string.
        ValueError: ``code`` is not one of W1-W9, T1-T9, B1-B9, F1-F4, J1-J3, H1-H8.
    """
    if not isinstance(code, str):
        raise TypeError(f"tile code must be a str, got {type(code).__name__} {code!r}")
    t = _CODE_TO_ID.get(code.strip().upper())
    if t is None:
        raise ValueError(
            f"unknown tile code {code!r} (expected W1-9, T1-9, B1-9, F1-4, J1-3, H1-8)"
        )
    return t


def parse_botzone(text: str) -> list[int]:
    """Parse whitespace-separated Botzone codes (``"W1 T9 F3 J2 H5"``) into tile ids, in order."""
    if not isinstance(text, str):
        raise TypeError(f"expected a str of tile codes, got {type(text).__name__}")
    return [code_to_tile(tok) for tok in text.split()]


def format_botzone(tiles: Iterable[int]) -> str:
    """Botzone codes of ``tiles`` joined by spaces, in the given order."""
    return " ".join(tile_to_code(t) for t in tiles)


# ---------------------------------------------------------------------------------------------
# Compact notation

_COMPACT_TOKEN = re.compile(r"([0-9]+)([mspz])|([ESWNCFP])")


_BOTZONE_RUN = re.compile(r"(?:[WTBFJHwtbfjh][0-9])+")


def _compact_hint(text: str, bad: str) -> str:
    """Why a string failed as compact notation, when a likely cause is recognised ("" else):
    Botzone codes written together, Botzone codes mixed with compact tokens, or a lowercase
    honor letter."""
    toks = text.split()
    if toks and all(_BOTZONE_RUN.fullmatch(t) for t in toks):
        codes = " ".join(c.upper() for t in toks for c in re.findall(r"..", t))
        return f"; it looks like Botzone codes: separate Botzone codes by spaces: {codes!r}"
    if any(_BOTZONE_RUN.search(t) for t in toks):
        return (
            "; a string cannot mix the two notations: Botzone codes only (each separated by "
            "spaces, 'W1 T2 B3') or compact notation only ('1m2s3p')"
        )
    if len(bad) == 1 and bad in _HONOR_LETTERS.lower():
        up = bad.upper()
        return (
            f"; honor letters are uppercase only (E S W N C F P; lowercase s and p are the "
            f"bamboo and dots suit letters): write {up!r} or "
            f"'{_HONOR_LETTERS.index(up) + 1}z' instead of {bad!r}"
        )
    return ""


def parse_compact(text: str) -> list[int]:
    """Parse compact notation (``"123m456s789p1234z"``, honors also ``E S W N C F P``).

    Tiles come out in the order written. Whitespace is ignored. Flowers have no compact form.

    Honor letters are uppercase only: lowercase ``s`` and ``p`` are suit letters (bamboo,
    dots), so lowercase honor letters would be ambiguous; they raise ValueError saying so.

    Raises:
        TypeError: ``text`` is not a string.
        ValueError: a token is malformed (digits without a suit letter, rank 0, ``8z``, a
            lowercase honor letter...); the message names the token and its position, and
            suggests spaces when the text looks like Botzone codes written together
            (``"W1F1J1"``).
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a str in compact notation, got {type(text).__name__}")
    s = "".join(text.split())
    out: list[int] = []
    pos = 0
    while pos < len(s):
        m = _COMPACT_TOKEN.match(s, pos)
        if m is None:
            rest = s[pos:]
            bad = re.match(r"[0-9]+[a-zA-Z]?|.", rest).group(0)
            raise ValueError(
                f"malformed tile token {bad!r} at position {pos} in {text!r} "
                "(expected ranks followed by m/s/p/z, or one of E S W N C F P)"
                + _compact_hint(text, bad)
            )
        if m.group(3):
            out.append(EAST + _HONOR_LETTERS.index(m.group(3)))
        else:
            digits, suit = m.group(1), m.group(2)
            base = 9 * _COMPACT_SUIT_LETTERS.index(suit)
            for d in digits:
                r = int(d)
                if suit == "z":
                    if not 1 <= r <= 7:
                        raise ValueError(f"bad honor rank {d!r} in token {m.group(0)!r} (1z-7z)")
                elif not 1 <= r <= 9:
                    raise ValueError(f"bad rank {d!r} in token {m.group(0)!r} (ranks are 1-9)")
                out.append(base + r - 1)
        pos = m.end()
    return out


def format_compact(tiles: Iterable[int]) -> str:
    """Compact notation of ``tiles``, sorted by id (``"123m456s789p1234z"``).

    Raises:
        ValueError: a flower is given (flowers have no compact form).
    """
    ids = sorted(_check_id(t) for t in tiles)
    parts: list[str] = []
    for suit_index, letter in enumerate(_COMPACT_SUIT_LETTERS):
        ranks = [t - 9 * suit_index + 1 for t in ids if 9 * suit_index <= t < 9 * suit_index + 9]
        if suit_index == 3:
            ranks = [t - 26 for t in ids if 27 <= t < 34]
        if ranks:
            parts.append("".join(str(r) for r in ranks) + letter)
    if any(t >= FLOWER_BASE for t in ids):
        raise ValueError("flowers have no compact notation; use Botzone codes H1-H8")
    return "".join(parts)


_BOTZONE_TOKEN = re.compile(r"^[WTBFJHwtbfjh][0-9]$")
_CODE_SHAPE = re.compile(r"[A-Za-z][0-9]")


def parse_tile(tile: int | str) -> int:
    """Tile id of ONE tile given as an id or in either notation: ``4``, ``"W5"`` / ``"w5"``
    (Botzone code), ``"5m"`` or ``"E"`` / ``"1z"`` (compact). Surrounding whitespace is ignored.
    Flowers are accepted (ids 34-41, ``"H1"``-``"H8"``); callers that need playing tiles
    reject them.

    Raises:
        TypeError: ``tile`` is neither an int nor a str (bools are rejected).
        ValueError: an id outside 0..41, an unknown code (letter + digit, e.g. ``"W0"``), a
            malformed compact token (lowercase honor letters included, see
            :func:`parse_compact`), or not exactly one tile (``"123m"``).
    """
    if isinstance(tile, str):
        text = tile.strip()
        if _CODE_SHAPE.fullmatch(text):
            return code_to_tile(text)
        ids = parse_compact(text)
        if len(ids) != 1:
            raise ValueError(f"expected one tile, got {len(ids)} in {tile!r}")
        return ids[0]
    if isinstance(tile, (bool, np.bool_)) or not isinstance(tile, (int, np.integer)):
        raise TypeError(
            "a tile must be an id (int) or one tile code (str: '5m', 'E' or 'W5'), got "
            f"{type(tile).__name__} {tile!r}"
        )
    return _check_id(tile)


def parse_tiles(tiles: str | Sequence[int | str]) -> list[int]:
    """Tile ids from either notation, or from a sequence of ids or codes.

    A string whose whitespace-separated tokens all look like Botzone codes (letter + digit) is
    read as Botzone codes; any other string is read as compact notation. A sequence may mix
    ids (int) and single tiles in either notation (str, :func:`parse_tile`).

    Raises:
        TypeError: an element is neither an int nor a str.
        ValueError: a malformed or unknown token (named in the message).
    """
    if isinstance(tiles, str):
        toks = tiles.split()
        if toks and all(_BOTZONE_TOKEN.match(tok) for tok in toks):
            return parse_botzone(tiles)
        return parse_compact(tiles)
    if isinstance(tiles, np.ndarray):
        tiles = tiles.tolist()
    if not isinstance(tiles, (list, tuple)):
        raise TypeError(
            f"tiles must be a str, list or tuple of ids/codes, got {type(tiles).__name__}"
        )
    return [parse_tile(t) for t in tiles]


def tile_glyph(t: int) -> str:
    """Unicode glyph of a tile id (Mahjong Tiles block), e.g. ``0 -> '\\U0001F007'``."""
    return _GLYPHS[_check_id(t)]


def format_glyphs(tiles: Iterable[int]) -> str:
    """Unicode glyphs of ``tiles`` in the given order, no separators."""
    return "".join(tile_glyph(t) for t in tiles)


def counts_of(tiles: Iterable[int]) -> np.ndarray:
    """``(34,) int8`` count vector of playing tiles.

    Raises:
        ValueError: a flower id is given (flowers are not part of a hand's counts).
    """
    c = np.zeros(NUM_TILE_KINDS, dtype=np.int8)
    for t in tiles:
        t = _check_id(t)
        if t >= FLOWER_BASE:
            raise ValueError(f"flower {tile_to_code(t)} cannot be counted among playing tiles")
        c[t] += 1
    return c

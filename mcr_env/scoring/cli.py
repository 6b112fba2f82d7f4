"""``mcr-score``: score one MCR winning hand from the command line (docs/rules.md §5-§7).

Examples::

    mcr-score 123m456s789p11z23m --win 4m
    mcr-score "W1 W2 W3 T4 T5 T6 B7 B8 B9 F1 F1 W2 W3" --win W4 --self-drawn
    mcr-score 333z44z55m --win 4z --meld "PENG 1z 1" --meld "PENG 2z 2" --json
    mcr-score 789p11z23m4m --meld "ANGANG 1m" --meld "GANG 5s 1" --profile botzone

The hand is the concealed tiles in compact (``123m456s789p1z``, honors also ``E S W N C F P``)
or Botzone notation (``W1 T2 B3 F1 J1``), given as one argument or several. ``--win`` names the
winning tile; without it, the last tile written is the winning tile. Each ``--meld`` is
``"KIND TILE [OFFER]"``: KIND is CHI (TILE = the middle tile of the chow), PENG, GANG (melded
kong), BUGANG (a pung promoted to a kong) or ANGANG (concealed kong); OFFER defaults to 1 (0
for ANGANG). The output is the hand as Unicode tile glyphs (a concealed kong with its outer
tiles face down), the fan table (name, points per occurrence, count, subtotal; highest points
first, ties in docs/rules.md §6 order) and the total; ``--json`` prints one JSON object
instead. Bad input prints one ``mcr-score: error: ...`` line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from mcr_env.scoring.fans import PROFILES
from mcr_env.scoring.score import ScoreResult, score_win
from mcr_env.tiles import format_glyphs, parse_tile, parse_tiles, tile_to_code

PROG = "mcr-score"
EXIT_USAGE = 2
"""Exit status for bad input (as argparse uses)."""

_WIND_NAMES = {"E": 0, "S": 1, "W": 2, "N": 3, "EAST": 0, "SOUTH": 1, "WEST": 2, "NORTH": 3}
_MELD_KINDS = ("CHI", "PENG", "GANG", "BUGANG", "ANGANG")


class UsageError(Exception):
    """Bad command-line input; the message is printed as one line."""


class _Parser(argparse.ArgumentParser):
    """ArgumentParser that raises :class:`UsageError` instead of printing usage and exiting."""

    def error(self, message: str):  # noqa: D102 (argparse override)
        raise UsageError(message)


def parse_wind(text: str) -> int:
    """Wind 0..3 from ``E S W N`` (any case, or the full English name) or ``0``-``3``.

    Raises:
        ValueError: anything else.
    """
    key = text.strip().upper()
    if key in _WIND_NAMES:
        return _WIND_NAMES[key]
    if key in ("0", "1", "2", "3"):
        return int(key)
    raise ValueError(f"bad wind {text!r} (expected E, S, W, N or 0-3)")


def parse_one_tile(text: str, what: str) -> int:
    """Tile id of exactly one tile in compact or Botzone notation
    (:func:`mcr_env.tiles.parse_tile`).

    Raises:
        ValueError: malformed, or not exactly one tile (``what`` names the argument).
    """
    try:
        return parse_tile(text)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what}: {e}") from None


def parse_meld(text: str) -> tuple[str, int, int]:
    """``"PENG 5z 1"`` / ``"chi T4"`` / ``"ANGANG J1"`` -> ``(kind, tile id, offer)``.

    OFFER defaults to 1 (0 for ANGANG); range checks are left to :func:`score_win`.

    Raises:
        ValueError: wrong number of fields, unknown kind, bad tile or non-integer offer.
    """
    fields = text.replace(",", " ").split()
    if len(fields) not in (2, 3):
        raise ValueError(f"--meld {text!r}: expected 'KIND TILE [OFFER]', e.g. 'PENG 5z 1'")
    kind = fields[0].upper()
    if kind not in _MELD_KINDS:
        raise ValueError(
            f"--meld {text!r}: unknown kind {fields[0]!r} (one of {', '.join(_MELD_KINDS)})"
        )
    tile = parse_one_tile(fields[1], f"--meld {text!r}")
    if len(fields) == 3:
        try:
            offer = int(fields[2])
        except ValueError:
            raise ValueError(f"--meld {text!r}: offer {fields[2]!r} is not an integer") from None
    else:
        offer = 0 if kind == "ANGANG" else 1
    return kind, tile, offer


def build_parser() -> argparse.ArgumentParser:
    """The ``mcr-score`` argument parser."""
    p = _Parser(
        prog=PROG,
        description="Score an MCR (Chinese Official) winning hand: fans, points and total.",
        epilog="Winds: E/S/W/N or 0-3. Tiles: compact (1m 9s 5p 1z, E S W N C F P) or "
        "Botzone codes (W1 T9 B5 F1 J1).",
    )
    p.add_argument(
        "hand",
        nargs="+",
        help="concealed tiles (without --win: the last one is the winning tile), compact or "
        "Botzone notation, one argument or several",
    )
    p.add_argument("--win", metavar="TILE", help="the winning tile (e.g. 4m or W4)")
    p.add_argument(
        "--meld",
        action="append",
        default=[],
        metavar="'KIND TILE [OFFER]'",
        help="a meld: CHI (TILE = middle tile), PENG, GANG, BUGANG or ANGANG; repeatable",
    )
    p.add_argument("--self-drawn", action="store_true", help="won on a self-drawn tile")
    p.add_argument(
        "--fourth-tile",
        action="store_true",
        help="the other three copies of the winning tile are visible (Last Tile)",
    )
    p.add_argument(
        "--wall-last",
        action="store_true",
        help="won on the wall's last tile or the discard after it (Last Tile Draw/Claim)",
    )
    p.add_argument(
        "--about-kong",
        action="store_true",
        help="won on a kong replacement (with --self-drawn) or by robbing a kong",
    )
    p.add_argument("--seat-wind", default="E", metavar="WIND", help="seat wind (default E)")
    p.add_argument(
        "--prevalent-wind", default="E", metavar="WIND", help="prevalent wind (default E)"
    )
    p.add_argument("--flowers", type=int, default=0, metavar="N", help="flowers held, 0-8")
    p.add_argument(
        "--profile",
        choices=PROFILES,
        default="mcr",
        help="scoring profile (docs/rules.md §7; default mcr)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


TILE_BACK = "\U0001f02b"
"""Glyph of a face-down tile (MAHJONG TILE BACK), for the outer tiles of a concealed kong."""


def _meld_glyphs(kind: str, tile: int) -> str:
    if kind == "CHI":
        return format_glyphs([tile - 1, tile, tile + 1])
    if kind == "ANGANG":  # shown as on the table: the two outer tiles face down
        return TILE_BACK + format_glyphs([tile, tile]) + TILE_BACK
    return format_glyphs([tile] * (3 if kind == "PENG" else 4))


def hand_glyphs(hand: Sequence[int], win: int, melds: Sequence[tuple[str, int, int]]) -> str:
    """One line: sorted concealed tiles, each meld in brackets (a concealed kong with its two
    outer tiles face down, ``[🀫🀇🀇🀫]``), then ``+`` the winning tile."""
    parts = [format_glyphs(sorted(hand))]
    parts += [f"[{_meld_glyphs(kind, tile)}]" for kind, tile, _ in melds]
    parts.append(f"+ {format_glyphs([win])}")
    return " ".join(parts)


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def listed_fans(result: ScoreResult) -> list:
    """The fans of ``result`` in display order: points per occurrence, highest first; ties in
    :class:`Fan` order. For fans 1-81 this is ``result.fans`` order (docs/rules.md §6 lists
    them by points); it places the botzone-profile extra fan Concealed Kong and Melded Kong
    (Fan 82, 5 points) by its points instead of last."""
    return sorted(result.fans, key=lambda f: (-f.points, int(f.fan)))


def format_table(result: ScoreResult) -> list[str]:
    """The fan table (:func:`listed_fans` order) and the total as text lines."""
    width = max([len("Fan")] + [len(f.name) for f in result.fans])
    lines = [f"{'Fan':<{width}}  {'Points':>6}  {'Count':>5}  {'Subtotal':>8}"]
    for f in listed_fans(result):
        lines.append(f"{f.name:<{width}}  {f.points:>6}  {f.count:>5}  {f.points * f.count:>8}")
    flowers = result.total - result.total_without_flowers
    total = f"Total: {_points(result.total)}"
    if flowers:
        total += f" ({result.total_without_flowers} without {_points(flowers)} of flowers)"
    lines.append(total)
    if not result.is_legal_win:
        lines.append(
            f"Not a legal win: {_points(result.total_without_flowers)} without flowers, "
            "8 needed (docs/rules.md §2)."
        )
    return lines


def to_json(
    result: ScoreResult,
    hand: Sequence[int],
    win: int,
    melds: Sequence[tuple[str, int, int]],
    profile: str,
) -> dict:
    """Machine-readable result: the inputs as Botzone codes, the fans (:func:`listed_fans`
    order) and the totals."""
    return {
        "hand": [tile_to_code(t) for t in hand],
        "win": tile_to_code(win),
        "melds": [[kind, tile_to_code(tile), offer] for kind, tile, offer in melds],
        "profile": profile,
        "fans": [
            {
                "fan": f.name,
                "id": int(f.fan),
                "points": f.points,
                "count": f.count,
                "subtotal": f.points * f.count,
            }
            for f in listed_fans(result)
        ],
        "total": result.total,
        "total_without_flowers": result.total_without_flowers,
        "is_legal_win": result.is_legal_win,
    }


def run(args: argparse.Namespace) -> list[str]:
    """Score the hand described by parsed ``args``; the output lines.

    Raises:
        ValueError, TypeError: bad tiles, melds, winds or a hand that is not a win.
    """
    try:
        hand = parse_tiles(" ".join(args.hand))
    except (TypeError, ValueError) as e:
        raise ValueError(f"hand: {e}") from None
    melds = [parse_meld(m) for m in args.meld]
    if args.win is not None:
        win = parse_one_tile(args.win, "--win")
    elif hand:
        hand, win = hand[:-1], hand[-1]
    else:
        raise ValueError("hand: no tiles")
    seat = parse_wind(args.seat_wind)
    prevalent = parse_wind(args.prevalent_wind)
    result = score_win(
        hand,
        win,
        tuple(melds),
        is_self_drawn=args.self_drawn,
        is_4th_tile=args.fourth_tile,
        is_wall_last=args.wall_last,
        is_about_kong=args.about_kong,
        seat_wind=seat,
        prevalent_wind=prevalent,
        flowers=args.flowers,
        profile=args.profile,
    )
    if args.json:
        return [json.dumps(to_json(result, hand, win, melds, args.profile), ensure_ascii=False)]
    return [hand_glyphs(hand, win, melds), *format_table(result)]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``mcr-score``; returns the exit status (0, or 2 on bad input).

    ``--help`` prints help and raises ``SystemExit(0)`` as argparse does.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        lines = run(args)
    except (UsageError, ValueError, TypeError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

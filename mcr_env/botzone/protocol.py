"""The Botzone "Chinese-Standard-Mahjong" bot protocol: request lines in and out.

A Botzone bot gets one *request* line per turn and answers one *response* line (response
strings: :func:`mcr_env.encoding.actions.to_botzone` / ``from_botzone``). The request lines, as
the Botzone judge writes them (docs/rules.md §9; Botzone wiki "Chinese-Standard-Mahjong"):

====================================== ==================================================
request                                meaning
====================================== ==================================================
``0 seat quan``                        your seat 0..3 (= your seat wind, seat 0 deals) and
                                       the prevalent wind 0..3 (East South West North)
``1 h0 h1 h2 h3 t1 .. t13 f ...``      flower counts of the four seats, your 13 tiles, then
                                       all flowers (h0 + .. + h3 codes ``H1``..``H8``)
``2 t``                                you drew ``t`` (a decision: HU / PLAY / GANG t /
                                       BUGANG t)
``3 p BUHUA f``                        seat p drew flower f and draws again
``3 p DRAW``                           seat p (not you) drew
``3 p PLAY t``                         seat p discarded t (others may HU / PENG / GANG / CHI)
``3 p PENG t``                         seat p took the last discard as a pung and discarded t
``3 p CHI m t``                        seat p took the last discard into the chow with middle
                                       tile m and discarded t
``3 p GANG``                           seat p made a kong: concealed (p just drew; the tile
                                       is not told) or melded from the last discard
``3 p BUGANG t``                       seat p added t to its melded pung (others may HU:
                                       robbing the kong)
====================================== ==================================================

Every request is answered, ``PASS`` when there is nothing to decide; a wrong answer is penalized
by the judge (the offender pays 30, each other seat gets 10, and the hand ends).

Interaction styles (Botzone wiki "Bot"): JSON (one line ``{"requests": [...], "responses":
[...]}`` per turn, answered by ``{"response": ...}``), simple I/O (a line with the turn number
n, then the 2n - 1 lines ``request_1, response_1, ..., request_n``, answered by one line), and
keep-running: after its answer the bot prints ``>>>BOTZONE_REQUEST_KEEP_RUNNING<<<`` and stays
alive; later turns then bring only the new request (one line; a JSON string or ``{"request":
...}`` in JSON mode).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcr_env.tiles import code_to_tile, tile_to_code

KEEP_RUNNING = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"
"""The line a keep-running bot prints after each answer."""

REQUEST_KINDS = ("seat", "deal", "draw", "buhua", "DRAW", "PLAY", "PENG", "CHI", "GANG", "BUGANG")
"""Values of :attr:`Request.kind`: "seat" (``0``), "deal" (``1``), "draw" (``2``, your own
draw), then the ``3 p VERB`` events by their verb ("buhua" for BUHUA)."""


class RequestError(ValueError):
    """A Botzone request line is malformed (the message quotes it and says what is wrong)."""


@dataclass(frozen=True)
class Request:
    """One parsed request line (tile ids as in :mod:`mcr_env.tiles`; -1 where unused)."""

    kind: str
    """One of :data:`REQUEST_KINDS`."""
    player: int = -1
    """Seat of the ``0`` request (your seat) or of the ``3 p ...`` event; -1 for ``1``/``2``."""
    tile: int = -1
    """The tile: drawn (``2``), flower (BUHUA), discarded (PLAY, and after PENG/CHI), added
    (BUGANG)."""
    middle: int = -1
    """CHI: middle tile of the chow."""
    quan: int = -1
    """``0``: prevalent wind 0..3."""
    hand: tuple[int, ...] = ()
    """``1``: your 13 tiles."""
    flower_counts: tuple[int, ...] = ()
    """``1``: flowers of seats 0..3."""
    flowers: tuple[int, ...] = ()
    """``1``: the flower tiles (ids 34..41), seat 0's first."""

    def to_line(self) -> str:
        """The request line (inverse of :func:`parse_request`)."""
        k = self.kind
        if k == "seat":
            return f"0 {self.player} {self.quan}"
        if k == "deal":
            parts = ["1", *map(str, self.flower_counts), *map(tile_to_code, self.hand)]
            return " ".join(parts + [tile_to_code(f) for f in self.flowers])
        if k == "draw":
            return f"2 {tile_to_code(self.tile)}"
        head = f"3 {self.player}"
        if k in ("DRAW", "GANG"):
            return f"{head} {k}"
        if k == "buhua":
            return f"{head} BUHUA {tile_to_code(self.tile)}"
        if k == "CHI":
            return f"{head} CHI {tile_to_code(self.middle)} {tile_to_code(self.tile)}"
        return f"{head} {k} {tile_to_code(self.tile)}"


def _int(tok: str, line: str, what: str, lo: int, hi: int) -> int:
    try:
        v = int(tok)
    except ValueError:
        raise RequestError(
            f"{what} must be an integer {lo}..{hi}, got {tok!r} in {line!r}"
        ) from None
    if not lo <= v <= hi:
        raise RequestError(f"{what} must be {lo}..{hi}, got {v} in {line!r}")
    return v


def _tile(tok: str, line: str, flower: bool = False) -> int:
    try:
        t = code_to_tile(tok)
    except ValueError:
        raise RequestError(f"bad tile code {tok!r} in request {line!r}") from None
    if (t >= 34) != flower:
        want = "a flower H1..H8" if flower else "a playing tile (not a flower)"
        raise RequestError(f"expected {want}, got {tok!r} in request {line!r}")
    return t


def parse_request(line: str) -> Request:
    """Parse one request line (see the module docstring).

    Raises:
        TypeError: ``line`` is not a str.
        RequestError: unknown request, wrong number of fields, bad seat, wind or tile code.
    """
    if not isinstance(line, str):
        raise TypeError(f"a Botzone request must be a str, got {type(line).__name__}")
    t = line.split()
    if not t:
        raise RequestError("empty Botzone request")
    head = t[0]
    if head == "0":
        if len(t) != 3:
            raise RequestError(f"request 0 takes 'seat quan', got {line!r}")
        return Request(
            "seat", player=_int(t[1], line, "seat", 0, 3), quan=_int(t[2], line, "quan", 0, 3)
        )
    if head == "1":
        if len(t) < 18:
            raise RequestError(f"request 1 needs 4 flower counts and 13 tiles, got {line!r}")
        counts = tuple(_int(x, line, "flower count", 0, 8) for x in t[1:5])
        hand = tuple(_tile(x, line) for x in t[5:18])
        flowers = tuple(_tile(x, line, flower=True) for x in t[18:])
        if len(flowers) != sum(counts):
            raise RequestError(
                f"request 1 lists {len(flowers)} flowers, its counts sum to {sum(counts)}: {line!r}"
            )
        return Request("deal", hand=hand, flower_counts=counts, flowers=flowers)
    if head == "2":
        if len(t) != 2:
            raise RequestError(f"request 2 takes one tile, got {line!r}")
        return Request("draw", tile=_tile(t[1], line))
    if head != "3":
        raise RequestError(f"unknown request type {head!r} (expected 0, 1, 2 or 3): {line!r}")
    if len(t) < 3:
        raise RequestError(f"request 3 needs 'player VERB ...', got {line!r}")
    p = _int(t[1], line, "player", 0, 3)
    verb = t[2].upper()
    n_tiles = {"DRAW": 0, "GANG": 0, "BUHUA": 1, "PLAY": 1, "PENG": 1, "BUGANG": 1, "CHI": 2}
    if verb not in n_tiles:
        raise RequestError(
            f"unknown event {t[2]!r} (expected BUHUA, DRAW, PLAY, PENG, CHI, GANG, BUGANG): "
            f"{line!r}"
        )
    if len(t) != 3 + n_tiles[verb]:
        raise RequestError(f"3 p {verb} takes {n_tiles[verb]} tile(s), got {line!r}")
    if verb == "BUHUA":
        return Request("buhua", player=p, tile=_tile(t[3], line, flower=True))
    if verb in ("DRAW", "GANG"):
        return Request(verb, player=p)
    if verb == "CHI":
        mid = _tile(t[3], line)
        if mid >= 27 or mid % 9 in (0, 8):
            raise RequestError(f"CHI middle tile {t[3]} cannot be the middle of a chow: {line!r}")
        return Request("CHI", player=p, middle=mid, tile=_tile(t[4], line))
    return Request(verb, player=p, tile=_tile(t[3], line))

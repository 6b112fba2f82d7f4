"""Text rendering of one table of the batched state (docs/rules.md §2).

:func:`render_table` draws game ``game`` of a :class:`GameState`, either in full (every hand and
concealed kong shown) or as one seat sees it (``seat=s``: the state is first reduced to
:meth:`GameState.seat_view`, so nothing that seat may not see can reach the text: other
concealed hands are tile backs, other concealed kongs are face down). Tiles are Unicode glyphs
(``tiles="glyphs"``, :func:`mcr_env.tiles.tile_glyph`, backs as U+1F02B) or Botzone codes
(``tiles="codes"``, backs as ``##``). Example (codes, full view)::

    Hand 1  prevalent East  phase CLAIM  wall 81 left
    W5 discarded by seat 2; to act: seat 3
      seat 0  East  flowers H1
        hand      W1 W2 W3 T4 T4 T5 B1 B1 B9 F1 F1 J2 J3
        discards  B9 [T3]
    > seat 3  North
        hand      W5 W5 T1 T2 T3 B4 B5 B6 F3 F3
        melds     Chi T2 T3 T4 (T3 from seat 2)
        discards  W9

``>`` marks the seats that must act; ``[..]`` marks discards that were claimed. The acting seats
come from ``to_act`` (the engine's ``to_act``; :func:`render_engine` passes it). In a seat view
only the viewer's own ``to_act`` entry is used (whether another seat may claim a discard would
reveal its hand); the seat on turn in ``ACT``/``DISCARD`` is public.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from mcr_env._checks import check_int
from mcr_env.engine.actions import ACTION_KIND, NUM_ACTIONS, PASS, ActionKind, action_name
from mcr_env.engine.state import EndReason, GameState, MeldKind, Phase
from mcr_env.tiles import tile_glyph, tile_to_code

__all__ = [
    "TILE_STYLES",
    "public_events",
    "render_engine",
    "render_hand_result",
    "render_record",
    "render_table",
]

TILE_STYLES = ("glyphs", "codes")
"""Valid ``tiles=`` values of :func:`render_table`."""

_WINDS = ("East", "South", "West", "North")
_BACK_GLYPH = chr(0x1F02B)
_BACK_CODE = "##"


class _Tiles:
    """Tile formatting of one style."""

    def __init__(self, style: str):
        self.glyphs = style == "glyphs"

    def one(self, t: int) -> str:
        return tile_glyph(t) if self.glyphs else tile_to_code(t)

    def many(self, tiles) -> str:
        sep = "" if self.glyphs else " "
        return sep.join(self.one(int(t)) for t in tiles)

    def backs(self, n: int) -> str:
        sep = "" if self.glyphs else " "
        return sep.join([_BACK_GLYPH if self.glyphs else _BACK_CODE] * n)


def _meld_text(v: dict, s: int, j: int, fmt: _Tiles) -> str:
    kind = int(v["meld_kind"][s, j])
    tile = int(v["meld_tile"][s, j])
    frm = int(v["meld_from"][s, j])
    if kind == MeldKind.CHI:
        claimed = int(v["meld_claimed"][s, j])
        return f"Chi {fmt.many((tile - 1, tile, tile + 1))} ({fmt.one(claimed)} from seat {frm})"
    if kind == MeldKind.PENG:
        return f"Peng {fmt.many([tile] * 3)} (from seat {frm})"
    if kind == MeldKind.GANG:
        word = "BuGang" if bool(v["meld_added"][s, j]) else "Gang"
        return f"{word} {fmt.many([tile] * 4)} (from seat {frm})"
    t = int(v["angang_tile"][s, j])
    if t < 0:  # face down: the viewer may not see it
        return f"AnGang {fmt.backs(4)}"
    return f"AnGang {fmt.many([t] * 4)} (concealed)"


def _view(state: GameState, game: int, seat: int | None) -> dict[str, np.ndarray]:
    """Arrays of one game (leading dim dropped): all fields, or what ``seat`` may see."""
    one = GameState(
        **{f.name: getattr(state, f.name)[game : game + 1] for f in dataclasses.fields(state)}
    )
    fields = (
        {f.name: getattr(one, f.name) for f in dataclasses.fields(one)}
        if seat is None
        else one.seat_view(seat)
    )
    return {k: a[0] for k, a in fields.items()}


def _check_int(x, name: str, hi: int) -> int:
    return check_int(x, name, 0, hi - 1)


def render_table(
    state: GameState,
    game: int = 0,
    seat: int | None = None,
    *,
    tiles: str = "glyphs",
    to_act=None,
) -> str:
    """Multi-line text of table ``game`` (module docstring for the layout).

    Shows: hand number, prevalent wind, phase, tiles left in the wall (botzone: per seat wall),
    the tile in play, who must act (or the result once the hand is over), then per seat its
    wind, flowers, concealed hand (the tile just drawn after ``+``), melds and discards.

    Args:
        state: engine :class:`GameState` (B games).
        game: batch row 0..B-1.
        seat: viewing seat 0..3 (other hands as backs, other concealed kongs face down), or
            ``None`` for the full table.
        tiles: "glyphs" (Unicode Mahjong Tiles) or "codes" (Botzone codes ``W1``..``J3``).
        to_act: optional ``(4,)`` or ``(B, 4)`` bool, the engine's ``to_act``.

    Raises:
        TypeError: ``state`` is not a GameState.
        ValueError: ``game``, ``seat``, ``tiles`` or ``to_act`` invalid.
    """
    if not isinstance(state, GameState):
        raise TypeError(f"state must be a GameState, got {type(state).__name__}")
    game = _check_int(game, "game", state.batch_size)
    if seat is not None:
        seat = _check_int(seat, "seat", 4)
    if tiles not in TILE_STYLES:
        raise ValueError(f"tiles must be one of {TILE_STYLES}, got {tiles!r}")
    acting = None
    if to_act is not None:
        arr = np.asarray(to_act)
        if arr.dtype != bool or arr.shape not in ((4,), (state.batch_size, 4)):
            raise ValueError(f"to_act must be a (4,) or (B, 4) bool array, got {arr.shape}")
        acting = arr if arr.ndim == 1 else arr[game]
    fmt = _Tiles(tiles)
    v = _view(state, game, seat)
    phase = Phase(int(v["phase"]))
    cur = int(v["current_seat"])
    # ---- header
    left = v["tiles_left"]
    wall = (
        f"walls left {' '.join(str(int(x)) for x in left)}"
        if _botzone(state, game)
        else f"wall {int(left[0])} left"
    )
    lines = [
        f"Hand {int(v['hand_number']) + 1}  prevalent {_WINDS[int(v['prevalent_wind'])]}"
        f"  phase {phase.name}  {wall}"
    ]
    # who acts: a seat the viewer can know about
    if acting is not None:
        seats = [s for s in range(4) if acting[s] and (seat is None or s == seat)]
    else:
        seats = []
    if phase in (Phase.ACT, Phase.DISCARD):
        seats = sorted(set(seats) | {cur})
    tip = int(v["tile_in_play"])
    if phase == Phase.OVER:
        lines.append(_result_text(v))
    else:
        what = ""
        if phase == Phase.CLAIM:
            what = f"{fmt.one(tip)} discarded by seat {int(v['played_by'])}; "
        elif phase == Phase.ROB:
            what = f"{fmt.one(tip)} added to a kong by seat {int(v['played_by'])}; "
        if seats:
            who = "seat " + ", ".join(str(s) for s in seats)
            who = who.replace("seat ", "seats ", 1) if len(seats) > 1 else who
        elif phase in (Phase.CLAIM, Phase.ROB):
            who = "the other seats answer" if seat is None else "other seats may answer"
        else:
            who = "nobody"
        lines.append(f"{what}to act: {who}")
    # ---- seats
    identity = bool((v["player_at_seat"] == np.arange(4)).all())
    dealer = int(v["dealer"])
    for s in range(4):
        mark = "> " if s in seats else "  "
        head = f"{mark}seat {s}  {_WINDS[(s - dealer) % 4]}"
        if not identity:
            head += f"  player {int(v['player_at_seat'][s])}"
        fl = [34 + k for k in range(8) if v["flowers"][s, k]]
        if fl:
            head += f"  flowers {fmt.many(fl)}"
        lines.append(head)
        lines.append(f"    hand      {_hand_text(v, s, seat, phase, fmt)}")
        nm = int(v["n_melds"][s])
        if nm:
            lines.append(f"    melds     {'  '.join(_meld_text(v, s, j, fmt) for j in range(nm))}")
        n = int(v["n_discards"][s])
        sep = "" if fmt.glyphs else " "
        disc = sep.join(
            f"[{fmt.one(int(t))}]" if c else fmt.one(int(t))
            for t, c in zip(v["discards"][s, :n], v["discard_claimed"][s, :n])
        )
        lines.append(f"    discards  {disc}".rstrip())
    scores = v["match_scores"]
    if int(v["hand_number"]) > 0 or not identity or (scores != 0).any():
        lines.append(
            "scores by player  " + "  ".join(f"{p}: {int(x):+d}" for p, x in enumerate(scores))
        )
    return "\n".join(lines)


def _botzone(state: GameState, game: int) -> bool:
    """Game ``game`` uses the botzone layout (136-tile wall, one segment per seat). Only the
    layout is read from the hidden wall, never its tiles."""
    return bool(state.wall[game, 136] < 0)


def _hand_text(v: dict, s: int, seat: int | None, phase: Phase, fmt: _Tiles) -> str:
    if seat is None or seat == s:
        counts = v["hand"][s].astype(np.int64).copy()
        drawn = int(v["drawn_tile"][s])
        if drawn >= 0:
            counts[drawn] -= 1
        text = fmt.many(np.repeat(np.arange(34), counts))
        if drawn >= 0:
            text += f"  +{fmt.one(drawn)}"
        return text
    # another seat's hand: only its size is public (13 - 3 per meld, +1 for the seat on turn
    # and for the winner once the hand is over)
    n = 13 - 3 * int(v["n_melds"][s])
    if phase in (Phase.ACT, Phase.DISCARD) and s == int(v["current_seat"]):
        n += 1
    if phase == Phase.OVER and s == int(v["winner"]):
        n += 1
    return fmt.backs(n)


def _result_text(v: dict) -> str:
    reason = EndReason(int(v["end_reason"]))
    w, frm = int(v["winner"]), int(v["win_from"])
    if reason == EndReason.SELF_DRAWN:
        return f"over: seat {w} wins, self-drawn"
    if reason == EndReason.DISCARD:
        return f"over: seat {w} wins on the discard of seat {frm}"
    if reason == EndReason.ROB_KONG:
        return f"over: seat {w} wins by robbing the kong of seat {frm}"
    if reason == EndReason.EXHAUSTIVE:
        return "over: exhaustive draw"
    if reason == EndReason.PENALTY:
        return "over: penalty for an illegal action"
    return "over"


def render_engine(engine, game: int = 0, seat: int | None = None, *, tiles: str = "glyphs") -> str:
    """:func:`render_table` of ``engine.state`` with the engine's ``to_act``."""
    return render_table(engine.state, game, seat, tiles=tiles, to_act=engine.to_act)


def render_hand_result(result: dict, hand: int | None = None) -> str:
    """One line describing a record's hand ``result`` (see :mod:`mcr_env.engine.records`).

    Example: ``"Hand 1: seat 2 wins on the discard of seat 0 with B5, 14 points (Mixed Triple
    Chow 8, All Chows 2 ...); settlement -22 -8 38 -8"``.
    """
    head = f"Hand {hand + 1}: " if hand is not None else ""
    reason = result["end_reason"]
    w, frm = result["winner"], result["win_from"]
    if reason == "SELF_DRAWN":
        what = f"seat {w} wins self-drawn with {result['win_tile']}"
    elif reason == "DISCARD":
        what = f"seat {w} wins on the discard of seat {frm} with {result['win_tile']}"
    elif reason == "ROB_KONG":
        what = f"seat {w} wins by robbing the kong of seat {frm} with {result['win_tile']}"
    elif reason == "EXHAUSTIVE":
        what = "exhaustive draw"
    else:
        what = f"penalty for seat(s) {', '.join(str(s) for s in result['offenders'])}"
    if result["fans"]:
        fans = ", ".join(
            f"{f['name']} {f['points']}" + (f" x{f['count']}" if f["count"] > 1 else "")
            for f in result["fans"]
        )
        what += f", {result['total']} points ({fans})"
    settle = " ".join(f"{x:+d}" for x in result["settlement"])
    return f"{head}{what}; settlement {settle}"


def _public_name(a: int, viewer: int | None, s: int) -> str:
    if not 0 <= a < NUM_ACTIONS:
        return f"invalid {a}"
    if ACTION_KIND[a] == ActionKind.ANGANG and viewer is not None and viewer != s:
        return "AnGang (concealed)"
    return action_name(a)


def public_events(
    decisions: list,
    phase_before: int,
    seat_before: int,
    melds_before: np.ndarray,
    melds_after: np.ndarray,
    winner: int,
    viewer: int | None,
) -> list[list]:
    """The decisions of one engine step as ``viewer`` may know them.

    Args:
        decisions: rows ``[step, seat, action, name]`` of the step (a record's rows, or built
            by the caller), seats ascending.
        phase_before: :class:`Phase` of the game before the step.
        seat_before: ``current_seat`` before the step (the seat on turn, or the player of the
            tile in play in CLAIM/ROB).
        melds_before, melds_after: ``(4,)`` ``n_melds`` before and after the step (same hand).
        winner: seat that won the hand in this step, or -1.
        viewer: seat 0..3, or None (everything).

    Returns:
        ``[seat, text]`` pairs: for ``viewer=None`` every decision; otherwise the viewer's own
        decisions, the turn action of the seat on turn (``"AnGang (concealed)"`` for another
        seat's concealed kong), and in a claim round (CLAIM/ROB) only another seat's claim
        that took effect (its meld count grew, or it won); passes and overruled claims of
        other seats are left out.
    """
    out = []
    claim_round = phase_before in (Phase.CLAIM, Phase.ROB)
    for row in decisions:
        s, a = int(row[1]), int(row[2])
        if viewer is None or s == viewer:
            out.append([s, _public_name(a, viewer, s)])
            continue
        if not claim_round:
            if s == seat_before:
                out.append([s, _public_name(a, viewer, s)])
            continue
        if a == PASS or not 0 <= a < NUM_ACTIONS:
            continue
        took = (
            (s == winner)
            if ACTION_KIND[a] == ActionKind.HU
            else (winner < 0 and int(melds_after[s]) > int(melds_before[s]))
        )
        if took:
            out.append([s, action_name(a)])
    return out


def render_record(
    record: dict, *, moves: bool = False, seat: int | None = None, tiles: str = "glyphs", out=print
):
    """Replay a game record (verified, :func:`mcr_env.engine.records.replay`) and write its
    text to ``out`` (a callable taking one str per block): the table after the deal and after
    every step (``moves=True``) or only the final table, plus one line per hand result.

    With ``seat=s`` the text is what seat s saw at the table and nothing else (docs/rules.md §2
    hidden information, §10 who is asked): the tables are its seat view (other hands as backs,
    other concealed kongs face down), and the steps are those of an engine that asks every seat
    in every claim round and robbing window (a record made with ``claim_round="options"`` is
    replayed that way, :func:`~mcr_env.engine.records.replay` with ``claim_round="all"``), so
    which rounds took place does not reveal who could claim. Each step line shows seat s's own
    decision, the action of the seat on turn (a concealed kong without its tile), and of a
    claim round only the claim that took effect ("no claim" if none): never another seat's
    Pass or a claim that lost to a higher one.

    Args:
        record: a record dict.
        moves: print every step (the decisions made, then the table).
        seat: render the tables as this seat sees them (None: full view, every decision).
        tiles: "glyphs" or "codes".
        out: receiver of the text blocks (default ``print``).

    Returns:
        The replayed engine (B = 1).

    Raises:
        RecordError / ReplayError: as :func:`~mcr_env.engine.records.replay`.
        ValueError: bad ``seat`` or ``tiles``.
    """
    from mcr_env.engine.records import replay

    if seat is not None:
        _check_int(seat, "seat", 4)
    if tiles not in TILE_STYLES:
        raise ValueError(f"tiles must be one of {TILE_STYLES}, got {tiles!r}")
    hands = record.get("hands", []) if isinstance(record, dict) else []
    before: dict = {}

    def on_step(eng, step, decisions):
        if step >= 0 and moves:
            if seat is None:
                said = "; ".join(f"seat {s} {name}" for _, s, _, name in decisions)
            else:
                over = bool(eng.hand_over[0])
                res = eng.last_hand_result[0] if over else None
                events = public_events(
                    decisions,
                    before["phase"],
                    before["seat"],
                    before["n_melds"],
                    before["n_melds"] if over else eng.state.n_melds[0],
                    int(res.winner) if res is not None else -1,
                    seat,
                )
                said = "; ".join(f"seat {s} {text}" for s, text in events)
                if before["phase"] in (Phase.CLAIM, Phase.ROB) and all(
                    text == "Pass" for _, text in events
                ):
                    said = f"{said}; no claim" if said else "no claim"
            out(f"step {step}: {said}")
        if eng.hand_over[0]:
            h = eng.last_hand_result[0].hand_number
            out(render_hand_result(hands[h]["result"], h))
        if moves:
            out(render_engine(eng, 0, seat, tiles=tiles))
        before["phase"] = Phase(int(eng.state.phase[0]))
        before["seat"] = int(eng.state.current_seat[0])
        before["n_melds"] = eng.state.n_melds[0].copy()

    eng = replay(record, on_step=on_step, claim_round="all" if seat is not None and moves else None)
    if not moves:
        out(render_engine(eng, 0, seat, tiles=tiles))
    return eng

"""What a person is shown of a table: JSON-ready snapshots ("frames") of one game and the
public description of each step, in full or as one seat sees it (docs/rules.md §2, §10).

Both the terminal game (:mod:`mcr_env.play.terminal`) and the HTML replay viewer
(:mod:`mcr_env.play.html`) are built on these two functions, so the information rule is applied
in one place:

* :func:`table_frame` reads a seat's view through :meth:`GameState.seat_view` (hidden fields
  are absent, other seats' private fields are sentinels), so a seat frame cannot hold another
  seat's concealed tiles or the tile of its concealed kongs;
* :func:`public_events` (defined in :mod:`mcr_env.engine.render`, which uses it for a seat's
  replay text too) describes a step's decisions as the viewer saw them: its own decisions
  in full; of the other seats only what became public: the action of the seat on turn (a
  concealed kong without its tile), and in a claim round only the claim that took effect (who
  else answered, and what, is not shown: in the skipping claim mode it would reveal who could
  claim, docs/rules.md §10).

Tiles are Botzone codes (``"W1"``..``"J3"``, flowers ``"H1"``..``"H8"``); ``None`` stands for a
tile the viewer may not see.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from mcr_env.engine.render import public_events
from mcr_env.engine.state import EndReason, GameState, MeldKind, Phase
from mcr_env.tiles import tile_to_code

__all__ = ["WINDS", "hand_result_rows", "public_events", "seat_arrays", "table_frame"]

WINDS = ("East", "South", "West", "North")
"""Wind names by index (0 = East)."""


def seat_arrays(state: GameState, game: int, seat: int | None) -> dict[str, np.ndarray]:
    """Arrays of game ``game`` with the batch dimension dropped: every field (``seat=None``)
    or what ``seat`` may see (:meth:`GameState.seat_view`; hidden fields absent)."""
    one = GameState(
        **{f.name: getattr(state, f.name)[game : game + 1] for f in dataclasses.fields(state)}
    )
    if seat is None:
        fields = {f.name: getattr(one, f.name) for f in dataclasses.fields(one)}
    else:
        fields = one.seat_view(seat)
    return {k: a[0] for k, a in fields.items()}


def _code(t: int) -> str | None:
    return tile_to_code(int(t)) if t >= 0 else None


def _melds(v: dict, s: int) -> list[dict]:
    out = []
    for j in range(int(v["n_melds"][s])):
        kind = int(v["meld_kind"][s, j])
        tile = int(v["meld_tile"][s, j])
        frm = int(v["meld_from"][s, j])
        if kind == MeldKind.CHI:
            claimed = int(v["meld_claimed"][s, j])
            out.append(
                {
                    "kind": "Chi",
                    "tiles": [_code(t) for t in (tile - 1, tile, tile + 1)],
                    "claimed": _code(claimed),
                    "from": frm,
                }
            )
        elif kind == MeldKind.PENG:
            out.append(
                {"kind": "Peng", "tiles": [_code(tile)] * 3, "claimed": _code(tile), "from": frm}
            )
        elif kind == MeldKind.GANG:
            word = "BuGang" if bool(v["meld_added"][s, j]) else "Gang"
            out.append(
                {"kind": word, "tiles": [_code(tile)] * 4, "claimed": _code(tile), "from": frm}
            )
        else:  # concealed kong: its tile only for its owner (angang_tile is private)
            t = int(v["angang_tile"][s, j])
            out.append({"kind": "AnGang", "tiles": [_code(t)] * 4, "claimed": None, "from": -1})
    return out


def _acting(v: dict, seat: int | None, to_act) -> list[int]:
    """Seats shown as acting: from ``to_act`` (only the viewer's own entry in a seat view: who
    else is asked may reveal a hand), plus the seat on turn in ACT/DISCARD (public)."""
    phase = int(v["phase"])
    seats = []
    if to_act is not None:
        seats = [s for s in range(4) if bool(to_act[s]) and (seat is None or s == seat)]
    if phase in (Phase.ACT, Phase.DISCARD):
        seats = sorted(set(seats) | {int(v["current_seat"])})
    return seats


def table_frame(
    state: GameState, game: int = 0, seat: int | None = None, to_act=None
) -> dict[str, Any]:
    """A JSON-ready snapshot of table ``game``, in full (``seat=None``) or as ``seat`` sees it.

    Keys: ``hand`` (0-based hand number), ``prevalent`` (wind 0..3), ``dealer`` (seat),
    ``phase`` (:class:`Phase` name), ``wall_left`` (list of 4 ints: tiles each seat may still
    draw; all equal in the official layout), ``tile_in_play`` (code or None), ``played_by``
    (seat or -1), ``acting`` (seats shown as acting), ``scores`` (match points per PLAYER),
    ``seats``: 4 dicts with ``wind`` (0..3), ``player`` (0..3), ``flowers`` (codes), ``hand``
    (concealed codes without the drawn tile, sorted; None if not visible), ``drawn`` (code or
    None), ``concealed`` (number of concealed tiles, drawn tile included: public), ``melds``
    (dicts ``kind``, ``tiles`` (codes, None = face down), ``claimed``, ``from``) and
    ``discards`` (``[code, claimed]`` pairs in order).

    Args:
        state: engine state (B games).
        game: row 0..B-1.
        seat: viewing seat 0..3, or None (full table).
        to_act: optional ``(4,)`` bool, the engine's ``to_act`` row of ``game``.

    Raises:
        ValueError: ``seat`` not 0..3 (from :meth:`GameState.seat_view`).
    """
    v = seat_arrays(state, game, seat)
    phase = int(v["phase"])
    dealer = int(v["dealer"])
    seats = []
    for s in range(4):
        n_concealed = 13 - 3 * int(v["n_melds"][s])
        if phase in (Phase.ACT, Phase.DISCARD) and s == int(v["current_seat"]):
            n_concealed += 1
        if phase == Phase.OVER and s == int(v["winner"]):
            n_concealed += 1
        visible = seat is None or s == seat
        hand = drawn = None
        if visible:
            counts = v["hand"][s].astype(np.int64).copy()
            d = int(v["drawn_tile"][s])
            if d >= 0:
                counts[d] -= 1
                drawn = _code(d)
            hand = [_code(t) for t in np.repeat(np.arange(34), counts)]
            n_concealed = int(v["hand"][s].sum())
        n = int(v["n_discards"][s])
        seats.append(
            {
                "wind": (s - dealer) % 4,
                "player": int(v["player_at_seat"][s]),
                "flowers": [_code(34 + k) for k in range(8) if v["flowers"][s, k]],
                "hand": hand,
                "drawn": drawn,
                "concealed": n_concealed,
                "melds": _melds(v, s),
                "discards": [
                    [_code(t), bool(c)]
                    for t, c in zip(v["discards"][s, :n], v["discard_claimed"][s, :n])
                ],
            }
        )
    return {
        "hand": int(v["hand_number"]),
        "prevalent": int(v["prevalent_wind"]),
        "dealer": dealer,
        "phase": Phase(phase).name,
        "wall_left": [int(x) for x in v["tiles_left"]],
        "tile_in_play": _code(int(v["tile_in_play"])),
        "played_by": int(v["played_by"]),
        "acting": _acting(v, seat, to_act),
        "scores": [int(x) for x in v["match_scores"]],
        "seats": seats,
    }


def hand_result_rows(result: dict) -> dict[str, Any]:
    """A hand ``result`` of a record (:func:`mcr_env.engine.records.hand_result_dict`) as the
    lines a person reads: ``headline`` (who won how, or the draw), ``fans`` (``[name, points,
    count, subtotal]`` rows), ``total`` and ``settlement`` (per seat)."""
    reason = result["end_reason"]
    w, frm, tile = result["winner"], result["win_from"], result["win_tile"]
    if reason == EndReason.SELF_DRAWN.name:
        head = f"seat {w} wins self-drawn with {tile}"
    elif reason == EndReason.DISCARD.name:
        head = f"seat {w} wins on the discard of seat {frm} with {tile}"
    elif reason == EndReason.ROB_KONG.name:
        head = f"seat {w} wins by robbing the kong of seat {frm} with {tile}"
    elif reason == EndReason.EXHAUSTIVE.name:
        head = "exhaustive draw: nobody pays"
    else:
        head = "penalty for seat(s) " + ", ".join(str(s) for s in result["offenders"])
    fans = [
        [f["name"], int(f["points"]), int(f["count"]), int(f["points"]) * int(f["count"])]
        for f in result["fans"]
    ]
    return {
        "headline": head,
        "fans": fans,
        "total": int(result["total"]),
        "settlement": [int(x) for x in result["settlement"]],
    }

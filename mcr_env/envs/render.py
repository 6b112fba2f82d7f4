"""Text rendering of one table of the batched state (``render_mode="ansi"``).

:func:`render_table` shows a table either as one seat sees it (other concealed hands shown as
tile counts only, other concealed kongs as ``AnGang ??``) or omnisciently (``seat=None``), in
Botzone tile codes::

    Hand 1  prevalent East  phase CLAIM  tiles left 70  [W5 played by seat 2]
    * seat 0 E  hand W1 W2 W3 ...  melds Peng B5, Chi T2-T3-T4 (T3)  flowers H1  | discards ...
"""

from __future__ import annotations

from mcr_env.engine.state import MeldKind, Phase
from mcr_env.tiles import tile_to_code

_WINDS = ("East", "South", "West", "North")


def _meld_text(state, g: int, s: int, j: int, show_angang: bool) -> str:
    kind = int(state.meld_kind[g, s, j])
    tile = int(state.meld_tile[g, s, j])
    if kind == MeldKind.CHI:
        lo = tile - 1
        chow = "-".join(tile_to_code(t) for t in (lo, lo + 1, lo + 2))
        return f"Chi {chow} ({tile_to_code(int(state.meld_claimed[g, s, j]))})"
    if kind == MeldKind.PENG:
        return f"Peng {tile_to_code(tile)}"
    if kind == MeldKind.GANG:
        word = "BuGang" if bool(state.meld_added[g, s, j]) else "Gang"
        return f"{word} {tile_to_code(tile)}"
    t = int(state.angang_tile[g, s, j])
    return f"AnGang {tile_to_code(t) if show_angang and t >= 0 else '??'}"


def render_table(state, game: int = 0, seat: int | None = None) -> str:
    """Multi-line text of table ``game``.

    Args:
        state: engine ``GameState``.
        game: batch row.
        seat: the viewing seat (its hand and concealed kongs shown; other hands only as a
            count), or ``None`` for everything (hands of all seats).

    Raises:
        ValueError: ``game`` or ``seat`` out of range.
    """
    b = int(state.phase.shape[0])
    if not 0 <= game < b:
        raise ValueError(f"game {game} out of range 0..{b - 1}")
    if seat is not None and not 0 <= seat < 4:
        raise ValueError(f"seat {seat} out of range 0..3")
    g = game
    phase = Phase(int(state.phase[g]))
    head = (
        f"Hand {int(state.hand_number[g]) + 1}  prevalent {_WINDS[int(state.prevalent_wind[g])]}"
        f"  phase {phase.name}  tiles left {int(state.tiles_left[g].max())}"
    )
    tip = int(state.tile_in_play[g])
    if tip >= 0:
        head += f"  [{tile_to_code(tip)} played by seat {int(state.played_by[g])}]"
    if phase == Phase.OVER:
        w = int(state.winner[g])
        head += f"  winner seat {w}" if w >= 0 else "  no winner"
    lines = [head]
    dealer = int(state.dealer[g])
    for s in range(4):
        mark = "*" if phase != Phase.OVER and int(state.current_seat[g]) == s else " "
        wind = _WINDS[(s - dealer) % 4][0]
        counts = state.hand[g, s]
        if seat is None or seat == s:
            tiles = [t for t in range(34) for _ in range(int(counts[t]))]
            hand = " ".join(tile_to_code(t) for t in tiles)
            drawn = int(state.drawn_tile[g, s])
            if drawn >= 0:
                hand += f"  (drew {tile_to_code(drawn)})"
        else:
            hand = f"[{int(counts.sum())} concealed]"
        melds = ", ".join(
            _meld_text(state, g, s, j, seat is None or seat == s)
            for j in range(int(state.n_melds[g, s]))
        )
        flowers = " ".join(f"H{k + 1}" for k in range(8) if state.flowers[g, s, k])
        n = int(state.n_discards[g, s])
        discards = " ".join(
            tile_to_code(int(t)) + ("'" if c else "")
            for t, c in zip(state.discards[g, s, :n], state.discard_claimed[g, s, :n])
        )
        line = f"{mark} seat {s} {wind}  hand {hand}"
        if melds:
            line += f"  melds {melds}"
        if flowers:
            line += f"  flowers {flowers}"
        line += f"  | discards {discards}"
        lines.append(line)
    return "\n".join(lines)

"""Engine entry points for states and endings that come from outside the engine's own steps.

:class:`~mcr_env.engine.core.MCREngine` exposes them as ``reset(prevalent_wind=...)``,
:meth:`~mcr_env.engine.core.MCREngine.load_state` and
:meth:`~mcr_env.engine.core.MCREngine.penalize`; they serve the Botzone bridge
(:mod:`mcr_env.botzone`): a one-seat state rebuilt from a bot's requests, a judge hand with any
prevalent wind, and an outside bot's offence outside a decision (docs/rules.md §3, §9). They
use only the engine's own mask building (:func:`mcr_env.engine.kernels.step_kernel` through
``MCREngine._build_masks``) and settlement, so the masks and payments are the engine's.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from mcr_env.engine.actions import PASS
from mcr_env.engine.kernels import clear_kernel_carry
from mcr_env.engine.state import GameState, Phase

_P_OVER = int(Phase.OVER)


def prevalent_winds(engine, prevalent_wind, g: np.ndarray) -> np.ndarray | None:
    """The ``prevalent_wind`` argument of ``MCREngine.reset`` as ``(len(g),) int64`` winds of
    the reset games ``g`` (None stays None = East).

    Args:
        engine: the engine being reset (single-hand mode).
        prevalent_wind: None, an int 0..3 (0 = East .. 3 = North), or ``(N,)`` ints with N = B
            or the number of reset games.
        g: ``(n,) int64`` indices of the reset games.

    Raises:
        ValueError: match mode (the match sets the wind, docs/rules.md §4), a value outside
            0..3 or a bad shape.
        TypeError: not integers.
    """
    if prevalent_wind is None:
        return None
    if engine.config.match == "match":
        raise ValueError("prevalent_wind is set by the match in match mode (docs/rules.md §4)")
    w = np.asarray(prevalent_wind)
    if w.dtype == bool or not np.issubdtype(w.dtype, np.integer):
        raise TypeError(f"prevalent_wind must be ints 0..3, got dtype {w.dtype}")
    if w.ndim == 0:
        w = np.full(len(g), int(w))
    elif w.ndim == 1:
        w = engine._rows_for(w, g, "prevalent_wind")
    else:
        raise ValueError(f"prevalent_wind must be an int or (N,) ints, got shape {w.shape}")
    if ((w < 0) | (w > 3)).any():
        raise ValueError(f"prevalent_wind must be 0..3, got {w.tolist()}")
    return w.astype(np.int64)


def load_state(engine, state: GameState, copy: bool = True) -> None:
    """``MCREngine.load_state``: continue from ``state``; masks and ``to_act`` are rebuilt by
    the engine's own mask code (see that method for the contract).

    The masks are built as with ``claim_round="all"`` (no claim round is passed automatically,
    so nothing is drawn from a wall a seat view does not hold); under ``"options"`` the seats
    left with a Pass-only mask are then not asked, as the engine would not ask them.
    """
    if not isinstance(state, GameState):
        raise TypeError(f"state must be a GameState, got {type(state).__name__}")
    if state.batch_size != engine.batch_size:
        raise ValueError(f"state has batch size {state.batch_size}, engine {engine.batch_size}")
    for f in dataclasses.fields(GameState):
        mine, theirs = getattr(engine.state, f.name), getattr(state, f.name)
        if theirs.shape != mine.shape or theirs.dtype != mine.dtype:
            raise ValueError(
                f"state.{f.name} is {theirs.dtype} {theirs.shape}, "
                f"the engine's is {mine.dtype} {mine.shape}"
            )
    if copy:  # into the engine's own arrays (the kernels hold them)
        for f in dataclasses.fields(GameState):
            np.copyto(getattr(engine.state, f.name), getattr(state, f.name))
    else:
        bufs = state.packed_buffers()
        if bufs is None:
            raise ValueError(
                "load_state(copy=False) needs a state made by GameState.empty or GameState.copy "
                "(its fields views of its own buffers, which the kernels take)"
            )
        engine.state = state
        engine._bufs = bufs
    st = engine.state
    engine._started = True
    engine.terminated[:] = st.phase == _P_OVER
    engine.hand_over[:] = False
    engine.rewards[:] = 0
    engine.player_rewards[:] = 0
    engine._hu = {}
    engine._hu_state[:] = 0
    clear_kernel_carry(engine._obufs[1], engine._obufs[2])  # a state written from outside
    engine.legal_mask[:] = False
    engine.to_act[:] = False
    engine._need[:] = ~engine.terminated
    ask_all = engine._ask_all
    engine._ask_all = True
    try:
        engine._build_masks()
    finally:
        engine._ask_all = ask_all
    if not ask_all:
        pass_only = engine.to_act & engine.legal_mask[:, :, PASS]
        pass_only &= engine.legal_mask.sum(axis=2) == 1
        engine.to_act[pass_only] = False
        engine.legal_mask[pass_only] = False


def penalize(engine, games, seats) -> None:
    """``MCREngine.penalize``: end the hands of ``games`` with the judge's -30/+10 for
    ``seats`` (see that method for the contract)."""
    g = np.asarray(games, dtype=np.int64).reshape(-1)
    s = np.asarray(seats, dtype=np.int64).reshape(-1)
    if g.shape != s.shape:
        raise ValueError(f"games {g.shape} and seats {s.shape} must have the same shape")
    if g.size == 0:
        return
    if g.min() < 0 or g.max() >= engine.batch_size or s.min() < 0 or s.max() > 3:
        raise ValueError("game or seat index out of range")
    if len(np.unique(g)) != len(g):
        raise ValueError("a game is listed twice")
    if engine.terminated[g].any():
        raise ValueError(f"games {g[engine.terminated[g]].tolist()} are already terminated")
    illegal = np.zeros((len(g), 4), dtype=bool)
    illegal[np.arange(len(g)), s] = True
    engine.legal_mask[g] = False
    engine.to_act[g] = False
    ended = set(g.tolist())
    engine._hu = {k: v for k, v in engine._hu.items() if k[0] not in ended}
    engine._apply_penalties(g, illegal)
    engine._after_hands(g)  # match mode: the next hand is dealt and waits for its masks
    engine._build_masks()

"""Drive agents through the batched engine: one loop shared by evaluation and data collection.

:func:`play_games` plays every game of an engine to its end. Each game has four seats, and
``agent_index (G, 4) int`` says which agent of ``agents`` sits at each seat. At every engine
step the acting (game, seat) pairs of each agent are answered in one batched ``agent.act``
call (see :mod:`baselines.agents` for the agent interface). Observations are encoded only for
agents with ``needs_obs`` and :class:`~mcr_env.eval.seat_view.SeatView` built only for agents
with ``needs_view``.

Agents that follow the whole game (outside Botzone bots, :mod:`mcr_env.botzone.process`) may
define two hooks: ``attach(engine, seats (G, 4) bool)`` is called once before the first step
with the seats they hold, and ``observe(engine, actions (G, 4))`` after every step (before its
rewards are counted, so that a penalty the agent applies with ``engine.penalize`` counts); an
agent with ``needs_ids`` gets ``act(obs, mask, view, games=(N,), seats=(N,))``. With
``RulesConfig(illegal_action="penalize")`` an illegal action is the engine's to punish (the
Botzone judge's -30/+10) instead of an error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mcr_env.engine.actions import ACTION_NAMES
from mcr_env.eval.seat_view import SeatView

Recorder = Callable[[int, np.ndarray, np.ndarray, Any, np.ndarray, np.ndarray], None]
"""``recorder(agent_idx, games (N,), seats (N,), obs (N, C, 34) | None, mask (N, 235),
actions (N,))`` called after each batched decision (before the engine step). With a recorder
and an encoder, ``obs`` is encoded for every agent (not only those with ``needs_obs``)."""


def _check_actions(agent, ai, a, m, games, seats) -> None:
    """Raise ValueError naming the agent, game, seat and action if ``a`` is not one legal
    action per decision (shape ``games.shape``, integers in 0..234 allowed by ``m``)."""
    who = f"agent {getattr(agent, 'name', ai)!r} (agents[{ai}])"
    if a.shape != games.shape or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(
            f"{who} returned actions of shape {a.shape} {a.dtype}, expected {games.shape} ints"
        )
    in_range = (a >= 0) & (a < m.shape[1])
    ok = in_range.copy()
    ok[in_range] = m[np.nonzero(in_range)[0], a[in_range]]
    if not ok.all():
        i = int(np.nonzero(~ok)[0][0])
        name = ACTION_NAMES[a[i]] if in_range[i] else "out of range 0..234"
        legal = ", ".join(ACTION_NAMES[x] for x in np.flatnonzero(m[i]))
        raise ValueError(
            f"{who} returned illegal action {int(a[i])} ({name}) for game {int(games[i])}, "
            f"seat {int(seats[i])}; legal: {legal}"
        )


def play_games(
    engine: Any,
    agents: Sequence[Any],
    agent_index: np.ndarray,
    encoder: Any = None,
    recorder: Recorder | None = None,
    max_steps: int = 5000,
) -> np.ndarray:
    """Play all games of an already reset ``engine`` to their end.

    Args:
        engine: an ``MCREngine`` after ``reset`` (batch G).
        agents: the distinct agents.
        agent_index: ``(G, 4) int`` index into ``agents`` of the agent at each seat.
        encoder: observation encoder (``mcr_env.encoding.get_encoder(...)``); required when an
            agent has ``needs_obs``.
        recorder: optional callback, see :data:`Recorder`.
        max_steps: safety bound on engine steps.

    Returns:
        ``(G, 4) float64`` summed rewards of each seat (points under the ``settlement``
        reward).

    Raises:
        ValueError: shapes are wrong, an agent index is out of range, an agent needs
            observations but no encoder is given, or an agent returns an illegal action.
        RuntimeError: the games did not end within ``max_steps`` steps.
    """
    agent_index = np.asarray(agent_index)
    g = int(np.asarray(engine.terminated).shape[0])
    if agent_index.shape != (g, 4):
        raise ValueError(f"agent_index must be ({g}, 4), got {agent_index.shape}")
    if agent_index.min() < 0 or agent_index.max() >= len(agents):
        raise ValueError(f"agent_index values must be in 0..{len(agents) - 1}")
    if encoder is None and any(getattr(a, "needs_obs", False) for a in agents):
        raise ValueError("an agent needs observations: pass an encoder")
    points = np.zeros((g, 4), dtype=np.float64)
    penalize = getattr(getattr(engine, "config", None), "illegal_action", "raise") == "penalize"
    for ai, agent in enumerate(agents):
        if hasattr(agent, "attach"):
            agent.attach(engine, agent_index == ai)
    for _ in range(max_steps):
        if bool(np.all(engine.terminated)):
            return points
        to_act = np.asarray(engine.to_act)
        mask = np.asarray(engine.legal_mask)
        actions = np.zeros((g, 4), dtype=np.int64)
        for ai, agent in enumerate(agents):
            games, seats = np.nonzero(to_act & (agent_index == ai))
            if games.size == 0:
                continue
            m = mask[games, seats]
            want_obs = agent.needs_obs or (recorder is not None and encoder is not None)
            obs = encoder.encode(engine.state, games, seats) if want_obs else None
            view = SeatView.from_state(engine.state, games, seats) if agent.needs_view else None
            if getattr(agent, "needs_ids", False):  # told which (game, seat) each row is
                a = np.asarray(agent.act(obs, m, view, games=games, seats=seats))
            else:
                a = np.asarray(agent.act(obs, m, view))
            if not penalize:
                _check_actions(agent, ai, a, m, games, seats)
            a = a.astype(np.int64)
            actions[games, seats] = a
            if recorder is not None:
                recorder(ai, games, seats, obs, m, a)
        engine.step(actions)
        for agent in agents:
            if hasattr(agent, "observe"):
                agent.observe(engine, actions)
        points += np.asarray(engine.rewards, dtype=np.float64)
    raise RuntimeError(f"games did not end within {max_steps} steps")

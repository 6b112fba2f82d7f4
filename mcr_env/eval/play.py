"""Drive agents through the batched engine: one loop shared by evaluation and data collection.

:func:`play_games` plays every game of an engine to its end. Each game has four seats, and
``agent_index (G, 4) int`` says which agent of ``agents`` sits at each seat. At every engine
step the acting (game, seat) pairs of each agent are answered in one batched ``agent.act``
call (see :mod:`baselines.agents` for the agent interface). Observations are encoded only for
agents with ``needs_obs`` and :class:`~mcr_env.eval.seat_view.SeatView` built only for agents
with ``needs_view``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mcr_env.eval.seat_view import SeatView

Recorder = Callable[[int, np.ndarray, np.ndarray, Any, np.ndarray, np.ndarray], None]
"""``recorder(agent_idx, games (N,), seats (N,), obs (N, C, 34) | None, mask (N, 235),
actions (N,))`` called after each batched decision (before the engine step). With a recorder
and an encoder, ``obs`` is encoded for every agent (not only those with ``needs_obs``)."""


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
            a = np.asarray(agent.act(obs, m, view), dtype=np.int64)
            if a.shape != games.shape or not m[np.arange(a.size), a].all():
                raise ValueError(f"agent {getattr(agent, 'name', ai)!r} returned illegal actions")
            actions[games, seats] = a
            if recorder is not None:
                recorder(ai, games, seats, obs, m, a)
        engine.step(actions)
        points += np.asarray(engine.rewards, dtype=np.float64)
    raise RuntimeError(f"games did not end within {max_steps} steps")

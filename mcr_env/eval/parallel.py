"""Duplicate-evaluation batches over worker processes (docs/design.md "Scale").

:func:`play_batches` plays independent batches of games (explicit walls, an agent index per
seat) in a pool of ``num_workers`` spawned processes. Every batch is sent to a worker together
with its OWN copy of the agents (pickled per batch), so a batch's games never depend on which
worker played it or on the batches before it: the results are the same for every
``num_workers >= 1``. For agents without mutable state (rule-based, a greedy torch policy) they
also equal the in-process loop's; a stateful agent (``RandomAgent``'s generator) starts every
batch from its initial state here, while the in-process loop carries its state over.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

__all__ = ["play_batch", "play_batches"]


def play_batch(
    agents: Sequence[Any], agent_index: np.ndarray, walls: np.ndarray, rules: Any, encoder: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play one batch of N games to the end in this process.

    Args:
        agents: the distinct agents; agent_index: ``(N, 4) int`` agent of each seat;
        walls: ``(N, L) int8`` walls; rules: ``RulesConfig``; encoder: an ``Encoder``.

    Returns:
        ``points (N, 4) float64`` per seat, ``winner (N,)``, ``payer (N,)`` (seat, -1 none),
        ``end_reason (N,)`` (``EndReason`` values), all int64 but points.
    """
    from mcr_env.engine.core import MCREngine
    from mcr_env.eval.play import play_games

    engine = MCREngine(len(walls), config=rules)
    engine.reset(walls=walls)
    points = play_games(engine, agents, agent_index, encoder)
    st = engine.state
    return (
        points,
        st.winner.astype(np.int64),
        st.win_from.astype(np.int64),
        st.end_reason.astype(np.int64),
    )


def _one_thread() -> None:
    """Worker initializer: one torch intra-op thread (k workers share the k cores)."""
    try:
        import torch
    except ImportError:  # agents without torch
        return
    torch.set_num_threads(1)


def play_batches(
    agents: Sequence[Any],
    jobs: Sequence[tuple[np.ndarray, np.ndarray]],
    rules: Any,
    encoder: Any,
    num_workers: int,
    on_done: Callable[[int], None] | None = None,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`play_batch` for every ``(agent_index, walls)`` job, in ``num_workers`` spawned
    processes (results in job order; ``on_done(n_games)`` after each finished job).

    Raises:
        ValueError: ``num_workers < 1``. Whatever a job raises is re-raised here.
    """
    if num_workers < 1:
        raise ValueError(f"num_workers must be >= 1, got {num_workers}")
    ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=min(num_workers, len(jobs)), mp_context=ctx, initializer=_one_thread
    ) as pool:
        futures = [
            pool.submit(play_batch, list(agents), ai, walls, rules, encoder) for ai, walls in jobs
        ]
        out = []
        for f, (ai, _) in zip(futures, jobs):
            out.append(f.result())
            if on_done is not None:
                on_done(len(ai))
    return out

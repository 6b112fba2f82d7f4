"""Duplicate-evaluation batches over worker processes or threads (docs/design.md "Scale").

:func:`play_batches` plays independent batches of games (explicit walls, an agent index per
seat) in a pool of ``num_workers`` spawned processes (``backend="process"``) or threads of this
process (``backend="thread"``: no spawn, no pickling; the engine's kernels and torch release
the GIL). Every batch gets its OWN copy of the agents (pickled per batch to a process, a
``copy.deepcopy`` per batch for a thread), so a batch's games never depend on which worker
played it or on the batches before it: the results are the same for every
``num_workers >= 1`` and both backends. For agents without mutable state (rule-based, a
greedy torch policy) they also equal the in-process loop's; a stateful agent (``RandomAgent``'s
generator) starts every batch from its initial state here, while the in-process loop carries
its state over.
"""

from __future__ import annotations

import copy
import multiprocessing as mp
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
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
    backend: str = "process",
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`play_batch` for every ``(agent_index, walls)`` job, in ``num_workers`` spawned
    processes or threads (``backend`` ``"process"`` or ``"thread"``; results in job order;
    ``on_done(n_games)`` after each finished job).

    Raises:
        ValueError: ``num_workers < 1`` or an unknown ``backend``. Whatever a job raises is
            re-raised here.
    """
    if num_workers < 1:
        raise ValueError(f"num_workers must be >= 1, got {num_workers}")
    workers = min(num_workers, len(jobs))
    if backend == "process":
        pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=mp.get_context("spawn"), initializer=_one_thread
        )
        own = list  # the agents are pickled to the worker with each job
    elif backend == "thread":
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mcr-eval")
        own = copy.deepcopy  # each job its own agents, as a pickled copy would be
    else:
        raise ValueError(f"backend {backend!r} not valid; valid: process, thread")
    with pool:
        futures = [
            pool.submit(play_batch, own(list(agents)), ai, walls, rules, encoder)
            for ai, walls in jobs
        ]
        out = []
        for f, (ai, _) in zip(futures, jobs):
            out.append(f.result())
            if on_done is not None:
                on_done(len(ai))
    return out

"""Duplicate evaluation over worker processes (mcr_env.eval.parallel): the same results for
every number of workers, and the in-process results for agents without mutable state."""

from __future__ import annotations

import numpy as np
import pytest

from baselines.agents import RandomAgent, RuleBasedAgent
from mcr_env.eval import duplicate_evaluate

FIELDS = ("seats", "points", "winner_pos", "payer_pos", "end_reason", "placement")


def same(a, b) -> None:
    for f in FIELDS:
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)
    np.testing.assert_array_equal(a.win_points, b.win_points)  # NaN where no win, equal


def test_workers_match_in_process_for_stateless_agents():
    rule, defensive = RuleBasedAgent(name="rule"), RuleBasedAgent(defensive=True, name="def")
    kw = {"walls": 3, "seed": 3, "batch_size": 6, "progress": False}  # 12 games, 2 batches
    ref = duplicate_evaluate([rule, defensive, defensive, defensive], **kw)
    got = duplicate_evaluate([rule, defensive, defensive, defensive], num_workers=2, **kw)
    same(got, ref)
    assert [s.mean_points for s in got.stats] == [s.mean_points for s in ref.stats]
    assert (ref.winner_pos >= 0).any()  # some hands were won


def test_results_do_not_depend_on_the_number_of_workers():
    """Worker processes (k = 1, 2) and worker threads (``shard_backend="thread"``) give the
    same results, stateful agents included (each batch its own copy of the agents)."""
    kw = {"walls": 2, "seed": 5, "batch_size": 4, "progress": False}  # 8 games, 2 batches
    runs = [
        duplicate_evaluate(
            [
                RandomAgent(seed=1, name="r1"),
                RuleBasedAgent(name="rule"),
                RuleBasedAgent(name="rule2"),
                RandomAgent(seed=2, name="r2"),
            ],
            num_workers=k,
            shard_backend=backend,
            **kw,
        )
        for k, backend in ((1, "process"), (2, "process"), (2, "thread"))
    ]
    same(runs[0], runs[1])
    same(runs[0], runs[2])
    with pytest.raises(ValueError, match="shard_backend 'threads' not valid"):
        duplicate_evaluate([RuleBasedAgent()] * 4, num_workers=2, shard_backend="threads", **kw)

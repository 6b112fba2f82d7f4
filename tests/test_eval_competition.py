"""Evaluation in the competition's terms: placement points, differences with CIs, the
self-check, seat breakdown, wall blocks, agent kinds, and the layering (no baselines import)."""

import math
import subprocess
import sys

import numpy as np
import pytest
import torch

from baselines.agents import RandomAgent, RuleBasedAgent
from mcr_env.eval import (
    as_agent,
    difference,
    difference_ci,
    duplicate_evaluate,
    make_walls,
    paired_difference,
    placement_points,
)
from mcr_env.eval.registry import make_agent, register_agent


def test_placement_points_ranks_and_ties():
    pts = np.array(
        [
            [32, -8, -8, -16],  # a clear winner, a tie for 2nd-3rd
            [0, 0, 0, 0],  # exhaustive draw: a four-way tie
            [-10, 30, -10, -10],  # three-way tie for 2nd-4th
            [5, 5, -5, -5],
        ]
    )
    assert placement_points(pts).tolist() == [
        [4.0, 2.5, 2.5, 1.0],
        [2.5, 2.5, 2.5, 2.5],
        [2.0, 4.0, 2.0, 2.0],
        [3.5, 3.5, 1.5, 1.5],
    ]
    assert (placement_points(pts).sum(axis=1) == 10).all()
    with pytest.raises(ValueError, match="4 seats"):
        placement_points(np.zeros((2, 3)))


def test_self_check_copies_read_exactly_zero_and_2_5():
    copies = [RuleBasedAgent(name=f"rule-{k}") for k in range(4)]
    res = duplicate_evaluate(copies, 6, seed=21, batch_size=24, progress=False)
    for s in res.stats:
        assert s.hands == 24
        assert s.mean_points == 0.0 and s.mean_placement == 2.5
        assert s.ci95_low == s.ci95_high == 0.0
    d = difference(res, "rule-0", "rule-2")
    assert (d.mean, d.ci95_low, d.ci95_high, d.walls) == (0.0, 0.0, 0.0, 6)
    # not trivially: the hands themselves are decided (wins, payments, ranks spread)
    assert np.abs(res.points).max() > 0
    assert set(np.unique(res.placement)) - {2.5}
    # one object at all four positions: pooled, the same reading
    rule = RuleBasedAgent()
    pooled = duplicate_evaluate([rule] * 4, 3, seed=21, progress=False)
    assert pooled.stats[0].mean_points == 0.0 and pooled.stats[0].mean_placement == 2.5


def test_difference_ci_known_answer():
    d = difference_ci(np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4), ("x", "y"))
    half = 1.96 * math.sqrt(5.0 / 3.0) / 2.0  # sample sd of 1..4 = sqrt(5/3), n = 4
    assert (d.a, d.b, d.walls) == ("x", "y", 4)
    assert d.mean == 2.5
    assert d.ci95_low == pytest.approx(2.5 - half) and d.ci95_high == pytest.approx(2.5 + half)
    # pairing: a constant per-wall offset has zero-width CI though each side varies a lot
    base = np.array([-30.0, 12.0, 5.0, 40.0, -7.0])
    d = difference_ci(base + 1.5, base)
    assert d.mean == pytest.approx(1.5) and d.ci95_high - d.ci95_low == pytest.approx(0.0)
    with pytest.raises(ValueError, match="equal"):
        difference_ci(np.zeros(3), np.zeros(4))


def test_difference_in_a_lineup_and_across_evaluations():
    rnd = RandomAgent(seed=3)
    rule = RuleBasedAgent()
    res = duplicate_evaluate([rule, rnd, rnd, rnd], 8, seed=5, progress=False)
    d = difference(res, "rule", "random")
    per_wall = res.per_wall("rule") - res.per_wall("random")
    assert d.mean == pytest.approx(per_wall.mean())
    assert d.mean > 0  # the rule agent beats random players
    # the points of one hand sum to 0: rule's mean = -3 x random's mean on every wall
    assert np.allclose(res.per_wall("rule"), -3 * res.per_wall("random"))
    dp = difference(res, "rule", "random", metric="placement")
    assert dp.mean == pytest.approx(
        res.stat("rule").mean_placement - res.stat("random").mean_placement
    )
    rnd2 = RandomAgent(seed=3)  # a fresh generator: the same random play as in res
    other = duplicate_evaluate(
        [RuleBasedAgent(name="rule-b"), rnd2, rnd2, rnd2], 8, seed=5, progress=False
    )
    same = paired_difference(res, "rule", other, "rule-b")
    assert same.mean == 0.0  # the same deterministic agent on the same walls
    shifted = duplicate_evaluate([rule, rnd, rnd, rnd], 8, seed=5, wall_offset=8, progress=False)
    with pytest.raises(ValueError, match="same walls"):
        paired_difference(res, "rule", shifted, "rule")


def test_seat_breakdown_adds_up():
    rnd = RandomAgent(seed=1)
    res = duplicate_evaluate([RuleBasedAgent(), rnd, rnd, rnd], 5, seed=9, progress=False)
    rows = res.seat_breakdown("rule")
    assert [r["seat"] for r in rows] == [0, 1, 2, 3]
    assert [r["hands"] for r in rows] == [5, 5, 5, 5]
    assert np.mean([r["mean_points"] for r in rows]) == pytest.approx(res.stat("rule").mean_points)
    rows = res.seat_breakdown("random")
    assert [r["hands"] for r in rows] == [15] * 4


def test_wall_blocks_are_disjoint_and_consistent():
    a = make_walls(5, seed=4, offset=0)
    b = make_walls(5, seed=4, offset=5)
    assert np.array_equal(np.concatenate([a, b]), make_walls(10, seed=4))
    assert not {r.tobytes() for r in a} & {r.tobytes() for r in b}
    with pytest.raises(ValueError, match="offset"):
        make_walls(2, seed=4, offset=-1)


def test_same_name_different_agents_is_an_error():
    with pytest.raises(ValueError, match="same name 'random'"):
        duplicate_evaluate(
            [RuleBasedAgent(), RandomAgent(seed=1), RandomAgent(seed=2), RandomAgent(seed=1)],
            1,
            progress=False,
        )


class _FirstLegalModule(torch.nn.Module):
    """Logits preferring the lowest legal action id (a torch module agent)."""

    def forward(self, obs, mask):
        return -torch.arange(235, dtype=torch.float32).expand(obs.shape[0], 235), obs.sum((1, 2))


def first_legal(obs_dict):
    return int(np.flatnonzero(obs_dict["action_mask"])[0])


def test_callable_and_module_agents_play_like_each_other():
    rnd = RandomAgent(seed=2)
    r_fn = duplicate_evaluate([first_legal, rnd, rnd, rnd], 3, seed=8, progress=False)
    mod = _FirstLegalModule()
    r_mod = duplicate_evaluate([mod, rnd, rnd, rnd], 3, seed=8, progress=False)
    assert r_fn.lineup[0] == "first_legal" and r_mod.lineup[0] == "_FirstLegalModule"
    assert np.array_equal(r_fn.points, r_mod.points)
    assert as_agent(first_legal, name="fl").name == "fl"
    with pytest.raises(TypeError, match="must have .act"):
        as_agent(42)


def test_registry_and_no_baselines_import():
    register_agent("const-first", lambda spec, seed: as_agent(first_legal, name=spec))
    assert make_agent("const-first").name == "const-first"
    with pytest.raises(ValueError, match="unknown agent spec 'nope'.*const-first"):
        make_agent("nope")
    code = (
        "import sys, mcr_env.eval, mcr_env.eval.cli, mcr_env.eval.registry; "
        "bad = [m for m in sys.modules if m.split('.')[0] == 'baselines']; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

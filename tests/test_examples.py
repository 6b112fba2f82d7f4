"""Smoke runs of every script in examples/ with tiny budgets (each example's ``main(argv)``
returns what it printed), so the examples never rot; the MaskablePPO run must also learn."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from script_helpers import load_script

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _load(name: str):
    return load_script(name, "examples")


def test_every_example_is_smoke_tested():
    tested = {
        "sb3_maskable_ppo",
        "cleanrl_masked_ppo",
        "tianshou_pettingzoo",
        "pettingzoo_loop",
        "reward_shaping",
    }
    assert {p.stem for p in EXAMPLES.glob("*.py")} == tested


def test_sb3_maskable_ppo_learns_against_random_opponents():
    s = _load("sb3_maskable_ppo").main(["--timesteps", "12288", "--num-envs", "64"])
    assert s["timesteps"] == 12288 and s["steps_per_s"] > 0
    # shaped return (settlement + shanten progress) rises over six rollouts of 64 tables
    assert s["last_mean_return"] > s["first_mean_return"] + 0.5, s


def test_cleanrl_masked_ppo_runs():
    s = _load("cleanrl_masked_ppo").main(["--iterations", "3", "--num-envs", "32"])
    assert s["global_step"] == 3 * 32 * 32 and s["episodes"] > 0
    assert math.isfinite(s["last_mean_return"])


def test_tianshou_pettingzoo_runs():
    s = _load("tianshou_pettingzoo").main(
        ["--epochs", "1", "--epoch-steps", "200", "--test-episodes", "1"]
    )
    assert s["train_env_steps"] >= 100 and s["gradient_steps"] > 0
    assert math.isfinite(s["best_test_return"])


def test_pettingzoo_loop_runs():
    rows = _load("pettingzoo_loop").main(["--hands", "1", "--seed", "3"])
    assert [r["api"] for r in rows] == ["aec", "parallel"]
    for r in rows:
        assert r["decisions"] > 20
        assert sum(r["returns"].values()) == pytest.approx(0.0)


def test_reward_shaping_experiment_runs():
    rows = _load("reward_shaping").main(
        ["--timesteps", "512", "--num-envs", "16", "--eval-hands", "16"]
    )
    assert [r["reward"] for r in rows] == ["settlement", "shanten", "pairs"]
    for r in rows:
        assert r["hands"] == 16 and 0 <= r["win_rate"] <= 1 and r["mean_last_shanten"] >= -1

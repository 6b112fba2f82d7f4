"""The standard APIs as their users expect them: regression tests of issue 13's bugs (vector env
terminal info, opponent spec strings) and the masking interfaces (``action_masks()``, the SB3
VecEnv over the batched env)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from test_envs_usage import _heavenly_wall, _hu_first

from baselines.agents import RuleBasedAgent
from mcr_env.envs.common import RandomPolicy, random_legal_actions
from mcr_env.envs.gym_env import MCREnv, MCRVectorEnv


# ------------------------------------------------------------------ MCRVectorEnv terminal info
def test_vector_terminal_info_belongs_to_the_finished_hand():
    """Reproducer: with learner_seat="random", info["learner_seat"] at a terminal step named the
    NEXT hand's seat while reward and settlement were the finished hand's; autoreset rows
    reported no redeals."""
    n = 16
    venv = MCRVectorEnv(num_envs=n, learner_seat="random")
    obs, info = venv.reset(seed=2)
    seat = info["learner_seat"].copy()
    rng = np.random.default_rng(0)
    ends = changed = 0
    for _ in range(200):
        obs, r, term, _, info = venv.step(random_legal_actions(obs["action_mask"] == 1, rng))
        if term.any():
            fin = info["final_info"]
            assert info["_final_info"].tolist() == term.tolist()
            assert fin["_learner_seat"].tolist() == term.tolist()
            np.testing.assert_array_equal(fin["learner_seat"][term], seat[term])
            settle = fin["settlement"][term]
            np.testing.assert_array_equal(r[term], settle[np.arange(term.sum()), seat[term]])
            assert (settle.sum(axis=1) == 0).all()
            # the autoreset rows report the new hand: its seat and its redeals
            assert info["_redeals"].tolist() == term.tolist()
            assert (info["redeals"][term] >= 0).all()
            changed += int((info["learner_seat"][term] != seat[term]).sum())
            ends += int(term.sum())
        assert info["_learner_seat"].all()
        seat = info["learner_seat"].copy()
    assert ends >= 16 and changed > 0  # new hands got other seats: the old bug would show


def test_vector_redeals_reported_on_autoreset():
    """A hand that ends before the learner's first decision is re-dealt at an autoreset as at
    reset; the re-deal now appears in that step's ``info["redeals"]``. Scenario: the first
    autoreset deal is the dealer's Nine Gates on the first draw (the engine's reset is wrapped
    to deal that wall once), the dealer an opponent that declares Hu."""
    venv = MCRVectorEnv(num_envs=2, learner_seat=1, opponents=_hu_first)
    obs, info = venv.reset(seed=0)
    assert info["redeals"].tolist() == [0, 0]
    eng = venv.engine
    plain_reset = eng.reset
    injected = []

    def reset(seed=None, walls=None, games=None):
        if games is not None and walls is None and not injected:
            injected.append(np.flatnonzero(games).tolist())
            n = int(np.count_nonzero(games))
            return plain_reset(walls=np.tile(_heavenly_wall(), (n, 1)), games=games)
        return plain_reset(seed=seed, walls=walls, games=games)

    eng.reset = reset
    rng = np.random.default_rng(1)
    for _ in range(300):
        obs, r, term, _, info = venv.step(random_legal_actions(obs["action_mask"] == 1, rng))
        if term.any():
            assert info["_redeals"].tolist() == term.tolist()
            assert (info["redeals"][~term] == 0).all()
            rows = injected[0]
            assert info["redeals"][rows].tolist() == [1] * len(rows)  # the Nine Gates hand
            assert (obs["action_mask"][rows].sum(axis=1) > 0).all()  # learner decides again
            return
    raise AssertionError("no table finished its hand in 300 steps")


# ------------------------------------------------------------------ opponent spec strings
@pytest.mark.parametrize("make", [MCREnv, lambda **kw: MCRVectorEnv(2, **kw)])
def test_opponent_strings_accepted(make):
    """Reproducer: opponents="rule" was rejected (only the scripts accepted it)."""
    env = make(opponents="rule")
    assert all(isinstance(p, RuleBasedAgent) for p in env._t.opponents)
    env.reset(seed=0)
    env = make(opponents=["rule", "random", "rule"])
    kinds = [type(p) for p in env._t.opponents]
    assert kinds == [RuleBasedAgent, RandomPolicy, RuleBasedAgent]
    env = make(opponents="random,rule,random")
    assert [type(p) for p in env._t.opponents] == [RandomPolicy, RuleBasedAgent, RandomPolicy]
    env = gym.make("mcr_env/MCR-v0", opponents="rule")
    env.reset(seed=1)


def test_bad_opponent_spec_fails_at_construction():
    """Reproducer: a bad opponent surfaced only at the first reset (or step)."""
    with pytest.raises(ValueError, match="unknown opponent spec 'rulez'; valid: 'random'"):
        MCREnv(opponents="rulez")
    with pytest.raises(TypeError, match="an opponent must be a spec string"):
        MCRVectorEnv(2, opponents=42)
    with pytest.raises(ValueError, match="list of 3, got 2"):
        MCREnv(opponents="rule,random")


# ------------------------------------------------------------------ masks
def test_action_masks_match_the_observation():
    env = MCREnv(learner_seat=1)
    with pytest.raises(RuntimeError, match="before reset"):
        env.action_masks()
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(30):
        m = env.action_masks()
        assert m.dtype == bool and m.shape == (235,)
        np.testing.assert_array_equal(m, obs["action_mask"] == 1)
        obs, _, term, _, _ = env.step(int(random_legal_actions(m, rng)))
        if term:
            obs, _ = env.reset()
    venv = MCRVectorEnv(3)
    obs, _ = venv.reset(seed=0)
    np.testing.assert_array_equal(venv.action_masks(), obs["action_mask"] == 1)


def test_sb3_vecenv_follows_sb3_conventions():
    from stable_baselines3.common.vec_env import VecEnv

    from mcr_env.envs.sb3 import MCRSB3VecEnv

    n = 8
    env = MCRSB3VecEnv(n, learner_seat="random")
    assert isinstance(env, VecEnv) and env.num_envs == n
    env.seed(5)
    obs = env.reset()
    ref = MCRVectorEnv(n, learner_seat="random")
    ref_obs, ref_info = ref.reset(seed=5)
    np.testing.assert_array_equal(obs["observation"], ref_obs["observation"])
    masks = np.stack(env.env_method("action_masks"))  # what MaskablePPO calls
    np.testing.assert_array_equal(masks, obs["action_mask"] == 1)
    assert env.has_attr("action_masks") and env.get_attr("render_mode") == [None] * n
    seat = ref_info["learner_seat"].copy()
    rng = np.random.default_rng(0)
    dones_seen = 0
    for _ in range(100):
        a = random_legal_actions(env.action_masks(), rng)
        obs, rew, dones, infos = env.step(a)
        ref_obs, ref_r, ref_term, _, ref_info = ref.step(a)
        np.testing.assert_array_equal(rew, ref_r)
        np.testing.assert_array_equal(obs["observation"], ref_obs["observation"])
        assert rew.dtype == np.float32 and dones.dtype == bool and len(infos) == n
        for i in np.flatnonzero(dones):
            term_obs = infos[i]["terminal_observation"]
            np.testing.assert_array_equal(
                term_obs["observation"], ref_info["final_obs"][i]["observation"]
            )
            assert infos[i]["learner_seat"] == seat[i]  # the finished hand's seat
            assert rew[i] == infos[i]["settlement"][seat[i]]
            assert infos[i]["TimeLimit.truncated"] is False
            dones_seen += 1
        seat = ref_info["learner_seat"].copy()
    assert dones_seen > 5


# ------------------------------------------------------------------ ecosystem checkers
@pytest.mark.parametrize("kwargs", [{}, {"match": True}, {"opponents": "rule"}])
def test_gymnasium_and_sb3_checkers_pass_as_shipped(kwargs):
    """Reproducer: both checkers raised on the default env (a sampled, unmasked action)."""
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    check_env(gym.make("mcr_env/MCR-v0", **kwargs).unwrapped)
    sb3_check_env(gym.make("mcr_env/MCR-v0", **kwargs).unwrapped, warn=False)

"""Environments: native batch env, Gymnasium MCR-v0 (single + vector), PettingZoo AEC/parallel."""

import functools

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import mcr_env  # noqa: F401  (registers mcr_env/MCR-v0)
from mcr_env.engine.config import RulesConfig
from mcr_env.envs.batch import MCRBatchEnv
from mcr_env.envs.common import random_legal_actions
from mcr_env.envs.gym_env import MCREnv, MCRVectorEnv
from mcr_env.pettingzoo import env as pz_env
from mcr_env.pettingzoo import parallel_env
from mcr_env.scoring.shanten import shanten_batch


def _hu_greedy(mask, rng):
    """Random legal actions, Hu whenever legal (so that some hands are won)."""
    return np.where(mask[..., 1], 1, random_legal_actions(mask, rng))


def _play(env, rng, max_steps=400):
    """Hu-greedy random play of a batch env until every table has ended once (autoreset off)."""
    obs, _ = env.reset(seed=11)
    log = []
    for _ in range(max_steps):
        a = _hu_greedy(obs["action_mask"], rng)
        obs, r, term, trunc, info = env.step(a)
        log.append((obs, r, term, info))
        assert not trunc.any()
        if env.engine.terminated.all():
            return log
    raise AssertionError("hands did not end")


def test_batch_env_shapes_and_zero_sum():
    n = 48
    env = MCRBatchEnv(n, autoreset_mode="disabled")
    log = _play(env, np.random.default_rng(0))
    total = np.zeros((n, 4))
    ended = np.zeros(n, dtype=int)
    for obs, r, _term, info in log:
        assert obs["observation"].shape == (n, 4, 75, 34)
        assert obs["observation"].dtype == np.float32
        assert obs["action_mask"].shape == (n, 4, 235) and obs["to_act"].shape == (n, 4)
        assert r.dtype == np.float32 and r.shape == (n, 4)
        np.testing.assert_array_equal(r, info["settlement"])
        total += r
        ended += info["hand_over"]
    np.testing.assert_array_equal(ended, 1)
    np.testing.assert_array_equal(total.sum(axis=1), 0)
    assert (total != 0).any(axis=1).sum() >= 1  # some hand was won


def test_batch_equals_single_tables():
    """Table i of a batch of 4 = a batch of 1 started from table i's wall, same actions."""
    rng = np.random.default_rng(5)
    big = MCRBatchEnv(4, autoreset_mode="disabled")
    obs, _ = big.reset(seed=21)
    walls = big.engine.state.wall[:, :144].copy()
    singles = [MCRBatchEnv(1, autoreset_mode="disabled") for _ in range(4)]
    sobs = [s.reset(walls=walls[i : i + 1])[0] for i, s in enumerate(singles)]
    for _ in range(300):
        for i in range(4):
            for k in ("observation", "action_mask", "to_act"):
                np.testing.assert_array_equal(obs[k][i], sobs[i][k][0])
        if big.engine.terminated.all():
            break
        a = random_legal_actions(obs["action_mask"], rng)
        obs, r, term, _, _ = big.step(a)
        for i, s in enumerate(singles):
            if s.engine.terminated[0]:
                continue
            sobs[i], sr, sterm, _, _ = s.step(a[i : i + 1])
            np.testing.assert_array_equal(r[i], sr[0])
            assert term[i] == sterm[0]
    assert big.engine.terminated.all()


def test_same_seed_same_games_whatever_b():
    a, b = MCRBatchEnv(2), MCRBatchEnv(5)
    oa, _ = a.reset(seed=3)
    ob, _ = b.reset(seed=3)
    np.testing.assert_array_equal(oa["observation"], ob["observation"][:2])


@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_autoreset_modes(mode):
    env = MCRBatchEnv(8, autoreset_mode=mode, observe="acting")
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=2)
    n_end = 0
    for _ in range(400):
        a = random_legal_actions(obs["action_mask"], rng)
        pending = env._pending.copy()
        obs, r, term, _, info = env.step(a)
        # every table always has someone to act (reset rows included) except next_step finals
        live_rows = ~term if mode == "next_step" else np.ones(8, dtype=bool)
        assert obs["to_act"][live_rows].any(axis=1).all()
        # only acting seats are observed
        filled = obs["observation"].reshape(8, 4, -1).any(axis=2)
        assert not (filled & ~obs["to_act"]).any()
        if mode == "same_step" and term.any():
            assert info["final_obs"].shape == (term.sum(), 4, 75, 34)
            np.testing.assert_array_equal(info["final_rows"], np.nonzero(term)[0])
        if mode == "next_step":
            np.testing.assert_array_equal(r[pending], 0)
            assert not term[pending].any()
        n_end += term.sum()
    assert n_end >= 8


def test_shaping_telescopes_with_shanten():
    gamma = 0.9
    env = MCRBatchEnv(
        6,
        autoreset_mode="disabled",
        reward="shaping",
        reward_kwargs={"base": "settlement", "gamma": gamma, "terminal_zero": False},
    )
    rng = np.random.default_rng(4)
    obs, _ = env.reset(seed=9)
    st = env.engine.state
    phi0 = -shanten_batch(st.hand.reshape(-1, 34), st.n_melds.reshape(-1)).reshape(6, 4)
    disc = np.zeros((6, 4))
    t = np.zeros(6, dtype=int)
    live = np.ones(6, dtype=bool)
    for _ in range(400):
        obs, r, term, _, info = env.step(random_legal_actions(obs["action_mask"], rng))
        f = r - info["settlement"]
        disc[live] += (gamma ** t[live])[:, None] * f[live]
        t[live] += 1
        live &= ~term
        if not live.any():
            break
    st = env.engine.state
    phi_end = -shanten_batch(st.hand.reshape(-1, 34), st.n_melds.reshape(-1)).reshape(6, 4)
    expected = (gamma**t)[:, None] * phi_end - phi0
    np.testing.assert_allclose(disc, expected, rtol=1e-4, atol=1e-4)


def test_gymnasium_check_env_and_registration():
    # check_env steps with action_space.sample(), ignoring the mask: as shipped, the learner's
    # illegal actions are punished (Gymnasium's convention); "raise" is one keyword away
    env = gym.make("mcr_env/MCR-v0")
    assert isinstance(env.unwrapped, MCREnv)
    assert env.unwrapped.engine.config.illegal_action == "penalize"
    assert (
        gym.make("mcr_env/MCR-v0", illegal_action="raise").unwrapped.engine.config.illegal_action
        == "raise"
    )
    check_env(env.unwrapped)
    doc = MCREnv.__doc__
    for section in (
        "Description",
        "Action Space",
        "Observation Space",
        "Rewards",
        "Starting State",
        "Episode End",
        "Arguments",
        "Version History",
    ):
        assert f"## {section}" in doc


def test_gymnasium_episode_and_render():
    env = gym.make("mcr_env/MCR-v0", render_mode="ansi", learner_seat=2)
    obs, info = env.reset(seed=0)
    assert info["learner_seat"] == 2
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(300):
        a = int(random_legal_actions(obs["action_mask"].astype(bool), rng))
        obs, r, term, trunc, info = env.step(a)
        total += r
        assert env.observation_space.contains(obs)
        if term:
            break
    assert term and not trunc
    assert total == info["settlement"][2]
    assert "seat 2" in env.render()


def test_gymnasium_callable_opponents_and_illegal():
    calls = []

    def first_legal(o):
        calls.append(o["observation"].shape)
        return int(np.flatnonzero(o["action_mask"])[0])

    env = MCREnv(opponents=first_legal)
    obs, _ = env.reset(seed=1)
    env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert calls and calls[0] == (75, 34)
    env = MCREnv(illegal_action="penalize")
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, r, term, _, info = env.step(illegal)
    assert term and r == -30 and info["settlement"].sum() == 0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(ValueError, match="illegal_action"):
        MCREnv(illegal_action="ignore")


def test_make_vec_is_native_batched():
    venv = gym.make_vec("mcr_env/MCR-v0", num_envs=6, vectorization_mode="vector_entry_point")
    assert isinstance(venv.unwrapped, MCRVectorEnv)
    assert venv.unwrapped.engine.batch_size == 6
    assert venv.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    obs, _ = venv.reset(seed=5)
    assert obs["observation"].shape == (6, 75, 34) and obs["action_mask"].shape == (6, 235)
    assert venv.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(200):
        a = random_legal_actions(obs["action_mask"].astype(bool), rng)
        obs, r, term, trunc, info = venv.step(a)
        assert (obs["action_mask"].sum(axis=1) > 0).all()  # learner always has a decision
        if term.any():
            assert info["_final_obs"].tolist() == term.tolist()
            np.testing.assert_array_equal(r[term], info["settlement"][term, 0])
        ends += term.sum()
    assert ends > 6
    venv.close()


def test_vector_table0_equals_single_env():
    single = MCREnv()
    venv = MCRVectorEnv(num_envs=3)
    o1, _ = single.reset(seed=8)
    o2, _ = venv.reset(seed=8)
    np.testing.assert_array_equal(o1["observation"], o2["observation"][0])


def _illegal_action(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask) == 0)[0])


def test_illegal_action_raise_is_one_keyword_away():
    """``illegal_action="raise"``: an illegal action raises ValueError naming game, seat and
    action (the native batch env's default; the Gymnasium envs punish by default)."""
    env = MCREnv(learner_seat=2)
    obs, _ = env.reset(seed=1)
    a = _illegal_action(obs["action_mask"])
    _, r, term, _, info = env.step(a)  # default: punished, the hand ends
    assert term and r == -30 and info["settlement"].tolist() == [10, 10, -30, 10]
    env = MCREnv(learner_seat=2, illegal_action="raise")
    obs, _ = env.reset(seed=1)
    with pytest.raises(ValueError, match=rf"illegal action {a} .*game 0, seat 2"):
        env.step(a)
    venv = MCRVectorEnv(num_envs=3, illegal_action="raise")
    obs, _ = venv.reset(seed=1)
    acts = random_legal_actions(obs["action_mask"].astype(bool), np.random.default_rng(0))
    acts[1] = _illegal_action(obs["action_mask"][1])
    with pytest.raises(ValueError, match=rf"illegal action {acts[1]} .*game 1, seat 0"):
        venv.step(acts)
    benv = MCRBatchEnv(2)
    obs, _ = benv.reset(seed=1)
    acts = np.where(obs["to_act"], 1, 0)  # Hu: not legal for the dealer here
    assert not obs["action_mask"][0, 0, 1]
    with pytest.raises(ValueError, match=r"illegal action 1 .*game 0, seat 0"):
        benv.step(acts)
    e = pz_env(illegal_action="raise")
    e.reset(seed=1)
    agent = e.agent_selection
    a = _illegal_action(e.observe(agent)["action_mask"])
    seat = int(agent.split("_")[1])
    with pytest.raises(ValueError, match=rf"illegal action {a} .*game 0, seat {seat}"):
        e.step(a)
    p = parallel_env(illegal_action="raise")
    obs, _ = p.reset(seed=1)
    acts = {ag: _illegal_action(o["action_mask"]) for ag, o in obs.items()}
    with pytest.raises(ValueError, match=r"illegal action .*game 0, seat 0"):
        p.step(acts)


def test_penalize_mode_is_explicit_and_documented():
    for cls in (MCREnv, MCRVectorEnv):
        assert "illegal_action" in cls.__doc__ and "penalize" in cls.__doc__
    e = pz_env(illegal_action="penalize")
    e.reset(seed=1)
    agent = e.agent_selection
    e.step(_illegal_action(e.observe(agent)["action_mask"]))
    assert e.terminations[agent] and e.rewards[agent] == -30
    benv = MCRBatchEnv(2, config=RulesConfig(illegal_action="penalize"))
    obs, _ = benv.reset(seed=1)
    _, r, term, _, _ = benv.step(np.where(obs["to_act"], 1, 0))
    assert term.all() and r[:, 0].tolist() == [-30, -30]


def _first_legal(o):
    return int(np.flatnonzero(o["action_mask"])[0])


def test_vector_tables_equal_single_envs_over_whole_hands():
    """Each table of the vector env (tables paused while others play their opponents' turns,
    ``engine.step(..., games=...)``) plays exactly like a single env on the same wall."""
    n = 4
    venv = MCRVectorEnv(num_envs=n, opponents=_first_legal)
    obs, _ = venv.reset(seed=3)
    walls = venv.engine.state.wall[:, :144].copy()
    singles = [MCREnv(opponents=_first_legal) for _ in range(n)]
    sobs = [e.reset(options={"walls": walls[i]})[0] for i, e in enumerate(singles)]
    done = np.zeros(n, dtype=bool)
    for _ in range(300):
        a = np.array([_first_legal({"action_mask": m}) for m in obs["action_mask"]])
        for i in range(n):
            if not done[i]:
                np.testing.assert_array_equal(obs["observation"][i], sobs[i]["observation"])
                np.testing.assert_array_equal(obs["action_mask"][i], sobs[i]["action_mask"])
        obs, r, term, _, info = venv.step(a)
        for i in np.nonzero(~done)[0]:
            sobs[i], sr, sterm, _, sinfo = singles[i].step(int(a[i]))
            assert r[i] == sr and term[i] == sterm
            np.testing.assert_array_equal(info["settlement"][i], sinfo["settlement"])
        done |= term
        if done.all():
            break
    assert done.all()


def test_pettingzoo_api():
    api_test(pz_env(), num_cycles=200)
    parallel_api_test(parallel_env(), num_cycles=200)


def test_pettingzoo_seed():
    seed_test(pz_env, num_cycles=50)  # samples with the action mask: default mode (raise)
    # parallel_seed_test samples every agent's action without the mask: punish instead
    parallel_seed_test(functools.partial(parallel_env, illegal_action="penalize"), num_cycles=50)


def test_pettingzoo_claim_round_is_simultaneous():
    """In AEC, the seats of a claim round answer in turn; the state (and every observation)
    only changes once all of them have answered."""
    e = pz_env(render_mode="ansi")
    e.reset(seed=4)
    rng = np.random.default_rng(2)
    rounds = 0
    for _ in range(600):
        agent = e.agent_selection
        if e.terminations[agent]:
            break
        raw = e.unwrapped
        if len(raw._queue) > 1:
            before = {a: e.observe(a)["observation"].copy() for a in e.agents}
            obs = e.observe(agent)
            e.step(int(random_legal_actions(obs["action_mask"].astype(bool), rng)))
            for a in e.agents:
                np.testing.assert_array_equal(before[a], e.observe(a)["observation"])
            rounds += 1
            continue
        obs = e.observe(agent)
        e.step(int(random_legal_actions(obs["action_mask"].astype(bool), rng)))
    assert isinstance(e.render(), str)
    assert rounds >= 1

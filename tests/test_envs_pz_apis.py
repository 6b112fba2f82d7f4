"""The PettingZoo envs as PettingZoo users expect them: every applicable ``pettingzoo.test``
check passes as shipped (illegal moves end the hand with the offender penalized and a warning,
as in PettingZoo's classic games; ``illegal_action="raise"`` one keyword away), the parallel
env's action dict is checked, and whole 16-hand matches (``match=True``) follow the engine's
match layout (docs/rules.md §4/§8)."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)
from pettingzoo.utils.env_logger import EnvLogger

from mcr_env.engine.core import SEAT_OF_PLAYER, match_hand_layout, table_points
from mcr_env.pettingzoo import env, parallel_env, raw_env


# ------------------------------------------------------------------ the shipped checks
def test_pettingzoo_checks_pass_as_shipped():
    """Reproducer: parallel_seed_test (unmasked sampled actions) and render_test (asks for
    render_mode="human") failed on the envs as shipped."""
    api_test(env(), num_cycles=300)
    parallel_api_test(parallel_env(), num_cycles=300)
    seed_test(env, num_cycles=300)
    parallel_seed_test(parallel_env, num_cycles=300)
    render_test(env)


def test_pettingzoo_checks_with_raise_where_they_mask():
    """The checks that sample only legal actions also pass with illegal_action="raise"."""
    raise_env = functools.partial(env, illegal_action="raise")
    api_test(raise_env(), num_cycles=200)
    parallel_api_test(parallel_env(illegal_action="raise"), num_cycles=200)
    seed_test(raise_env, num_cycles=200)
    render_test(raise_env)


def test_pettingzoo_checks_in_match_mode():
    api_test(env(match=True), num_cycles=200)
    parallel_api_test(parallel_env(match=True), num_cycles=200)
    seed_test(functools.partial(env, match=True), num_cycles=200)


def test_render_modes():
    e = env(render_mode="ansi")
    e.reset(seed=0)
    assert "Hand 1" in e.render()
    e = env(render_mode="human")
    e.reset(seed=0)
    assert e.render() is None
    with pytest.raises(ValueError, match="render_mode 'rgb_array'"):
        env(render_mode="rgb_array")


# ------------------------------------------------------------------ illegal moves
def _illegal(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask) == 0)[0])


def test_aec_illegal_move_ends_the_hand_with_a_warning():
    EnvLogger.flush()
    e = env()
    e.reset(seed=1)
    # step to a claim round: the first claimer answers illegally, the others have not answered
    while True:
        agent = e.agent_selection
        obs = e.observe(agent)
        if e.unwrapped._table.engine.state.phase[0] == 2 and len(e.unwrapped._queue) > 1:
            break
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    e.step(_illegal(obs["action_mask"]))
    assert all(e.terminations.values())
    assert e.rewards[agent] == -30 and sum(e.rewards.values()) == 0
    assert any("Illegal move made" in m for m in EnvLogger.mqueue)
    EnvLogger.flush()


def test_parallel_missing_and_unknown_actions():
    """Reproducer: step({}) reported "illegal action 0 for game 0, seat 1" (a Pass filled in for
    the missing action), and unknown agent keys were ignored silently."""
    p = parallel_env()
    obs, _ = p.reset(seed=0)
    asked = [a for a, o in obs.items() if o["action_mask"].any()]
    with pytest.raises(ValueError, match=re.escape(f"missing action for asked agent(s) {asked}")):
        p.step({})
    acts = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in asked}
    with pytest.raises(KeyError, match=r"unknown agent\(s\) \['player_9'\]"):
        p.step({**acts, "player_9": 0})
    with pytest.raises(ValueError, match="missing action"):
        p.step({a: None for a in asked})
    # actions of agents that are not asked are ignored (parallel_api_test sends them)
    others = {a: 0 for a in p.agents if a not in asked}
    p.step({**acts, **others})


def test_raise_mode_names_game_seat_and_action():
    p = parallel_env(illegal_action="raise")
    obs, _ = p.reset(seed=0)
    asked = [a for a, o in obs.items() if o["action_mask"].any()]
    bad = {a: _illegal(obs[a]["action_mask"]) for a in asked}
    with pytest.raises(ValueError, match=r"illegal action \d+ for game 0, seat \d \(player_\d\)"):
        p.step(bad)
    e = raw_env(illegal_action="raise")
    e.reset(seed=0)
    a = _illegal(e.observe(e.agent_selection)["action_mask"])
    with pytest.raises(ValueError, match=rf"illegal action {a} for game 0"):
        e.step(a)


# ------------------------------------------------------------------ whole matches
def _check_layout(table, infos):
    st = table.engine.state
    h = int(st.hand_number[0])
    dealer, wind, pas = match_hand_layout(h)
    assert int(st.dealer[0]) == dealer and int(st.prevalent_wind[0]) == wind
    assert st.player_at_seat[0].tolist() == pas.tolist()
    for p in range(4):
        info = infos[f"player_{p}"]
        assert info["seat"] == int(SEAT_OF_PLAYER[h // 4, p]) and info["hand_number"] == h
    return h


def test_aec_match_follows_the_engine_layout():
    e = raw_env(match=True)
    e.reset(seed=4)
    assert e.observe("player_0")["observation"].shape == (95, 34)  # planes-v1
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    hands = set()
    for agent in e.agent_iter():
        obs, r, term, trunc, info = e.last()
        totals[agent] += r
        if term or trunc:
            e.step(None)
            continue
        hands.add(_check_layout(e._table, e.infos))
        # the agent acts at its own seat
        assert e._table.seat_of(int(agent[-1])) == info["seat"]
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert hands == set(range(16))
    scores = e._table.engine.state.match_scores[0]
    assert [totals[f"player_{p}"] for p in range(4)] == scores.tolist()


def test_parallel_match_table_points():
    p = parallel_env(match=True, reward="table_points")
    obs, infos = p.reset(seed=6)
    rng = np.random.default_rng(1)
    totals = dict.fromkeys(p.possible_agents, 0.0)
    hands = set()
    settled = np.zeros(4, dtype=np.int64)
    while p.agents:
        hands.add(_check_layout(p._table, infos))
        acts = {
            a: int(rng.choice(np.flatnonzero(o["action_mask"])))
            for a, o in obs.items()
            if o["action_mask"].any()
        }
        obs, rewards, terms, truncs, infos = p.step(acts)
        for i, a in enumerate(p.possible_agents):
            totals[a] += rewards[a]
            settled[i] += infos[a]["settlement"]
    assert hands == set(range(16))
    eng = p._table.engine
    assert settled.tolist() == eng.state.match_scores[0].tolist()  # settlement by player
    pts = [totals[f"player_{i}"] for i in range(4)]
    assert pts == table_points(eng.state.match_scores[0][None])[0].tolist()
    assert sum(pts) == 7.0


def test_render_is_the_spectators_table_and_engine_is_public():
    """``render()`` is the whole table with every hand open (documented as a spectator's view,
    never an agent's); ``env.unwrapped.engine`` / ``parallel_env().engine`` give the engine
    for one seat's view (``render_table(engine.state, 0, seat)``)."""
    from mcr_env.engine.render import render_table

    aec = env(render_mode="ansi")
    aec.reset(seed=4)
    eng = aec.unwrapped.engine
    assert eng is aec.unwrapped._table.engine and eng.batch_size == 1
    assert aec.render() == render_table(eng.state, 0, None)
    for seat in range(4):
        view = render_table(eng.state, 0, seat)
        assert view != aec.render()
        # the other hands as backs: 13 tiles each, the dealer's 14 (it has drawn)
        assert view.count("\U0001f02b") == (39 if seat == 0 else 40)
    par = parallel_env(render_mode="ansi")
    par.reset(seed=4)
    assert par.render() == render_table(par.engine.state, 0, None)

"""Whole 16-hand matches in the Gymnasium envs (``match=True``) and the ``planes-v1`` encoder:
seats, winds and dealers per hand follow the engine's match layout (docs/rules.md §4/§8), the
per-hand rewards are the learner's settlements, the table points sum to 7, planes-v0 stays
byte-identical inside planes-v1."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import mcr_env  # noqa: F401
from baselines.agents import RuleBasedAgent
from mcr_env.encoding import get_encoder
from mcr_env.encoding.planes import make_reference
from mcr_env.encoding.seat_view import SeatView
from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.engine.core import PLAYER_AT_SEAT, match_hand_layout, table_points
from mcr_env.envs.common import random_legal_actions
from mcr_env.envs.gym_env import MCREnv, MCRVectorEnv


def _seat_of(player: int, hand: int) -> int:
    return int(np.flatnonzero(PLAYER_AT_SEAT[hand // 4] == player)[0])


@pytest.mark.parametrize("player", [0, 3])
def test_gymnasium_match_follows_the_engine_layout(player):
    env = gym.make("mcr_env/MCR-v0", match=True, learner_seat=player, opponents="rule")
    obs, info = env.reset(seed=11)
    assert obs["observation"].shape == (95, 34)  # planes-v1 by default
    eng = env.unwrapped.engine
    rng = np.random.default_rng(player)
    seen_hands: dict[int, tuple] = {}
    per_hand = np.zeros(16)
    total = 0.0
    while True:
        h = info["hand_number"]
        dealer, wind, pas = match_hand_layout(h)
        assert (info["dealer"], info["prevalent_wind"]) == (dealer, wind)
        assert eng.state.player_at_seat[0].tolist() == pas.tolist()
        assert info["learner_seat"] == _seat_of(player, h)
        # the learner's own seat wind and the prevalent wind, as planes-v0 channels
        enc = get_encoder("planes-v1")
        sw = enc.piece_slice("seat_wind")
        assert obs["observation"][sw][0, 27 + (info["learner_seat"] - dealer) % 4] == 1
        assert obs["observation"][enc.piece_slice("match_hand")][h].all()
        seen_hands[h] = (dealer, wind)
        a = int(random_legal_actions(obs["action_mask"] == 1, rng))
        obs, r, term, trunc, info = env.step(a)
        total += r
        per_hand[h] += r
        assert not trunc
        if term:
            break
    assert sorted(seen_hands) == list(range(16))
    scores = eng.state.match_scores[0]
    assert total == scores[player]  # settlement rewards sum to the player's match score
    tp = eng.table_points[0]
    assert tp.sum() == pytest.approx(7.0)
    np.testing.assert_array_equal(tp, table_points(scores[None])[0])


def test_gymnasium_match_table_points_reward():
    env = MCREnv(match=True, learner_seat=1, reward="table_points", opponents="rule")
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(0)
    rewards = []
    while True:
        obs, r, term, _, info = env.step(int(random_legal_actions(obs["action_mask"] == 1, rng)))
        rewards.append(r)
        if term:
            break
    eng = env.engine
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert rewards[-1] == eng.table_points[0, 1] and eng.table_points[0].sum() == 7.0


def test_vector_match_tables_follow_the_layout():
    n = 3
    venv = MCRVectorEnv(n, match=True, learner_seat="random", opponents="random")
    obs, info = venv.reset(seed=5)
    rng = np.random.default_rng(0)
    totals = np.zeros(n)
    finished = np.zeros(n, dtype=bool)
    hands_seen = [set() for _ in range(n)]
    for _ in range(5000):
        player = info["learner_player"].copy()
        for i in range(n):
            h = int(info["hand_number"][i])
            dealer, wind, _ = match_hand_layout(h)
            assert (info["dealer"][i], info["prevalent_wind"][i]) == (dealer, wind)
            assert info["learner_seat"][i] == _seat_of(int(player[i]), h)
            hands_seen[i].add(h)
        obs, r, term, _, info = venv.step(random_legal_actions(obs["action_mask"] == 1, rng))
        totals += np.where(finished, 0, r)
        if term.any():
            for i in np.flatnonzero(term & ~finished):
                assert info["final_info"]["learner_seat"][i] == _seat_of(int(player[i]), 15)
            finished |= term
        if finished.all():
            break
    assert finished.all() and all(s == set(range(16)) for s in hands_seen)


def test_planes_v1_extends_planes_v0_byte_identically():
    eng = MCREngine(4, RulesConfig(match="match"))
    eng.reset(seed=1)
    rng = np.random.default_rng(0)
    agent = RuleBasedAgent()
    v0, v1, ref = get_encoder("planes-v0"), get_encoder("planes-v1"), make_reference("planes-v1")
    g = np.repeat(np.arange(4), 4)
    s = np.tile(np.arange(4), 4)
    checked = 0
    for step in range(1500):
        if step % 41 == 0 or eng.hand_over.any():
            a1 = v1.encode(eng.state, g, s)
            np.testing.assert_array_equal(a1[:, :75], v0.encode(eng.state, g, s))
            np.testing.assert_array_equal(a1, ref.encode(eng.state, g, s))
            # match context: hand one-hot, scores of the players at relative seats
            hs = a1[:, 75:91, 0]
            np.testing.assert_array_equal(hs.argmax(axis=1), eng.state.hand_number[g])
            for k in range(len(g)):
                for r in range(4):
                    seat = (s[k] + r) % 4
                    p = eng.state.player_at_seat[g[k], seat]
                    want = np.clip(eng.state.match_scores[g[k], p] / 100.0, -20, 20)
                    assert a1[k, 91 + r, 0] == pytest.approx(want)
            checked += 1
        if eng.terminated.all():
            break
        acts = random_legal_actions(eng.legal_mask, rng)
        gg, ss = np.nonzero(eng.to_act)  # rule agents play (they win hands: scores move)
        acts[gg, ss] = agent.act(
            None, eng.legal_mask[gg, ss], SeatView.from_state(eng.state, gg, ss)
        )
        eng.step(acts)
    assert checked > 20 and (eng.state.match_scores != 0).any()


def test_vector_and_sb3_final_info_describe_the_finished_match():
    """Reproducer: at the step a match ended, ``final_info`` (Gymnasium vector env) held only
    ``settlement`` and ``learner_seat``, and the SB3 done info mixed the finished hand's
    settlement with the NEXT match's ``hand_number`` (0), ``dealer``, ``prevalent_wind``;
    now both describe the finished match's last hand (hand 16: number 15, docs/rules.md §4/§8).
    Every hand here ends at once: the learners play an illegal action (penalized)."""
    from mcr_env.envs.sb3 import MCRSB3VecEnv

    dealer, wind, _ = match_hand_layout(15)
    n = 2
    for api in ("gymnasium", "sb3"):
        if api == "gymnasium":
            venv = MCRVectorEnv(n, match=True, learner_seat=0, opponents="random")
            obs, info = venv.reset(seed=3)
        else:
            sb3 = MCRSB3VecEnv(n, match=True, opponents="random")
            sb3.seed(3)
            obs = sb3.reset()
        for hand in range(16):
            illegal = np.argmin(obs["action_mask"], axis=1)  # a 0 of every mask
            assert not obs["action_mask"][np.arange(n), illegal].any()
            if api == "gymnasium":
                obs, r, term, trunc, info = venv.step(illegal)
            else:
                obs, r, term, infos = sb3.step(illegal)
            assert term.tolist() == [hand == 15] * n
        if api == "gymnasium":
            fin = info["final_info"]
            assert fin["hand_number"].tolist() == [15, 15]
            assert fin["dealer"].tolist() == [dealer] * n
            assert fin["prevalent_wind"].tolist() == [wind] * n
            assert fin["learner_player"].tolist() == [0, 0]
            assert fin["_hand_number"].tolist() == [True, True]
            assert info["hand_number"].tolist() == [0, 0]  # the new match's first hand
        else:
            for i in range(n):
                assert (infos[i]["hand_number"], infos[i]["dealer"]) == (15, dealer)
                assert (infos[i]["prevalent_wind"], infos[i]["learner_player"]) == (wind, 0)
                assert infos[i]["learner_seat"] == _seat_of(0, 15)


@pytest.mark.parametrize("workers", [0, 2])
def test_batch_env_match_settlement_by_player(workers):
    """Reproducer: in match mode ``info["player_at_seat"]`` is the seating after the step (the
    next hand's), so mapping the finished hand's ``info["settlement"]`` (by its seats) with it
    credited the wrong players after hands 4, 8 and 12; ``info["player_settlement"]`` is the
    settlement by player (docs/rules.md §4, §8). Every hand ends at once: the acting seat
    plays an illegal action (penalized: it pays 30, each other seat gets 10)."""
    from mcr_env.envs.sharded import make_batch_env

    cfg = RulesConfig(match="match", illegal_action="penalize")
    env = make_batch_env(2, workers, config=cfg, backend="thread")
    obs, info = env.reset(seed=0)
    seating = info["player_at_seat"].copy()
    rows, total = [], np.zeros((2, 4), dtype=np.int64)
    for hand in range(16):
        mask = obs["action_mask"].view(bool)
        acts = np.zeros((2, 4), dtype=np.int64)
        for g, s in zip(*np.nonzero(obs["to_act"])):
            acts[g, s] = np.flatnonzero(~mask[g, s])[0]
        obs, _, term, _, info = env.step(acts)
        assert info["hand_over"].all() and term.tolist() == [hand == 15] * 2
        by_player = np.zeros((2, 4), dtype=np.int64)
        for g in range(2):
            by_player[g, seating[g]] = info["settlement"][g]
        np.testing.assert_array_equal(info["player_settlement"], by_player)
        rows.append(info["player_settlement"][0].tolist())
        total += info["player_settlement"]
        seating = info["player_at_seat"].copy()
    if workers:
        env.close()
    # hand 8 (index 7): the offender sits at seat 0, player 1 there (seating of hands 5-8)
    assert rows[7] == [10, -30, 10, 10]
    assert rows[3] == [10, 10, 10, -30] and total.sum(axis=1).tolist() == [0, 0]


def test_gymnasium_match_settlement_by_player():
    """Reproducer: with ``match=True`` the step's ``info["settlement"]`` is by the seats of the
    hand that ended while ``info["learner_seat"]`` is the learner's seat in the next hand, so
    ``settlement[learner_seat]`` was another player's after hands 4, 8 and 12 (the seats
    rotate, docs/rules.md §8); ``info["player_settlement"]`` is by player:
    ``player_settlement[learner_player]`` is the learner's. The learner plays an illegal action
    at every first decision (penalized: it pays 30, the others get 10), ending every hand."""
    for api in ("env", "vector"):
        if api == "env":
            env = MCREnv(match=True, learner_seat=1)
            obs, info = env.reset(seed=0)
        else:
            env = MCRVectorEnv(1, match=True, learner_seat=1)
            obs, info = env.reset(seed=0)
        got = []
        for _ in range(16):
            mask = obs["action_mask"].reshape(-1, 235)[0]
            a = int(np.flatnonzero(mask == 0)[0])
            if api == "env":
                obs, r, term, _, info = env.step(a)
                ps, player = info["player_settlement"], info["learner_player"]
            else:
                obs, r, term, _, info = env.step(np.array([a]))
                r, term = r[0], term[0]
                src = info["final_info"] if term else info
                ps, player = src["player_settlement"][0], src["learner_player"][0]
            assert r == -30 and ps[player] == -30 and sorted(ps.tolist()) == [-30, 10, 10, 10]
            seat = int(np.asarray(info["learner_seat"]).reshape(-1)[0])
            got.append(int(info["settlement"].reshape(-1, 4)[0][seat]))
            if term:
                break
        assert len(got) == 16
        # the naive reading: -30 except at the rotation boundaries (after hands 4, 8 and 12)
        if api == "env":
            assert [i for i, x in enumerate(got) if x != -30] == [3, 7, 11]

"""Environments as a new user drives them: match rewards over consecutive hands, explicit
walls, stepping before reset, errors raised by opponent policies, vector-env info masks."""

import gymnasium as gym
import numpy as np
import pytest

import mcr_env  # noqa: F401  (registers mcr_env/MCR-v0)
from baselines.agents import RuleBasedAgent
from mcr_env.engine.core import MCREngine
from mcr_env.engine.walls import OFFICIAL_TILES
from mcr_env.envs.common import random_legal_actions
from mcr_env.envs.gym_env import MCREnv, MCRVectorEnv
from mcr_env.pettingzoo import env as pz_env
from mcr_env.pettingzoo import parallel_env
from mcr_env.rewards import TablePointsReward, table_points
from mcr_env.tiles import parse_tiles


def _legal(mask, rng):
    """Random legal actions, Hu whenever legal (so that some hands are won)."""
    mask = np.asarray(mask).astype(bool)
    return np.where(mask[..., 1], 1, random_legal_actions(mask, rng))


def _play_hand(env, obs, rng):
    """Play MCR-v0 to the end of the hand: ``(last reward, summed settlement (4,))``."""
    total = np.zeros(4, dtype=np.int64)
    while True:
        obs, r, term, _, info = env.step(int(_legal(obs["action_mask"], rng)))
        total += info["settlement"]
        if term:
            return r, total
        assert r == 0


def test_vector_table_points_pay_at_each_match_end():
    """Reproducer: table_points with num_envs=1 paid nothing (every autoreset cleared the
    match totals). Table points of each 2-hand match = points of the summed settlements."""
    venv = gym.make_vec(
        "mcr_env/MCR-v0",
        num_envs=1,
        vectorization_mode="vector_entry_point",
        opponents=RuleBasedAgent(),
        reward="table_points",
        reward_kwargs={"hands_per_match": 2},
    )
    obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    match_total = np.zeros(4, dtype=np.int64)
    hands = 0
    paid = []
    while hands < 6:
        seat = int(info["learner_seat"][0])
        obs, r, term, _, info = venv.step(_legal(obs["action_mask"], rng))
        match_total += info["settlement"][0]
        if not term[0]:
            assert r[0] == 0
            continue
        hands += 1
        if hands % 2 == 1:
            assert r[0] == 0
        else:
            expected = table_points(match_total[None])[0, seat]
            assert r[0] == expected
            paid.append(float(r[0]))
            match_total[:] = 0
    assert len(paid) == 3 and set(paid) != {1.75}  # some match had a win
    venv.close()


def test_vector_reset_starts_new_matches_autoreset_does_not():
    fn = TablePointsReward(hands_per_match=3)
    venv = MCRVectorEnv(num_envs=3, reward=fn)
    obs, _ = venv.reset(seed=1)
    rng = np.random.default_rng(1)
    totals = np.zeros((3, 4), dtype=np.int64)
    for _ in range(400):
        obs, r, term, _, info = venv.step(_legal(obs["action_mask"], rng))
        totals += info["settlement"]
        if term.any():
            break
    assert term.any()
    np.testing.assert_array_equal(fn.match_totals, totals)  # kept across the autoreset
    venv.reset(seed=2)
    assert fn.match_totals is None or not fn.match_totals.any()


@pytest.mark.parametrize("learner_seat", [0, 3])
def test_single_env_table_points_over_consecutive_resets(learner_seat):
    """MCR-v0: one hand per episode; consecutive resets are the hands of one match, paid at
    the end of its last hand; ``options={"new_match": True}`` starts a new match."""
    env = gym.make(
        "mcr_env/MCR-v0",
        learner_seat=learner_seat,
        opponents=RuleBasedAgent(),
        reward="table_points",
        reward_kwargs={"hands_per_match": 2},
    )
    rng = np.random.default_rng(learner_seat)
    match_total = np.zeros(4, dtype=np.int64)
    paid = []
    for hand in range(6):
        obs, _ = env.reset(seed=100 + hand) if hand == 0 else env.reset()
        rewards = []
        while True:
            obs, r, term, trunc, info = env.step(int(_legal(obs["action_mask"], rng)))
            match_total += info["settlement"]
            rewards.append(r)
            if term:
                break
        assert all(x == 0 for x in rewards[:-1])
        if hand % 2 == 0:
            assert rewards[-1] == 0
        else:
            assert rewards[-1] == table_points(match_total[None])[0, learner_seat]
            paid.append(rewards[-1])
            match_total[:] = 0
    assert len(paid) == 3 and set(paid) != {1.75}  # some match had a win


def test_single_env_new_match_option():
    fn = TablePointsReward(hands_per_match=2)
    env = MCREnv(reward=fn, opponents=RuleBasedAgent())
    rng = np.random.default_rng(5)
    obs, _ = env.reset(seed=5)
    r, s1 = _play_hand(env, obs, rng)
    assert r == 0
    np.testing.assert_array_equal(fn.match_totals[0], s1)
    obs, _ = env.reset(options={"new_match": True})  # forget the first hand
    assert fn.match_totals is None or not fn.match_totals.any()
    r, s2 = _play_hand(env, obs, rng)
    assert r == 0  # first hand of the new match
    np.testing.assert_array_equal(fn.match_totals[0], s2)
    obs, _ = env.reset()  # second hand: the match is paid at its end
    r, s3 = _play_hand(env, obs, rng)
    assert r == table_points((s2 + s3)[None])[0, 0]
    with pytest.raises(TypeError, match="new_match"):
        env.reset(options={"new_match": 1})


def test_pettingzoo_table_points_over_consecutive_resets():
    """PettingZoo AEC: one hand per episode, like MCR-v0: consecutive resets form a match."""
    e = pz_env(reward="table_points", reward_kwargs={"hands_per_match": 2})
    raw = e.unwrapped
    rng = np.random.default_rng(3)
    match_total = np.zeros(4, dtype=np.int64)
    for hand in range(4):
        e.reset(seed=7) if hand == 0 else e.reset()
        while not any(raw.terminations.values()):
            agent = e.agent_selection
            e.step(int(_legal(e.observe(agent)["action_mask"], rng)))
        final = [raw.rewards[f"player_{i}"] for i in range(4)]
        match_total += [raw.infos[f"player_{i}"]["settlement"] for i in range(4)]
        if hand % 2 == 0:
            assert final == [0.0] * 4
        else:
            assert final == table_points(match_total[None])[0].tolist()
            match_total[:] = 0


def test_parallel_table_points_over_consecutive_resets():
    p = parallel_env(reward="table_points", reward_kwargs={"hands_per_match": 2})
    rng = np.random.default_rng(4)
    match_total = np.zeros(4, dtype=np.int64)
    for hand in range(4):
        obs, _ = p.reset(seed=8) if hand == 0 else p.reset()
        while p.agents:
            acts = {a: int(_legal(o["action_mask"], rng)) for a, o in obs.items()}
            obs, rew, term, _, info = p.step(acts)
        final = [rew[f"player_{i}"] for i in range(4)]
        match_total += [info[f"player_{i}"]["settlement"] for i in range(4)]
        if hand % 2 == 0:
            assert final == [0.0] * 4
        else:
            assert final == table_points(match_total[None])[0].tolist()
            match_total[:] = 0


def _hu_first(o):
    """Callable opponent: Hu when legal, else the first legal action."""
    m = o["action_mask"]
    return 1 if m[1] else int(np.flatnonzero(m)[0])


def _heavenly_wall() -> np.ndarray:
    """Official wall whose dealer (seat 0) holds 1112345678999m and draws 5m: Nine Gates on
    the first draw, before any other seat decides anything."""
    dealer = parse_tiles("1112345678999m")
    rest = list(OFFICIAL_TILES)
    for t in [*dealer, 4]:
        rest.remove(t)
    suited = [t for t in rest if t < 34]
    flowers = [t for t in rest if t >= 34]
    wall = dealer + suited[:39] + [4] + suited[39:] + flowers
    return np.array(wall, dtype=np.int8)


def test_explicit_wall_ending_before_learner_decision_raises():
    """Reproducer: such a wall was silently replaced by a random redeal (info redeals=1)."""
    wall = _heavenly_wall()
    env = MCREnv(learner_seat=0, opponents=_hu_first)
    obs, info = env.reset(options={"walls": wall})  # the learner is the dealer: fine
    assert info["redeals"] == 0 and obs["action_mask"][1] == 1  # Hu legal
    env = MCREnv(learner_seat=1, opponents=_hu_first)
    with pytest.raises(ValueError, match=r"explicit wall .*before the learner's first decision"):
        env.reset(options={"walls": wall})
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)  # the failed reset left no hand to play
    venv = MCRVectorEnv(num_envs=2, learner_seat=2, opponents=_hu_first)
    ok = MCREngine(1)
    ok.reset(seed=3)
    walls = np.stack([ok.state.wall[0, :144], wall])
    with pytest.raises(ValueError, match=r"explicit wall of table\(s\) \[1\]"):
        venv.reset(options={"walls": walls})
    obs, info = venv.reset(options={"walls": walls[:1].repeat(2, axis=0)})
    assert info["redeals"].tolist() == [0, 0]


def test_step_before_reset_raises_everywhere():
    """Reproducer: the vector env stepped before reset returned terminated tables and dealt
    unseeded hands; now every env raises RuntimeError naming reset()."""
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        MCREnv().step(0)
    venv = MCRVectorEnv(num_envs=2)
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        venv.step(np.zeros(2, dtype=np.int64))
    venv = gym.make_vec("mcr_env/MCR-v0", num_envs=2, vectorization_mode="vector_entry_point")
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        venv.step(np.zeros(2, dtype=np.int64))
    obs, _ = venv.reset(seed=0)
    venv.step(_legal(obs["action_mask"], np.random.default_rng(0)))  # fine after reset


def test_vector_step_after_failed_reset_raises():
    venv = MCRVectorEnv(num_envs=1, learner_seat=1, opponents=_hu_first)
    obs, _ = venv.reset(seed=0)
    with pytest.raises(ValueError, match="explicit wall"):
        venv.reset(options={"walls": _heavenly_wall()[None]})
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        venv.step(np.zeros(1, dtype=np.int64))


def always_pass(o):
    """Callable opponent that answers Pass even when it must play a tile."""
    return 0


class OutOfRange:
    needs_obs = False
    needs_view = False
    name = "broken-agent"

    def act(self, obs, mask, view=None):
        return np.full(mask.shape[0], 300)


def test_illegal_opponent_action_names_the_opponent_policy():
    """Reproducer: 'illegal action 0 for game 0, seat 1 (phase ACT)' did not say that the
    action came from an opponent policy."""
    env = MCREnv(learner_seat=0, opponents=[_hu_first, always_pass, _hu_first])
    obs, _ = env.reset(seed=0)
    # seat 1 (opponents[0]) plays correctly, seat 2 (opponents[1] = always_pass) must discard
    with pytest.raises(
        ValueError,
        match=r"opponent policy opponents\[1\] \(always_pass\) at seat 2 of table 0 returned "
        r"illegal action 0 \(Pass\).*legal: .*Play",
    ):
        for _ in range(10):
            obs, *_ = env.step(_hu_first(obs))
    venv = MCRVectorEnv(num_envs=2, learner_seat=3, opponents=OutOfRange())
    with pytest.raises(
        ValueError,
        match=r"opponent policy opponents\[0\] \(OutOfRange name='broken-agent'\) "
        r"at seat\(s\) \[0\]: policy returned an action outside 0..234",
    ):
        venv.reset(seed=0)
    # the learner's own illegal action keeps the engine's message (no opponent named)
    env = MCREnv(learner_seat=0, opponents=_hu_first, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match=r"illegal action 0 for game 0, seat 0") as err:
        env.step(0)
    assert "opponent" not in str(err.value)


def test_parallel_step_after_the_hand_follows_pettingzoo_convention():
    """PettingZoo's own parallel wrappers return empty dicts once no agent is live; stepping
    before any reset raises."""
    p = parallel_env()
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        p.step({a: 0 for a in p.possible_agents})
    obs, _ = p.reset(seed=2)
    rng = np.random.default_rng(2)
    while p.agents:
        obs, *_ = p.step({a: int(_legal(o["action_mask"], rng)) for a, o in obs.items()})
    before = p._table.engine.state.hand.copy()
    assert p.step({}) == ({}, {}, {}, {}, {})
    assert p.step({a: 0 for a in p.possible_agents}) == ({}, {}, {}, {}, {})
    np.testing.assert_array_equal(p._table.engine.state.hand, before)


def test_vector_infos_have_gymnasium_masks():
    """Gymnasium vector infos: every key ``k`` has a ``(num_envs,) bool`` mask ``_k``."""
    venv = MCRVectorEnv(num_envs=3)
    obs, info = venv.reset(seed=0)
    infos = [info]
    rng = np.random.default_rng(0)
    for _ in range(300):
        obs, r, term, _, info = venv.step(_legal(obs["action_mask"], rng))
        infos.append(info)
        if term.any():
            break
    assert term.any() and "final_obs" in info
    for info in infos:
        for k in [k for k in info if not k.startswith("_")]:
            mask = info[f"_{k}"]
            assert mask.dtype == np.bool_ and mask.shape == (3,), k
            if k in ("final_obs", "final_info"):  # the finished rows only (autoreset)
                assert mask.tolist() == term.tolist() or info is not infos[-1], k
            elif k == "redeals" and info is not infos[0]:  # the autoreset rows' new hands
                assert mask.tolist() == term.tolist(), k
            else:
                assert mask.all(), k


def test_hand_ending_before_learner_decision_is_void_for_the_match():
    """A hand that ends before the learner's first decision (here the dealer's Nine Gates on
    the first draw, refused as an explicit wall) is not counted in the match."""
    fn = TablePointsReward(hands_per_match=2)
    env = MCREnv(learner_seat=1, opponents=_hu_first, reward=fn)
    rng = np.random.default_rng(6)
    obs, _ = env.reset(seed=6)
    r, s1 = _play_hand(env, obs, rng)
    assert r == 0
    with pytest.raises(ValueError, match="explicit wall"):
        env.reset(options={"walls": _heavenly_wall()})
    np.testing.assert_array_equal(fn.match_totals[0], s1)  # the 88-point win is void
    obs, _ = env.reset()
    r, s2 = _play_hand(env, obs, rng)  # still the second hand of the match
    assert r == table_points((s1 + s2)[None])[0, 1]

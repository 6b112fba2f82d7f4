"""The compiled RuleBasedAgent against the original pure-Python one (tests/slow_rule_agent.py):
identical plan distances, hand values and decisions; the defensive variant's rules."""

import numpy as np
import pytest
import slow_rule_agent as ref

from baselines import hand_plans as hp
from baselines.agents import RuleBasedAgent, SeatView
from mcr_env.engine.core import MCREngine
from mcr_env.eval.play import play_games


def _random_hand(rng):
    """A random seat: up to four melds (chows, pungs, kongs) and 13 - 3m or 14 - 3m tiles."""
    pool = np.full(34, 4)
    melds = []
    for _ in range(int(rng.integers(0, 5))):
        if rng.random() < 0.5:
            t = 9 * int(rng.integers(0, 3)) + int(rng.integers(0, 7))
            if (pool[t : t + 3] > 0).all():
                pool[t : t + 3] -= 1
                melds.append(("chow", t))
                continue
        t = int(rng.integers(0, 34))
        if pool[t] >= 3:
            pool[t] -= 3
            melds.append((("pung", "kong")[int(rng.integers(0, 2))], t))
    n = 14 - 3 * len(melds) - int(rng.integers(0, 2))
    tiles = rng.choice(np.repeat(np.arange(34), pool), n, replace=False)
    return np.bincount(tiles, minlength=34), melds


def test_plan_distances_and_values_equal_the_reference():
    rng = np.random.default_rng(7)
    for _ in range(400):
        c, melds = _random_hand(rng)
        assert hp.plan_distances(c, melds) == ref.plan_distances(c, melds), (c.tolist(), melds)
        # bitwise equal: the same terms summed in the same order
        assert hp.hand_value(c, melds) == ref.hand_value(c, melds)
        for n in range(5):
            for chows in (True, False):
                assert hp.regular_distance(c, n, chows) == ref.regular_distance(c, n, chows)


def test_plan_distance_examples():
    # 123456789m 123p 55s: complete Pure Straight and regular hand
    c = np.zeros(34, int)
    c[0:9] = 1
    c[18:21] = 1
    c[13] = 2
    d = hp.plan_distances(c)
    assert d["Regular"] == -1 and d["Pure Straight"] == -1
    assert list(d) == [n for n in hp.PLAN_NAMES if n in d]
    with pytest.raises(ValueError, match="kind must be"):
        hp.plan_distances(c, [("pair", 3)])
    with pytest.raises(ValueError, match="n_sets"):
        hp.regular_distance(c, 5)


class _Both:
    """Plays the reference agent's actions and counts disagreements of the fast agent."""

    name = "both"
    needs_obs = False
    needs_view = True

    def __init__(self, fast, slow):
        self.fast, self.slow = fast, slow
        self.decisions = self.differ = 0
        self.kinds: set[int] = set()

    def act(self, obs, mask, view):
        a = self.fast.act(obs, mask, view)
        b = self.slow.act(obs, mask, view)
        self.decisions += len(a)
        self.differ += int((a != b).sum())
        self.kinds.update(int(x) for x in b)
        return b


def test_fast_agent_decisions_equal_the_reference_on_played_states():
    both = _Both(RuleBasedAgent(), ref.ReferenceRuleAgent())
    eng = MCREngine(6)
    eng.reset(seed=3)
    play_games(eng, [both], np.zeros((6, 4), dtype=np.int64))
    assert both.decisions > 300
    assert both.differ == 0
    # the states covered discards, passes and claims
    assert 0 in both.kinds and any(2 <= a < 36 for a in both.kinds)
    assert any(36 <= a < 167 for a in both.kinds)


def _view(counts, visible):
    return SeatView(
        hand=np.asarray(counts, np.int8)[None],
        meld_kind=np.zeros((1, 4), np.int8),
        meld_tile=np.full((1, 4), -1, np.int8),
        visible=np.asarray(visible, np.int8)[None],
        seat_wind=np.zeros(1, np.int8),
        prevalent_wind=np.zeros(1, np.int8),
    )


def test_danger_counts_unseen_wait_tiles():
    c = np.zeros(34, np.int64)
    c[[0, 4, 30]] = 1  # the tiles to discard are held (the held copy is not unseen)
    vis = np.zeros(34, np.int64)
    # 5m, nothing seen: 0.5 * 3 unseen + three waits (46m, 67m, 34m) of 4 copies each = 13.5
    assert hp.danger(c, vis, 4) == 13.5
    # 1m: 0.5 * 3 + the 23m edge wait 4 = 5.5; an honor: 0.5 * 3 = 1.5
    assert hp.danger(c, vis, 0) == 5.5 and hp.danger(c, vis, 30) == 1.5
    vis[30] = 3  # the other three copies are visible: nobody can wait on it
    assert hp.danger(c, vis, 30) == 0.0
    vis[2] = 4  # all 3m seen: 1m's edge wait on 23m is impossible
    assert hp.danger(c, vis, 0) == 1.5


def test_defensive_variant_defends_only_far_from_winning_and_late():
    # 123 567 9m EE SS 5p 5s C: two shanten at best; the normal agent throws the lone C
    counts = np.zeros(34, np.int64)
    np.add.at(counts, [0, 1, 2, 4, 5, 6, 8, 27, 27, 28, 28, 13, 22, 31], 1)
    mask = np.zeros((1, 235), bool)
    mask[0, 2 + np.flatnonzero(counts)] = True
    visible = np.zeros(34, np.int64)
    visible[27] = 2  # the other two Easts are out: the held pair is a dead, safe pair
    visible[[9, 10, 11, 15, 18, 19, 20]] = 4  # 30 tiles visible: late in the hand
    normal = RuleBasedAgent()
    defensive = RuleBasedAgent(
        defensive=True, defend_distance=2.0, defend_keep=0.4, defend_claims=True
    )
    assert defensive.name == "rule-defensive" and normal.name == "rule"
    view = _view(counts, visible)
    assert normal.act(None, mask, view)[0] == 2 + 31
    assert hp.danger(counts, visible, 31) == 1.5 and hp.danger(counts, visible, 27) == 0.0
    assert defensive.act(None, mask, view)[0] == 2 + 27
    # a safer tile must keep defend_keep of the hand value: 1.01 rules every other tile out
    picky = RuleBasedAgent(defensive=True, defend_distance=2.0, defend_keep=1.01)
    assert picky.act(None, mask, view)[0] == 2 + 31
    # early in the hand (few tiles visible) it plays like the normal agent
    early = visible.copy()
    early[[18, 19, 20]] = 0
    assert defensive.act(None, mask, _view(counts, early))[0] == 2 + 31
    # a claim (Peng on C) while defending: Pass (defend_claims); the normal agent claims
    claim = np.zeros((1, 235), bool)
    claim[0, [0, 99 + 31]] = True
    c13 = counts.copy()
    c13[31] = 2
    c13[[13, 22]] = 0
    assert normal.act(None, claim, _view(c13, visible))[0] == 99 + 31
    assert defensive.act(None, claim, _view(c13, visible))[0] == 0

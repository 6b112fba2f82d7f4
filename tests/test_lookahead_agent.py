"""The look-ahead rule agent (baselines/lookahead.py): its discards against a plain-Python
restatement of the rule on played states, a constructed hand where tile availability decides,
claims and kongs as the rule agent's, and the ``planes-v0+look-v0`` features."""

import numpy as np
import pytest
from test_rule_agent import _view

import baselines.features  # noqa: F401  (registers planes-v0+look-v0)
from baselines import hand_plans as hp
from baselines.agents import LookaheadAgent, RuleBasedAgent, SeatView, make_agent
from mcr_env.encoding import get_encoder
from mcr_env.engine.core import MCREngine
from mcr_env.eval.play import play_games


def _reference_discard(counts, melds, visible, playable, top_k, claim_margin=1.6, sharp=1.3):
    """The look-ahead discard restated with the public hand_value: rank the playable held
    tiles by the plain value of the 13 that remain, look ahead the top_k (ties: lower tile),
    score each by the mean hand value after one more draw over the unseen copies, plus the
    rule agent's tie-breaks (1e-4 x visible copies, 1e-5 for an honor)."""
    c = np.asarray(counts, dtype=np.int64).copy()
    cand = []
    for t in range(34):
        if playable[t] and c[t] > 0:
            c[t] -= 1
            cand.append((-hp.hand_value(c, melds, sharp), t))
            c[t] += 1
    cand.sort()
    unseen = np.maximum(0, 4 - np.asarray(visible, np.int64) - c)
    best = None
    for _, t in cand[:top_k]:
        c[t] -= 1
        if unseen.sum() == 0:
            ev = hp.hand_value(c, melds, sharp)
        else:
            acc = 0.0
            for u in range(34):
                if unseen[u] > 0 and c[u] < 4:
                    c[u] += 1
                    acc += unseen[u] * hp.hand_value(c, melds, sharp)
                    c[u] -= 1
            ev = acc / unseen.sum()
        c[t] += 1
        s = ev + 1e-4 * visible[t] + 1e-5 * (t >= 27)
        if best is None or s > best[0]:
            best = (s, t)
    return best[1]


class _Recorder:
    """Plays the rule agent and keeps the look-ahead agent's answers to the same decisions."""

    name = "recorder"
    needs_obs = False
    needs_view = True

    def __init__(self, look):
        self.look = look
        self.rule = RuleBasedAgent()
        self.rows = []

    def act(self, obs, mask, view):
        mine = self.look.act(obs, mask, view)
        theirs = self.rule.act(obs, mask, view)
        for i in range(len(mask)):
            self.rows.append((mask[i].copy(), view, i, int(mine[i]), int(theirs[i])))
        return theirs


def test_discards_equal_the_reference_and_claims_equal_the_rule_agent():
    look = LookaheadAgent(claim_margin=1.15, top_k=3)
    rec = _Recorder(look)
    eng = MCREngine(10)
    eng.reset(seed=11)
    play_games(eng, [rec], np.zeros((10, 4), dtype=np.int64))
    own = claims = differ = kongs = 0
    for mask, view, i, mine, theirs in rec.rows:
        if mask.sum() == 1 or mask[1]:
            assert mine == theirs  # the only legal action, or Hu
            continue
        playable = mask[2:36]
        if playable.any():
            if mask[167:].any():  # a kong option: the same kong rule as the rule agent
                kongs += 1
                assert (mine >= 167) == (theirs >= 167)
                if mine >= 167:
                    assert mine == theirs
                    continue
            own += 1
            ref = _reference_discard(
                view.hand[i], view.melds(i), view.visible[i], playable, 3, 1.15
            )
            assert mine == 2 + ref, (view.hand[i].tolist(), view.melds(i))
            differ += mine != theirs
        else:
            claims += 1
            assert mine == theirs  # same claim rule at the same margin
    assert own > 300 and claims > 60 and kongs > 0
    assert differ > 0  # the look-ahead does change discards


def _tiles(*ids):
    c = np.zeros(34, np.int64)
    np.add.at(c, list(ids), 1)
    return c


def test_constructed_hand_keeps_the_live_wait():
    # 123 456 789m 5p + 13s + 79s (14 tiles), rank-mirror symmetric: throwing 3s or 7s is
    # worth the same best plain value; the rule agent's tie-break throws the lower id (3s = 20).
    counts = _tiles(0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 18, 20, 24, 26)
    mask = np.zeros((1, 235), bool)
    mask[0, 2 + np.flatnonzero(counts)] = True
    values = {t: hp.hand_value(counts - _tiles(t)) for t in np.flatnonzero(counts)}
    assert values[20] == values[24] == max(values.values())
    vis = np.zeros(34, np.int64)
    rule, look = RuleBasedAgent(), LookaheadAgent()
    assert rule.act(None, mask, _view(counts, vis))[0] == 2 + 20
    # all four 8s are visible: the 79s wait is dead, so the look-ahead breaks it (throws 9s,
    # keeps 13s waiting on 2s and 7s); the rule agent does not look and still throws 3s
    vis[25] = 4
    assert rule.act(None, mask, _view(counts, vis))[0] == 2 + 20
    assert look.act(None, mask, _view(counts, vis))[0] == 2 + 26
    # all four 2s visible instead: the mirror image, it throws 1s and keeps 79s and 3s
    vis[25], vis[19] = 0, 4
    assert look.act(None, mask, _view(counts, vis))[0] == 2 + 18


def test_hu_whenever_legal():
    counts = _tiles(0, 0, 0, 10, 11, 12, 22, 23, 24, 26, 26, 31, 27, 27)
    mask = np.zeros((1, 235), bool)
    mask[0, 2 + np.flatnonzero(counts)] = True
    mask[0, 1] = True
    assert LookaheadAgent().act(None, mask, _view(counts, np.zeros(34, np.int64)))[0] == 1


def test_spec_parameters_and_errors():
    a = make_agent("rule-lookahead")
    assert isinstance(a, LookaheadAgent) and a.name == "rule-lookahead"
    assert (a.claim_margin, a.sharpness, a.top_k) == (1.6, 1.3, 4)
    with pytest.raises(ValueError, match="positive"):
        LookaheadAgent(top_k=0)
    with pytest.raises(ValueError, match="SeatView"):
        a.act(None, np.ones((1, 235), bool), None)


def test_look_features_mark_the_agents_discard():
    enc = get_encoder("planes-v0+look-v0")
    base = get_encoder("planes-v0").num_channels
    assert enc.shape == (base + 10, 34)
    look = LookaheadAgent()
    eng = MCREngine(4)
    eng.reset(seed=5)
    seen = 0
    for _ in range(40):
        games, seats = np.nonzero(eng.to_act)
        obs = enc.encode(eng.state, games, seats)
        mask = eng.legal_mask[games, seats]
        view = SeatView.from_state(eng.state, games, seats)
        acts = look.act(None, mask, view)
        for i in range(len(games)):
            own = mask[i, 2:36].any() and not mask[i, 1] and not mask[i, 167:].any()
            if own and mask[i].sum() > 1:
                seen += 1
                assert obs[i, base + 8].argmax() == acts[i] - 2
                assert obs[i, base + 8].sum() == 1.0
                ev = obs[i, base + 9]
                assert ev.max() == 1.0 and (ev > 0).sum() <= 4
        actions = np.zeros(eng.legal_mask.shape[:2], dtype=np.int64)
        actions[games, seats] = acts
        eng.step(actions)
        if eng.terminated.all():
            break
    assert seen > 10

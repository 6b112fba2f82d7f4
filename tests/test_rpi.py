"""Rollout policy improvement (baselines/rpi.py): exact branch replays, labels, fit, config."""

import dataclasses

import numpy as np
import pytest
import torch
from torch import nn

import baselines.features  # noqa: F401  (registers planes-v0+look-v0)
from baselines.agents import LookaheadAgent, RuleBasedAgent
from baselines.config import EnvConfig, NetworkConfig, RPIConfig, load_config
from baselines.network import PolicyValueNet
from baselines.rpi import (
    BranchData,
    _Learner,
    _play_branches,
    collect_branches,
    distill,
    fit_advantage,
    improve_labels,
    train_rpi,
)
from mcr_env.encoding import get_encoder
from mcr_env.engine.config import RulesConfig
from mcr_env.engine.core import MCREngine
from mcr_env.eval.play import play_games

ENC = "planes-v0"


def _net(seed=0, channels=8):
    torch.manual_seed(seed)
    enc = get_encoder(ENC)
    return PolicyValueNet(enc.num_channels, NetworkConfig(channels, 1, 16), encoder=ENC).eval()


@pytest.mark.parametrize("claim_round", ["options", "all"])
def test_branch_replaying_the_trunk_action_reproduces_the_trunk(claim_round):
    # all agents are deterministic: from a saved state, the trunk's own action must give the
    # trunk's own result exactly (the branch samples are then paired differences)
    rules = RulesConfig(claim_round=claim_round)
    enc = get_encoder(ENC)
    learner = _Learner(_net(), 3)
    learner.branch_prob, learner.claim_branch_prob = 0.1, 0.5
    learner.rng = np.random.default_rng(1)
    g = 4
    seat = np.arange(g) % 4
    agent_index = np.repeat((1 + np.arange(g) % 2)[:, None], 4, axis=1)
    agent_index[np.arange(g), seat] = 0
    agents = [learner, RuleBasedAgent(), LookaheadAgent()]
    engine = MCREngine(g, config=rules)
    engine.reset(seed=3)
    learner.engine = engine
    learner.rec = {k: [] for k in ("obs", "mask", "action", "cand", "game", "seat", "branch")}
    learner.rec["snap"] = []
    points = play_games(engine, agents, agent_index, enc)
    rec = learner.rec
    learner.rec = None
    cat = {k: np.concatenate(rec[k]) for k in rec if k != "snap"}
    rows = np.flatnonzero(cat["branch"])
    assert rows.size >= 3
    snaps = {k: np.concatenate([s[k] for s in rec["snap"]]) for k in rec["snap"][0]}
    games, seats = cat["game"][rows], cat["seat"][rows]
    got = _play_branches(
        snaps, seats, cat["action"][rows], agent_index[games], agents, learner, rules, enc, 16
    )
    np.testing.assert_array_equal(got, points[games, seats])
    # and another action changes some results (the branches are not all identical)
    alt = cat["cand"][rows, 1]
    ok = alt >= 0
    got_alt = _play_branches(
        {k: v[ok] for k, v in snaps.items()},
        seats[ok],
        alt[ok],
        agent_index[games[ok]],
        agents,
        learner,
        rules,
        enc,
        16,
    )
    assert (got_alt != points[games[ok], seats[ok]]).any()


def test_collect_branches_records_legal_candidates_and_is_deterministic():
    enc = get_encoder(ENC)
    args = (_net(), 4, [RuleBasedAgent()], (), RulesConfig(), enc, 5)
    d = collect_branches(*args, top_k=3, branch_prob=0.1, batch_size=4)
    assert d.hands == 4 and d.points.shape == (4,)
    t = len(d.action)
    assert t > 20 and d.obs.shape == (t, enc.num_channels, 34) and d.obs.dtype == np.float16
    np.testing.assert_array_equal(d.cand[:, 0], d.action)
    assert d.mask[np.arange(t), d.action].all() and (d.mask.sum(axis=1) > 1).all()
    valid = d.cand >= 0
    r, c = np.nonzero(valid)
    assert d.mask[r, d.cand[r, c]].all()
    # fewer candidates only when fewer legal actions
    np.testing.assert_array_equal(valid.sum(axis=1), np.minimum(d.mask.sum(axis=1), 3))
    assert len(d.pair_row) > 0 and (d.pair_action != d.action[d.pair_row]).all()
    assert d.mask[d.pair_row, d.pair_action].all()
    assert set(np.unique(d.hand)) == set(range(4))
    d2 = collect_branches(*args, top_k=3, branch_prob=0.1, batch_size=4)
    for f in dataclasses.fields(BranchData):
        np.testing.assert_array_equal(getattr(d, f.name), getattr(d2, f.name))
    # only claim-round decisions branch
    dc = collect_branches(
        _net(),
        2,
        [RuleBasedAgent()],
        (),
        RulesConfig(),
        enc,
        6,
        top_k=2,
        branch_prob=0.0,
        claim_branch_prob=1.0,
        batch_size=2,
    )
    from baselines.bc import decision_kinds

    kinds = decision_kinds(dc.mask[dc.pair_row])
    assert len(kinds) > 0 and (kinds == 1).all()
    with pytest.raises(ValueError, match="top_k"):
        collect_branches(*args, top_k=1)
    with pytest.raises(ValueError, match="branch probabilities"):
        collect_branches(*args, branch_prob=1.5)


class _TableNet(nn.Module):
    """Stand-in advantage net: the same (235,) outputs for every observation."""

    def __init__(self, table):
        super().__init__()
        self.table = torch.as_tensor(table, dtype=torch.float32)

    def forward(self, obs, mask=None):
        return self.table.expand(len(obs), -1), torch.zeros(len(obs))


def _data(action, cand, mask=None, pair_row=(), pair_action=(), pair_diff=(), hands=1):
    t = len(action)
    if mask is None:
        mask = np.zeros((t, 235), dtype=bool)
        for i, c in enumerate(cand):
            mask[i, [x for x in c if x >= 0]] = True
    return BranchData(
        obs=np.zeros((t, 3, 34), dtype=np.float16),
        mask=mask,
        action=np.asarray(action, dtype=np.int64),
        cand=np.asarray(cand, dtype=np.int64),
        hand=np.zeros(t, dtype=np.int64),
        points=np.zeros(hands),
        pair_row=np.asarray(pair_row, dtype=np.int64),
        pair_action=np.asarray(pair_action, dtype=np.int64),
        pair_diff=np.asarray(pair_diff, dtype=np.float64),
        hands=hands,
    )


def test_improve_labels_switches_only_past_the_margin():
    table = np.zeros(235)
    table[[10, 11, 12, 20, 21]] = [0.00, 0.03, 0.05, 0.10, 0.02]  # scaled points (x0.01)
    d = _data(
        action=[10, 20, 10, 11],
        cand=[[10, 11, 12], [20, 21, -1], [10, 11, -1], [11, 20, -1]],
    )
    net = _TableNet(table)
    # margin 4 points = 0.04 scaled: row 0 -> 12 (gain 0.05); row 1 keeps 20 (21 is worse);
    # row 2: gain 0.03 < 0.04 keeps 10; row 3: 20 gains 0.07 -> 20
    np.testing.assert_array_equal(improve_labels(net, d, 4.0, 0.01), [12, 20, 10, 20])
    np.testing.assert_array_equal(improve_labels(net, d, 2.0, 0.01), [12, 20, 11, 20])
    np.testing.assert_array_equal(improve_labels(net, d, 100.0, 0.01), [10, 20, 10, 11])


def test_fit_advantage_starts_at_zero_and_learns_a_constant_advantage():
    net = _net(channels=8)
    enc = get_encoder(ENC)
    rng = np.random.default_rng(0)
    t = 200
    mask = np.zeros((t, 235), dtype=bool)
    mask[:, [5, 6]] = True
    d = _data(action=np.full(t, 5), cand=np.tile([5, 6], (t, 1)), mask=mask, hands=20)
    d.obs = rng.integers(0, 3, size=(t, enc.num_channels, 34)).astype(np.float16)
    d.hand = np.arange(t) // 10
    d.pair_row = np.arange(t)
    d.pair_action = np.full(t, 6)
    d.pair_diff = 30.0 + rng.normal(0, 3, size=t)  # action 6 is worth +30 points
    d.points = np.zeros(20)
    anet0, st0 = fit_advantage(net, d, 0.01, epochs=0, seed=1)
    assert st0["r2_train"] == pytest.approx(0.0, abs=1e-6) and st0["epoch"] == 0
    with torch.no_grad():
        out, _ = anet0(torch.from_numpy(d.obs[:4]).float())
    assert torch.count_nonzero(out) == 0
    np.testing.assert_array_equal(improve_labels(anet0, d, 0.0, 0.01), d.action)
    anet, st = fit_advantage(net, d, 0.01, epochs=10, lr=5e-3, seed=1)
    assert st["r2_val"] > 0.8 and st["epoch"] > 0 and st["pairs"] == t
    labels = improve_labels(anet, d, 10.0, 0.01)
    assert (labels == 6).mean() > 0.95
    # distillation moves the policy to the new labels
    pol = _net(channels=8)
    res = distill(pol, d, labels, epochs=8, lr=5e-3, seed=0)
    assert res["accuracy_changed"] > 0.95
    # the original policy network is not changed by the fit
    for p, q in zip(net.parameters(), _net(channels=8).parameters()):
        assert torch.equal(p, q)


def test_train_rpi_round_and_config(tmp_path):
    net = _net()
    before = [p.clone() for p in net.parameters()]
    cfg = RPIConfig(
        rounds=1, hands=3, batch_size=3, branch_prob=0.1, adv_epochs=1, distill_epochs=1, margin=0
    )
    seen = []
    out = train_rpi(
        net, cfg, EnvConfig(encoder=ENC), 2, progress=False, callback=lambda r, n: seen.append(r)
    )
    (stats,) = out["rounds"]
    assert seen == [1] and stats["hands"] == 3 and stats["decisions"] > 0
    assert stats["pairs"] > 0 and 0.0 <= stats["relabelled"] <= 1.0
    assert any(not torch.equal(p, q) for p, q in zip(net.parameters(), before))
    with pytest.raises(ValueError, match="rpi.opponents"):
        train_rpi(_net(), RPIConfig(rounds=1, opponents=("random",)), EnvConfig(encoder=ENC), 0)
    from baselines.train import validate

    with pytest.raises(ValueError, match="config rpi.opponents"):
        validate(load_config(None, ["rpi.rounds=1", "rpi.opponents=[random]"]))
    cfg = load_config(None, ["rpi.rounds=2", "rpi.margin=3"])
    assert cfg.rpi.rounds == 2 and cfg.rpi.margin == 3.0

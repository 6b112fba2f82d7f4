"""Training pieces: device selection, BC split and decision kinds, the rule features, the PPO
pool, reward selection through the trainer config, the oracle critic."""

import copy
import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

import baselines.features  # noqa: F401  (registers planes-v0+rule-v0)
from baselines.agents import RuleBasedAgent
from baselines.bc import KINDS, collect_demonstrations, decision_kinds, split_by_hand
from baselines.config import EnvConfig, NetworkConfig, PPOConfig, load_config
from baselines.network import PolicyValueNet
from baselines.ppo import draw_lineups, policy_channels, rollout, train_ppo
from baselines.rollout import resolve_device
from mcr_env.encoding import get_encoder
from mcr_env.engine.core import MCREngine
from mcr_env.eval.play import play_games
from mcr_env.rewards import win_loss

ROOT = Path(__file__).resolve().parent.parent


def test_device_auto_is_cpu_without_cuda():
    assert not torch.cuda.is_available()  # the CI machine has no GPU
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")
    with pytest.raises(ValueError, match="not valid"):
        resolve_device("tpu-9")
    for name in ("default.yaml", "smoke.yaml", "eval.yaml"):
        assert load_config(ROOT / "configs" / name).device == "auto"


def test_decision_kinds():
    m = np.zeros((4, 235), bool)
    m[0, [2, 5]] = True  # discard
    m[1, [0, 99 + 3]] = True  # claim (Pass or Peng)
    m[2, [2, 167 + 0]] = True  # own turn with an AnGang option
    m[3, [1, 2, 9]] = True  # Hu legal
    assert [KINDS[k] for k in decision_kinds(m)] == ["discard", "claim", "kong", "hu"]


def test_bc_split_by_hand_never_shares_a_hand():
    demos = collect_demonstrations(6, 3, seed=2, progress=False)
    assert set(np.unique(demos.hand)) == set(range(6))
    tr, va = split_by_hand(demos, 0.34, seed=1)
    assert len(tr) + len(va) == len(demos.action) and len(va) > 0
    assert not set(demos.hand[tr]) & set(demos.hand[va])
    assert len(set(demos.hand[va])) == 2  # round(0.34 * 6) hands held out
    with pytest.raises(ValueError, match="val_fraction"):
        split_by_hand(demos, 1.0, seed=1)


def test_rule_features_mark_the_rule_agents_discard():
    enc = get_encoder("planes-v0+rule-v0")
    assert enc.num_channels == 75 + 9
    agent = RuleBasedAgent()
    seen = {"discards": 0}

    def check(ai, games, seats, obs, mask, actions):
        own = mask[:, 2:36].any(axis=1) & ~mask[:, 1] & ~mask[:, 167:].any(axis=1)
        for i in np.flatnonzero(own):
            assert obs[i, 75 + 8].sum() == 1.0
            assert int(obs[i, 75 + 8].argmax()) == actions[i] - 2
            seen["discards"] += 1
        # the planes-v0 channels are untouched
        assert np.array_equal(obs[:, :75], get_encoder("planes-v0").encode(eng.state, games, seats))

    eng = MCREngine(3)
    eng.reset(seed=4)
    play_games(eng, [agent], np.zeros((3, 4), dtype=np.int64), enc, check)
    assert seen["discards"] > 50


def test_pool_lineups():
    rng = np.random.default_rng(0)
    entry, learner = draw_lineups(("self", "rule", "past"), (0.5, 0.25, 0.25), 400, rng)
    assert learner[entry == 0].all()
    assert (learner[entry != 0].sum(axis=1) == 1).all()
    assert 150 < (entry == 0).sum() < 250
    with pytest.raises(ValueError, match="pool entries"):
        draw_lineups(("selfish",), (), 2, rng)
    with pytest.raises(ValueError, match="pool_weights"):
        draw_lineups(("self", "rule"), (1.0,), 2, rng)


def _tiny_net(channels):
    torch.manual_seed(0)
    return PolicyValueNet(channels, NetworkConfig(channels=8, blocks=1, hidden=16)).eval()


def test_rollout_rewards_follow_the_selected_reward():
    from mcr_env.envs.batch import MCRBatchEnv

    env = MCRBatchEnv(4, reward="win_loss", autoreset_mode="disabled", observe="packed")
    net = _tiny_net(75)
    learner = np.zeros((4, 4), bool)
    learner[:, 1] = True
    buf, points = rollout(
        net,
        env,
        3,
        torch.Generator().manual_seed(0),
        learner,
        [RuleBasedAgent()],
        np.zeros(4, dtype=np.int64),
        reward_scale=0.5,
    )
    assert set(buf["key"] % 4) == {1}  # only the learner's decisions are stored
    expect = 0.5 * win_loss(points.astype(np.int32)).reshape(-1)
    for k in np.unique(buf["key"]):
        assert buf["reward"][buf["key"] == k].sum() == pytest.approx(expect[k])


def test_trainer_config_selects_the_reward_and_oracle_critic(tmp_path):
    cfg = PPOConfig(
        iterations=1,
        num_envs=2,
        update_epochs=1,
        pool=("self", "rule"),
        oracle_critic=True,
        checkpoint_every=1,
    )
    env = EnvConfig(reward="shaping", reward_kwargs={"base": "win_loss", "gamma": 1.0})
    net = _tiny_net(75)
    before = [p.detach().clone() for p in net.parameters()]
    out = train_ppo(net, cfg, env, seed=5, checkpoint_dir=tmp_path, progress=False)
    assert out["iteration"] == 1 and out["decisions"] > 0
    assert (tmp_path / "ppo_1.pt").exists()
    assert any(not torch.equal(a, b) for a, b in zip(before, net.parameters()))
    assert policy_channels("oracle-v0+rule-v0", "planes-v0+rule-v0").tolist() == [
        *range(75),
        *range(98, 107),
    ]
    assert policy_channels("oracle-v0+look-v0", "planes-v0+look-v0").tolist() == [
        *range(75),
        *range(98, 108),
    ]
    with pytest.raises(ValueError, match="unknown reward|valid"):
        train_ppo(_tiny_net(75), cfg, EnvConfig(reward="no-such-reward"), seed=5, progress=False)


def test_value_warmup_freezes_the_policy_and_kl_penalty_is_reported(tmp_path):
    """value_warmup iterations change only the value head; kl_coef adds KL(policy || start)."""
    cfg = PPOConfig(
        iterations=2,
        num_envs=2,
        update_epochs=1,
        pool=("self", "rule"),
        value_warmup=1,
        checkpoint_every=1,
        kl_coef=0.5,
    )
    net = _tiny_net(75)
    start = {k: v.detach().clone() for k, v in net.state_dict().items()}
    seen = {}

    def after(it, n):
        seen[it] = {k: v.detach().clone() for k, v in n.state_dict().items()}

    out = train_ppo(net, cfg, EnvConfig(), seed=5, progress=False, callback=after)
    assert out["iteration"] == 2
    warm = seen[1]
    for k, v in start.items():
        if v.dtype.is_floating_point and not k.endswith(("running_mean", "running_var")):
            assert (not torch.equal(v, warm[k])) == k.startswith("value_"), k
    # the second iteration updates the policy (with the KL penalty on)
    assert any(not torch.equal(warm[k], seen[2][k]) for k in start if k.startswith("policy_"))
    assert np.isfinite(out["kl_ref"]) and out["kl_ref"] >= 0.0


def test_kl_penalty_to_the_reference_policy_is_the_masked_kl():
    from baselines.ppo import ppo_update
    from mcr_env.envs.batch import MCRBatchEnv

    env = MCRBatchEnv(2, autoreset_mode="disabled", observe="packed")
    net = _tiny_net(75)
    torch.manual_seed(1)
    ref = PolicyValueNet(75, NetworkConfig(channels=8, blocks=1, hidden=16)).eval()
    learner = np.ones((2, 4), bool)
    buf, _ = rollout(net, env, 3, torch.Generator().manual_seed(0), learner, [], np.full(2, -1))
    n = len(buf["action"])
    cfg = PPOConfig(update_epochs=1, minibatch_size=n, kl_coef=0.1)
    with torch.no_grad():
        obs, mask = torch.from_numpy(buf["obs"]), torch.from_numpy(buf["mask"])
        p = torch.softmax(net(obs, mask)[0], 1)
        q = torch.softmax(ref(obs, mask)[0], 1)
        legal = mask & (p > 0)
        expect = torch.where(legal, p * (p.log() - q.log()), 0.0).sum(1).mean().item()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    zeros = np.zeros(n, np.float32)
    out = ppo_update(net, opt, buf, zeros, zeros, cfg, np.random.default_rng(0), reference=ref)
    assert expect > 0 and out["kl_ref"] == pytest.approx(expect, rel=1e-4)
    # reproducer: int8 masks in the buffer (the pool rollouts store them so) failed in
    # torch.where; the same KL comes out
    net2 = _tiny_net(75)
    buf8 = {**buf, "mask": buf["mask"].astype(np.int8)}
    opt2 = torch.optim.Adam(net2.parameters(), lr=1e-3)
    out8 = ppo_update(net2, opt2, buf8, zeros, zeros, cfg, np.random.default_rng(0), reference=ref)
    assert out8["kl_ref"] == pytest.approx(expect, rel=1e-4)
    # without a reference (or kl_coef 0) no penalty is computed
    out = ppo_update(net, opt, buf, zeros, zeros, cfg, np.random.default_rng(0))
    assert out["kl_ref"] == 0.0


def test_gain_over_bc_is_the_paired_difference_on_the_report_walls(tmp_path):
    from baselines.network import save_checkpoint
    from baselines.train import evaluate_policy, gain_over_bc, same_weights

    cfg = load_config(
        ROOT / "configs" / "smoke.yaml",
        [
            "env.encoder=planes-v0",
            "eval.opponents=[rule]",
            "eval.gain_over_bc=[rule, random]",
            "eval.num_workers=0",
            "eval.batch_size=8",
        ],
    )
    enc = get_encoder("planes-v0")
    trained, bc = _tiny_net(enc.num_channels), _tiny_net(enc.num_channels)
    with torch.no_grad():  # a different policy: it prefers claiming (Pass logit down)
        trained.policy_fc.bias[0] -= 50.0
    assert not same_weights(trained, bc) and same_weights(bc, copy.deepcopy(bc))
    bc_path = save_checkpoint(bc, tmp_path / "bc.pt")
    (res,) = evaluate_policy(trained, cfg, enc, 2, cfg.eval.report_block, "trained")
    (res_bc,) = evaluate_policy(bc, cfg, enc, 2, cfg.eval.report_block, "trained")
    pts, plc = gain_over_bc(trained, bc_path, [res], cfg, enc)  # random: not in opponents
    assert (pts.a, pts.b, pts.metric, pts.walls) == (
        "trained (vs 3x rule)",
        "bc (vs 3x rule)",
        "points",
        2,
    )
    per_wall = res.per_wall("trained") - res_bc.per_wall("trained")  # the BC policy's walls
    assert pts.mean == pytest.approx(per_wall.mean(), abs=1e-12)
    assert plc.metric == "placement"
    assert plc.mean == pytest.approx(
        (res.per_wall("trained", "placement") - res_bc.per_wall("trained", "placement")).mean(),
        abs=1e-12,
    )
    # the final policy is the BC checkpoint: exactly 0, nothing replayed
    for d in gain_over_bc(bc, bc_path, [res_bc], cfg, enc):
        assert (d.mean, d.ci95_low, d.ci95_high) == (0.0, 0.0, 0.0)


def test_policy_temperature_keeps_greedy_actions_and_flattens_the_policy():
    """ppo.policy_temperature T: the starting logits become logits / T (same argmax)."""
    from baselines.ppo import soften_policy

    net = _tiny_net(75)
    rng = np.random.default_rng(4)
    obs = torch.from_numpy(rng.random((32, 75, 34), dtype=np.float32))
    mask = torch.from_numpy(rng.random((32, 235)) < 0.1)
    mask[:, 2] = True
    with torch.no_grad():
        before, _ = net(obs, mask)
        soften_policy(net, 4.0)
        after, _ = net(obs, mask)
    legal = mask.bool()
    assert torch.allclose(after[legal], before[legal] / 4.0, rtol=1e-5, atol=1e-6)
    assert torch.equal(after.argmax(1), before.argmax(1))
    ent = [torch.distributions.Categorical(logits=x).entropy().mean() for x in (before, after)]
    assert ent[1] > ent[0]
    with pytest.raises(ValueError, match="temperature"):
        soften_policy(net, 0.0)
    # through the trainer config: a value warm-up iteration leaves the softened policy head
    cfg = load_config(None, ["ppo.policy_temperature=4", "ppo.value_warmup=1"]).ppo
    assert cfg.policy_temperature == 4.0
    cfg = dataclasses.replace(cfg, iterations=1, num_envs=2, update_epochs=1, pool=("rule",))
    net = _tiny_net(75)
    w0, b0 = net.policy_fc.weight.detach().clone(), net.policy_fc.bias.detach().clone()
    train_ppo(net, cfg, EnvConfig(), seed=5, progress=False)
    assert torch.equal(net.policy_fc.weight, w0 / 4.0)
    assert torch.equal(net.policy_fc.bias, b0 / 4.0)
    with pytest.raises(ValueError, match="policy_temperature"):
        train_ppo(_tiny_net(75), dataclasses.replace(cfg, policy_temperature=-1.0), EnvConfig(), 5)

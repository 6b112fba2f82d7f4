import numpy as np
import pytest
import torch

from baselines.agents import RandomAgent, RuleBasedAgent, SeatView, TorchPolicyAgent
from baselines.config import NetworkConfig
from baselines.hand_plans import plan_distances, regular_distance
from baselines.network import (
    MASKED_LOGIT,
    PolicyValueNet,
    load_checkpoint,
    masked_logits,
    save_checkpoint,
)
from baselines.ppo import per_seat_gae
from mcr_env.tiles import counts_of, parse_compact

C = 75


def _net(seed=0):
    torch.manual_seed(seed)
    return PolicyValueNet(C, NetworkConfig(channels=8, blocks=1, hidden=16)).eval()


def _random_masks(n, rng):
    mask = rng.random((n, 235)) < 0.05
    mask[np.arange(n), rng.integers(0, 235, n)] = True
    return mask


def test_network_masks_illegal_actions():
    rng = np.random.default_rng(0)
    net = _net()
    obs = torch.from_numpy(rng.random((16, C, 34)).astype(np.float32))
    mask = torch.from_numpy(_random_masks(16, rng))
    logits, values = net(obs, mask)
    assert logits.shape == (16, 235) and values.shape == (16,)
    assert torch.all(logits[~mask] == MASKED_LOGIT)
    probs = torch.softmax(logits, dim=1)
    assert torch.all(probs[~mask] == 0)
    assert torch.allclose(probs.sum(1), torch.ones(16))
    assert mask[torch.arange(16), logits.argmax(1)].all()


def test_masked_logits_rejects_bad_masks():
    with pytest.raises(ValueError, match="shape"):
        masked_logits(torch.zeros(2, 235), torch.ones(2, 234, dtype=torch.bool))
    bad = torch.zeros(2, 235, dtype=torch.bool)
    bad[0, 3] = True
    with pytest.raises(ValueError, match="at least one legal"):
        masked_logits(torch.zeros(2, 235), bad)
    with pytest.raises(ValueError, match="obs must be"):
        _net()(torch.zeros(2, C + 1, 34))


def test_checkpoint_round_trip_weights_only(tmp_path):
    rng = np.random.default_rng(1)
    net = _net(3)
    path = save_checkpoint(net, tmp_path / "ck.pt", {"stage": "test", "iteration": 4})
    raw = torch.load(path, weights_only=True)
    assert raw["config"]["in_channels"] == C and raw["config"]["channels"] == 8
    net2, extra = load_checkpoint(path)
    assert extra == {"stage": "test", "iteration": 4}
    obs = torch.from_numpy(rng.random((5, C, 34)).astype(np.float32))
    mask = torch.from_numpy(_random_masks(5, rng))
    a, va = net(obs, mask)
    b, vb = net2(obs, mask)
    assert torch.equal(a, b) and torch.equal(va, vb)
    torch.save({"format": "other"}, tmp_path / "bad.pt")
    with pytest.raises(ValueError, match="not a mcr-policy-v0"):
        load_checkpoint(tmp_path / "bad.pt")


def test_torch_policy_agent_legal_and_greedy():
    rng = np.random.default_rng(2)
    agent = TorchPolicyAgent(_net(), greedy=True)
    obs = rng.random((32, C, 34)).astype(np.float32)
    mask = _random_masks(32, rng)
    a = agent.act(obs, mask)
    assert a.dtype == np.int64 and mask[np.arange(32), a].all()
    assert np.array_equal(a, agent.act(obs, mask))
    sampler = TorchPolicyAgent(_net(), greedy=False, seed=5)
    assert mask[np.arange(32), sampler.act(obs, mask)].all()
    with pytest.raises(ValueError, match="observations"):
        agent.act(None, mask)


def test_random_agent_uniform_legal_seeded():
    rng = np.random.default_rng(3)
    mask = np.zeros((20000, 235), dtype=bool)
    mask[:, [0, 7, 100]] = True
    a = RandomAgent(seed=11).act(None, mask)
    assert set(np.unique(a)) == {0, 7, 100}
    freq = np.bincount(a, minlength=235)[[0, 7, 100]] / len(a)
    assert np.all(np.abs(freq - 1 / 3) < 0.02)
    m2 = _random_masks(50, rng)
    assert np.array_equal(RandomAgent(seed=4).act(None, m2), RandomAgent(seed=4).act(None, m2))
    with pytest.raises(ValueError, match="at least one legal"):
        RandomAgent().act(None, np.zeros((1, 235), dtype=bool))


def _botzone(tiles):
    names = "WTB"
    out = []
    for t in tiles:
        if t < 27:
            out.append(f"{names[t // 9]}{t % 9 + 1}")
        elif t < 31:
            out.append(f"F{t - 26}")
        else:
            out.append(f"J{t - 30}")
    return out


def test_regular_distance_matches_pymahjonggb():
    MahjongGB = pytest.importorskip("MahjongGB")
    rng = np.random.default_rng(4)
    for _ in range(200):
        tiles = (rng.permutation(136) // 4)[:13]
        counts = np.bincount(tiles, minlength=34)
        ref = MahjongGB.RegularShanten(tuple(_botzone(tiles)))[0]
        assert regular_distance(counts, 4) == ref


def test_regular_distance_matches_scoring_shanten():
    from mcr_env.scoring.shanten import regular_shanten

    rng = np.random.default_rng(5)
    for _ in range(100):
        tiles = (rng.permutation(136) // 4)[:13]
        counts = np.bincount(tiles, minlength=34)
        assert regular_distance(counts, 4) == regular_shanten(counts, 0)


def test_plan_distances_exact():
    # complete Full Flush (characters) with a Pure Straight inside
    d = plan_distances(counts_of(parse_compact("11123456789999m")))
    assert d["Full Flush"] == -1 and d["Pure Straight"] == -1 and d["Regular"] == -1
    # seven pairs one tile away
    d = plan_distances(counts_of(parse_compact("1133m5577s99p11z2z")))
    assert d["Seven Pairs"] == 0
    # a melded chow of dots kills Full Flush in characters but keeps Mixed Straight
    melds = [("chow", 18 + 3)]
    d = plan_distances(counts_of(parse_compact("123m789s1155z")), melds)
    assert "Seven Pairs" not in d
    assert d["Mixed Straight"] == 0  # 123m 456p(melded) 789s, waiting on a 1z/5z pair
    assert d["Full Flush"] > 3
    with pytest.raises(ValueError):
        plan_distances([5] + [0] * 33)


def _view(hand_compact, melds=()):
    counts = counts_of(parse_compact(hand_compact))
    kind = np.zeros((1, 4), np.int8)
    tile = np.full((1, 4), -1, np.int8)
    for j, (k, t) in enumerate(melds):
        kind[0, j] = k
        tile[0, j] = t
    return SeatView(
        hand=counts[None].astype(np.int8),
        meld_kind=kind,
        meld_tile=tile,
        visible=np.zeros((1, 34), np.int8),
        seat_wind=np.zeros(1, np.int8),
        prevalent_wind=np.zeros(1, np.int8),
    )


def test_rule_based_takes_hu_and_discards_the_odd_tile():
    agent = RuleBasedAgent()
    view = _view("1112345678999m5z")  # Nine Gates shape + a lone Red dragon
    mask = np.zeros((1, 235), dtype=bool)
    mask[0, 2 + np.flatnonzero(view.hand[0])] = True
    assert agent.act(None, mask, view)[0] == 2 + 31  # discards the dragon
    mask[0, 1] = True
    assert agent.act(None, mask, view)[0] == 1  # Hu when legal


def test_rule_based_claims_peng_toward_all_pungs_and_passes_junk():
    agent = RuleBasedAgent()
    view = _view("111m999s55p7z22z33z")  # 13 tiles, pungs everywhere
    mask = np.zeros((1, 235), dtype=bool)
    mask[0, [0, 99 + 28]] = True  # Pass or Peng on 2z
    assert agent.act(None, mask, view)[0] == 99 + 28
    view = _view("123456789m12s55p")  # ready for a Pure Straight (waits on 3s)
    mask = np.zeros((1, 235), dtype=bool)
    mask[0, [0, 99 + 22]] = True  # Peng on 5p gains nothing: stays ready, loses concealment
    assert agent.act(None, mask, view)[0] == 0


def test_per_seat_gae_exact():
    # two sequences: key 0 has 3 decisions, key 5 has 1; rewards only at the end
    key = np.array([0, 5, 0, 0], dtype=np.int64)
    value = np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32)
    reward = np.array([0.0, -2.0, 0.0, 1.0])  # per transition: the end reaches the last one
    adv, ret = per_seat_gae(key, value, reward, gamma=1.0, gae_lambda=0.5)
    # key 0: t2 (last): 1 - 0.4 = 0.6; t1: (0.4 - 0.3) + 0.5 * 0.6 = 0.4; t0: 0.2 + 0.2 = 0.4
    assert adv == pytest.approx([0.4, -2.2, 0.4, 0.6])
    assert ret == pytest.approx(adv + value)
    adv1, _ = per_seat_gae(key, value, reward, gamma=1.0, gae_lambda=1.0)
    assert adv1 == pytest.approx([1 - 0.1, -2.2, 1 - 0.3, 1 - 0.4])
    # an intermediate reward (e.g. shaping) enters its own transition's delta
    reward2 = np.array([0.5, -2.0, 0.0, 1.0])
    adv2, _ = per_seat_gae(key, value, reward2, gamma=1.0, gae_lambda=1.0)
    assert adv2 == pytest.approx([1.5 - 0.1, -2.2, 1 - 0.3, 1 - 0.4])

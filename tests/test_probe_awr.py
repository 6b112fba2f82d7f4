"""scripts/probe_awr.py: the paired advantage-weighted update moves the policy the way the
branch samples say and not at all without them (tiny network, synthetic pairs)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from script_helpers import load_script

from baselines.config import NetworkConfig
from baselines.network import PolicyValueNet


@pytest.fixture(scope="module")
def script():
    return load_script("probe_awr")


def _data(diff):
    rng = np.random.default_rng(0)
    n = 64
    mask = np.zeros((n, 235), dtype=bool)
    mask[:, [3, 7]] = True  # two legal actions everywhere
    return {
        "obs": rng.random((n, 75, 34)).astype(np.float16),
        "mask": mask,
        "action": np.full(n, 3, dtype=np.int64),
        "pair_row": np.arange(n, dtype=np.int64),
        "pair_action": np.full(n, 7, dtype=np.int64),
        "pair_diff": np.full(n, float(diff)),
    }


def _logit_gap(net, data):
    with torch.no_grad():
        logits = net(torch.from_numpy(data["obs"]).float(), torch.from_numpy(data["mask"]))[0]
    return float((logits[:, 7] - logits[:, 3]).mean())


@pytest.mark.parametrize("diff", [0.0, 30.0, -30.0])
def test_update_follows_the_sign_of_the_branch_samples(script, diff):
    torch.manual_seed(0)
    bc = PolicyValueNet(75, NetworkConfig(8, 1, 16), encoder="planes-v0").eval()
    net = copy.deepcopy(bc)
    data = _data(diff)
    before = _logit_gap(net, data)
    out = script.awr_update(net, bc, data, epochs=3, lr=1e-2, kl=0.0, clip=0.5, batch_size=16)
    after = _logit_gap(net, data)
    with torch.no_grad():
        pick = net(torch.from_numpy(data["obs"]).float(), torch.from_numpy(data["mask"]))[0]
    pick = pick.argmax(1).numpy()
    if diff == 0.0:  # no advantage and no anchor term: no gradient, the weights stay
        assert after == before and out["changed"] == 0.0
        assert all(
            torch.equal(a, b) for a, b in zip(net.state_dict().values(), bc.state_dict().values())
        )
    elif diff > 0:  # the alternative won every pair: it becomes the greedy choice
        assert after > before + 1.0 and (pick == 7).all()
    else:  # it lost every pair: the policy's own action stays, by a larger lead
        assert after < before - 1.0 and (pick == 3).all()

"""scripts/ppo_curve.py: the paired learning curve of PPO from a BC checkpoint."""

import importlib.util
import json
from pathlib import Path

import pytest
import torch

from baselines.config import NetworkConfig
from baselines.network import PolicyValueNet, load_checkpoint, save_checkpoint
from mcr_env.encoding import get_encoder

ROOT = Path(__file__).resolve().parent.parent


def _main():
    spec = importlib.util.spec_from_file_location("ppo_curve", ROOT / "scripts" / "ppo_curve.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.main


def _bc(tmp_path):
    torch.manual_seed(0)
    enc = get_encoder("planes-v0")
    net = PolicyValueNet(enc.num_channels, NetworkConfig(8, 1, 16), encoder="planes-v0")
    return save_checkpoint(net.eval(), tmp_path / "bc.pt")


ARGS = [
    "env.encoder=planes-v0",
    "ppo.iterations=2",
    "ppo.num_envs=2",
    "ppo.update_epochs=1",
    "ppo.pool=[rule]",
    "ppo.pool_weights=[1.0]",
]


def test_zero_learning_rate_reads_exactly_zero_gain(tmp_path, capsys):
    bc = _bc(tmp_path)
    out = tmp_path / "curve"
    argv = ["--bc", str(bc), "--out", str(out), "--walls", "2", "--eval-every", "1", "--set"]
    assert _main()([*argv, *ARGS, "ppo.lr=0.0"]) == 0
    rows = [json.loads(line) for line in (out / "curve.jsonl").read_text().splitlines()]
    assert capsys.readouterr().out.splitlines() == [json.dumps(r) for r in rows]
    assert rows[0]["stage"] == "bc" and rows[0]["block"] == 2 and rows[0]["walls"] == 2
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    assert [r["hands"] for r in rows[1:]] == [2, 4]
    for r in rows[1:]:  # lr 0: the policy is BC's, every wall reads the same
        assert r["gain_points"] == [0.0, 0.0, 0.0] and r["gain_placement"] == [0.0, 0.0, 0.0]
        assert r["points"] == rows[0]["bc_points"][0] and r["train_cpu_s"] >= 0
    ref, _ = load_checkpoint(bc)
    ck, extra = load_checkpoint(out / "ppo_2.pt")
    assert extra == {"iteration": 2}
    ref_sd, ck_sd = ref.state_dict(), ck.state_dict()
    assert ref_sd.keys() == ck_sd.keys() and all(torch.equal(ref_sd[k], ck_sd[k]) for k in ref_sd)


def test_report_block_and_encoder_mismatch_are_refused(tmp_path):
    bc = _bc(tmp_path)
    with pytest.raises(SystemExit):
        _main()(["--bc", str(bc), "--out", str(tmp_path / "c"), "--block", "0", "--set", *ARGS])
    with pytest.raises(SystemExit):
        _main()(["--bc", str(bc), "--out", str(tmp_path / "c")])  # default: planes-v0+look-v0

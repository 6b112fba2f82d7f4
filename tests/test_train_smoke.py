"""Smoke tests: the scripts users run, with tiny budgets (configs/smoke.yaml)."""

import importlib.util
import json
import re
from pathlib import Path

import pytest
import torch
import yaml

ROOT = Path(__file__).resolve().parent.parent


def _script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_train_then_evaluate_smoke(tmp_path, capsys):
    out = _script("train").main(
        [
            "--config",
            str(ROOT / "configs" / "smoke.yaml"),
            "--set",
            f"runs_dir={tmp_path}",
            "eval.opponents=[random]",
            "eval.gain_over_bc=[random]",
            "--no-progress",
        ]
    )
    run_dir = Path(out["run_dir"])
    assert run_dir.parent == tmp_path and run_dir.name.startswith("smoke-")
    for f in (
        "config.yaml",
        "meta.json",
        "bc.pt",
        "rpi_1.pt",
        "ppo_1.pt",
        "ppo_2.pt",
        "final.pt",
        "curve.json",
        "curve.png",
        "eval.csv",
        "eval.json",
        "eval.png",
    ):
        assert (run_dir / f).exists(), f
    resolved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert resolved["eval"]["opponents"] == ["random"] and resolved["ppo"]["iterations"] == 2

    def strict(constant):  # NaN / Infinity are not JSON
        raise AssertionError(f"not strict JSON: {constant}")

    meta = json.loads((run_dir / "meta.json").read_text(), parse_constant=strict)
    json.loads((run_dir / "eval.json").read_text(), parse_constant=strict)
    assert meta["git_commit"] and meta["bc"]["samples"] > 0 and meta["ppo"]["iteration"] == 2
    assert meta["bc_data"]["teacher"] == "rule-lookahead"
    assert meta["rpi"]["rounds"][0]["hands"] == 2
    # BC-anchored paired selection: one curve wall gives no CI, so BC stays the final policy
    sel = meta["selection"]
    assert [r["stage"] for r in sel] == ["bc", "rpi_1", "ppo_2"]
    assert all(r["opponent"] == "random" and r["walls"] == 1 for r in sel)
    assert meta["final_policy"] == "bc"
    gain = [d for d in meta["gain_over_bc"] if d["metric"] == "points"]
    assert [(d["a"], d["b"], d["walls"]) for d in gain] == [
        ("trained (vs 3x random)", "bc (vs 3x random)", 2)
    ]
    assert [row["stage"] for row in json.loads((run_dir / "curve.json").read_text())][:2] == [
        "bc",
        "rpi_1",
    ]
    ck = torch.load(run_dir / "final.pt", weights_only=True)
    assert ck["config"]["channels"] == 16
    assert list((run_dir / "tb").iterdir())
    printed = capsys.readouterr().out
    assert "final policy: bc (paired against bc vs 3x random on the selection walls" in printed
    assert "trained vs random" in printed and "mean_points" in printed
    assert "trained (vs 3x random) - bc (vs 3x random) (points per hand, 2 walls" in printed

    ev = _script("evaluate").run(
        [
            "--agent",
            str(run_dir / "final.pt"),
            "--opponent",
            "rule",
            "--walls",
            "2",
            "--seed",
            "4",
            "--out",
            str(tmp_path / "ev"),
            "--no-progress",
        ]
    )
    assert [s.agent for s in ev.stats] == ["final", "rule"]
    assert ev.stats[0].hands == 8 and ev.stats[1].hands == 24
    data = json.loads((tmp_path / "ev" / "eval.json").read_text())
    assert data["matches"][0]["lineup"] == ["final", "rule", "rule", "rule"]
    # deterministic for a seed
    ev2 = _script("evaluate").run(
        [
            "--agent",
            str(run_dir / "final.pt"),
            "--opponent",
            "rule",
            "--walls",
            "2",
            "--seed",
            "4",
            "--out",
            str(tmp_path / "ev2"),
            "--no-progress",
        ]
    )
    assert (ev.points == ev2.points).all()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("env.encoder=nope", "config env.encoder: unknown encoder"),
        ("env.rules={wall_layout: hexagonal}", "config env.rules: RulesConfig.wall_layout"),
        ("eval.opponents=[rule, wizard]", "config eval.opponents: unknown opponent 'wizard'"),
        ("eval.permutations=some", "config eval.permutations"),
        ("bc.teacher=oracle", "config bc.teacher: unknown teacher 'oracle'"),
        ("eval.gain_over_bc=[wizard]", "config eval.gain_over_bc: unknown opponent 'wizard'"),
        ("eval.select_by=luck", "config eval.select_by: 'luck' not valid; valid: paired_bc"),
    ],
)
def test_bad_config_leaves_no_run_directory(tmp_path, override, message):
    """Reproducer: a bad --set passed load_config, and run() created runs/<name>-<time>/
    before failing on it (junk run directories left behind)."""
    from baselines.config import load_config
    from baselines.train import run

    runs = tmp_path / "runs"
    cfg = load_config(None, [f"runs_dir={runs}", "bc.hands=0", "ppo.iterations=0", override])
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        run(cfg, progress=False)
    assert not runs.exists()

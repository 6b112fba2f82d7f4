"""scripts/paired_eval.py: look-ahead variant specs and the paired differences (exact values
on a few walls: self-play reads 0, two spellings of one agent differ by exactly 0)."""

from __future__ import annotations

import json

import pytest
from script_helpers import load_script

from baselines.agents import LookaheadAgent


@pytest.fixture(scope="module")
def script():
    return load_script("paired_eval")


def test_lookahead_variant_specs(script):
    a = script.build_agent("rule-lookahead:top_k=8,claim_margin=2.0", 0)
    assert isinstance(a, LookaheadAgent)
    assert (a.top_k, a.claim_margin, a.sharpness) == (8, 2.0, 1.3)
    assert a.name == "rule-lookahead:top_k=8,claim_margin=2.0"
    with pytest.raises(ValueError, match="depth"):
        script.build_agent("rule-lookahead:depth=2", 0)


def test_paired_rows_exact(script, capsys):
    argv = ["--walls", "3", "--batch-size", "12", "--encoder", "planes-v0", "--agents"]
    argv += ["rule", "rule-lookahead", "rule-lookahead:top_k=4,claim_margin=1.6,sharpness=1.3"]
    assert script.main(argv) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["agent"] for r in rows] == [
        "rule",
        "rule-lookahead",
        "rule-lookahead:top_k=4,claim_margin=1.6,sharpness=1.3",
    ]
    # 3 walls x 4 rotations; the rule agent in self-play holds all four seats
    assert [r["hands"] for r in rows] == [48, 12, 12]
    assert rows[0]["mean_points"] == 0.0  # the rule agent against three copies of itself
    # the first agent's per-wall points are all 0: the difference is the agent's own mean
    assert rows[1]["minus_first_points"][0] == pytest.approx(rows[1]["mean_points"], abs=1e-12)
    # the default look-ahead agent spelled out: the same decisions, the same walls
    assert rows[2]["mean_points"] == rows[1]["mean_points"]
    with pytest.raises(SystemExit):
        script.main(["--agents", "rule", "rule", "--walls", "1"])

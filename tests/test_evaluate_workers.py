"""``scripts/evaluate.py --workers``: batches in worker processes give the in-process results
for agents without mutable state; a bad value is a one-line usage error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from script_helpers import load_script


def _args(out: Path, workers: int) -> list[str]:
    return [
        "--agent", "rule", "--opponent", "rule-defensive", "--walls", "2", "--seed", "2",
        "--batch-size", "4", "--out", str(out), "--no-progress", "--workers", str(workers),
    ]  # fmt: skip


def test_workers_give_the_in_process_results(tmp_path, capsys):
    ev = load_script("evaluate")
    ref = ev.run(_args(tmp_path / "w0", 0))
    got = ev.run(_args(tmp_path / "w2", 2))  # 8 games in 2 batches, one per process
    for f in ("seats", "points", "winner_pos", "payer_pos", "end_reason", "placement"):
        np.testing.assert_array_equal(getattr(got, f), getattr(ref, f), err_msg=f)
    assert [s.hands for s in got.stats] == [8, 24]
    assert (ref.winner_pos >= 0).any()  # hands were won, so points are not all zero
    saved = json.loads((tmp_path / "w2" / "eval.json").read_text())
    assert saved["meta"]["args"]["workers"] == 2
    assert "rule - rule-defensive (points per hand, 2 walls)" in capsys.readouterr().out


def test_bad_workers_is_a_usage_error(capsys):
    assert load_script("evaluate").main(["--agent", "rule", "--workers", "-2"]) == 2
    assert "evaluate.py: error: --workers must be >= -1, got -2" in capsys.readouterr().err


def test_help_lists_workers(capsys):
    with pytest.raises(SystemExit):
        load_script("evaluate").main(["--help"])
    assert "--workers WORKERS" in capsys.readouterr().out


def test_workers_with_an_outside_bot_is_a_usage_error(capsys):
    """Outside bot processes (``cmd:``) cannot be copied into worker processes."""
    # (the interpreter's full path: the bot program must exist, and ``python`` need not)
    argv = ["--agent", "rule", "--opponent", f"cmd:{sys.executable} -c pass", "--workers", "2"]
    assert load_script("evaluate").main(argv) == 2
    assert "--workers needs agents without outside processes (cmd:)" in capsys.readouterr().err

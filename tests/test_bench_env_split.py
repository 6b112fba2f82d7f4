"""scripts/bench_env_split.py: the split of an env step into its parts, with a tiny budget."""

from __future__ import annotations

import json

from script_helpers import load_script


def test_split_rows_add_up(capsys):
    mod = load_script("bench_env_split")
    mod.main(
        [
            "--batch",
            "8",
            "--obs-dtype",
            "float32",
            "uint8",
            "--seconds",
            "0.05",
            "--warmup-steps",
            "20",
        ]
    )
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["obs_dtype"] for r in rows] == ["float32", "uint8"]
    for r in rows:
        assert r["batch"] == 8 and r["steps"] >= 16 and r["claim_round"] == "options"
        parts = [r[f"ms_{p}"] for p in mod.PARTS]
        assert all(p >= 0 for p in parts[:4]) and r["ms_total"] > 0
        assert abs(sum(parts) - r["ms_total"]) < 1e-3 * len(parts)  # glue is the rest
        assert r["ms_engine"] > 0 and r["ms_encode"] > 0
        assert r["rows_per_step"] >= 8  # every table has an acting seat at every step
        assert "commit" in r and "numpy" in r

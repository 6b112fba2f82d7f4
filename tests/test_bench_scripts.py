"""scripts/bench_engine.py: the SB3 VecEnv row and the scaling summary of ``--workers`` (the
issue's table in one run), with tiny budgets and on synthetic rows."""

from __future__ import annotations

import json

import pytest
from script_helpers import ROOT, load_script


@pytest.fixture(scope="module")
def bench():
    return load_script("bench_engine")


def _row(workers, wall, total, critical, batch=2048):
    return {
        "policy": "uniform",
        "batch": batch,
        "claim_round": "options",
        "workers": workers,
        "decisions_per_s": wall,
        "decisions_per_total_cpu_s": total,
        "decisions_per_critical_cpu_s": critical,
    }


def test_scaling_summary_on_known_rows(bench):
    rows = [
        _row(0, 100.0, 200.0, 200.0),
        _row(1, 90.0, 190.0, 190.0),
        _row(2, 150.0, 180.0, 360.0),
        _row(0, 120.0, 200.0, 200.0),  # second repeat: medians are the means of two
        _row(1, 110.0, 190.0, 190.0),
        _row(2, 170.0, 180.0, 340.0),
        _row(0, 1.0, 1.0, 1.0, batch=64),  # another batch size: its own summary
    ]
    big, small = bench.scaling_summary(rows)
    assert big["batch"] == 2048 and big["repeats"] == 2 and small["batch"] == 64
    assert big["median"]["2"] == {
        "decisions_per_s": 160.0,
        "decisions_per_total_cpu_s": 180.0,
        "decisions_per_critical_cpu_s": 350.0,
    }
    assert big["speedup_wall_2_vs_1"] == 1.6  # 160 / 100
    assert big["speedup_critical_cpu_2_vs_1"] == round(350 / 190, 3)
    assert big["overhead_k1_total_cpu"] == 0.05  # 1 - 190 / 200
    assert big["overhead_k1_wall"] == round(1 - 100 / 110, 4)
    assert "speedup_wall_2_vs_1" not in small and "overhead_k1_wall" not in small
    assert big["backend"] == "process" and small["backend"] is None  # rows without a backend


def test_scaling_summary_per_backend(bench):
    """Rows of both backends: one summary each, both against the same in-process rows."""
    rows = [
        _row(0, 100.0, 200.0, 200.0),
        {**_row(1, 80.0, 150.0, 150.0), "backend": "process"},
        {**_row(1, 95.0, 190.0, 190.0), "backend": "thread"},
        {**_row(2, 120.0, 140.0, 270.0), "backend": "process"},
        {**_row(2, 171.0, 180.0, 342.0), "backend": "thread"},
    ]
    proc, thr = bench.scaling_summary(rows)
    assert (proc["backend"], thr["backend"]) == ("process", "thread")
    assert (
        proc["median"]["0"]
        == thr["median"]["0"]
        == {
            "decisions_per_s": 100.0,
            "decisions_per_total_cpu_s": 200.0,
            "decisions_per_critical_cpu_s": 200.0,
        }
    )
    assert proc["speedup_wall_2_vs_1"] == 1.5 and thr["speedup_wall_2_vs_1"] == 1.8
    assert proc["speedup_critical_cpu_2_vs_1"] == 1.8 and thr["overhead_k1_total_cpu"] == 0.05
    assert thr["overhead_k1_wall"] == 0.05 and proc["overhead_k1_wall"] == 0.2


def test_sb3_and_workers_rows(bench, capsys):
    bench.main(["--paths", "sb3", "--batch", "3", "--seconds", "0.05"])
    bench.main(["--batch", "3", "--workers", "0", "1", "--seconds", "0.05", "--lockstep", "0"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["bench"] for r in rows] == ["sb3", "env", "env", "env", "scaling", "scaling"]
    sb3 = rows[0]
    assert sb3["learner_steps"] == 3 * sb3["vec_steps"] > 0 and sb3["learner_steps_per_s"] > 0
    # one command: in process, then k = 1 on both backends (the default --backends)
    assert [(r["workers"], r["backend"]) for r in rows[1:4]] == [
        (0, "inprocess"),
        (1, "process"),
        (1, "thread"),
    ]
    for r in rows[2:4]:
        assert len(r["worker_cpu_seconds"]) == 1 and r["parent_cpu_seconds"] >= 0
        assert r["decisions_per_critical_cpu_s"] > 0 and r["decisions_per_total_cpu_s"] > 0
    assert [s["backend"] for s in rows[4:]] == ["process", "thread"]
    for summary in rows[4:]:
        assert summary["repeats"] == 1 and set(summary["median"]) == {"0", "1"}
        assert summary["median"]["0"] == rows[4]["median"]["0"]  # the in-process row, shared
        assert "overhead_k1_total_cpu" in summary and summary["commit"] is not None
    assert all("loadavg_1m" in r for r in rows)
    argv = ["--batch", "2", "--workers", "0", "1", "2", "--backends", "thread", "--seconds", "0.05"]
    bench.main([*argv, "--lockstep", "4"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["bench"], r.get("backend"), r.get("workers")) for r in rows] == [
        ("env", "inprocess", 0),
        ("env", "thread", 1),
        ("env", "thread", 2),
        ("scaling", "thread", None),
        ("lockstep", "inprocess", 0),  # the same games, every env timed at every step
        ("lockstep", "thread", 1),
        ("lockstep", "thread", 2),
        ("lockstep_summary", "thread", None),
    ]
    lock = rows[4:7]
    assert len({r["decisions_per_step"] for r in lock}) == 1  # identical games
    assert [len(r["shard_cpu_ms_per_step"]) for r in lock] == [0, 1, 2]
    for r in lock:
        assert r["steps"] == 4 and r["wall_ms_per_step"] > 0 and r["cpu_ms_per_step"] > 0
    assert {"overhead_k1_cpu", "overhead_k1_wall", "speedup_2_vs_1_wall"} <= set(rows[7])


def test_lockstep_summary_on_known_rows(bench):
    def row(k, backend, wall, cpu, critical):
        return {
            "batch": 8,
            "workers": k,
            "backend": backend,
            "wall_ms_per_step": wall,
            "cpu_ms_per_step": cpu,
            "critical_cpu_ms_per_step": critical,
        }

    rows = [
        {**row(0, "inprocess", 4.0, 4.0, 4.0), "policy": "uniform"},
        row(1, "process", 5.0, 4.4, 4.4),
        row(1, "thread", 4.2, 4.1, 4.1),
        row(2, "process", 4.0, 5.0, 2.75),
        row(2, "thread", 2.8, 4.4, 2.5),
    ]
    proc, thr = bench.lockstep_summary(rows)
    assert (proc["backend"], thr["backend"]) == ("process", "thread")
    assert proc["overhead_k1_cpu"] == 0.1 and proc["overhead_k1_wall"] == 0.25
    assert thr["overhead_k1_cpu"] == 0.025 and thr["overhead_k1_wall"] == 0.05
    assert proc["speedup_2_vs_1_wall"] == 1.25 and proc["speedup_2_vs_1_critical_cpu"] == 1.6
    assert thr["speedup_2_vs_1_wall"] == 1.5 and thr["speedup_2_vs_1_critical_cpu"] == 1.64


def test_warm_up_plays_until_two_hands_per_table(bench):
    """All tables are dealt at once: no hand ends for the first stretch, then many do. The
    warm-up must not stop before 2 hands per table have ended (the timing would otherwise
    start in the synchronized first hands and count few of them)."""
    calls = []

    def one_step():  # 8 tables: nothing ends for 80 steps, then one hand a step
        calls.append(1)
        return 0 if len(calls) <= 80 else 1

    warm = bench.warm_up(one_step, 8, seconds=1.0)
    assert warm == {"warmup_steps": 96, "warmup_hands": 16, "warmup_steady": True}
    never = bench.warm_up(lambda: 0, 8, seconds=1.0, max_seconds=0.05)  # bounded in time
    assert never["warmup_steady"] is False and never["warmup_hands"] == 0


def test_encode_rows(bench, capsys):
    bench.main(["--paths", "encode", "--batch", "2", "--seconds", "0.05"])
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["bench"] == "encode" and row["batch"] == 2 and row["rows_per_call"] > 0
    for eid in bench.ENCODE_IDS:
        assert row[f"{eid}_rows_per_cpu_s"] > 0 and row[f"{eid}_us_per_call"] > 0


def test_uniform_env_rows_draw_inside_the_env(bench, capsys):
    """``--policy uniform_env``: the sharded rows play ``step_random`` (drawn in the shards),
    the in-process row the same keyed draws; the lockstep rows check the envs play the same
    games (they raise if ``to_act`` diverges) and the scaling row is keyed by the policy."""
    argv = ["--batch", "3", "--workers", "0", "1", "2", "--policy", "uniform_env"]
    bench.main([*argv, "--backends", "process", "--seconds", "0.05", "--lockstep", "6"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["bench"], r.get("workers")) for r in rows] == [
        ("env", 0),
        ("env", 1),
        ("env", 2),
        ("scaling", None),
        ("lockstep", 0),
        ("lockstep", 1),
        ("lockstep", 2),
        ("lockstep_summary", None),
    ]
    assert {r["policy"] for r in rows} == {"uniform_env"}
    assert all(r["decisions"] > 0 for r in rows[:3])
    assert len({r["decisions_per_step"] for r in rows[4:7]}) == 1


def test_spin_backend_labels(bench):
    """``--spin``: one process-backend label per value; other backends unchanged."""
    assert bench._backend_labels(["process", "thread"], None) == ["process", "thread"]
    assert bench._backend_labels(["process", "thread"], [0.0, 2e-4]) == [
        "process/spin=0",
        "process/spin=0.0002",
        "thread",
    ]
    assert bench._split_label("process/spin=0.0002") == {"backend": "process", "spin": 0.0002}
    assert bench._split_label("thread") == {"backend": "thread"}


BAD_SIZES = [
    ("bench_agents", ["--batch", "0"], "argument --batch: must be >= 1, got 0"),
    ("bench_agents", ["--hands", "-3"], "argument --hands: must be >= 1, got -3"),
    ("bench_botzone", ["export", "--games", "0"], "argument --games: must be >= 1, got 0"),
    ("bench_engine", ["--batch", "64", "0"], "argument --batch: must be >= 1, got 0"),
    ("bench_engine", ["--workers", "-1"], "argument --workers: must be >= 0, got -1"),
    ("bench_engine", ["--independent", "0"], "argument --independent: must be >= 1, got 0"),
    ("bench_engine", ["--seconds", "0"], "argument --seconds: must be a finite number > 0, got 0"),
    ("bench_env_split", ["--batch", "-8"], "argument --batch: must be >= 1, got -8"),
    ("bench_rollout", ["--batch", "0"], "argument --batch: must be >= 1, got 0"),
    ("bench_rollout", ["--workers", "0"], "argument --workers: must be >= 1, got 0"),
    ("bench_scoring", ["--hands", "0"], "argument --hands: must be >= 1, got 0"),
    ("bench_shanten", ["--batch", "0"], "argument --batch: must be >= 1, got 0"),
    ("bench_train", ["--batch", "0"], "argument --batch: must be >= 1, got 0"),
    (
        "bench_train",
        ["--sizes", "0x1"],
        "argument --sizes: need channels >= 1 and blocks >= 0, got '0x1'",
    ),
    ("bench_vs_anchors", ["--rounds", "0"], "argument --rounds: must be >= 1, got 0"),
    (
        "bench_vs_anchors",
        ["--seconds", "nan"],
        "argument --seconds: must be a finite number > 0, got nan",
    ),
]


def test_every_bench_script_has_a_bad_size_case():
    scripts = {p.stem for p in (ROOT / "scripts").glob("bench_*.py")}
    assert {s for s, _, _ in BAD_SIZES} == scripts - {"bench_args"}


@pytest.mark.parametrize(("script", "argv", "message"), BAD_SIZES)
def test_bad_sizes_are_one_line_usage_errors(capsys, script, argv, message):
    """Reproducer: ``--batch 0`` (and negative sizes) were tracebacks from inside the run."""
    with pytest.raises(SystemExit) as e:
        load_script(script).main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1].endswith(f": error: {message}"), err


def test_independent_rows_are_the_ceiling(bench, capsys):
    """``--independent 1 2``: n independent in-process env processes of B / n tables each,
    started together after their warm-ups, pinned one per CPU; their rows add up the
    processes' rates and the scaling row of backend ``independent`` is their speed-up."""
    argv = ["--batch", "5", "--independent", "1", "2", "--policy", "uniform_env"]
    bench.main([*argv, "--seconds", "0.05"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["bench"], r["backend"], r.get("workers")) for r in rows] == [
        ("independent", "independent", 1),
        ("independent", "independent", 2),
        ("scaling", "independent", None),
    ]
    one, two, summary = rows
    assert [p["first_game"] for p in two["process_rows"]] == [0, 3]  # the shards' tables
    assert [p["batch"] for p in two["process_rows"]] == [3, 2]
    assert len(one["process_rows"]) == 1 and one["process_rows"][0]["batch"] == 5
    cores = bench._cores()
    assert two["cores"] == [cores[0], cores[1 % len(cores)]]
    for r in (one, two):
        per = r["process_rows"]
        assert r["decisions"] > 0 and r["obs_dtype"] == "float32"
        assert r["decisions_per_s"] == pytest.approx(sum(p["decisions_per_s"] for p in per), 1e-3)
        crit = sum(p["decisions_per_cpu_s"] for p in per)
        assert r["decisions_per_critical_cpu_s"] == pytest.approx(crit, rel=1e-3, abs=0.5)
    assert summary["speedup_wall_2_vs_1"] == round(
        two["decisions_per_s"] / one["decisions_per_s"], 3
    )
    with pytest.raises(ValueError, match="independent processes must be 1..batch = 2"):
        bench.bench_independent(2, 0.05, workers=3)


def test_scaling_rows_against_the_ceiling(bench):
    """A shard backend's summary next to the independent processes' of the same key."""
    rows = [
        {**_row(1, 100.0, 100.0, 100.0), "backend": "process"},
        {**_row(2, 150.0, 90.0, 170.0), "backend": "process"},
        {**_row(1, 100.0, 100.0, 100.0), "backend": "independent"},
        {**_row(2, 160.0, 80.0, 180.0), "backend": "independent"},
        {**_row(2, 1.0, 1.0, 1.0, batch=64), "backend": "process"},  # no ceiling of its own
    ]
    proc, ind, small = bench.scaling_summary(rows)
    assert ind["speedup_wall_2_vs_1"] == 1.6 and "vs_independent_wall_2" not in ind
    assert proc["ceiling_wall_2_vs_1"] == 1.6
    assert proc["vs_independent_wall_2"] == round(150 / 160, 3)
    assert proc["vs_independent_critical_cpu_2"] == round(170 / 180, 3)
    assert not any(k.startswith(("ceiling", "vs_independent")) for k in small)


def test_lockstep_rows_in_blocks_and_uint8(bench, capsys):
    """``--lockstep-block``: each env plays its steps in turns of that many (warm caches), the
    same games still (the rows raise if ``to_act`` diverges); ``--obs-dtype`` reaches the
    lockstep envs (one set of rows per dtype)."""
    argv = ["--batch", "3", "--workers", "0", "1", "--backends", "process", "--seconds", "0.05"]
    bench.main([*argv, "--obs-dtype", "uint8", "float32", "--lockstep", "7"])
    bench.main([*argv, "--obs-dtype", "uint8", "--lockstep", "7", "--lockstep-block", "3"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    lock = [r for r in rows if r["bench"] == "lockstep"]
    assert [(r["obs_dtype"], r["block"], r["workers"]) for r in lock] == [
        ("uint8", 1, 0),
        ("uint8", 1, 1),
        ("float32", 1, 0),
        ("float32", 1, 1),
        ("uint8", 3, 0),
        ("uint8", 3, 1),
    ]
    for r in lock:
        assert r["steps"] == 7 and r["wall_ms_per_step"] > 0
    for a, b in zip(lock[::2], lock[1::2]):  # the same games, hence the same decisions
        assert a["decisions_per_step"] == b["decisions_per_step"]
    summaries = [r for r in rows if r["bench"] == "lockstep_summary"]
    assert [s["obs_dtype"] for s in summaries] == ["uint8", "float32", "uint8"]
    with pytest.raises(ValueError, match="block must be >= 1"):
        bench.bench_lockstep(3, 2, [(0, "process")], block=0)


def test_env_rows_report_the_handoff_waits(bench):
    """A process-backend row with k = 2 says how its timed steps' waits went (counts add up:
    every wait was answered at once, while polling or after blocking)."""
    row = bench.bench_env(4, 0.05, workers=2, policy="uniform_env")
    (w,) = row["waits"]
    assert w["done"]["waits"] == row["steps"]  # the caller waited once per step
    assert w["command"]["waits"] == row["steps"] + 1  # and the worker (+ the query's own)
    for part in ("done", "command"):
        st = w[part]
        assert st["at_once"] + st["polled"] + st["blocked"] == st["waits"]
    assert "waits" not in bench.bench_env(4, 0.05, workers=2, backend="thread")

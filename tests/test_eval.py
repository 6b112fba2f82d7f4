import json
import sys

import numpy as np
import pytest
from script_helpers import load_script

from baselines.agents import RandomAgent, RuleBasedAgent
from mcr_env.eval import duplicate_evaluate, make_walls, seat_permutations, write_results


def test_seat_permutations():
    rot = seat_permutations("rotations")
    assert rot.tolist() == [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]
    allp = seat_permutations("all")
    assert allp.shape == (24, 4)
    assert len({tuple(r) for r in allp}) == 24
    for perms in (rot, allp):
        # every position sits in every seat equally often
        for k in range(4):
            assert np.bincount(perms[:, k], minlength=4).tolist() == [len(perms) // 4] * 4
    with pytest.raises(ValueError, match="rotations, all"):
        seat_permutations("some")


@pytest.mark.parametrize("mode", ["rotations", "all"])
def test_duplicate_seating_every_agent_every_seat_every_wall(mode):
    a, b, c, d = (RandomAgent(seed=i, name=f"r{i}") for i in range(4))
    res = duplicate_evaluate([a, b, c, d], 2, permutations=mode, seed=7, progress=False)
    n_perm = 4 if mode == "rotations" else 24
    assert res.seats.shape == (2, n_perm, 4)
    for w in range(2):
        for pos in range(4):
            counts = np.bincount(res.seats[w, :, pos], minlength=4)
            assert counts.tolist() == [n_perm // 4] * 4
        # each permutation is a bijection positions -> seats
        assert (np.sort(res.seats[w], axis=1) == np.arange(4)).all()
    assert [s.hands for s in res.stats] == [2 * n_perm] * 4


def test_duplicate_replays_the_same_wall():
    """Under every permutation of one wall the engine deals the same tiles to the same seats."""
    from mcr_env.engine.core import MCREngine

    walls = make_walls(2, seed=5)
    assert walls.shape == (2, 144)
    assert np.array_equal(walls, make_walls(2, seed=5))
    assert not np.array_equal(walls, make_walls(2, seed=6))
    e = MCREngine(4)
    e.reset(walls=np.repeat(walls[:1], 4, axis=0))
    assert (e.state.hand == e.state.hand[:1]).all()


def test_duplicate_evaluation_deterministic_and_consistent():
    rule = RuleBasedAgent()
    kwargs = dict(walls=3, seed=11, batch_size=5, progress=False)
    r1 = duplicate_evaluate([rule, RandomAgent(seed=1), rule, rule], **kwargs)
    r2 = duplicate_evaluate([rule, RandomAgent(seed=1), rule, rule], **kwargs)
    assert np.array_equal(r1.points, r2.points)
    assert np.array_equal(r1.winner_pos, r2.winner_pos)
    assert [s.mean_points for s in r1.stats] == [s.mean_points for s in r2.stats]
    # settlements are zero-sum per hand; win/deal-in bookkeeping is consistent
    assert np.allclose(r1.points.sum(axis=2), 0)
    won = r1.winner_pos >= 0
    assert np.all(r1.points[won, r1.winner_pos[won]] > 0)
    assert np.all(np.isnan(r1.win_points[~won]))
    assert np.all(r1.win_points[won] >= 8)


def test_vs_random_metrics_and_files(tmp_path):
    rnd = RandomAgent(seed=0)
    res = duplicate_evaluate([RuleBasedAgent(), rnd, rnd, rnd], 4, seed=2, progress=False)
    rule, random = res.stat("rule"), res.stat("random")
    assert rule.hands == 16 and random.hands == 48
    assert rule.ci95_low <= rule.mean_points <= rule.ci95_high
    assert rule.hands * rule.mean_points + random.hands * random.mean_points == pytest.approx(0)
    for s in (rule, random):
        assert 0 <= s.self_draw_rate <= s.win_rate <= 1
        assert 0 <= s.deal_in_rate <= 1 and 0 <= s.draw_rate <= 1
    paths = write_results([res], tmp_path, meta={"seed": 2})
    data = json.loads(paths["json"].read_text())
    assert data["meta"] == {"seed": 2}
    assert data["matches"][0]["walls"] == 4 and data["matches"][0]["permutations"] == 4
    assert paths["csv"].read_text().splitlines()[0].startswith("match,agent,hands,mean_points")
    assert paths["png"].stat().st_size > 1000
    with pytest.raises(KeyError):
        res.stat("nobody")


def test_bad_arguments():
    rnd = RandomAgent()
    with pytest.raises(ValueError, match="4 agents"):
        duplicate_evaluate([rnd] * 3, 1, progress=False)
    with pytest.raises(ValueError, match="walls"):
        duplicate_evaluate([rnd] * 4, 0, progress=False)


class _AlwaysPass:
    """Agent answering Pass everywhere (illegal when it must discard)."""

    needs_obs = False
    needs_view = False
    name = "always-pass"

    def act(self, obs, mask, view=None):
        return np.zeros(mask.shape[0], dtype=np.int64)


class _OutOfRange(_AlwaysPass):
    name = "out-of-range"

    def act(self, obs, mask, view=None):
        return np.full(mask.shape[0], 300)


def test_play_games_names_the_agent_game_seat_and_action():
    from mcr_env.engine.core import MCREngine
    from mcr_env.eval.play import play_games

    eng = MCREngine(2)
    eng.reset(seed=0)
    idx = np.array([[1, 0, 0, 0], [0, 0, 0, 0]])
    with pytest.raises(
        ValueError,
        match=r"agent 'always-pass' \(agents\[1\]\) returned illegal action 0 \(Pass\) for "
        r"game 0, seat 0; legal: .*Play",
    ):
        play_games(eng, [RandomAgent(seed=0), _AlwaysPass()], idx)
    eng.reset(seed=0)
    with pytest.raises(ValueError, match=r"illegal action 300 \(out of range 0..234\)"):
        play_games(eng, [_OutOfRange()], np.zeros((2, 4), dtype=int))


@pytest.mark.parametrize(
    ("script", "argv", "message"),
    [
        ("evaluate", ["--agent", "foo"], "--agent 'foo': unknown agent spec 'foo'"),
        ("evaluate", ["--agent", "/nonexistent/x.pt"], "'/nonexistent/x.pt': checkpoint file"),
        ("evaluate", ["--agent", "rule", "--opponent", "BAD_PT"], "is not a torch checkpoint ("),
        ("evaluate", ["--agent", "rule", "--opponent", "bar"], "--opponent 'bar': unknown"),
        ("evaluate", ["--agent", "rule", "--walls", "0"], "--walls must be >= 1, got 0"),
        ("evaluate", ["--agent", "rule", "--batch-size", "0"], "--batch-size must be >= 1"),
        ("evaluate", ["--agent", "rule", "--walls", "x"], "invalid int value: 'x'"),
        ("evaluate", [], "the following arguments are required: --agent"),
        ("record", ["--agents", "foo"], "--agents 'foo': unknown agent spec 'foo'"),
        ("record", ["--games", "0"], "--games and --batch-size must be >= 1"),
        ("record", ["--agents", "rule,rule,rule"], "--agents takes 1, 2 (alternating) or 4"),
        # reproducers: a negative seed was blamed on the agent ("--agent 'random': expected
        # non-negative integer", numpy's words), --wall-offset -5 and a bot program that does
        # not exist were tracebacks (the latter deep in subprocess, in the middle of play)
        ("evaluate", ["--agent", "random", "--seed", "-1"], "--seed must be >= 0, got -1"),
        ("evaluate", ["--agent", "rule", "--wall-offset", "-5"], "--wall-offset must be >= 0"),
        ("record", ["--agents", "random", "--seed", "-1"], "--seed must be >= 0, got -1"),
        ("record", ["--agents", "cmd:bot,rule"], "--agents: outside Botzone bots (cmd:) are not"),
        (
            "evaluate",
            ["--agent", "rule", "--opponent", "cmd:/nonexistent/bot"],
            "--opponent 'cmd:/nonexistent/bot': bot program '/nonexistent/bot' not found",
        ),
        (
            "evaluate",
            ["--agent", "rule", "--opponent", f"cmd:{sys.executable}", "--cmd-timeout", "0"],
            "timeout must be a finite number of seconds > 0, got 0.0",
        ),
    ],
)
def test_scripts_report_user_errors_in_one_line(capsys, tmp_path, script, argv, message):
    """Reproducer: these printed whole tracebacks (exit 1); now one line and exit 2."""
    bad_pt = tmp_path / "bad.pt"
    bad_pt.write_text("not a checkpoint\n")
    argv = [str(bad_pt) if a == "BAD_PT" else a for a in argv]
    status = load_script(script).main([*argv, "--out", str(tmp_path / "o")])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"{script}.py: error: ") and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("script", "argv", "what"),
    [
        ("evaluate", ["--agent", "random", "--walls", "1", "--no-progress"], "the results"),
        ("record", ["--games", "1", "--no-progress"], "the records"),
    ],
)
def test_scripts_report_an_unwritable_out_in_one_line(capsys, tmp_path, script, argv, what):
    """Reproducer: ``--out`` below an existing file was a NotADirectoryError traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    out = blocker / ("o" if script == "evaluate" else "o.jsonl")
    status = load_script(script).main([*argv, "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 2 and "Traceback" not in captured.err
    assert captured.err.startswith(f"{script}.py: error: --out {str(out)!r}: cannot write {what}")
    assert captured.err.count("\n") == 1


def _strict_json(path):
    """Parse a file as strict JSON (NaN / Infinity are not JSON)."""

    def bad(constant):
        raise AssertionError(f"{path.name} is not strict JSON: {constant}")

    return json.loads(path.read_text(), parse_constant=bad)


def test_eval_json_is_strict_json_with_null_for_non_finite(tmp_path):
    """Reproducer: NaN / Infinity (an agent that never wins, --walls 1) in eval.json."""
    import math
    from pathlib import Path

    agents = [RandomAgent(seed=i, name=f"r{i}") for i in range(4)]
    res = duplicate_evaluate(agents, 1, seed=0, progress=False)
    meta = {
        "nan": float("nan"),
        "seq": [np.float32("inf"), np.int64(3), np.float64(0.5), (1, -math.inf)],
        "nested": {"x": -math.inf, "arr": np.array([1.0, np.nan])},
        "path": Path("a/b"),
        "flag": np.bool_(True),
    }
    write_results([res], tmp_path, meta=meta)
    data = _strict_json(tmp_path / "eval.json")
    assert data["meta"] == {
        "nan": None,
        "seq": [None, 3, 0.5, [1, None]],
        "nested": {"x": None, "arr": [1.0, None]},
        "path": "a/b",
        "flag": True,
    }
    stats = data["matches"][0]["stats"]
    assert all(s["hands"] == 4 for s in stats)
    for s in stats:  # one wall: no confidence interval; agents that never won: no mean
        if s["win_rate"] == 0:
            assert s["mean_win_points"] is None

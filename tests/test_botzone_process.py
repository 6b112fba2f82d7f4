"""Outside Botzone bots as agents (BotzoneProcessAgent): our own bot script and a tiny
independent bot as outside processes, keep-running and one process per turn; bots that time
out, crash, answer a notification or play illegally are penalized as the judge does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from botzone_helpers import TINY_BOT

from baselines.agents import RandomAgent
from mcr_env.botzone.process import BotzoneProcessAgent
from mcr_env.engine import EndReason, MCREngine, RulesConfig
from mcr_env.eval import duplicate_evaluate
from mcr_env.eval.play import play_games

ROOT = Path(__file__).resolve().parent.parent
JUDGE = RulesConfig(wall_layout="botzone", scoring_profile="botzone", illegal_action="penalize")

MISBEHAVE = r"""
import sys, time
mode = sys.argv[1]
KEEP = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"
seen = 0
for raw in sys.stdin:
    line = raw.strip()
    if not line or (seen == 0 and line.isdigit()):
        continue
    seen += 1
    t = line.split()
    ans = "PASS"
    if mode == "sleep" and t[0] == "2":
        time.sleep(120)
    if mode == "crash" and t[0] == "2":
        sys.exit(3)
    if mode == "not-pass" and t[0] == "3":
        ans = "HU"
    if mode == "illegal" and t[0] == "2":
        ans = "PLAY J3" if t[1] != "J3" else "PLAY J2"
    if mode == "garbage" and t[0] == "2":
        ans = "DISCARD NOW"
    if mode == "lowercase" and t[0] == "2":
        ans = "play " + t[1].lower()
    if mode == "spaces" and t[0] == "2":
        ans = "PLAY  " + t[1]
    print(ans)
    print(KEEP)
    sys.stdout.flush()
"""


@pytest.fixture(scope="module")
def bots(tmp_path_factory):
    d = tmp_path_factory.mktemp("bots")
    (d / "tiny.py").write_text(TINY_BOT)
    (d / "bad.py").write_text(MISBEHAVE)
    return d


def test_tiny_bot_keep_running_in_duplicate_evaluation(bots):
    tiny = BotzoneProcessAgent([sys.executable, str(bots / "tiny.py")], io="simple", name="tiny")
    res = duplicate_evaluate(
        [RandomAgent(seed=3), tiny, tiny, tiny],
        3,
        seed=5,
        batch_size=12,
        rules=JUDGE,
        progress=False,
    )
    assert tiny.incidents == []
    assert res.stat("tiny").hands == 3 * 4 * 3
    assert res.stat("tiny").win_rate == 0.0  # it never declares Hu
    assert tiny.starts == 12 * 3  # one process per (game, seat): keep-running
    assert len(tiny.seconds) > 12 * 3 * 10
    assert np.allclose(res.points.sum(axis=2), 0)
    assert not np.isin(res.end_reason, [int(EndReason.PENALTY)]).any()


def test_tiny_bot_one_process_per_turn(bots):
    tiny = BotzoneProcessAgent([sys.executable, str(bots / "tiny.py"), "--once"], io="simple")
    eng = MCREngine(1, JUDGE)
    eng.reset(seed=9)
    play_games(eng, [RandomAgent(seed=0), tiny], np.array([[0, 1, 0, 0]]))
    assert tiny.incidents == []
    assert eng.terminated.all()
    assert int(eng.state.end_reason[0]) != int(EndReason.PENALTY)
    assert tiny.starts > 20  # a process per answered request
    assert tiny.starts == tiny.requests


@pytest.mark.parametrize("io", ["json", "simple"])
def test_our_bot_script_as_an_outside_process(io):
    cmd = [sys.executable, str(ROOT / "scripts" / "botzone_bot.py"), "--agent", "random"]
    ours = BotzoneProcessAgent(cmd, io=io, timeout=60, name="script")
    res = duplicate_evaluate(
        [RandomAgent(seed=1), ours, ours, ours],
        1,
        seed=2,
        batch_size=4,
        rules=JUDGE,
        progress=False,
    )
    assert ours.incidents == []
    assert ours.starts == 4 * 3
    assert res.stat("script").hands == 12
    assert not np.isin(res.end_reason, [int(EndReason.PENALTY)]).any()


@pytest.mark.parametrize(
    "mode,kind",
    [
        ("sleep", "timeout"),
        ("crash", "crash"),
        ("not-pass", "not-pass"),
        ("illegal", "illegal"),
        ("garbage", "bad-output"),
        ("lowercase", "bad-output"),
        ("spaces", "bad-output"),
    ],
)
def test_misbehaving_bots_are_penalized_like_the_judge_does(bots, mode, kind):
    bad = BotzoneProcessAgent(
        [sys.executable, str(bots / "bad.py"), mode], io="simple", timeout=8.0
    )
    eng = MCREngine(1, JUDGE)
    eng.reset(seed=4)
    points = play_games(eng, [RandomAgent(seed=0), bad], np.array([[0, 0, 1, 0]]))
    # reproducer (lowercase, spaces): "play w1" and "PLAY  W1" were read as PLAY W1, which the
    # judge rejects (it compares verbs and codes exactly and splits at every single space)
    assert [i.kind for i in bad.incidents] == [kind]
    assert bad.incidents[0].seat == 2
    assert points[0].tolist() == [10, 10, -30, 10]
    assert eng.last_hand_result[0].end_reason == EndReason.PENALTY
    assert bad._procs == {}  # processes of the finished game are gone


def test_bot_commands_are_checked_when_the_agent_is_built(tmp_path):
    """Reproducer: ``cmd:/nonexistent/bot`` was accepted and raised FileNotFoundError from
    subprocess at the bot's first turn (mcr-play, scripts/evaluate.py)."""
    with pytest.raises(ValueError) as err:
        BotzoneProcessAgent("/nonexistent/bot --fast")
    assert str(err.value) == "bot program '/nonexistent/bot' not found (not an executable file)"
    script = tmp_path / "bot.py"
    script.write_text("print('PASS')\n")  # a file, but not executable
    with pytest.raises(ValueError, match="not found"):
        BotzoneProcessAgent([str(script)])
    with pytest.raises(ValueError, match="finite number of seconds > 0, got -1"):
        BotzoneProcessAgent([sys.executable], timeout=-1)
    with pytest.raises(ValueError, match="got inf"):
        BotzoneProcessAgent([sys.executable], timeout=float("inf"))


def test_a_bot_that_cannot_start_is_penalized_as_a_crash(tmp_path):
    """A program removed after the agent was built: its seat pays 30 (a crash), no traceback."""
    prog = tmp_path / "bot"
    prog.write_text("#!/bin/sh\nexit 0\n")
    prog.chmod(0o755)
    gone = BotzoneProcessAgent([str(prog)], io="simple")
    prog.unlink()
    eng = MCREngine(1, JUDGE)
    eng.reset(seed=4)
    points = play_games(eng, [RandomAgent(seed=0), gone], np.array([[0, 0, 1, 0]]))
    assert [(i.kind, i.seat) for i in gone.incidents] == [("crash", 2)]
    assert gone.incidents[0].detail.startswith("cannot start the bot ([Errno 2]")
    assert points[0].tolist() == [10, 10, -30, 10]
    assert eng.last_hand_result[0].end_reason == EndReason.PENALTY


def test_rules_must_be_the_judges(bots):
    tiny = BotzoneProcessAgent([sys.executable, str(bots / "tiny.py")], io="simple")
    eng = MCREngine(1, RulesConfig(wall_layout="botzone"))
    eng.reset(seed=0)
    with pytest.raises(ValueError, match="illegal_action='penalize'"):
        play_games(eng, [tiny], np.zeros((1, 4), dtype=np.int64))


def test_evaluate_script_with_a_cmd_opponent(bots, tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "evaluate.py"),
            "--agent",
            "random",
            "--opponent",
            f"cmd:{sys.executable} {bots / 'tiny.py'}",
            "--cmd-io",
            "simple",
            "--cmd-timeout",
            "30",
            "--walls",
            "2",
            "--out",
            str(tmp_path / "eval"),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert "cmd:" in out.stdout and "incidents: 0" in out.stdout


def test_an_outside_bot_as_env_opponent(bots):
    from mcr_env.envs.gym_env import MCREnv

    tiny = BotzoneProcessAgent([sys.executable, str(bots / "tiny.py")], io="simple", name="tiny")
    env = MCREnv(config=JUDGE, opponents=tiny, learner_seat=1)
    rng = np.random.default_rng(0)
    hands = 0
    obs, info = env.reset(seed=3)
    for _ in range(2000):
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, r, term, trunc, info = env.step(a)
        if term or trunc:
            hands += 1
            assert int(env.unwrapped._t.engine.state.end_reason[0]) != int(EndReason.PENALTY)
            if hands == 3:
                break
            obs, info = env.reset()
    assert hands == 3
    assert tiny.incidents == [] and tiny.requests > 100
    tiny.close()

"""A new user's mistakes at the command line (README commands) and in env arguments: each
gives one error line (or a ValueError/TypeError) naming the argument or file, never a
traceback deep inside, a misleading message or a silent wrong result. Every case here was one
of those before (the reproducers)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from script_helpers import load_script

from mcr_env.play import html, terminal

ROOT = Path(__file__).resolve().parent.parent
DEAL = "1 0 0 0 0 W1 W2 W3 W4 W5 W6 W7 W8 W9 T1 T2 T3 T4"


def _one_line(err: str, prefix: str) -> str:
    """The single error line of ``err`` (asserted), without the ``prefix``."""
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith(prefix), err
    return err[len(prefix) :].rstrip("\n")


def test_replay_missing_and_empty_files(capsys, tmp_path):
    """Reproducer: ``replay.py nofile.jsonl`` was a FileNotFoundError traceback; an empty
    file with ``--index 0`` said ``--index 0 out of range 0..-1``."""
    replay = load_script("replay")
    missing = tmp_path / "nofile.jsonl"
    assert replay.main([str(missing)]) == 1
    msg = _one_line(capsys.readouterr().err, "error: ")
    assert msg == f"[Errno 2] No such file or directory: {str(missing)!r}"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(SystemExit) as ex:
        replay.main([str(empty), "--index", "0"])
    assert ex.value.code == 2
    assert capsys.readouterr().err.endswith(f" error: {empty} holds no records\n")
    assert replay.main([str(empty)]) == 0  # verifying every record of an empty file is fine
    assert capsys.readouterr().out == "0 record(s) verified\n"


def test_mcr_view_empty_file_and_unwritable_out(capsys, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert html.main([str(empty)]) == 2
    assert _one_line(capsys.readouterr().err, "mcr-view: error: ") == f"{empty} holds no records"
    records = tmp_path / "one.jsonl"
    assert load_script("record").main(["--games", "1", "--no-progress", "--out", str(records)]) == 0
    capsys.readouterr()
    blocker = tmp_path / "file"
    blocker.write_text("")
    out = blocker / "x.html"
    assert html.main([str(records), "--out", str(out)]) == 2
    msg = _one_line(capsys.readouterr().err, "mcr-view: error: ")
    assert msg.startswith(f"--out {str(out)!r}: cannot write the page ([Errno 17] File exists")


def test_mcr_view_help_describes_the_command_in_full(capsys):
    """Reproducer: the description stopped mid-sentence ("... write record i of")."""
    with pytest.raises(SystemExit):
        html.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Write record i of a JSONL file of game records as one self-contained HTML page" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-5"], "--seed must be >= 0, got -5"),
        (
            ["--opponents", "cmd:/nonexistent/bot"],
            "--opponents 'cmd:/nonexistent/bot': bot program '/nonexistent/bot' not found "
            "(not an executable file)",
        ),
    ],
)
def test_mcr_play_bad_seed_and_missing_bot(capsys, argv, message):
    """Reproducers: ``--seed -5`` said ``--opponents 'random': unknown agent spec 'random';
    ...; plugins: baselines: expected non-negative integer``; a missing bot program started
    the hand and died with a FileNotFoundError traceback at the bot's first turn."""
    assert terminal.main(argv) == 2
    assert _one_line(capsys.readouterr().err, "mcr-play: error: ") == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json\n", "bad input: Expecting property name enclosed in double quotes"),
        ("garbage\n", "bad input: simple I/O input must start with the turn number"),
        (
            json.dumps(
                {
                    "requests": ["0 0 0", "1 0 0 0 0 W1 W1 W1 W1 W1 W6 W7 W8 W9 T1 T2 T3 T4"],
                    "responses": ["PASS"],
                }
            )
            + "\n",
            "bad input: request '1 0 0 0 0 W1 W1 W1 W1 W1 W6 W7 W8 W9 T1 T2 T3 T4': seat 0 would "
            "see 5 copies of W1 (4 exist)",
        ),
    ],
)
def test_botzone_bot_bad_input_is_one_line(capsys, monkeypatch, text, message):
    """Reproducer: malformed requests were RequestError/JSONDecodeError tracebacks."""
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert load_script("botzone_bot").main(["--agent", "random", "--once"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert _one_line(captured.err, "botzone_bot.py: error: ").startswith(message)


def test_a_file_that_is_not_a_checkpoint(capsys, tmp_path):
    """Reproducer: ``export_botzone.py /etc/passwd`` was an IndexError traceback from inside
    torch.load; load_checkpoint documents ValueError for a file that is not a checkpoint."""
    from baselines.network import load_checkpoint

    bad = tmp_path / "notes.pt"
    bad.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(ValueError) as err:
        load_checkpoint(bad)
    assert str(err.value).startswith(f"{bad} is not a torch checkpoint (")
    out = tmp_path / "bot.zip"
    assert load_script("export_botzone").main([str(bad), "--out", str(out)]) == 2
    msg = _one_line(capsys.readouterr().err, "export_botzone.py: error: ")
    assert msg.startswith(f"checkpoint {str(bad)!r}: {bad} is not a torch checkpoint (")
    assert not out.exists()


# ------------------------------------------------------------- checkpoints with feature planes
def _checkpoint(path, enc="planes-v0+look-v0"):
    """A small untrained policy on ``enc`` (default: the default training config's
    observation, registered by ``baselines.features``) saved as a checkpoint."""
    import baselines.features  # noqa: F401 (registers the encoder, for its channel count)
    from baselines.config import NetworkConfig
    from baselines.network import PolicyValueNet, save_checkpoint
    from mcr_env.encoding import get_encoder

    net = PolicyValueNet(get_encoder(enc).shape[0], NetworkConfig(8, 1, 16), encoder=enc)
    return save_checkpoint(net, path)


def test_scripts_play_a_checkpoint_on_feature_planes(tmp_path):
    """Reproducer: ``record.py --agents final.pt`` and ``mcr-play --opponents ...final.pt`` of
    a checkpoint trained with the default config stopped with ``unknown encoder
    'planes-v0+look-v0'`` (nothing had imported ``baselines.features``); a fresh process, as
    a user runs them."""
    ckpt = _checkpoint(tmp_path / "final.pt")
    out = tmp_path / "r.jsonl"
    argv = ["--games", "2", "--agents", f"{ckpt},rule", "--out", str(out), "--no-progress"]
    run = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "record.py"), *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout)["agents"] == [str(ckpt), "rule", str(ckpt), "rule"]
    assert len(out.read_text().splitlines()) == 2


def test_checkpoints_on_different_observations(capsys, tmp_path):
    """mcr-play encodes each opponent's own observation (a planes-v0 and a +look-v0 policy at
    one table); record.py, whose games feed one encoder, says so in one line."""
    from baselines.agents import RuleBasedAgent, TorchPolicyAgent

    look = _checkpoint(tmp_path / "look.pt")
    planes = _checkpoint(tmp_path / "planes.pt", "planes-v0")
    opponents = [TorchPolicyAgent.from_checkpoint(p) for p in (look, planes)] + [RuleBasedAgent()]
    out: list[str] = []

    def read(prompt):
        return "1"

    game = terminal.TerminalGame(0, opponents, seed=3, read=read, write=out.append)
    assert [e.id if e else None for e in game.encoders] == [
        "planes-v0+look-v0",
        "planes-v0",
        None,
    ]
    result = game.play()
    assert not result["quit"] and out[-1] == "game over"
    status = load_script("record").main(["--agents", f"{look},{planes}", "--out", str(tmp_path)])
    assert status == 2
    assert _one_line(capsys.readouterr().err, "record.py: error: ") == (
        "--agents read different observations: ['planes-v0', 'planes-v0+look-v0']"
    )


def test_botzone_bot_encodes_what_the_agent_reads(capsys, monkeypatch, tmp_path):
    """Reproducer: ``botzone_bot.py --agent final.pt`` (a +look-v0 policy) failed with
    ``obs must be (N, 85, 34), got (1, 75, 34)``: the bot always encoded planes-v0."""
    ckpt = _checkpoint(tmp_path / "final.pt")
    text = json.dumps({"requests": ["0 0 0", DEAL, "2 J1"], "responses": ["PASS", "PASS"]})
    monkeypatch.setattr("sys.stdin", io.StringIO(text + "\n"))
    assert load_script("botzone_bot").main(["--agent", str(ckpt), "--once"]) == 0
    answer = json.loads(capsys.readouterr().out)["response"]
    assert answer.split()[0] == "PLAY" and answer.split()[1] in DEAL.split()[5:] + ["J1"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--config", "nofile.yaml"], "--config 'nofile.yaml': no such file"),
        (["--set", "ppo.foo=1"], "unknown key(s) ['foo'] in section 'ppo' (PPOConfig); valid"),
        (["--set", "ppo.lr=abc"], "ppo.lr: expected a number, got 'abc'"),
        (["--set", "ppo.lr"], "override 'ppo.lr' must look like section.key=value"),
        (["--set", "ppo.iterations=-1"], "config ppo.iterations: must be >= 0, got -1"),
    ],
)
def test_train_config_errors_are_one_line(capsys, argv, message):
    """Reproducer: a missing config file or a bad ``--set`` was a traceback."""
    if argv[0] == "--set":
        argv = ["--config", str(ROOT / "configs" / "smoke.yaml"), *argv]
    with pytest.raises(SystemExit) as ex:
        load_script("train").main(argv)
    assert ex.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and message in err.splitlines()[-1]


# ------------------------------------------------------------------------ env arguments
def test_env_arguments_a_new_user_gets_wrong():
    """Reproducers: ``encoder=5`` was an AttributeError ('int' object has no attribute
    'shape'); ``learner_seat=True`` was taken as seat 1; ``options={"walls": (2, 144)}`` was
    reported as a wall of shape (1, 288)."""
    from mcr_env.envs.batch import MCRBatchEnv
    from mcr_env.pettingzoo import parallel_env

    for make in (
        lambda: gym.make("mcr_env/MCR-v0", encoder=5),
        lambda: MCRBatchEnv(2, encoder=5),
        lambda: parallel_env(encoder=5),
    ):
        with pytest.raises(TypeError, match=r"encoder must be an encoder id \(str, one of .*"):
            make()
    with pytest.raises(ValueError, match="learner_seat must be 0..3 or 'random', got True"):
        gym.make("mcr_env/MCR-v0", learner_seat=True)
    env = gym.make("mcr_env/MCR-v0")
    with pytest.raises(ValueError) as err:
        env.reset(options={"walls": np.zeros((2, 144), dtype=np.int64)})
    assert str(err.value) == "options['walls'] must be one wall, (L,) tile ids, got shape (2, 144)"


def test_gymnasium_and_pettingzoo_on_feature_planes():
    """Reproducer: ``gym.make("mcr_env/MCR-v0", encoder="planes-v0+look-v0")`` (the trained
    policy's observation) was an AttributeError (its encoder has no named pieces for the
    space bounds); now unbounded float32 channels, and Gymnasium's check_env passes."""
    import baselines.features  # noqa: F401 (registers planes-v0+look-v0)
    from mcr_env.pettingzoo import parallel_env

    env = gym.make("mcr_env/MCR-v0", encoder="planes-v0+look-v0")
    space = env.observation_space["observation"]
    assert space.shape == (85, 34) and np.isinf(space.low).all() and np.isinf(space.high).all()
    obs, _ = env.reset(seed=0)
    assert obs["observation"].shape == (85, 34) and space.contains(obs["observation"])
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = parallel_env(encoder="planes-v0+look-v0").reset(seed=0)
    assert obs["player_0"]["observation"].shape == (85, 34)


def test_agent_specs_a_plugin_recognises_but_cannot_build(capsys, tmp_path):
    """Reproducer: a file that is not a checkpoint (or a negative seed) was reported as
    ``unknown agent spec 'bad.pt'; registered: none registered; plugins: baselines: ...``
    (mcr-play, the envs' opponent specs): the spec is known, building it failed."""
    from mcr_env.eval.registry import UnknownAgentSpec, make_agent

    bad = tmp_path / "bad.pt"
    bad.write_text("junk\n")
    with pytest.raises(ValueError) as err:
        make_agent(str(bad))
    # (through the "baselines" plugin, or directly when a script of this process has
    # registered the baselines' specs: then without the plugin's name)
    assert not isinstance(err.value, UnknownAgentSpec)
    assert (
        str(err.value).removeprefix("baselines: ").startswith(f"{bad} is not a torch checkpoint (")
    )
    with pytest.raises(ValueError) as err:
        gym.make("mcr_env/MCR-v0", opponents=str(bad))
    assert str(err.value).startswith(f"opponent spec {str(bad)!r}: baselines: {bad} is not a")
    with pytest.raises(UnknownAgentSpec, match="unknown agent spec 'nope'; registered: "):
        make_agent("nope")
    with pytest.raises(ValueError, match="seed must be >= 0, got -1"):
        make_agent("random", seed=-1)
    with pytest.raises(TypeError, match="seed must be an int, got float"):
        make_agent("random", seed=1.5)
    assert terminal.main(["--opponents", str(bad)]) == 2
    msg = _one_line(capsys.readouterr().err, "mcr-play: error: ")
    assert msg.startswith(f"--opponents {str(bad)!r}: ") and "unknown agent spec" not in msg
    assert msg.endswith(")") and f"{bad} is not a torch checkpoint (" in msg


def test_sb3_actions_and_scripted_wall_dealer():
    """Reproducers: ``MCRSB3VecEnv.step`` truncated float actions silently (``2.7`` played as
    2) and reported 3 actions for 4 tables as numpy's ``cannot reshape array of size 3``;
    ``make_wall(..., dealer=4)`` was taken as dealer 0 (``dealer=-1`` as 3)."""
    from mcr_env.engine import make_wall
    from mcr_env.envs.sb3 import MCRSB3VecEnv

    venv = MCRSB3VecEnv(4, opponents="random")
    venv.seed(0)
    venv.reset()
    with pytest.raises(TypeError, match="actions must be integer action ids, got dtype float64"):
        venv.step(np.full(4, 2.7))
    with pytest.raises(ValueError, match=r"actions must be \(4,\) action ids, got shape \(3,\)"):
        venv.step(np.zeros(3, dtype=np.int64))
    legal = venv.action_masks().argmax(axis=1)
    assert venv.step(legal.reshape(4, 1))[1].shape == (4,)  # (N, 1) is fine
    hands = ["1112345678999m", "1112345678999p", "1112345678999s", "1112223334445z"]
    assert make_wall(hands, dealer=3).shape == (144,)
    for dealer in (4, -1):
        with pytest.raises(ValueError, match=f"dealer must be a seat 0..3, got {dealer!r}"):
            make_wall(hands, dealer=dealer)
    for dealer in (1.0, True):
        with pytest.raises(TypeError, match=f"dealer must be a seat 0..3, got .* {dealer!r}"):
            make_wall(hands, dealer=dealer)

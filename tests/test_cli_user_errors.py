"""A new user's mistakes at the command line (README commands): each prints one error line
naming the argument or file, exits non-zero, and shows no traceback. Every case here was a
traceback or a misleading message before (the reproducers)."""

from __future__ import annotations

import io
import json

import pytest
from test_eval import _script

from mcr_env.play import html, terminal


def _one_line(err: str, prefix: str) -> str:
    """The single error line of ``err`` (asserted), without the ``prefix``."""
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith(prefix), err
    return err[len(prefix) :].rstrip("\n")


def test_replay_missing_and_empty_files(capsys, tmp_path):
    """Reproducer: ``replay.py nofile.jsonl`` was a FileNotFoundError traceback; an empty
    file with ``--index 0`` said ``--index 0 out of range 0..-1``."""
    replay = _script("replay")
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
    assert _script("record").main(["--games", "1", "--no-progress", "--out", str(records)]) == 0
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
    assert _script("botzone_bot").main(["--agent", "random", "--once"]) == 2
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
    assert _script("export_botzone").main([str(bad), "--out", str(out)]) == 2
    msg = _one_line(capsys.readouterr().err, "export_botzone.py: error: ")
    assert msg.startswith(f"checkpoint {str(bad)!r}: {bad} is not a torch checkpoint (")
    assert not out.exists()

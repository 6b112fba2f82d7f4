"""``mcr-score`` (mcr_env.scoring.cli): exact text and JSON output, notations, winds, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcr_env.scoring.cli import main

SEAT_WIND_HAND = ["456s789p222z5z", "--win", "5z", "--meld", "CHI 2m 2"]
SEAT_WIND_TEXT = """\
🀓🀔🀕🀟🀠🀡🀁🀁🀁🀄 [🀇🀈🀉] + 🀄
Fan             Points  Count  Subtotal
Mixed Straight       8      1         8
All Types            6      1         6
Seat Wind            2      1         2
Single Wait          1      1         1
Self-Drawn           1      1         1
Flower Tiles         1      3         3
Total: 21 points (18 without 3 points of flowers)
"""
DISCARD_TEXT = """\
🀓🀔🀕🀟🀠🀡🀁🀁🀁🀄 [🀇🀈🀉] + 🀄
Fan             Points  Count  Subtotal
Mixed Straight       8      1         8
All Types            6      1         6
Seat Wind            2      1         2
Single Wait          1      1         1
Flower Tiles         1      3         3
Total: 20 points (17 without 3 points of flowers)
"""


def run_main(capsys, argv):
    """``(exit status, stdout, stderr)`` of ``main(argv)``."""
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_text_output_exact(capsys):
    argv = [*SEAT_WIND_HAND, "--self-drawn", "--seat-wind", "S", "--flowers", "3"]
    assert run_main(capsys, argv) == (0, SEAT_WIND_TEXT, "")


def test_json_output_exact(capsys):
    argv = ["333z44z55m", "--win", "4z", "--meld", "PENG 1z 1", "--meld", "PENG 2z 2", "--json"]
    status, out, err = run_main(capsys, argv)
    assert (status, err) == (0, "")
    assert out.count("\n") == 1
    assert json.loads(out) == {
        "hand": ["F3", "F3", "F3", "F4", "F4", "W5", "W5"],
        "win": "F4",
        "melds": [["PENG", "F1", 1], ["PENG", "F2", 2]],
        "profile": "mcr",
        "fans": [
            {"fan": "Big Four Winds", "id": 1, "points": 88, "count": 1, "subtotal": 88},
            {"fan": "Half Flush", "id": 50, "points": 6, "count": 1, "subtotal": 6},
        ],
        "total": 94,
        "total_without_flowers": 94,
        "is_legal_win": True,
    }


def test_profiles_and_below_minimum(capsys):
    """docs/rules.md §7 kong fans per profile; a hand under 8 points says so (exit 0)."""
    argv = ["789p11z23m", "--win", "4m", "--meld", "ANGANG 1m", "--meld", "GANG 5s 1"]
    glyphs = "🀈🀉🀟🀠🀡🀀🀀 [🀫🀇🀇🀫] [🀔🀔🀔🀔] + 🀊\n"  # concealed kong: outer tiles face down
    assert run_main(capsys, argv) == (
        0,
        glyphs
        + "Fan                          Points  Count  Subtotal\n"
        + "Two Melded Kongs                  4      1         4\n"
        + "Concealed Kong                    2      1         2\n"
        + "Pung of Terminals or Honors       1      1         1\n"
        + "Total: 7 points\n"
        + "Not a legal win: 7 points without flowers, 8 needed (docs/rules.md §2).\n",
        "",
    )
    assert run_main(capsys, [*argv, "--profile", "botzone"]) == (
        0,
        glyphs
        + "Fan                             Points  Count  Subtotal\n"
        + "Concealed Kong and Melded Kong       5      1         5\n"
        + "Pung of Terminals or Honors          1      1         1\n"
        + "Total: 6 points\n"
        + "Not a legal win: 6 points without flowers, 8 needed (docs/rules.md §2).\n",
        "",
    )


def test_promoted_kong_meld_and_melded_hand(capsys):
    """docs/rules.md §7 item 7: ``--meld "BUGANG ..."`` is a melded kong for every fan, but the
    mcr profile scores no Melded Hand with it (the botzone profile does)."""
    melds = ["--meld", "PENG 1m 1", "--meld", "CHI 3s 3", "--meld", "PENG 4z 1"]
    argv = ["7p", "--win", "7p", *melds, "--seat-wind", "S", "--json"]
    totals = {}
    for kind in ("GANG", "BUGANG"):
        for profile in ("mcr", "botzone"):
            status, out, err = run_main(
                capsys, [*argv, "--meld", f"{kind} 9m 2", "--profile", profile]
            )
            assert (status, err) == (0, "")
            res = json.loads(out)
            assert res["melds"][-1] == [kind, "W9", 2]
            totals[kind, profile] = (res["total"], res["fans"][0]["fan"])
    assert totals == {
        ("GANG", "mcr"): (10, "Melded Hand"),
        ("GANG", "botzone"): (10, "Melded Hand"),
        ("BUGANG", "mcr"): (5, "Pung of Terminals or Honors"),
        ("BUGANG", "botzone"): (10, "Melded Hand"),
    }


def test_chicken_hand_and_flags(capsys):
    melds = ["--meld", "CHI 3m 1", "--meld", "CHI 6s 2", "--meld", "PENG 8p 3"]
    status, out, _ = run_main(capsys, ["45p11z", "--win", "3p", *melds, "--json"])
    assert status == 0
    assert [f["fan"] for f in json.loads(out)["fans"]] == ["Chicken Hand"]
    # Each situational flag reaches score_win.
    base = ["123m456s789p11z23m", "--win", "4m", "--json"]
    for flags, fan in [
        (["--self-drawn", "--wall-last"], "Last Tile Draw"),
        (["--wall-last"], "Last Tile Claim"),
        (["--about-kong"], "Robbing The Kong"),
        (["--fourth-tile"], "Last Tile"),
        (["--self-drawn"], "Fully Concealed Hand"),
    ]:
        status, out, _ = run_main(capsys, [*base, *flags])
        assert status == 0
        assert fan in [f["fan"] for f in json.loads(out)["fans"]], flags


@pytest.mark.parametrize(
    "hand",
    [
        ["456s789p222z5z"],
        ["456s", "789p", "222z", "5z"],
        ["T4 T5 T6 B7 B8 B9 F2 F2 F2 J1"],
        ["T4", "T5", "T6", "B7", "B8", "B9", "F2", "F2", "F2", "J1"],
        ["456s789p", "SSS", "C"],
    ],
)
def test_notations_agree(capsys, hand):
    opts = ["--meld", "CHI 2m 2", "--seat-wind", "S", "--flowers", "3"]
    assert run_main(capsys, [*hand, "--win", "5z", *opts]) == (0, DISCARD_TEXT, "")
    # Win tile and meld tile in Botzone codes (any case).
    botzone_opts = ["--meld", "chi W2 2", *opts[2:]]
    assert run_main(capsys, [*hand, "--win", "J1", *botzone_opts]) == (0, DISCARD_TEXT, "")
    # Without --win the last tile written is the winning tile.
    last = "J1" if hand[-1].startswith(("T", "J")) else "5z"
    assert run_main(capsys, [*hand, last, *opts]) == (0, DISCARD_TEXT, "")


@pytest.mark.parametrize(
    ("wind", "fan"),
    [("S", "Seat Wind"), ("s", "Seat Wind"), ("1", "Seat Wind"), ("south", "Seat Wind")]
    + [("E", "Pung of Terminals or Honors"), ("0", "Pung of Terminals or Honors")],
)
def test_wind_spellings(capsys, wind, fan):
    status, out, _ = run_main(capsys, [*SEAT_WIND_HAND, "--seat-wind", wind, "--json"])
    fans = [f["fan"] for f in json.loads(out)["fans"]]
    assert status == 0 and fan in fans
    status, out, _ = run_main(capsys, [*SEAT_WIND_HAND, "--prevalent-wind", wind, "--json"])
    fans = [f["fan"] for f in json.loads(out)["fans"]]
    assert fan.replace("Seat", "Prevalent") in fans


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["123m", "--win", "4m"], "wrong tile count: 0 meld(s) need 13 concealed tiles"),
        (["12x", "--win", "4m"], "hand: malformed tile token '12x'"),
        (["123m456s789p11z23m", "--win", "45m"], "--win: expected one tile, got 2"),
        (["123m456s789p11z23m", "--win", "Q9"], "--win: unknown tile code 'Q9'"),
        (["123m456s789p11z24m", "--win", "6m"], "not a winning hand"),
        (["123m456s789p11z23m", "--win", "4m", "--seat-wind", "9"], "bad wind '9'"),
        (["123m456s789p11z23m", "--win", "4m", "--prevalent-wind", "X"], "bad wind 'X'"),
        (["123m456s789p11z23m", "--win", "4m", "--flowers", "9"], "flowers"),
        (["123m456s789p11z23m", "--win", "4m", "--flowers", "two"], "invalid int value"),
        (["123m456s789p11z23m", "--win", "4m", "--profile", "x"], "invalid choice: 'x'"),
        (["123m456s789p11z23m", "--win", "4m", "--bogus"], "unrecognized arguments: --bogus"),
        (["456s789p11z23m", "--win", "4m", "--meld", "PUNG 1m"], "unknown kind 'PUNG'"),
        (["456s789p11z23m", "--win", "4m", "--meld", "CHI"], "expected 'KIND TILE [OFFER]'"),
        (["456s789p11z23m", "--win", "4m", "--meld", "CHI 2m x"], "offer 'x' is not an integer"),
        (["456s789p11z23m", "--win", "4m", "--meld", "CHI 1m 1"], "middle tile"),
        (["456s789p11z23m", "--win", "4m", "--meld", "PENG 1m 5"], "offer must be 1..3"),
        (["11111m456s789p11z", "--win", "2m"], "5 copies of tile W1"),
        ([], "the following arguments are required: hand"),
    ],
)
def test_bad_input_one_line_error_exit_2(capsys, argv, message):
    status, out, err = run_main(capsys, argv)
    assert status == 2 and out == ""
    assert err.startswith("mcr-score: error: ") and err.endswith("\n")
    assert err.count("\n") == 1, err
    assert message in err


def test_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for option in ("--win", "--meld", "--self-drawn", "--seat-wind", "--profile", "--json"):
        assert option in out


def test_console_script_subprocess(capsys):
    """The installed console script behaves like main() (stdout, exit status, errors)."""
    script = Path(sys.executable).with_name("mcr-score")
    assert script.exists(), f"{script} missing: run `make setup` (pip install -e .)"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    argv = [*SEAT_WIND_HAND, "--self-drawn", "--seat-wind", "S", "--flowers", "3"]
    proc = subprocess.run(
        [str(script), *argv], capture_output=True, text=True, encoding="utf-8", env=env
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, SEAT_WIND_TEXT, "")
    proc = subprocess.run(
        [str(script), "12x", "--win", "4m"], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_botzone_codes_written_together_get_a_hint(capsys):
    status, out, err = run_main(capsys, ["W1F1J1", "--win", "W1"])
    assert status == 2 and out == ""
    assert "separate Botzone codes by spaces: 'W1 F1 J1'" in err


@pytest.mark.parametrize(
    ("meld", "message"),
    [
        ("CHI 1m 1", "must be a suit 2-8, got W1"),
        ("CHI E 1", "must be a suit 2-8, got F1"),
        ("PENG H1 1", "flower H1"),
    ],
)
def test_meld_errors_show_tile_codes(capsys, meld, message):
    """Reproducer: "--meld 'CHI 1m 1'" said "got 0" (the tile id)."""
    status, out, err = run_main(capsys, ["456s789p11z23m", "--win", "4m", "--meld", meld])
    assert status == 2 and message in err


def test_fans_listed_by_points_then_fan_order(capsys):
    """Text and JSON list fans by points per occurrence (highest first), ties in Fan order."""
    argv = ["789p11z23m", "--win", "4m", "--meld", "ANGANG 1m", "--meld", "GANG 5s 1"]
    status, out, _ = run_main(capsys, [*argv, "--profile", "botzone", "--json"])
    fans = json.loads(out)["fans"]
    assert [(f["fan"], f["id"]) for f in fans] == [
        ("Concealed Kong and Melded Kong", 82),
        ("Pung of Terminals or Honors", 73),
    ]

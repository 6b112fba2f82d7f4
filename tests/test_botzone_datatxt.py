"""PKU/Botzone data.txt match logs: parsing every line type, malformed lines, replay through the
engine (every action legal, draws, fans and scores checked), the round trip of 1,000 engine
games (records -> data.txt -> replay -> identical records) and the behaviour-cloning dataset."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from botzone_helpers import Eager
from script_helpers import load_script

from baselines.agents import RandomAgent
from mcr_env.botzone.bot import BOTZONE_RULES
from mcr_env.botzone.datatxt import (
    DataFormatError,
    Event,
    MatchReplayError,
    parse_datatxt,
    parse_fan_text,
    replay_file,
    replay_matches,
    write_datatxt,
)
from mcr_env.encoding import get_encoder
from mcr_env.engine import MCREngine
from mcr_env.engine.records import GameRecorder
from mcr_env.engine.walls import check_walls
from mcr_env.eval.play import play_games
from mcr_env.tiles import code_to_tile


def _games(n, seed):
    eng = MCREngine(n, BOTZONE_RULES)
    rec = GameRecorder(eng)
    rec.reset(seed=seed, prevalent_wind=np.arange(n) % 4)
    idx = np.array([[0, 1, 0, 1], [1, 0, 1, 0]])[np.arange(n) % 2]
    play_games(rec, [RandomAgent(seed=seed), Eager(seed + 1)], idx)
    return sorted(rec.pop_finished(), key=lambda r: r["origin"]["game"])


def _strip(record):
    """A record without what data.txt cannot hold: where the walls came from and the order
    of the tiles nobody drew."""
    r = json.loads(json.dumps(record))
    r.pop("origin")
    for h in r["hands"]:
        h.pop("wall")
    r["final_state"].pop("wall")
    return r


# ------------------------------------------------------------------------------- parsing
SAMPLE = """
Match 5a1b2c
Wind 2
Player 0 Deal W1 W2 W3 W4 W5 W6 W7 W8 W9 T1 T2 T3 T4
Player 1 Deal B1 B2 B3 B4 B5 B6 B7 B8 B9 T5 T6 T7 T8
Player 2 Deal F1 F1 F2 F2 F3 F3 F4 F4 J1 J1 J2 J2 J3
Player 3 Deal T9 T9 T9 B1 B2 B3 W1 W2 W3 J3 J3 F1 F2

Player 0 Draw T5
Player 0 Play W1
Player 1 Chi W2
Player 1 Play B1
Player 3 Peng B1 Ignore Player 2 Chi B2
Player 3 Play J3
Player 2 Gang J3
Player 2 Draw T6
Player 2 AnGang F1
Player 2 BuGang J1
Player 1 Hu W7 Ignore Player 0 Hu W7 Ignore Player 3 Peng W7
Fan 10 混一色*1 碰碰和*1
Score -8 34 -8 -18
Match 6b
Wind 0
Player 0 Deal W1 W2 W3 W4 W5 W6 W7 W8 W9 T1 T2 T3 T4
Player 1 Deal B1 B2 B3 B4 B5 B6 B7 B8 B9 T5 T6 T7 T8
Player 2 Deal F1 F1 F2 F2 F3 F3 F4 F4 J1 J1 J2 J2 J3
Player 3 Deal T9 T9 T9 B1 B2 B3 W1 W2 W3 J3 J3 F1 F2
Player 0 Draw T5
Player 0 Play W1
Huang
Score 0 0 0 0
"""


def test_every_line_type_parses():
    m1, m2 = list(parse_datatxt(SAMPLE.splitlines(), "sample"))
    assert (m1.match_id, m1.wind, m1.line_no) == ("5a1b2c", 2, 2)
    assert m1.deals[2] == (27, 27, 28, 28, 29, 29, 30, 30, 31, 31, 32, 32, 33)
    got = [(e.line_no, e.player, e.verb, e.tile, e.ignores) for e in m1.events]
    assert got == [
        (9, 0, "Draw", 13, ()),
        (10, 0, "Play", 0, ()),
        (11, 1, "Chi", 1, ()),
        (12, 1, "Play", 18, ()),
        (13, 3, "Peng", 18, ((2, "Chi", 19),)),
        (14, 3, "Play", 33, ()),
        (15, 2, "Gang", 33, ()),
        (16, 2, "Draw", 14, ()),
        (17, 2, "AnGang", 27, ()),
        (18, 2, "BuGang", 31, ()),
        (19, 1, "Hu", 6, ((0, "Hu", 6), (3, "Peng", 6))),
    ]
    assert isinstance(m1.events[0], Event)
    assert (m1.fan_total, m1.scores, m1.fan_line, m1.score_line) == (10, (-8, 34, -8, -18), 20, 21)
    assert parse_fan_text(m1.fan_text) == {50: 1, 49: 1}
    assert not m1.huang
    assert m2.huang and m2.huang_line == 30 and m2.scores == (0, 0, 0, 0)
    # upper-case verbs of the README's examples
    (m,) = parse_datatxt(
        ["Match x", "Player 1 Hu B3 Ignore Player 0 PENG B3 Ignore Player 3 CHI B4"]
    )
    assert m.events[0].ignores == ((0, "Peng", 20), (3, "Chi", 21))
    assert parse_fan_text("some free text") is None


BAD = [
    ("Wind 1", "line 1: line before the first 'Match'"),
    ("Match a\nWind 5", "line 2: 'Wind' takes one wind 0..3"),
    ("Match a\nPlayer 4 Draw W1", "line 2: player must be 0..3, got '4'"),
    ("Match a\nPlayer 1 Deal W1 W2", "line 2: a Deal lists 13 tiles, got 2"),
    ("Match a\nPlayer 1 Draw X9", "line 2: bad tile code 'X9'"),
    ("Match a\nPlayer 1 Draw H1", "line 2: flower 'H1'"),
    ("Match a\nPlayer 1 Steal W1", "line 2: unknown verb 'Steal'"),
    ("Match a\nPlayer 1 Play W1 Ignore Player 2 Chi W2", "line 2: 'Ignore' suffixes follow"),
    ("Match a\nPlayer 1 Peng W1 Ignore Player 2 Draw W2", "line 2: an ignored action is Chi"),
    ("Match a\nPlayer 1 Peng W1 extra", "line 2: after the tile only 'Ignore Player"),
    ("Match a\nFan x", "line 2: the fan total must be an integer"),
    ("Match a\nScore 1 2 3", "line 2: 'Score' lists 4 scores, got 3"),
    ("Match a\nScore 0 0 0 0\nPlayer 0 Draw W1", "line 3: line after the match's Score"),
    ("Match a\nHuang now", "line 2: 'Huang' takes nothing"),
    ("Match a\nBonus 3", "line 2: unknown line type 'Bonus'"),
    ("Match a b", "line 1: 'Match' takes one id"),
]


@pytest.mark.parametrize("text,message", BAD)
def test_malformed_lines_raise_with_the_line_number(text, message):
    with pytest.raises(DataFormatError, match="data.txt " + message.replace("(", r"\(")):
        list(parse_datatxt(text.splitlines()))


# ------------------------------------------------------------------------------- round trip
@pytest.mark.slow
@pytest.mark.parametrize("part", range(2))
def test_1000_engine_games_round_trip(part):
    records = _games(500, seed=40 + part)
    lines = write_datatxt(records, [f"m{part}-{k}" for k in range(len(records))])
    verbs = Counter(t.split()[2] for t in lines if t.startswith("Player"))
    assert set(verbs) == {"Deal", "Draw", "Play", "Chi", "Peng", "Gang", "AnGang", "BuGang", "Hu"}
    assert any(" Ignore Player " in t for t in lines)
    assert sum(t == "Huang" for t in lines) > 0
    matches = list(parse_datatxt(lines))
    assert len(matches) == 500
    out = replay_matches(matches)
    failures = [r for r in out if isinstance(r, MatchReplayError)]
    assert failures == []
    for rec, rep in zip(records, out):
        assert rep.fans_compared or rec["hands"][0]["result"]["end_reason"] == "EXHAUSTIVE"
        assert _strip(rep.record) == _strip(rec)
        assert rep.record["hands"][0]["wall"].split()[:13] == rec["hands"][0]["wall"].split()[:13]


def _lines_of(n, seed):
    records = _games(n, seed)
    return records, write_datatxt(records)


def test_matches_that_do_not_replay_are_reported_with_their_first_bad_line():
    _, lines = _lines_of(6, seed=3)
    lines = list(lines)
    starts = [k for k, t in enumerate(lines) if t.startswith("Match")]
    # match 1: its first Play changed to a tile the player does not hold (a W1 is swapped in
    # for whatever the engine would accept only if held)
    m1 = starts[1]
    k_play = next(k for k in range(m1, starts[2]) if " Play " in lines[k])
    p = lines[k_play].split()[1]
    deal = next(lines[k] for k in range(m1, starts[2]) if lines[k].startswith(f"Player {p} Deal"))
    held = set(deal.split()[3:]) | {lines[k_play - 1].split()[3]}
    absent = next(c for c in ("W1", "W5", "T3", "B7", "F2", "J1") if c not in held)
    lines[k_play] = f"Player {p} Play {absent}"
    # match 3: a wrong score
    m3 = starts[3]
    k_score = next(k for k in range(m3, starts[4]) if lines[k].startswith("Score"))
    lines[k_score] = "Score 1 2 3 -6"
    res = replay_file(lines)
    assert len(res.replays) == 4
    assert [(f.match_id, f.line_no) for f in res.failures] == [
        ("1", k_play + 1),
        ("3", k_score + 1),
    ]
    assert "is not legal for player" in res.failures[0].reason or "draws" in res.failures[0].reason
    assert res.failures[1].reason.startswith("our scores are")
    assert str(res.failures[1]).startswith(f"match 3, line {k_score + 1} 'Score 1 2 3 -6'")


def test_wrong_fan_total_and_missing_end_are_reported():
    records, lines = _lines_of(40, seed=8)
    won = next(k for k, r in enumerate(records) if r["hands"][0]["result"]["winner"] >= 0)
    matches = list(parse_datatxt(lines))
    m = matches[won]
    m.fan_total += 1
    m2 = next(
        x for x, r in zip(matches, records) if r["hands"][0]["result"]["end_reason"] == "EXHAUSTIVE"
    )
    m2.huang = False
    out = replay_matches([m, m2])
    assert out[0].line_no == m.fan_line and out[0].reason.startswith("our fan total is")
    assert "'Huang' expected" in out[1].reason


def test_bc_dataset_is_the_decisions_of_all_four_seats():
    records, lines = _lines_of(30, seed=12)
    res = replay_file(lines, collect=True)
    assert res.failures == []
    data = res.dataset()
    n = sum(len(r["hands"][0]["decisions"]) for r in records)
    assert data["obs"].shape == (n, get_encoder("planes-v0").num_channels, 34)
    assert data["obs"].dtype == np.float16 and data["mask"].dtype == bool
    assert data["mask"][np.arange(n), data["action"]].all()
    assert set(data["seat"].tolist()) == {0, 1, 2, 3}
    for k, r in enumerate(records):
        rows = r["hands"][0]["decisions"]
        sel = data["match"] == k
        assert data["action"][sel].tolist() == [a for _, _, a, _ in rows]
        assert data["seat"][sel].tolist() == [s for _, s, _, _ in rows]
        settle = r["hands"][0]["result"]["settlement"]
        assert data["ret"][sel].tolist() == [settle[s] for _, s, _, _ in rows]
    # the first observation of each match is the dealer's, as the engine encodes it
    wall = check_walls(
        np.array([[code_to_tile(c) for c in records[0]["hands"][0]["wall"].split()]]), "botzone"
    )
    eng = MCREngine(1, BOTZONE_RULES)
    eng.reset(walls=wall, prevalent_wind=records[0]["hands"][0]["prevalent_wind"])
    first = get_encoder("planes-v0").encode(eng.state, np.array([0]), np.array([0]))[0]
    np.testing.assert_allclose(data["obs"][0].astype(np.float32), first, atol=1e-3)


def test_logs_script_replays_and_writes_records_and_a_dataset(tmp_path, capsys):
    from mcr_env.engine.records import read_records, write_records

    records = _games(12, seed=21)
    write_records(tmp_path / "ours.jsonl", records)
    logs = load_script("botzone_logs")
    assert logs.main(["write", str(tmp_path / "ours.jsonl"), "--out", str(tmp_path / "d.txt")]) == 0
    text = (tmp_path / "d.txt").read_text().splitlines()
    text[text.index(next(t for t in text if t.startswith("Score")))] = "Score 9 9 9 9"
    (tmp_path / "d.txt").write_text("\n".join(text) + "\n")
    out = logs.run(
        [
            "replay",
            str(tmp_path / "d.txt"),
            "--records",
            str(tmp_path / "back.jsonl"),
            "--bc",
            str(tmp_path / "bc.npz"),
        ]
    )
    assert out["replayed"] == 11 and out["failed"] == 1
    assert "match 0, line" in capsys.readouterr().out
    back = read_records(tmp_path / "back.jsonl")
    assert [_strip(r) for r in back] == [_strip(r) for r in records[1:]]
    assert logs.main(["replay", str(tmp_path / "missing.txt")]) == 2
    with np.load(tmp_path / "bc.npz") as z:
        assert len(z["action"]) == out["samples"] and z["obs"].dtype == np.float16


def test_bc_data_trains_from_a_logs_dataset(tmp_path):
    """``bc.data``: the dataset of replayed logs is what train.py's behaviour cloning reads
    (whole hands held out, forced decisions dropped) instead of rule-based self-play."""
    from pathlib import Path

    from baselines.bc import load_demonstrations
    from baselines.config import load_config
    from baselines.train import run

    records, lines = _lines_of(12, seed=31)
    res = replay_file(lines, collect=True)
    data = res.dataset()
    np.savez_compressed(tmp_path / "bc.npz", **data)
    demos = load_demonstrations(tmp_path / "bc.npz", get_encoder("planes-v0").num_channels)
    free = data["mask"].sum(axis=1) > 1
    assert demos.hands == 12 and len(demos.action) == int(free.sum())
    assert demos.action.tolist() == data["action"][free].tolist()
    assert demos.hand.tolist() == data["match"][free].tolist()
    won = sum(r["hands"][0]["result"]["winner"] >= 0 for r in records)
    assert demos.win_rate == won / 12
    with pytest.raises(ValueError, match="84"):
        load_demonstrations(tmp_path / "bc.npz", 84)
    np.savez(tmp_path / "bad.npz", **{k: v for k, v in data.items() if k != "match"})
    with pytest.raises(ValueError, match=r"missing arrays \['match'\]"):
        load_demonstrations(tmp_path / "bad.npz")

    root = Path(__file__).resolve().parent.parent
    smoke = root / "configs" / "smoke.yaml"
    sets = [f"runs_dir={tmp_path}", "env.encoder=planes-v0", "ppo.iterations=0"]
    sets += ["eval.opponents=[random]"]
    out = run(load_config(smoke, [*sets, f"bc.data={tmp_path / 'bc.npz'}"]), progress=False)
    meta = out["meta"]
    assert meta["bc_data"]["source"] == str(tmp_path / "bc.npz")
    assert meta["bc_data"]["samples"] == len(demos.action) and meta["bc"]["samples"] > 0
    with pytest.raises(ValueError, match="bc.data: no such file"):
        run(load_config(smoke, [*sets, f"bc.data={tmp_path / 'none.npz'}"]), progress=False)

"""Game records (record -> JSONL -> replay with verification) and the text renderer."""

from __future__ import annotations

import copy
import dataclasses
import json

import numpy as np
import pytest
from script_helpers import load_script

from mcr_env.engine import GameState, MCREngine, Phase, RulesConfig, make_wall
from mcr_env.engine.actions import (
    HU,
    PASS,
    PLAY_OFFSET,
    action_name,
    angang_action,
    chi_action,
    peng_action,
    play_action,
)
from mcr_env.engine.records import (
    FORMAT,
    GameRecorder,
    RecordError,
    ReplayError,
    hand_result_dict,
    read_records,
    replay,
    validate_record,
    write_records,
)
from mcr_env.engine.render import (
    render_engine,
    render_hand_result,
    render_record,
    render_table,
)
from mcr_env.scoring.shanten import shanten_batch
from mcr_env.tiles import code_to_tile

FIELDS = [f.name for f in dataclasses.fields(GameState)]


def policy(rec, rng) -> np.ndarray:
    """Hu whenever legal; otherwise uniformly random legal actions, except that in odd games
    the seat on turn plays the discard leaving the lowest shanten (so that hands are won and
    fans/settlements get recorded)."""
    mask = rec.legal_mask
    noise = rng.random(mask.shape) + 1.0
    noise[:, :, HU] += 10.0
    acts = np.where(mask, noise, 0.0).argmax(axis=2)
    st = rec.state
    phase = st.phase
    for g in np.nonzero((np.arange(rec.batch_size) % 2 == 1) & ~rec.terminated)[0]:
        if phase[g] not in (Phase.ACT, Phase.DISCARD):
            continue
        s = int(st.current_seat[g])
        if acts[g, s] == HU:
            continue
        plays = np.nonzero(mask[g, s, PLAY_OFFSET : PLAY_OFFSET + 34])[0]
        hands = np.repeat(st.hand[g, s][None], plays.size, axis=0)
        hands[np.arange(plays.size), plays] -= 1
        sh = shanten_batch(hands, np.full(plays.size, st.n_melds[g, s]))
        acts[g, s] = PLAY_OFFSET + rng.choice(plays[sh == sh.min()])
    return acts


def play_random(rec, rng, games=None) -> None:
    """Play every game of the recorder's engine to its end with :func:`policy`."""
    while not rec.terminated.all():
        rec.step(policy(rec, rng), games=None if games is None else games(rng, rec.batch_size))


def recorded(config: RulesConfig, n: int, seed: int) -> tuple[MCREngine, list[dict]]:
    eng = MCREngine(n, config)
    rec = GameRecorder(eng)
    rec.reset(seed=seed)
    play_random(rec, np.random.default_rng(seed))
    records = rec.pop_finished()
    assert len(records) == n and rec.pop_finished() == []
    records.sort(key=lambda r: r["origin"]["game"])
    return eng, records


def assert_same_game(eng: MCREngine, g: int, rep: MCREngine) -> None:
    """The replayed engine ends exactly as game ``g`` of the recording engine."""
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(rep.state, name)[0], getattr(eng.state, name)[g])
    a, b = eng.last_hand_result[g], rep.last_hand_result[0]
    assert hand_result_dict(a) == hand_result_dict(b)
    np.testing.assert_array_equal(a.settlement, b.settlement)
    np.testing.assert_array_equal(eng.table_points[g], rep.table_points[0])
    assert rep.terminated[0]


# ------------------------------------------------------------------ record -> replay
CONFIGS = [
    (RulesConfig(), 100, 11),
    (RulesConfig(wall_layout="botzone", scoring_profile="botzone"), 96, 12),
    (RulesConfig(match="match"), 2, 13),
    (RulesConfig(wall_layout="botzone", match="match"), 2, 14),
    (RulesConfig(claim_round="all"), 48, 15),
]  # 248 games in all, 4 of them 16-hand matches (304 hands)


@pytest.mark.parametrize("config,n,seed", CONFIGS)
def test_record_replay_identical(config, n, seed, tmp_path):
    eng, records = recorded(config, n, seed)
    path = tmp_path / "games.jsonl"
    assert write_records(path, records) == n
    back = read_records(path)
    assert back == records  # JSONL round trip is lossless
    n_hands = 16 if config.match == "match" else 1
    for g, r in enumerate(back):
        assert r["format"] == FORMAT and r["origin"] == {
            "seed": seed,
            "game": g,
            "episode": 0,
            "explicit_walls": 0,
        }
        assert len(r["hands"]) == n_hands
        assert all(sum(h["result"]["settlement"]) == 0 for h in r["hands"])
        rep = replay(r)
        assert_same_game(eng, g, rep)
        assert r["final_scores"] == eng.state.match_scores[g].tolist()
    wins = [h["result"] for r in back for h in r["hands"] if h["result"]["winner"] >= 0]
    assert len(wins) >= (10 if n > 2 else 3)  # fans and settlements of wins are exercised
    assert all(w["fans"] and w["total"] >= 8 and max(w["settlement"]) > 0 for w in wins)


def test_decisions_and_results_content():
    eng, (r,) = recorded(RulesConfig(), 1, 5)
    hand = r["hands"][0]
    wall = [code_to_tile(c) for c in hand["wall"].split()]
    np.testing.assert_array_equal(wall, eng.state.wall[0])
    steps = [d[0] for d in hand["decisions"]]
    assert steps[0] == 0 and steps == sorted(steps)
    assert set(steps) == set(range(steps[-1] + 1))  # one engine step per step index
    assert hand["decisions"][0][1] == 0  # the dealer acts first
    for _, _, a, name in hand["decisions"]:
        assert name == action_name(a)
    res = eng.last_hand_result[0]
    assert hand["result"]["settlement"] == res.settlement.tolist()
    assert hand["result"]["total"] == res.total
    assert [f["name"] for f in hand["result"]["fans"]] == [f.name for f in res.fans]
    assert r["table_points"] is None


def test_recorder_partial_steps_resets_and_penalties():
    # games advanced at different rates (step(games=...)) still replay exactly
    eng = MCREngine(6, RulesConfig(wall_layout="botzone"))
    rec = GameRecorder(eng)
    rec.reset(seed=3)
    rng = np.random.default_rng(3)
    play_random(rec, rng, games=lambda r, b: r.random(b) < 0.5)
    records = rec.pop_finished()
    assert len(records) == 6
    for r in records:
        assert_same_game(eng, r["origin"]["game"], replay(r))
    # next episode (seed None): counters advance, seeded walls still re-derive
    rec.reset()
    play_random(rec, rng)
    for r in rec.pop_finished():
        assert r["origin"]["episode"] == 1
        replay(r)
    # a game reset before its end is dropped
    rec.reset(seed=4)
    rec.step(np.where(eng.legal_mask, 1, 0).argmax(axis=2))
    rec.reset(seed=4, games=np.array([True] + [False] * 5))
    assert rec.n_aborted == 1
    # explicit walls and an illegal action punished under illegal_action="penalize"
    eng = MCREngine(1, RulesConfig(illegal_action="penalize"))
    rec = GameRecorder(eng)
    wall = make_wall(HANDS, draws=["B7", "B5"], replacements=["J3", "F3"])
    rec.reset(walls=wall[None])
    rec.step(np.array([[PASS, 0, 0, 0]]))  # Pass is never legal for the seat on turn
    (r,) = rec.pop_finished()
    assert r["origin"]["explicit_walls"] == 1
    assert r["hands"][0]["result"]["end_reason"] == "PENALTY"
    assert r["hands"][0]["result"]["offenders"] == [0]
    assert r["hands"][0]["result"]["settlement"] == [-30, 10, 10, 10]
    assert_same_game(eng, 0, replay(r))


def test_recorder_stands_in_for_the_engine():
    eng = MCREngine(2)
    rec = GameRecorder(eng)
    rec.reset(seed=1)
    assert rec.legal_mask is eng.legal_mask and rec.state is eng.state
    with pytest.raises(TypeError, match="MCREngine"):
        GameRecorder("engine")


# ------------------------------------------------------------------ tampered records
@pytest.fixture(scope="module")
def one_record():
    """A recorded hand won on a discard."""
    _, records = recorded(RulesConfig(), 8, 21)
    return next(r for r in records if r["hands"][0]["result"]["end_reason"] == "DISCARD")


def _claim_pass(r):
    """(index, row) of a Pass answered in a claim round of hand 0."""
    for i, row in enumerate(r["hands"][0]["decisions"]):
        if row[2] == PASS:
            return i, row
    raise AssertionError("no Pass in this game")


def test_tampered_illegal_action(one_record):
    r = copy.deepcopy(one_record)
    r["hands"][0]["decisions"][0][2:] = [PASS, "Pass"]  # the dealer may not Pass
    with pytest.raises(ReplayError, match=r"step 0 \(hand 0\): seat 0 action 0 \(Pass\) is not"):
        replay(r)
    r = copy.deepcopy(one_record)
    i, row = _claim_pass(r)
    r["hands"][0]["decisions"][i][2:] = [1, "Hu"]
    with pytest.raises(ReplayError, match=rf"step {row[0]} \(hand 0\): seat {row[1]} action 1"):
        replay(r)
    # a decision for a seat the engine did not ask
    r = copy.deepcopy(one_record)
    r["hands"][0]["decisions"].insert(1, [0, 2, PASS, "Pass"])
    with pytest.raises(ReplayError, match=r"step 0 .*seats \[0, 2\], the engine asks seats \[0\]"):
        replay(r)
    # name not matching the id is a malformed record
    r = copy.deepcopy(one_record)
    r["hands"][0]["decisions"][0][3] = "Hu"
    with pytest.raises(RecordError, match=r"hands\[0\]\.decisions\[0\]\[3\]: name 'Hu'"):
        replay(r)


def test_tampered_wall(one_record):
    r = copy.deepcopy(one_record)
    codes = r["hands"][0]["wall"].split()
    codes[0] = "W1" if codes[0] != "W1" else "W2"
    r["hands"][0]["wall"] = " ".join(codes)
    with pytest.raises(RecordError, match=r"hands\[0\]\.wall: not a official wall"):
        replay(r)
    # two dealt tiles swapped (still a full tile set): the seeded origin no longer matches ...
    r = copy.deepcopy(one_record)
    codes = r["hands"][0]["wall"].split()
    j = next(k for k in range(13, 26) if codes[k] != codes[0])
    codes[0], codes[j] = codes[j], codes[0]
    r["hands"][0]["wall"] = " ".join(codes)
    with pytest.raises(ReplayError, match=r"hands\[0\]\.wall differs from the seeded wall"):
        replay(r)
    # ... and without a seed the game diverges: some action or result stops matching
    r["origin"]["seed"] = None
    with pytest.raises(ReplayError, match=r"step \d+ \(hand 0\)|end of hand 0|final_state"):
        replay(r)


def test_tampered_results(one_record):
    r = copy.deepcopy(one_record)
    s = r["hands"][0]["result"]["settlement"]
    s[0] += 8
    s[1] -= 8
    with pytest.raises(ReplayError, match=r"result\.settlement\[0\]: engine gives"):
        replay(r)
    r = copy.deepcopy(one_record)
    r["hands"][0]["result"]["fans"][0]["count"] += 1
    with pytest.raises(ReplayError, match=r"result\.fans\[0\]\.count: engine gives 1"):
        replay(r)
    r = copy.deepcopy(one_record)
    r["hands"][0]["result"]["total"] += 1
    with pytest.raises(ReplayError, match=r"result\.total"):
        replay(r)
    r = copy.deepcopy(one_record)
    r["hands"][0]["result"]["end_reason"] = "ROB_KONG"
    with pytest.raises(ReplayError, match=r"end of hand 0 .*result\.end_reason"):
        replay(r)
    r = copy.deepcopy(one_record)
    r["final_state"]["discards"][3][0] = (r["final_state"]["discards"][3][0] + 1) % 34
    with pytest.raises(ReplayError, match=r"final_state\.discards\[3, 0\]|discards\[3, 0\]"):
        replay(r)
    r = copy.deepcopy(one_record)
    r["final_scores"][0] += 1
    r["final_scores"][1] -= 1
    with pytest.raises(ReplayError, match=r"final_scores\[0\]"):
        replay(r)
    r = copy.deepcopy(one_record)
    r["hands"][0]["result"]["settlement"][0] += 1
    with pytest.raises(RecordError, match="does not sum to zero"):
        replay(r)


def test_truncated_record(one_record):
    r = copy.deepcopy(one_record)
    last = r["hands"][0]["decisions"][-1][0]
    r["hands"][0]["decisions"] = [d for d in r["hands"][0]["decisions"] if d[0] < last]
    with pytest.raises(ReplayError, match=rf"step {last - 1} \(hand 0\).*did not end the hand"):
        replay(r)


# ------------------------------------------------------------------ JSONL errors
def test_jsonl_malformed_lines(one_record, tmp_path):
    good = json.dumps(one_record)
    p = tmp_path / "bad.jsonl"
    p.write_text(good + "\n\n" + "{not json\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"bad\.jsonl:3: invalid JSON"):
        read_records(p)
    bad = copy.deepcopy(one_record)
    del bad["hands"][0]["result"]["total"]
    p.write_text(good + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(
        RecordError, match=r"bad\.jsonl:2: field hands\[0\]\.result\.total: missing"
    ):
        read_records(p)
    bad = copy.deepcopy(one_record)
    bad["hands"][0]["decisions"][2][1] = "1"
    p.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r":1: field hands\[0\]\.decisions\[2\]\[1\]: seat must"):
        read_records(p)
    bad = copy.deepcopy(one_record)
    bad["version"] = 99
    with pytest.raises(RecordError, match="unsupported version 99"):
        validate_record(bad)
    bad = copy.deepcopy(one_record)
    bad["config"]["wall_layout"] = "tiny"
    with pytest.raises(RecordError, match=r"field config: .*wall_layout"):
        validate_record(bad)
    bad = copy.deepcopy(one_record)
    bad["final_state"]["hand"] = bad["final_state"]["hand"][:3]
    with pytest.raises(RecordError, match=r"final_state\.hand: expected shape \(4, 34\)"):
        validate_record(bad)
    with pytest.raises(RecordError, match="JSON object"):
        validate_record([1, 2])
    # writing refuses malformed records and writes nothing
    out = tmp_path / "out.jsonl"
    with pytest.raises(RecordError, match=r"record 1: field final_state"):
        write_records(out, [one_record, bad])
    assert not out.exists()


# ------------------------------------------------------------------ renderer
HANDS = [
    "W1 W1 W1 W1 T2 T3 B5 B6 F1 F2 J1 J2 H1",
    "T4 T5 W2 W5 W8 B1 B4 B9 F1 F4 J1 J3 W9",
    "B9 B9 W3 W6 T7 T8 B2 B3 F2 F3 J2 T1 W4",
    "W7 T6 T9 B8 F1 F4 J1 J2 J3 W3 T7 B3 B4",
]


SCRIPT = (
    (0, angang_action(code_to_tile("W1"))),
    (0, play_action(code_to_tile("T3"))),
    (1, chi_action(code_to_tile("T4"), code_to_tile("T3"))),
    (1, play_action(code_to_tile("B9"))),
    (2, peng_action(code_to_tile("B9"))),
    (2, play_action(code_to_tile("W4"))),
)
"""The decisions of :func:`scripted`: (seat, action)."""


def scripted() -> tuple[MCREngine, list[str]]:
    """East: flower H1 replaced by J3, draws B7, AnGang W1 (replacement F3), plays T3; South
    Chi T3-T4-T5 and plays B9; West Peng B9 and plays W4; North draws B5."""
    eng = MCREngine(1)
    eng.reset(walls=make_wall(HANDS, draws=["B7", "B5"], replacements=["J3", "F3"])[None])
    claim_texts = []
    t = code_to_tile
    for seat, a in SCRIPT:
        assert np.nonzero(eng.to_act[0])[0].tolist() == [seat]
        acts = np.zeros((1, 4), dtype=np.int64)
        acts[0, seat] = a
        eng.step(acts)
        if a == play_action(t("T3")):
            claim_texts = [
                render_engine(eng, tiles="codes"),
                render_engine(eng, seat=2, tiles="codes"),
            ]
    return eng, claim_texts


GOLDEN_FULL = """\
Hand 1  prevalent East  phase ACT  wall 88 left
to act: seat 3
  seat 0  East  flowers H1
    hand      T2 B5 B6 B7 F1 F2 F3 J1 J2 J3
    melds     AnGang W1 W1 W1 W1 (concealed)
    discards  [T3]
  seat 1  South
    hand      W2 W5 W8 W9 B1 B4 F1 F4 J1 J3
    melds     Chi T3 T4 T5 (T3 from seat 0)
    discards  [B9]
  seat 2  West
    hand      W3 W6 T1 T7 T8 B2 B3 F2 F3 J2
    melds     Peng B9 B9 B9 (from seat 1)
    discards  W4
> seat 3  North
    hand      W3 W7 T6 T7 T9 B3 B4 B8 F1 F4 J1 J2 J3  +B5
    discards"""

GOLDEN_SEAT1 = """\
Hand 1  prevalent East  phase ACT  wall 88 left
to act: seat 3
  seat 0  East  flowers H1
    hand      ## ## ## ## ## ## ## ## ## ##
    melds     AnGang ## ## ## ##
    discards  [T3]
  seat 1  South
    hand      W2 W5 W8 W9 B1 B4 F1 F4 J1 J3
    melds     Chi T3 T4 T5 (T3 from seat 0)
    discards  [B9]
  seat 2  West
    hand      ## ## ## ## ## ## ## ## ## ##
    melds     Peng B9 B9 B9 (from seat 1)
    discards  W4
> seat 3  North
    hand      ## ## ## ## ## ## ## ## ## ## ## ## ## ##
    discards"""

GOLDEN_SEAT0_GLYPHS = (
    "Hand 1  prevalent East  phase ACT  wall 88 left\n"
    "to act: seat 3\n"
    "  seat 0  East  flowers \U0001f022\n"
    "    hand      \U0001f011\U0001f01d\U0001f01e\U0001f01f\U0001f000\U0001f001\U0001f002"
    "\U0001f004\U0001f005\U0001f006\n"
    "    melds     AnGang \U0001f007\U0001f007\U0001f007\U0001f007 (concealed)\n"
    "    discards  [\U0001f012]\n"
    "  seat 1  South\n"
    "    hand      " + "\U0001f02b" * 10 + "\n"
    "    melds     Chi \U0001f012\U0001f013\U0001f014 (\U0001f012 from seat 0)\n"
    "    discards  [\U0001f021]\n"
    "  seat 2  West\n"
    "    hand      " + "\U0001f02b" * 10 + "\n"
    "    melds     Peng \U0001f021\U0001f021\U0001f021 (from seat 1)\n"
    "    discards  \U0001f00a\n"
    "> seat 3  North\n"
    "    hand      " + "\U0001f02b" * 14 + "\n"
    "    discards"
)


def test_render_golden():
    eng, (claim_full, claim_seat2) = scripted()
    assert render_engine(eng, tiles="codes") == GOLDEN_FULL
    assert render_engine(eng, seat=1, tiles="codes") == GOLDEN_SEAT1
    assert render_engine(eng, seat=0) == GOLDEN_SEAT0_GLYPHS
    # claim round: the full view names the asked seat, another seat's view does not
    assert claim_full.splitlines()[:2] == [
        "Hand 1  prevalent East  phase CLAIM  wall 89 left",
        "T3 discarded by seat 0; to act: seat 1",
    ]
    assert claim_full.splitlines()[5] == "    discards  T3"
    assert claim_seat2.splitlines()[1] == "T3 discarded by seat 0; to act: other seats may answer"
    assert render_table(eng.state, 0, tiles="codes").splitlines()[1] == "to act: seat 3"


def test_render_seat_view_hides_what_the_seat_cannot_see():
    eng, _ = scripted()
    for viewer in range(4):
        text = render_engine(eng, seat=viewer, tiles="codes")
        # relabel everything the viewer may not see: other hands, drawn tiles, concealed kongs
        # of others and the wall; the text must not change
        st = eng.state.copy()
        for s in range(4):
            if s != viewer:
                st.hand[0, s] = np.roll(st.hand[0, s], 5)
                st.angang_tile[0, s] = np.where(st.angang_tile[0, s] >= 0, 30, -1)
                st.drawn_tile[0, s] = np.where(st.drawn_tile[0, s] >= 0, 8, -1)
        st.wall[0, :144] = np.roll(st.wall[0, :144], 7)
        assert render_table(st, 0, viewer, tiles="codes", to_act=eng.to_act) == text
        if viewer != 0:
            assert "W1" not in text.splitlines()[4]  # seat 0's AnGang line is face down
    full = render_engine(eng, tiles="codes")
    assert "AnGang W1 W1 W1 W1 (concealed)" in full


def scripted_record(claim_round: str = "options") -> dict:
    """The game of :func:`scripted` recorded and played to its end (then: Pass where legal,
    else the lowest legal action)."""
    rec = GameRecorder(MCREngine(1, RulesConfig(claim_round=claim_round)))
    rec.reset(walls=make_wall(HANDS, draws=["B7", "B5"], replacements=["J3", "F3"])[None])
    script = list(SCRIPT)
    while not rec.terminated[0]:
        mask = rec.legal_mask[0]
        acts = np.where(mask[:, PASS], PASS, mask.argmax(axis=1))[None]
        if script and mask[script[0][0], script[0][1]]:
            seat, a = script.pop(0)
            acts[0, seat] = a
        rec.step(acts)
    assert not script
    (record,) = rec.pop_finished()
    return record


@pytest.mark.parametrize("claim_round", ["options", "all"])
def test_render_record_seat_view_shows_what_the_seat_saw(claim_round):
    """A seat's replay text (docs/rules.md §2, §10): its own decisions, the player's action
    on turn (another seat's concealed kong face down), of a claim round only the claim that
    took effect or "no claim"; never another seat's Pass; every claim round a step."""
    record = scripted_record(claim_round)

    def lines(seat):
        out: list[str] = []
        render_record(record, moves=True, seat=seat, tiles="codes", out=out.append)
        return [x for x in out if x.startswith("step ")]

    assert lines(2)[:8] == [
        "step 0: seat 0 AnGang (concealed)",
        "step 1: seat 0 Play T3",
        "step 2: seat 1 Chi T4 (claimed T3); seat 2 Pass",
        "step 3: seat 1 Play B9",
        "step 4: seat 2 Peng B9",
        "step 5: seat 2 Play W4",
        "step 6: no claim",
        "step 7: seat 3 Play " + lines(2)[7].split("Play ")[1],
    ]
    assert lines(0)[:3] == [
        "step 0: seat 0 AnGang W1",
        "step 1: seat 0 Play T3",
        "step 2: seat 1 Chi T4 (claimed T3)",
    ]
    assert lines(0)[4] == "step 4: seat 0 Pass; seat 2 Peng B9"
    for seat in range(4):
        for line in lines(seat):
            for other in {0, 1, 2, 3} - {seat}:
                assert f"seat {other} Pass" not in line
    # the full view is the record itself, every decision
    full: list[str] = []
    render_record(record, moves=True, tiles="codes", out=full.append)
    full = [x for x in full if x.startswith("step ")]
    assert full[0] == "step 0: seat 0 AnGang W1"
    if claim_round == "options":
        assert full[2] == "step 2: seat 1 Chi T4 (claimed T3)"
        assert len(full) < len(lines(1))  # the skipped rounds are steps of a seat's view
    else:
        assert full[2] == "step 2: seat 1 Chi T4 (claimed T3); seat 2 Pass; seat 3 Pass"
        assert len(full) == len(lines(1))  # the record already asks every seat


def test_replay_as_every_seat_asked():
    """replay(claim_round="all") of a record made with the skipping rounds: same final state,
    more steps (Pass-only decisions), each step's rows name every asked seat."""
    record = scripted_record("options")
    rows: list = []
    eng = replay(record, on_step=lambda e, k, d: rows.append((k, d)), claim_round="all")
    assert eng.config.claim_round == "all" and eng.terminated[0]
    plain = replay(record)
    for f in FIELDS:
        assert np.array_equal(getattr(eng.state, f), getattr(plain.state, f)), f
    recorded = sum(1 for _ in {r[0] for r in record["hands"][0]["decisions"]})
    assert len(rows) - 1 > recorded
    k, d = rows[3]  # the claim round of seat 0's T3: every other seat answers
    assert k == 2 and [r[1] for r in d] == [1, 2, 3] and [r[3] for r in d][1:] == ["Pass"] * 2
    with pytest.raises(ValueError, match="claim_round"):
        replay(record, claim_round="options")
    # a record already made asking every seat replays identically either way
    rec_all = scripted_record("all")
    n1: list = []
    n2: list = []
    replay(rec_all, on_step=lambda e, k, d: n1.append((k, d)))
    replay(rec_all, on_step=lambda e, k, d: n2.append((k, d)), claim_round="all")
    assert n1 == n2


def test_render_random_tables_and_errors():
    eng = MCREngine(2, RulesConfig(wall_layout="botzone", match="match"))
    eng.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(300):
        if eng.hand_over[1]:
            break
        eng.step(np.where(eng.legal_mask, rng.random(eng.legal_mask.shape) + 1, 0).argmax(2))
    text = render_engine(eng, 1, tiles="codes")
    assert text.splitlines()[0].startswith("Hand 2  prevalent East")
    assert "walls left" in text.splitlines()[0]
    assert text.splitlines()[2] == "  seat 0  North"  # round 1: players sit at their seats
    assert text.splitlines()[-1].startswith("scores by player  0: ")
    for s in range(4):
        hidden = render_engine(eng, 1, seat=s)
        assert hidden.count("\n") == text.count("\n")
    with pytest.raises(ValueError, match="game"):
        render_table(eng.state, 2)
    with pytest.raises(ValueError, match="seat"):
        render_table(eng.state, 0, 4)
    with pytest.raises(ValueError, match="tiles"):
        render_table(eng.state, 0, tiles="ascii")
    with pytest.raises(ValueError, match="to_act"):
        render_table(eng.state, 0, to_act=np.zeros(3, bool))
    with pytest.raises(TypeError, match="GameState"):
        render_table(eng, 0)


# ------------------------------------------------------------------ hand result text, scripts
def test_render_hand_result_and_record(one_record):
    res = one_record["hands"][0]["result"]
    line = render_hand_result(res, 0)
    w, frm = res["winner"], res["win_from"]
    assert line.startswith(
        f"Hand 1: seat {w} wins on the discard of seat {frm} with {res['win_tile']}, "
        f"{res['total']} points ({res['fans'][0]['name']} {res['fans'][0]['points']}"
    )
    assert line.endswith("; settlement " + " ".join(f"{x:+d}" for x in res["settlement"]))
    blocks: list[str] = []
    eng = render_record(one_record, moves=True, tiles="codes", out=blocks.append)
    n_steps = one_record["hands"][0]["decisions"][-1][0] + 1
    assert len(blocks) == 1 + 2 * n_steps + 1  # deal, (decisions, table) per step, result
    assert blocks[1].startswith("step 0: seat 0 Play ")
    assert blocks[-2] == line and blocks[-1] == render_engine(eng, 0, None, tiles="codes")
    # a seat's view has the steps of an engine asking every seat (docs/rules.md §10)
    steps: list[int] = []
    replay(one_record, on_step=lambda e, k, d: steps.append(k), claim_round="all")
    assert steps == list(range(-1, len(steps) - 1)) and len(steps) - 1 > n_steps
    blocks = []
    eng = render_record(one_record, moves=True, seat=1, tiles="codes", out=blocks.append)
    assert len(blocks) == 1 + 2 * (len(steps) - 1) + 1
    assert blocks[1].startswith("step 0: seat 0 Play ")
    assert blocks[3].startswith("step 1: seat 1 ")  # asked in every claim round of seat 0
    assert blocks[-2] == line and blocks[-1] == render_engine(eng, 0, 1, tiles="codes")
    blocks = []
    render_record(one_record, out=blocks.append)
    assert blocks == [line, render_engine(eng)]


def test_record_and_replay_scripts(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    summary = load_script("record").run(
        ["--games", "5", "--batch-size", "2", "--seed", "9", "--out", str(out), "--no-progress"]
    )
    assert summary["games"] == 5 and summary["hands"] == 5
    records = read_records(out)
    assert [(r["origin"]["game"], r["origin"]["episode"]) for r in records] == [
        (0, 0),
        (1, 0),
        (0, 1),
        (1, 1),
        (0, 2),
    ]
    replay_main = load_script("replay").main
    capsys.readouterr()
    assert replay_main([str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("record 0: ok  seed 9 game 0 episode 0  ")
    assert lines[-1] == "5 record(s) verified"
    assert replay_main([str(out), "--index", "2", "--codes", "--seat", "3"]) == 0
    text = capsys.readouterr().out
    assert "phase OVER" in text and text.endswith("record 2: verified\n")
    bad = copy.deepcopy(records[1])
    bad["hands"][0]["decisions"][0][2:] = [PASS, "Pass"]
    write_records(out, [records[0], bad])
    assert replay_main([str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: record 1: step 0 (hand 0): seat 0 action 0 (Pass) is not legal")

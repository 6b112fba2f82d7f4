"""``mcr-play`` (mcr_env.play.terminal) driven through a pseudo-terminal with pexpect: whole
hands and a whole match, checked against the same game played directly on the engine."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pexpect

from baselines.agents import RandomAgent
from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.play.terminal import PROMPT, TerminalGame

ROOT = Path(__file__).resolve().parent.parent


def _direct(seat: int, seed: int, match: bool) -> MCREngine:
    """Reference: the same game without the terminal: the person's seat always takes the first
    legal action (what typing ``1`` does; Pass is first whenever it is legal), the others are
    ``RandomAgent(seed + k + 1)`` in seat order after the person (player ``seat``)."""
    eng = MCREngine(1, RulesConfig(match="match" if match else "hand"))
    eng.reset(seed=seed)
    agents = [RandomAgent(seed=seed + k + 1) for k in range(3)]
    while not eng.terminated[0]:
        me = int(np.nonzero(eng.state.player_at_seat[0] == seat)[0][0])
        acts = np.zeros((1, 4), dtype=np.int64)
        for s in range(4):
            if not eng.to_act[0, s]:
                continue
            legal = eng.legal_mask[0, s]
            if s == me:
                acts[0, s] = int(np.flatnonzero(legal)[0])
            else:
                acts[0, s] = agents[(s - me) % 4 - 1].act(None, legal[None])[0]
        eng.step(acts)
    return eng


def _spawn(*args: str) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "mcr_env.play.terminal", *args],
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=60,
        dimensions=(60, 160),
    )
    child.delaybeforesend = None  # no 50 ms pause per answer
    return child


def _play_ones(child: pexpect.spawn, end: str = "game over") -> str:
    """Answer ``1`` at every prompt until ``end``; returns everything printed."""
    out = []
    while True:
        i = child.expect([re.escape(PROMPT), re.escape(end)])
        out.append(child.before)
        if i == 1:
            break
        child.sendline("1")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return "".join(out).replace("\r\n", "\n")


def _settlements(text: str) -> list[list[int]]:
    return [
        [int(x) for x in re.findall(r"seat \d(?: \(you\))?: ([+-]\d+)", line)]
        for line in text.splitlines()
        if line.startswith("settlement")
    ]


def test_whole_hand_through_a_pty_matches_the_engine():
    child = _spawn("--seat", "2", "--opponents", "random", "--seed", "4")
    text = _play_ones(child)
    eng = _direct(2, 4, match=False)
    res = eng.last_hand_result[0]
    assert _settlements(text) == [res.settlement.tolist()]
    assert "=== Hand 1 over" in text
    if res.fans:  # the fan table: every fan of the result, with points
        for f in res.fans:
            assert re.search(rf"{re.escape(f.name)}\s+{f.points}\s+{f.count}", text)
    # the person's screen: own hand in glyphs and codes, numbered actions, other hands hidden
    assert "your hand" in text and "(you are seat 2, West)" in text
    assert re.search(r"^\s+1  (Play|Hu|Pass|AnGang|BuGang)", text, re.M)
    for block in text.split("Hand 1  prevalent")[1:]:
        for line in block.splitlines():
            m = re.match(r"^[> ] seat (\d)", line)
            if m:
                seat = int(m.group(1))
            elif line.startswith("    hand ") and seat != 2:
                assert set(line.split()[1:]) == {"##"}, line


def test_typing_names_retry_and_table():
    child = _spawn("--seat", "0", "--opponents", "rule", "--seed", "1")
    child.expect(re.escape(PROMPT))
    screen = child.before
    options = re.findall(r"^\s+(\d+)  (.+?)\r?$", screen, re.M)
    assert options and options[0][0] == "1"
    child.sendline("99")
    child.expect(r"type a number 1\.\.(\d+)")
    assert int(child.match.group(1)) == len(options)
    child.expect(re.escape(PROMPT))
    child.sendline("t")
    child.expect("your hand")
    child.expect(re.escape(PROMPT))
    name = options[-1][1]  # the last option, typed by name
    child.sendline(name)
    child.expect(r"you: (.+?)\r?\n")
    assert child.match.group(1) == name
    child.expect(re.escape(PROMPT))
    child.sendline("q")
    child.expect("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_whole_match_through_a_pty():
    child = _spawn("--seat", "1", "--opponents", "random", "--seed", "5", "--match")
    text = _play_ones(child)
    eng = _direct(1, 5, match=True)
    hands = re.findall(
        r"=== Hand (\d+)/16: prevalent (\w+), dealer seat (\d); you are seat (\d)", text
    )
    assert len(hands) == 16
    from mcr_env.engine.core import SEAT_OF_PLAYER, match_hand_layout

    for h, (num, wind, dealer, seat) in enumerate(hands):
        d, pw, _ = match_hand_layout(h)
        assert (int(num), wind, int(dealer)) == (h + 1, ("East", "South", "West", "North")[pw], d)
        assert int(seat) == int(SEAT_OF_PLAYER[h // 4, 1])
    assert len(_settlements(text)) == 16
    m = re.search(r"table points by player\s+(.+)", text)
    points = [float(x) for x in re.findall(r"\d(?: \(you\))?: ([\d.]+)", m.group(1))]
    assert points == eng.table_points[0].tolist()
    assert sum(points) == 7.0
    scores = re.findall(r"scores by player\s+(.+)", text)[-1]
    assert [int(x) for x in re.findall(r"([+-]\d+)", scores)] == eng.state.match_scores[0].tolist()
    assert eng.state.match_scores[0].any()  # some hand of this seed was won


def test_in_process_game_with_scripted_input():
    lines = iter(["1"] * 10_000)
    out: list[str] = []
    game = TerminalGame(
        3,
        [RandomAgent(seed=k + 1) for k in range(3)],
        seed=0,
        read=lambda prompt: next(lines),
        write=out.append,
    )
    result = game.play()
    eng = _direct(3, 0, match=False)
    assert result["hands"][0]["settlement"] == eng.last_hand_result[0].settlement.tolist()
    assert result["scores"] == eng.state.match_scores[0].tolist() and not result["quit"]


def test_bad_opponent_spec_is_one_line():
    child = _spawn("--opponents", "rule,random")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert child.before.strip() == (
        "mcr-play: error: --opponents takes 1 or 3 comma-separated specs, got 2"
    )

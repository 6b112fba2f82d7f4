"""``mcr-play`` with an outside Botzone bot (``cmd:``) at the table, through a pseudo-terminal:
the hand is the judge's (botzone layout and profile) and equals the same hand played directly
with the same agents through the engine."""

from __future__ import annotations

import sys

import numpy as np
import pexpect
from botzone_helpers import TINY_BOT
from test_play_terminal import _play_ones, _settlements, _spawn

from baselines.agents import RandomAgent
from mcr_env.botzone.process import BotzoneProcessAgent
from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.eval.play import play_games

JUDGE = RulesConfig(wall_layout="botzone", scoring_profile="botzone", illegal_action="penalize")


class FirstLegal:
    """What typing ``1`` at every prompt does: the first legal action."""

    needs_obs = False
    needs_view = False
    name = "person"

    def act(self, obs, mask, view=None):
        return np.argmax(mask, axis=1)


def test_a_cmd_opponent_in_mcr_play(tmp_path):
    bot = tmp_path / "tiny.py"
    bot.write_text(TINY_BOT)
    cmd = f"cmd:{sys.executable} {bot}"
    child = _spawn(
        "--seat", "1", "--opponents", f"random,{cmd},random", "--seed", "6", "--cmd-io", "simple"
    )
    text = _play_ones(child)
    assert "=== Hand 1 over" in text and "penalty" not in text
    # the same hand without the terminal: seats 2, 3, 0 after the person at seat 1
    eng = MCREngine(1, JUDGE)
    eng.reset(seed=6)
    tiny = BotzoneProcessAgent([sys.executable, str(bot)], io="simple")
    agents = [FirstLegal(), RandomAgent(seed=7), tiny, RandomAgent(seed=9)]
    try:
        play_games(eng, agents, np.array([[3, 0, 1, 2]]))
    finally:
        tiny.close()
    assert tiny.incidents == []
    assert _settlements(text) == [eng.last_hand_result[0].settlement.tolist()]


def test_cmd_opponents_refuse_a_match():
    child = _spawn("--opponents", f"cmd:{sys.executable} -c pass", "--match")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "mcr-play: error: cmd: opponents" in child.before

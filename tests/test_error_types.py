"""Bad arguments of the public API: a value of the wrong type is a TypeError and a value of
the right type outside its range a ValueError, both naming the argument. Each TypeError case
here was a ValueError before (the reproducers); the ValueError beside it is the same argument
with a value of the right type."""

from __future__ import annotations

import numpy as np
import pytest

from baselines.agents import RandomAgent
from mcr_env._checks import check_int
from mcr_env.botzone.judge import judge_initdata, wall_from_initdata
from mcr_env.engine import MCREngine, RulesConfig, make_wall
from mcr_env.engine.render import render_table
from mcr_env.engine.sampling import sample_legal_actions
from mcr_env.envs.gym_env import MCRVectorEnv
from mcr_env.eval.duplicate import duplicate_evaluate
from mcr_env.eval.registry import register_agent
from mcr_env.play.html import record_frames
from mcr_env.play.terminal import TerminalGame
from mcr_env.scoring.settlement import penalty, settle, settle_batch

HANDS = ["1112345678999m", "1112345678999p", "1112345678999s", "1112223334445z"]


def test_check_int_types_values_and_messages():
    assert check_int(np.int8(3), "seat", 0, 3) == 3 and type(check_int(np.int64(2), "x")) is int
    with pytest.raises(TypeError, match=r"^seat must be an int 0\.\.3, got bool True$"):
        check_int(True, "seat", 0, 3)
    with pytest.raises(TypeError, match=r"^n must be an int >= 1, got float 2\.0$"):
        check_int(2.0, "n", 1)
    with pytest.raises(ValueError, match=r"^n must be an int >= 1, got 0$"):
        check_int(0, "n", 1)
    with pytest.raises(ValueError, match=r"^n must be an int <= 5, got 6$"):
        check_int(6, "n", hi=5)
    with pytest.raises(ValueError, match=r"^dealer must be a seat 0\.\.3, got 4$"):
        check_int(4, "dealer", 0, 3, what="a seat 0..3")


def _engine():
    eng = MCREngine(2)
    eng.reset(seed=1)
    return eng


CASES = [
    # (call, bad type, TypeError message, bad value, ValueError message)
    (lambda v: settle(v, 8, 1), True, "winner must be a seat number 0..3, got bool True", 4,
     "winner must be a seat number 0..3, got 4"),
    (lambda v: settle(0, v, 1), 8.0, "total must be an int number of points >= 0, got float",
     -1, "total must be an int number of points >= 0, got -1"),
    (lambda v: penalty(v), None, "offender must be a seat number 0..3, got NoneType None", -1,
     "offender must be a seat number 0..3, got -1"),
    (lambda v: settle_batch(np.array(v), np.array([8]), np.array([1])), [0.0],
     "winner must be an integer array, got dtype float64", [5], "winner must be in -1..3"),
    (lambda v: make_wall(HANDS, dealer=v), 1.0, "dealer must be a seat 0..3, got float 1.0", 4,
     "dealer must be a seat 0..3, got 4"),
    (lambda v: _engine().state.seat_view(v), "0", "seat must be an int 0..3, got str '0'", 4,
     "seat must be an int 0..3, got 4"),
    (lambda v: render_table(_engine().state, 0, v), 1.5, "seat must be an int 0..3, got float",
     -1, "seat must be an int 0..3, got -1"),
    (lambda v: judge_initdata(make_wall(HANDS, layout="botzone")[None][0], quan=v), "1",
     "quan must be 0..3, got str '1'", 4, "quan must be 0..3, got 4"),
    (lambda v: wall_from_initdata({"walltiles": "W1", "quan": v}), 1.0,
     "initdata quan must be 0..3, got float 1.0", 5, "initdata quan must be 0..3, got 5"),
    (lambda v: RulesConfig(wall_layout=v), 1, "RulesConfig.wall_layout must be a str", "x",
     "RulesConfig.wall_layout = 'x' is not valid"),
    (lambda v: _engine().reset(games=v), np.ones(2, dtype=np.int8),
     "games must be a (B,) = (2,) bool array, got dtype int8", np.ones(3, dtype=bool),
     "games must be a (B,) = (2,) bool array, got shape (3,)"),
    (lambda v: _engine().step(np.zeros((2, 4), dtype=np.int64), games=v), [1, 0],
     "games must be a (B,) = (2,) bool array, got dtype int64", np.ones(1, dtype=bool),
     "games must be a (B,) = (2,) bool array, got shape (1,)"),
    (lambda v: sample_legal_actions(np.ones((2, 4, 5), bool), np.random.default_rng(0), v),
     np.ones((2, 4), np.int8), "acting must be a (2, 4) bool array, got dtype int8",
     np.ones((2, 3), bool), "acting must be a (2, 4) bool array, got shape (2, 3)"),
    (lambda v: MCRVectorEnv(num_envs=v), 2.0, "num_envs must be an int >= 1, got float 2.0", 0,
     "num_envs must be an int >= 1, got 0"),
    (lambda v: duplicate_evaluate([RandomAgent()] * 4, v, progress=False), "2",
     "walls must be an int >= 1, got str '2'", 0, "walls must be an int >= 1, got 0"),
    (lambda v: duplicate_evaluate([RandomAgent()] * 4, 1, batch_size=v, progress=False), 2.5,
     "batch_size must be an int >= 1, got float 2.5", 0, "batch_size must be an int >= 1, got 0"),
    (lambda v: register_agent(v, lambda seed: None), 3, "spec must be a non-empty string, got int",
     "", "spec must be a non-empty string, got ''"),
    (lambda v: TerminalGame(v, [RandomAgent()] * 3), "0", "seat must be 0..3, got str '0'", 4,
     "seat must be 0..3, got 4"),
    (lambda v: record_frames({}, seat=v), 1.0, "seat must be an int 0..3 or None, got float",
     7, "seat must be an int 0..3 or None, got 7"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "bad_type", "type_msg", "bad_value", "value_msg"), CASES)
def test_wrong_type_is_a_type_error_and_wrong_value_a_value_error(
    call, bad_type, type_msg, bad_value, value_msg
):
    with pytest.raises(TypeError) as e:
        call(bad_type)
    assert type_msg in str(e.value)
    with pytest.raises(ValueError) as e:
        call(bad_value)
    assert value_msg in str(e.value)

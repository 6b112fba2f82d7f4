"""Two-worlds tests of the baselines' inputs (docs/design.md "Information"; docs/rules.md §2
hidden information): the feature encoders ``planes-v0+rule-v0`` and ``planes-v0+look-v0`` (the
trained agent's observation) and the decisions of ``RuleBasedAgent``, its defensive variant and
``LookaheadAgent`` (the BC teacher) are identical at every decision of seat s in two worlds
that differ only in what seat s cannot see. The pairs: ``tests/two_worlds.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import baselines.features  # noqa: F401 (registers the +rule-v0 / +look-v0 encoders)
from baselines.agents import LookaheadAgent, RuleBasedAgent
from mcr_env.encoding import get_encoder
from mcr_env.encoding.seat_view import SeatView
from mcr_env.engine import MCREngine

sys.path.insert(0, str(Path(__file__).resolve().parent))
import two_worlds as tw  # noqa: E402
from test_two_worlds import assert_same  # noqa: E402

PAIRS = tw.standard_pairs()
IDS = [p.name for p in PAIRS]
ENCODERS = [get_encoder("planes-v0+rule-v0"), get_encoder("planes-v0+look-v0")]
AGENTS = [RuleBasedAgent(), RuleBasedAgent(defensive=True), LookaheadAgent()]


def play(pair, world):
    """Play one world on the engine (B = 1, the pair's rules; the other seats replay their
    scripts, seat s plays the pair's SeatPolicy). Log at each decision of seat s: both feature
    encoders' observations and every baseline agent's action for seat s."""
    s = pair.seat
    eng = MCREngine(1, pair.config)
    eng.reset(walls=pair.walls[world][None])
    pols = pair.policies()
    g, ss = np.array([0]), np.array([s])
    log = []
    while not eng.terminated[0]:
        if eng.to_act[0, s]:
            view = SeatView.from_state(eng.state, g, ss)
            mask = eng.legal_mask[0, s][None].astype(bool)
            log.append(
                (
                    [enc.encode(eng.state, g, ss)[0] for enc in ENCODERS],
                    [int(a.act(None, mask, view)[0]) for a in AGENTS],
                )
            )
        acts = np.zeros((1, 4), dtype=np.int64)
        for t in np.flatnonzero(eng.to_act[0]).tolist():
            obs = tw.ENCODER.encode(eng.state, g, np.array([t]))[0]
            acts[0, t] = pols[t].choose(obs, eng.legal_mask[0, t])
        eng.step(acts)
    return log


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_feature_encoders_and_baseline_agents(pair):
    """planes-v0+rule-v0, planes-v0+look-v0 and the rule / defensive / look-ahead agents'
    answers at seat s's decisions are the same in both worlds (and there are decisions)."""
    logs = [play(pair, w) for w in (0, 1)]
    assert len(logs[0]) > 0
    assert_same(logs, pair, "baselines' features and agents")

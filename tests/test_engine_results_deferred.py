"""``MCREngine.last_hand_result`` is built when read (the engine records ended hands and builds
their ``HandResult`` objects lazily): reading it late gives what reading it at every step gives."""

from __future__ import annotations

import itertools

import numpy as np
from engine_helpers import random_actions

from mcr_env.engine import MCREngine, RulesConfig


def _result_fields(res) -> tuple | None:
    if res is None:
        return None
    return (
        res.hand_number,
        res.end_reason,
        res.winner,
        res.win_from,
        res.win_tile,
        tuple(f.name for f in res.fans),
        res.total,
        tuple(res.settlement.tolist()),
        tuple(res.player_at_seat.tolist()),
        res.offenders,
    )


def test_last_hand_result_read_late_equals_read_at_every_step(monkeypatch):
    """The engine builds ``last_hand_result`` when it is read: an engine read only now and
    then (after several hands ended per game in match mode, after partial resets of games
    whose results were not read, after more than ``MAX_DEFERRED_RESULTS`` steps that ended
    hands: also with a bound of 4) shows the same results as an engine read after every step
    and every reset."""
    import mcr_env.engine.core as core

    for cap, cfg in itertools.product(
        (core.MAX_DEFERRED_RESULTS, 4),
        (RulesConfig(), RulesConfig(match="match", illegal_action="penalize")),
    ):
        monkeypatch.setattr(core, "MAX_DEFERRED_RESULTS", cap)
        engines = [MCREngine(6, cfg) for _ in range(2)]
        for e in engines:
            e.reset(seed=31)
        rngs = [np.random.default_rng(32) for _ in engines]
        eager = []
        steps = 700
        for t in range(steps):
            sel = None
            done = engines[0].terminated  # (the same in both engines)
            if done.all():
                sel = np.ones(6, dtype=bool)
            elif t % 17 == 16 and done.any():  # a finished game (results unread) and game 5
                sel = np.zeros(6, dtype=bool)
                sel[[int(np.nonzero(done)[0][0]), 5]] = True
            for i, e in enumerate(engines):
                if sel is not None:
                    e.reset(games=sel)
                if not e.terminated.all():
                    e.step(random_actions(e, rngs[i]))
            eager.append([_result_fields(r) for r in engines[0].last_hand_result])
            if t % 211 == 210 or t == steps - 1:  # the late reader
                late = [_result_fields(r) for r in engines[1].last_hand_result]
                assert late == eager[-1], f"step {t}"
        assert sum(r is not None for row in eager for r in row) > 100

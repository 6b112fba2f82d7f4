"""``RulesConfig.claim_round`` (docs/rules.md §10): "options" asks only seats with an option
besides Pass, "all" asks every non-discarder in every claim round and every other seat in every
robbing window (Pass-only masks for seats without an option). Both modes must play the same
games: the extra decisions are Pass-only, so a policy that never looks at them ends every game
in the same state with the same settlement."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from engine_helpers import check_invariants
from test_engine_rules import (
    CLAIM_HANDS,
    ROB_DRAWS,
    ROB_HANDS,
    T,
    acting,
    legal,
    step,
)

from mcr_env.engine import GameState, MCREngine, Phase, RulesConfig, make_wall
from mcr_env.engine.actions import (
    ACTION_KIND,
    HU,
    PASS,
    ActionKind,
    bugang_action,
    peng_action,
    play_action,
)


def test_claim_round_validation():
    assert RulesConfig().claim_round == "options"
    assert RulesConfig(claim_round="all").claim_round == "all"
    assert RulesConfig.from_dict({"claim_round": "all"}).claim_round == "all"
    with pytest.raises(ValueError, match=r"claim_round = 'every' is not valid; valid values: "):
        RulesConfig(claim_round="every")
    with pytest.raises(TypeError, match="claim_round must be a str"):
        RulesConfig(claim_round=1)


def _start(hands, draws, replacements=(), **cfg) -> MCREngine:
    eng = MCREngine(1, RulesConfig(**cfg))
    eng.reset(seed=0, walls=make_wall(hands, draws, replacements)[None])
    return eng


def test_all_mode_asks_every_non_discarder():
    eng = _start(CLAIM_HANDS, ["5p", "1m"], claim_round="all")
    step(eng, s0=play_action(T("6s")))
    assert eng.phase[0] == Phase.CLAIM and acting(eng) == {1, 2, 3}
    step(eng)  # all pass: seat 1 draws 1m and discards it; nobody can claim 1m
    assert acting(eng) == {1} and eng.state.drawn_tile[0, 1] == T("1m")
    step(eng, s1=play_action(T("1m")))
    assert eng.phase[0] == Phase.CLAIM and eng.state.tile_in_play[0] == T("1m")
    assert acting(eng) == {0, 2, 3}
    for seat in (0, 2, 3):
        assert legal(eng, seat) == {PASS}
    check_invariants(eng)
    step(eng)
    assert eng.phase[0] == Phase.ACT and acting(eng) == {2}
    # the same discard in "options" mode passes without a decision
    eng = _start(CLAIM_HANDS, ["5p", "1m"])
    step(eng, s0=play_action(T("6s")))
    step(eng)
    step(eng, s1=play_action(T("1m")))
    assert eng.phase[0] == Phase.ACT and acting(eng) == {2}


def test_all_mode_robbing_window_asks_every_other_seat():
    eng = MCREngine(1, RulesConfig(claim_round="all"))
    eng.reset(seed=0, walls=make_wall(ROB_HANDS, ROB_DRAWS, ["3m"])[None])
    step(eng, s0=play_action(T("9p")))
    assert acting(eng) == {1, 2, 3} and legal(eng, 3) == {PASS}
    step(eng, s1=peng_action(T("9p")))
    step(eng, s1=play_action(T("7z")))
    for seat, tile in ((2, "7z"), (3, "1z"), (0, "2z")):
        if eng.phase[0] == Phase.CLAIM:
            step(eng)
        assert acting(eng) == {seat} and eng.phase[0] == Phase.ACT
        step(eng, **{f"s{seat}": play_action(T(tile))})
    step(eng)  # the claim round on seat 0's 2z
    step(eng, s1=bugang_action(T("9p")))
    assert eng.phase[0] == Phase.ROB and acting(eng) == {0, 2, 3}
    assert legal(eng, 0) == {PASS} and legal(eng, 3) == {PASS} and legal(eng, 2) == {PASS, HU}
    check_invariants(eng)
    step(eng)  # nobody robs: the kong stands
    assert eng.phase[0] == Phase.ACT and eng.state.drawn_tile[0, 1] == T("3m")


class SeatPolicy:
    """A per-game seeded policy that draws randomness only for decisions with more than one
    legal action, in a fixed seat order; a decision with one legal action is answered with it.
    It is therefore blind to the Pass-only decisions that ``claim_round="all"`` adds, and plays
    the same games in both modes. Claims are taken often (Hu always, Pass least likely) so that
    kongs, robbing windows and wins occur."""

    def __init__(self, batch: int, seed: int):
        self.rngs = [np.random.default_rng([seed, g]) for g in range(batch)]
        self.trace: list[list] = [[] for _ in range(batch)]

    def __call__(self, eng: MCREngine) -> np.ndarray:
        acts = np.zeros((eng.batch_size, 4), dtype=np.int64)
        for g, s in zip(*np.nonzero(eng.to_act), strict=True):
            ids = np.nonzero(eng.legal_mask[g, s])[0]
            if ids.size == 1:
                acts[g, s] = ids[0]
                continue
            self.trace[g].append((int(eng.phase[g]), int(s), ids.tobytes()))
            if HU in ids:
                acts[g, s] = HU
                continue
            w = np.where(ids == PASS, 0.2, 1.0)
            w = np.where(np.isin(ACTION_KIND[ids], (ActionKind.GANG, ActionKind.BUGANG)), 4.0, w)
            acts[g, s] = self.rngs[g].choice(ids, p=w / w.sum())
        return acts


def _play(config: RulesConfig, batch: int, seed: int, check_every: int = 1):
    eng = MCREngine(batch, config)
    eng.reset(seed=seed)
    policy = SeatPolicy(batch, seed)
    decisions = 0
    claim_steps = np.zeros(batch, dtype=np.int64)  # CLAIM decisions per game
    rob_steps = np.zeros(batch, dtype=np.int64)
    bugangs = np.zeros(batch, dtype=np.int64)
    discards = np.zeros(batch, dtype=np.int64)
    settlements = np.zeros((batch, 4), dtype=np.int64)
    ask_all = config.claim_round == "all"
    n_steps = 0
    while not eng.terminated.all():
        live = ~eng.terminated
        ph = eng.phase
        for p, counter in ((Phase.CLAIM, claim_steps), (Phase.ROB, rob_steps)):
            g = np.nonzero(live & (ph == p))[0]
            counter[g] += 1
            if ask_all and g.size:
                # exactly the three seats other than the player of the tile in play
                d = eng.state.played_by[g].astype(np.int64)
                expect = np.ones((g.size, 4), dtype=bool)
                expect[np.arange(g.size), d] = False
                np.testing.assert_array_equal(eng.to_act[g], expect)
        decisions += int(eng.to_act.sum())
        acts = policy(eng)
        cur = eng.state.current_seat.astype(np.int64)
        on_turn = live & np.isin(ph, (Phase.ACT, Phase.DISCARD))
        a_cur = acts[np.arange(batch), cur]
        bugangs += on_turn & (ACTION_KIND[a_cur] == ActionKind.BUGANG)
        discards += on_turn & (ACTION_KIND[a_cur] == ActionKind.PLAY)
        eng.step(acts)
        settlements += eng.rewards
        n_steps += 1
        if n_steps % check_every == 0:
            check_invariants(eng)
    return eng, policy, decisions, claim_steps, rob_steps, bugangs, discards, settlements


@pytest.mark.parametrize(
    ("base", "batch", "seed", "check_every"),
    [
        (RulesConfig(), 24, 3, 1),
        (RulesConfig(wall_layout="botzone", scoring_profile="botzone"), 24, 4, 1),
        (RulesConfig(match="match"), 1, 5, 7),
    ],
)
def test_all_mode_plays_the_same_games(base, batch, seed, check_every):
    opt = _play(base, batch, seed, check_every)
    alls = _play(dataclasses.replace(base, claim_round="all"), batch, seed, check_every)
    eng_o, pol_o, dec_o, claim_o, rob_o, bug_o, disc_o, set_o = opt
    eng_a, pol_a, dec_a, claim_a, rob_a, bug_a, disc_a, set_a = alls
    # the same decisions with a choice, in the same order, with the same masks
    assert pol_o.trace == pol_a.trace
    for f in dataclasses.fields(GameState):
        np.testing.assert_array_equal(
            getattr(eng_o.state, f.name), getattr(eng_a.state, f.name), err_msg=f.name
        )
    np.testing.assert_array_equal(set_o, set_a)
    np.testing.assert_array_equal(eng_o.table_points, eng_a.table_points)
    for r_o, r_a in zip(eng_o.last_hand_result, eng_a.last_hand_result, strict=True):
        assert (r_o.end_reason, r_o.winner, r_o.win_from, r_o.win_tile, r_o.total) == (
            r_a.end_reason,
            r_a.winner,
            r_a.win_from,
            r_a.win_tile,
            r_a.total,
        )
        assert r_o.fans == r_a.fans
        np.testing.assert_array_equal(r_o.settlement, r_a.settlement)
    np.testing.assert_array_equal(bug_o, bug_a)
    np.testing.assert_array_equal(disc_o, disc_a)
    # "all": one claim round per discard and one robbing window per BuGang; "options" skips some
    np.testing.assert_array_equal(claim_a, disc_a)
    np.testing.assert_array_equal(rob_a, bug_a)
    assert (claim_o <= claim_a).all() and claim_o.sum() < claim_a.sum()
    assert (rob_o <= rob_a).all()
    assert dec_a > dec_o
    if base.match == "hand":
        assert bug_a.sum() > 0  # robbing windows were exercised
        assert (eng_a.state.winner >= 0).any()

"""Engine invariants over many random games, determinism, resets, validation and match mode."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from engine_helpers import check_invariants, random_actions

from mcr_env.engine import (
    EndReason,
    GameState,
    MCREngine,
    Phase,
    RulesConfig,
    fields_in_scope,
    make_wall,
    match_hand_layout,
    seeded_walls,
    table_points,
)
from mcr_env.engine.core import score_cache_info
from mcr_env.engine.kernels import SUIT_TABLE, complete_rows, complete_with, waits_of
from mcr_env.engine.walls import check_walls
from mcr_env.scoring import Fan
from mcr_env.scoring.shanten import complete_mask


@pytest.mark.parametrize("layout", ["official", "botzone"])
def test_invariants_random_games(layout):
    """>= 1000 random hands per layout (2000+ in all), invariants after every step."""
    eng = MCREngine(128, RulesConfig(wall_layout=layout))
    eng.reset(seed=11)
    rng = np.random.default_rng(5)
    check_invariants(eng)
    hands = wins = claims = kongs = 0
    while hands < 1000:
        a = random_actions(eng, rng)
        eng.step(a)
        check_invariants(eng)
        hands += int(eng.hand_over.sum())
        wins += int((eng.state.winner[eng.hand_over] >= 0).sum())
        claims += int((eng.state.phase == Phase.DISCARD).sum())
        kongs += int(eng.state.after_kong.sum())
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
            check_invariants(eng)
    # random play exercises claims and kongs (wins are rare with the 8-point minimum)
    assert claims > 100 and kongs > 10


def test_every_legal_action_accepted_and_outside_raises():
    eng = MCREngine(8)
    eng.reset(seed=3)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(60):
        g, s = (int(x[0]) for x in np.nonzero(eng.to_act))
        legal_ids = np.nonzero(eng.legal_mask[g, s])[0]
        for a in legal_ids:
            other = copy.deepcopy(eng)
            acts = random_actions(other, rng)
            acts[g, s] = a
            other.step(acts)  # accepted
            checked += 1
        illegal = int(np.nonzero(~eng.legal_mask[g, s])[0][0])
        acts = random_actions(eng, rng)
        acts[g, s] = illegal
        with pytest.raises(ValueError, match=f"game {g}, seat {s}"):
            eng.step(acts)
        acts[g, s] = 999
        with pytest.raises(ValueError, match=f"game {g}, seat {s}"):
            eng.step(acts)
        eng.step(random_actions(eng, rng))
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
    assert checked > 300


def test_non_acting_seats_are_ignored_and_terminated_games_do_not_move():
    eng = MCREngine(2)
    eng.reset(seed=1)
    rng = np.random.default_rng(0)
    acts = random_actions(eng, rng)
    acts[~eng.to_act] = 12345  # garbage where nobody acts
    eng.step(acts)
    # finish game 0 by penalty-free play, then check it stays frozen
    while not eng.terminated[0]:
        eng.step(random_actions(eng, rng))
    before = eng.state.copy()
    if not eng.terminated[1]:
        eng.step(random_actions(eng, rng))
    for name in fields_in_scope("public") + fields_in_scope("private"):
        np.testing.assert_array_equal(getattr(before, name)[0], getattr(eng.state, name)[0])
    assert eng.rewards[0].tolist() == [0, 0, 0, 0]
    assert not eng.to_act[0].any()


def _play(eng, steps, policy_seed=0):
    """Deterministic policy (highest legal id per acting seat), for determinism tests."""
    trace = []
    for _ in range(steps):
        a = np.where(
            eng.to_act, eng.legal_mask.shape[2] - 1 - eng.legal_mask[..., ::-1].argmax(2), 0
        )
        eng.step(a)
        trace.append((eng.state.copy(), eng.rewards.copy()))
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
    return trace


def test_determinism_independent_of_batch_size():
    small, big = MCREngine(1), MCREngine(64)
    small.reset(seed=42)
    big.reset(seed=42)
    np.testing.assert_array_equal(small.state.wall[0], big.state.wall[0])
    ts, tb = _play(small, 150), _play(big, 150)
    for (s1, r1), (s2, r2) in zip(ts, tb):
        for name in fields_in_scope("public") + fields_in_scope("private") + ("wall",):
            np.testing.assert_array_equal(getattr(s1, name)[0], getattr(s2, name)[0])
        np.testing.assert_array_equal(r1[0], r2[0])
    # same seed again: same walls; another seed: different walls; games differ from each other
    again = MCREngine(64)
    again.reset(seed=42)
    other = MCREngine(64)
    other.reset(seed=43)
    b0 = MCREngine(64)
    b0.reset(seed=42)
    np.testing.assert_array_equal(again.state.wall, b0.state.wall)
    assert (other.state.wall != b0.state.wall).any(axis=1).all()
    assert len({w.tobytes() for w in b0.state.wall}) == 64


def test_autoreset_walls_follow_the_episode_counter():
    eng = MCREngine(4)
    eng.reset(seed=7)
    w0 = eng.state.wall.copy()
    eng.reset(games=np.array([True, False, False, False]))
    assert (eng.state.wall[0] != w0[0]).any()
    np.testing.assert_array_equal(eng.state.wall[1:], w0[1:])
    expect = seeded_walls("official", 7, np.array([0]), np.array([1]), np.array([0]))
    np.testing.assert_array_equal(eng.state.wall[0], expect[0])


def test_reset_validation():
    eng = MCREngine(2)
    with pytest.raises(RuntimeError):
        eng.step(np.zeros((2, 4), dtype=np.int64))
    with pytest.raises(TypeError, match="games"):
        eng.reset(games=np.array([1, 0]))
    bad = np.tile(make_wall(["123456789m 1234z"] * 4 if False else _HANDS), (2, 1))
    bad[1, 0] = bad[1, 1]
    with pytest.raises(ValueError, match="row 1"):
        eng.reset(walls=bad)
    with pytest.raises(ValueError, match=r"\(N, 144\)"):
        eng.reset(walls=np.zeros((2, 136), dtype=np.int64))
    with pytest.raises(TypeError):
        eng.reset(walls=np.zeros((2, 144)))
    eng.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        eng.step(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(TypeError):
        eng.step(np.zeros((2, 4)))
    with pytest.raises(ValueError):
        MCREngine(0)
    with pytest.raises(TypeError):
        MCREngine(2, config={"wall_layout": "official"})


_HANDS = [
    "123456789m 1234z",
    "123456789s 1234z",
    "123456789p 1234z",
    "567z 111999m 111s 1p",
]


def test_rules_config_validation():
    for key in ("wall_layout", "scoring_profile", "illegal_action", "match", "claim_round"):
        with pytest.raises(ValueError, match="valid values"):
            RulesConfig(**{key: "nope"})
    with pytest.raises(ValueError, match="valid keys"):
        RulesConfig.from_dict({"walls": "official"})
    assert RulesConfig.from_dict({"match": "match"}).match == "match"


def test_explicit_wall_deal():
    wall = make_wall(_HANDS, draws=["9s"])
    check_walls(wall[None], "official")
    eng = MCREngine(1)
    eng.reset(walls=wall[None])
    st = eng.state
    assert st.hand[0, 0].sum() == 14 and st.drawn_tile[0, 0] == 17
    assert st.hand[0, 3, 0] == 3 and st.hand[0, 3, 8] == 3
    bz = make_wall(_HANDS, draws=[["9s"], [], [], []], layout="botzone")
    eng = MCREngine(1, RulesConfig(wall_layout="botzone"))
    eng.reset(walls=bz[None])
    assert eng.state.drawn_tile[0, 0] == 17 and eng.state.flower_count.sum() == 0


def test_seat_view_hides_other_seats():
    eng = MCREngine(3)
    eng.reset(seed=2)
    v = eng.state.seat_view(1)
    assert set(v) == set(fields_in_scope("public") + fields_in_scope("private"))
    np.testing.assert_array_equal(v["hand"][:, 1], eng.state.hand[:, 1])
    assert (v["hand"][:, [0, 2, 3]] == 0).all()
    assert (v["drawn_tile"][:, [0, 2, 3]] == -1).all()
    with pytest.raises(ValueError):
        eng.state.seat_view(4)
    assert isinstance(GameState.empty(2).copy(), GameState)


def _waiting_hands(rng, n_random=6000, n_built=6000):
    """Random ``13 - 3m`` hands and hands one tile short of sets + pair / special forms."""
    tiles = np.repeat(np.arange(34), 4)
    rows, melds = [], []
    for _ in range(n_random):
        m = int(rng.integers(0, 5))
        rows.append(np.bincount(rng.choice(tiles, 13 - 3 * m, replace=False), minlength=34))
        melds.append(m)
    for _ in range(n_built):
        m = int(rng.integers(0, 2)) if rng.random() < 0.3 else int(rng.integers(0, 5))
        h = np.zeros(34, dtype=np.int64)
        form = rng.random()
        if form < 0.1 and m == 0:  # seven pairs
            for t in rng.choice(34, 7, replace=False):
                h[t] += 2
        elif form < 0.2 and m == 0:  # thirteen orphans
            h[[0, 8, 9, 17, 18, 26, *range(27, 34)]] = 1
            h[rng.choice([0, 8, 9, 17, 18, 26, *range(27, 34)])] += 1
        elif form < 0.3 and m <= 1:  # knitted straight / honors and knitted
            perm = rng.permutation(3)
            for suit, start in enumerate(perm):
                h[[9 * suit + start, 9 * suit + start + 3, 9 * suit + start + 6]] = 1
            if m == 0 and rng.random() < 0.5:
                h[rng.choice(range(27, 34), 5, replace=False)] += 1
            else:
                h[int(rng.integers(27, 34))] += 2
                if m == 0:
                    h[int(rng.integers(27, 34))] += 3
        else:
            for _ in range(4 - m):
                if rng.random() < 0.4:
                    h[int(rng.integers(0, 34))] += 3
                else:
                    s, r = int(rng.integers(0, 3)), int(rng.integers(0, 7))
                    h[9 * s + r : 9 * s + r + 3] += 1
            h[int(rng.integers(0, 34))] += 2
        if (h <= 4).all() and h.sum() == 14 - 3 * m:
            h[rng.choice(np.nonzero(h)[0])] -= 1
            rows.append(h)
            melds.append(m)
    return np.array(rows, dtype=np.int8), np.array(melds)


def test_compiled_completeness_matches_complete_mask():
    """The engine kernel's shape test equals the scorer layer's complete_mask on waiting hands
    plus every tile (all forms: regular, Seven Pairs, Thirteen Orphans, knitted forms)."""
    rng = np.random.default_rng(0)
    c13, n13 = _waiting_hands(rng)
    hits = 0
    for t in range(34):
        ok = c13[:, t] < 4
        c14 = c13[ok].copy()
        c14[:, t] += 1
        want = complete_mask(c14, n13[ok])
        got = np.zeros(len(c14), dtype=bool)
        complete_rows(c14, n13[ok].astype(np.int64), SUIT_TABLE, got)
        np.testing.assert_array_equal(got, want)
        hits += int(want.sum())
    assert hits > 3000


def test_waits_of_equals_testing_every_tile():
    """The kernels' cached winning tiles (waits_of) equal complete_with of the hand and each
    tile it does not hold four of: waiting hands of every form, random hands of 13 - 3m
    tiles and hands of any size (seat views of unknown hands), every meld count."""
    rng = np.random.default_rng(5)
    c13, n13 = _waiting_hands(rng)
    rows = [c.astype(np.int64) for c in c13]
    melds = [int(m) for m in n13]
    deck = np.repeat(np.arange(34), 4)
    for i in range(6000):
        m = int(rng.integers(0, 5))
        n = 13 - 3 * m if i < 4000 else int(rng.integers(0, 15))
        rows.append(np.bincount(deck[rng.choice(136, n, replace=False)], minlength=34))
        melds.append(m)
    rows.append(np.array([4, 4, 4, 1] + [0] * 30))  # four of a kind: no fifth tile
    melds.append(0)
    h = np.zeros(34, dtype=np.int64)
    waiting = 0
    for row, m in zip(rows, melds):
        row = row.astype(np.int64)
        want = 0
        for x in range(34):
            if row[x] < 4 and complete_with(row, x, m, SUIT_TABLE, h):
                want |= 1 << x
        assert waits_of(row, m, SUIT_TABLE, h) == want, (row.tolist(), m)
        waiting += want != 0
    assert waiting > 3000


def test_match_rotation_and_winds():
    lay = [match_hand_layout(h) for h in range(16)]
    dealers = [d for d, _, _ in lay]
    assert dealers == [0, 1, 2, 3, 1, 2, 3, 0, 3, 0, 1, 2, 2, 3, 0, 1]
    assert [w for _, w, _ in lay] == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
    for h, (d, _, players) in enumerate(lay):
        if h % 4 == 0:
            assert players[d] == 0  # the player who was East in hand 1 is East again
    assert lay[4][2].tolist() == [1, 0, 3, 2]
    assert lay[8][2].tolist() == [2, 3, 1, 0]
    assert lay[12][2].tolist() == [3, 2, 0, 1]
    with pytest.raises(ValueError):
        match_hand_layout(16)


def test_match_mode_plays_16_hands():
    eng = MCREngine(2, RulesConfig(match="match"))
    eng.reset(seed=9)
    rng = np.random.default_rng(1)
    seen = [[], []]
    walls = [set(), set()]
    totals = np.zeros((2, 4), dtype=np.int64)
    for g in range(2):
        walls[g].add(eng.state.wall[g].tobytes())
        seen[g].append((0, int(eng.state.dealer[g]), int(eng.state.prevalent_wind[g])))
    for _ in range(5000):
        eng.step(random_actions(eng, rng))
        check_invariants(eng)
        totals += eng.player_rewards
        for g in np.nonzero(eng.hand_over & ~eng.terminated)[0]:
            st = eng.state
            h = int(st.hand_number[g])
            seen[g].append((h, int(st.dealer[g]), int(st.prevalent_wind[g])))
            walls[g].add(st.wall[g].tobytes())
            d, w, players = match_hand_layout(h)
            assert (d, w) == (int(st.dealer[g]), int(st.prevalent_wind[g]))
            np.testing.assert_array_equal(st.player_at_seat[g], players)
            assert st.phase[g] == Phase.ACT and st.current_seat[g] == d
        if eng.terminated.all():
            break
    assert eng.terminated.all()
    for g in range(2):
        assert [h for h, _, _ in seen[g]] == list(range(16))
        assert len(walls[g]) == 16  # every hand its own wall
        assert eng.last_hand_result[g].hand_number == 15
    np.testing.assert_array_equal(eng.state.match_scores, totals)
    np.testing.assert_allclose(eng.table_points, table_points(totals))
    assert np.allclose(eng.table_points.sum(axis=1), 7.0)


def test_table_points_ties_share():
    pts = table_points(np.array([[10, 0, 0, -10], [5, 5, 5, 5], [3, 9, 1, -13]]))
    np.testing.assert_allclose(pts[0], [4, 1.5, 1.5, 0])
    np.testing.assert_allclose(pts[1], [1.75] * 4)
    np.testing.assert_allclose(pts[2], [2, 4, 1, 0])


def test_match_explicit_walls_per_hand():
    walls = seeded_walls("official", 5, np.zeros(16, int), np.zeros(16, int), np.arange(16))
    eng = MCREngine(1, RulesConfig(match="match"))
    eng.reset(walls=walls[None])
    np.testing.assert_array_equal(eng.state.wall[0], walls[0])
    rng = np.random.default_rng(0)
    while not eng.hand_over[0]:
        eng.step(random_actions(eng, rng))
    np.testing.assert_array_equal(eng.state.wall[0], walls[1])
    assert eng.last_hand_result[0].end_reason in tuple(EndReason)


def test_replay_from_walls_and_actions():
    """A game is fully determined by its wall and the actions: replaying them reproduces it."""
    eng = MCREngine(16, RulesConfig(wall_layout="botzone"))
    eng.reset(seed=21)
    walls = eng.state.wall[:, :136].copy()  # botzone: four 34-tile walls in a row
    rng = np.random.default_rng(2)
    log, states = [], []
    while not eng.terminated.all():
        a = random_actions(eng, rng)
        log.append(a)
        eng.step(a)
        states.append(eng.state.copy())
    rep = MCREngine(16, RulesConfig(wall_layout="botzone"))
    rep.reset(walls=walls)
    for a, want in zip(log, states):
        rep.step(a)
        for name in fields_in_scope("public") + fields_in_scope("private"):
            np.testing.assert_array_equal(getattr(rep.state, name), getattr(want, name), name)
    assert [r.settlement.tolist() for r in rep.last_hand_result] == [
        r.settlement.tolist() for r in eng.last_hand_result
    ]


def test_step_subset_leaves_other_games_untouched():
    eng = MCREngine(6)
    eng.reset(seed=4)
    rng = np.random.default_rng(3)
    for _ in range(30):
        eng.step(random_actions(eng, rng))
    active = np.array([True, False, True, False, True, False])
    before = eng.state.copy()
    mask, to_act = eng.legal_mask.copy(), eng.to_act.copy()
    hu = dict(eng._hu)
    for _ in range(40):
        eng.step(random_actions(eng, rng), games=active)
        check_invariants(eng)
        if eng.terminated.any():
            eng.reset(games=eng.terminated & active)
    for name in fields_in_scope("public") + fields_in_scope("private") + ("wall",):
        np.testing.assert_array_equal(
            getattr(eng.state, name)[~active], getattr(before, name)[~active]
        )
    np.testing.assert_array_equal(eng.legal_mask[~active], mask[~active])
    np.testing.assert_array_equal(eng.to_act[~active], to_act[~active])
    assert all(eng._hu[k] is v for k, v in hu.items() if not active[k[0]])
    assert (eng.state.total_discards[active] != before.total_discards[active]).any()
    with pytest.raises(ValueError, match="games"):
        eng.step(np.zeros((6, 4), dtype=np.int64), games=np.ones(5, bool))


def _greedy_actions(eng, rng) -> np.ndarray:
    """Hu when legal; claims half the time; AnGang/BuGang half the time; else the discard
    that leaves the lowest shanten (random ties). Wins often, so settlements get exercised."""
    from mcr_env.engine.actions import ACTION_KIND, HU, PASS, PLAY_OFFSET, ActionKind
    from mcr_env.scoring.shanten import shanten_batch

    acts = random_actions(eng, rng)
    st = eng.state
    for g, s in zip(*np.nonzero(eng.to_act)):
        legal = np.nonzero(eng.legal_mask[g, s])[0]
        kinds = ACTION_KIND[legal]
        if HU in legal:
            acts[g, s] = HU
        elif eng.phase[g] in (Phase.CLAIM, Phase.ROB):
            claims = legal[kinds != ActionKind.PASS]
            acts[g, s] = rng.choice(claims) if claims.size and rng.random() < 0.5 else PASS
        else:
            kongs = legal[(kinds == ActionKind.ANGANG) | (kinds == ActionKind.BUGANG)]
            if kongs.size and rng.random() < 0.5:
                acts[g, s] = kongs[0]
                continue
            plays = legal[kinds == ActionKind.PLAY]
            hands = np.repeat(st.hand[g, s][None], plays.size, axis=0)
            hands[np.arange(plays.size), plays - PLAY_OFFSET] -= 1
            sh = shanten_batch(hands, np.full(plays.size, st.n_melds[g, s]))
            best = plays[sh == sh.min()]
            acts[g, s] = rng.choice(best)
    return acts


@pytest.mark.parametrize("layout", ["official", "botzone"])
def test_greedy_games_win_and_settle(layout):
    eng = MCREngine(32, RulesConfig(wall_layout=layout))
    eng.reset(seed=17)
    rng = np.random.default_rng(8)
    results = []
    while len(results) < 150:
        eng.step(_greedy_actions(eng, rng))
        check_invariants(eng)
        for g in np.nonzero(eng.hand_over)[0]:
            results.append(eng.last_hand_result[g])
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
    wins = [r for r in results if r.winner >= 0]
    assert len(wins) >= 30
    for r in wins:
        x = r.total
        assert x == sum(f.points * f.count for f in r.fans)
        assert x - sum(f.points * f.count for f in r.fans if f.fan == Fan.FLOWER_TILES) >= 8
        expect = np.full(4, -8 if r.win_from >= 0 else -(8 + x))
        if r.win_from >= 0:
            expect[r.win_from] = -(8 + x)
            expect[r.winner] = 24 + x
        else:
            expect[r.winner] = 3 * (8 + x)
        np.testing.assert_array_equal(r.settlement, expect)
    assert {r.end_reason for r in wins} >= {EndReason.SELF_DRAWN, EndReason.DISCARD}


def test_score_cache_answers_a_replayed_game_without_the_scorer():
    """The exact-scoring cache is keyed by everything the score depends on: replaying the
    same seeded games finds every complete hand in it (no miss), and the results are the
    same objects."""
    from mcr_env.engine import core

    core._cached_score.cache_clear()

    def play():
        eng = MCREngine(16, RulesConfig())
        eng.reset(seed=7)
        rng = np.random.default_rng(7)
        hus = []
        while not eng.terminated.all():
            eng.step(random_actions(eng, rng))
            hus.append(dict(eng._hu))
        return hus, [r.total for r in eng.last_hand_result]

    first, totals = play()
    info = score_cache_info()
    assert info["misses"] > 0 and info["size"] == info["misses"]
    lookups = info["hits"] + info["misses"]
    second, totals2 = play()
    again = score_cache_info()
    assert again["misses"] == info["misses"]  # every hand of the replay was cached
    assert again["hits"] == info["hits"] + lookups
    assert totals2 == totals
    for a, b in zip(first, second):
        assert a.keys() == b.keys() and all(a[k][0] is b[k][0] for k in a)


def test_completeness_with_an_extra_tile_read_in_place():
    """complete_with (the claim rounds' test: a hand plus the tile in play, read from the
    int8 hand row without a copy) equals complete_mask of the 14 - 3m tile counts."""
    rng = np.random.default_rng(1)
    c13, n13 = _waiting_hands(rng)
    h = np.zeros(34, dtype=np.int64)
    hits = 0
    for i in range(0, len(c13), 3):
        row = c13[i]
        for t in range(34):
            if row[t] == 4:
                continue
            c14 = row.astype(np.int64)
            c14[t] += 1
            want = bool(complete_mask(c14[None], np.array([n13[i]]))[0])
            assert complete_with(row, t, int(n13[i]), SUIT_TABLE, h) == want
            if want:  # the drawn-tile form: the tile already counted, no extra
                assert complete_with(c14.astype(np.int8), -1, int(n13[i]), SUIT_TABLE, h)
            hits += want
    assert hits > 500

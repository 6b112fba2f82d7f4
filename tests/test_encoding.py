"""Observation encoders planes-v0 / oracle-v0: layout, values, and no information leak."""

import numpy as np
import pytest

from mcr_env.encoding import as_grid, encoder_ids, get_encoder
from mcr_env.engine.actions import HU, bugang_action, peng_action, play_action
from mcr_env.engine.core import MCREngine
from mcr_env.engine.state import MeldKind, Phase
from mcr_env.envs.common import random_legal_actions

PLANES = get_encoder("planes-v0")
ORACLE = get_encoder("oracle-v0")


def _meld_greedy_actions(mask, rng):
    """Random legal actions, but any legal kong or claim (ids >= 36) is taken first, so that
    states with melds and concealed kongs are reached quickly."""
    melds = mask.copy()
    melds[..., :36] = False
    a = random_legal_actions(mask, rng)
    b = random_legal_actions(melds, rng)
    return np.where(melds.any(axis=-1), b, a)


def _midgame_states(batch=32, seed=7, checkpoints=(5, 20, 45, 80)):
    """Copies of engine states after meld-greedy random legal play (several depths)."""
    eng = MCREngine(batch)
    eng.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for t in range(max(checkpoints) + 1):
        if t in checkpoints:
            out.append(eng.state.copy())
        eng.step(_meld_greedy_actions(eng.legal_mask, rng))
    return out


STATES = _midgame_states()


def test_registry_and_layout():
    assert set(encoder_ids()) >= {"planes-v0", "oracle-v0"}
    assert get_encoder("planes-v0") is PLANES
    assert PLANES.shape == (75, 34) and ORACLE.shape == (98, 34)
    assert PLANES.scopes == {"public", "private"}
    assert "oracle" in ORACLE.scopes
    # oracle-v0 starts with planes-v0's channels, byte for byte
    assert [p.name for p in ORACLE.pieces[: len(PLANES.pieces)]] == [p.name for p in PLANES.pieces]
    off = 0
    for row in PLANES.channel_table():
        assert row["offset"] == off
        off += row["channels"]
    assert off == PLANES.num_channels
    with pytest.raises(ValueError, match="unknown encoder 'x'.*planes-v0"):
        get_encoder("x")
    with pytest.raises(KeyError, match="no piece"):
        PLANES.piece_slice("nope")


def test_encode_argument_errors():
    st = STATES[0]
    with pytest.raises(ValueError, match="both"):
        PLANES.encode(st, [0])
    with pytest.raises(ValueError, match="differ"):
        PLANES.encode(st, [0, 1], [0])
    with pytest.raises(ValueError, match="game index"):
        PLANES.encode(st, [99], [0])
    with pytest.raises(ValueError, match="seat index"):
        PLANES.encode(st, [0], [4])
    with pytest.raises(TypeError):
        PLANES.encode(st, [0.5], [0])
    assert PLANES.encode(st, [], []).shape == (0, 75, 34)


@pytest.mark.parametrize("enc", [PLANES, ORACLE], ids=lambda e: e.id)
def test_dtype_shape_and_ranges(enc):
    for st in STATES:
        obs = enc.encode(st)
        assert obs.dtype == np.float32 and obs.shape == (st.batch_size * 4, *enc.shape)
        for p in enc.pieces:
            v = obs[:, enc.piece_slice(p.name)]
            assert v.min() >= p.low and v.max() <= p.high, p.name
        grid = as_grid(obs)
        assert grid.shape == (st.batch_size * 4, enc.num_channels, 4, 9)
        np.testing.assert_array_equal(grid[..., 3, 7:], 0)


def test_batched_equals_one_by_one():
    st = STATES[2]
    games = np.array([3, 0, 3, 7, 1])
    seats = np.array([2, 0, 1, 3, 3])
    batched = ORACLE.encode(st, games, seats)
    for i, (g, s) in enumerate(zip(games, seats)):
        np.testing.assert_array_equal(batched[i], ORACLE.encode(st, [g], [s])[0])
    buf = np.full((5, 98, 34), 7.0, dtype=np.float32)
    assert ORACLE.encode(st, games, seats, out=buf) is buf
    np.testing.assert_array_equal(buf, batched)


def _piece(obs, name, enc=PLANES):
    return obs[:, enc.piece_slice(name)]


def test_values_match_state():
    for st in STATES:
        b = st.batch_size
        obs = PLANES.encode(st).reshape(b, 4, *PLANES.shape)
        for g in range(b):
            for s in range(4):
                o = obs[g, s][None]
                hand = _piece(o, "hand")[0]
                np.testing.assert_array_equal(hand.sum(axis=0), st.hand[g, s])
                own_ak = np.zeros(34)
                for j in range(4):
                    if st.angang_tile[g, s, j] >= 0:
                        own_ak[st.angang_tile[g, s, j]] = 1
                np.testing.assert_array_equal(_piece(o, "own_angang")[0, 0], own_ak)
                unseen = _piece(o, "unseen")[0].sum(axis=0)
                total = unseen + st.hand[g, s] + st.visible_count[g] + 4 * own_ak
                np.testing.assert_array_equal(total, 4)
                wind = (s - st.dealer[g]) % 4
                assert _piece(o, "seat_wind")[0, 0].nonzero()[0].tolist() == [27 + wind]
                assert _piece(o, "phase")[0, :, 0].argmax() == st.phase[g]
                for r in range(4):
                    a = (s + r) % 4
                    n = st.n_discards[g, a]
                    d = st.discards[g, a, :n]
                    np.testing.assert_array_equal(
                        _piece(o, "discards")[0, r], np.bincount(d, minlength=34)
                    )
                    newest = _piece(o, "recent_discards")[0, 4 * r]
                    if n:
                        assert newest.nonzero()[0].tolist() == [d[-1]]
                    else:
                        assert newest.sum() == 0
                    kinds = st.meld_kind[g, a]
                    assert _piece(o, "angang_count")[0, r, 0] == (kinds == MeldKind.ANGANG).sum()
                    pung = np.zeros(34)
                    pung[st.meld_tile[g, a][kinds == MeldKind.PENG]] = 1
                    np.testing.assert_array_equal(_piece(o, "peng")[0, r], pung)
                    assert _piece(o, "flowers")[0, r, 5] == st.flower_count[g, a]
                    assert _piece(o, "tiles_left")[0, r, 0] == pytest.approx(
                        st.tiles_left[g, a] / 144.0
                    )


def _relabel_hidden(st, g, seat, rng):
    """Swap two tile kinds x, y in everything ``seat`` cannot see (other hands, other drawn
    tiles, other concealed kongs, the wall), then shuffle the undrawn wall. Consistent when x
    and y have the same number of hidden copies. Returns False if no such pair exists."""
    own_ak = np.zeros(34, dtype=np.int64)
    for j in range(4):
        if st.angang_tile[g, seat, j] >= 0:
            own_ak[st.angang_tile[g, seat, j]] = 4
    hidden = 4 - st.hand[g, seat].astype(np.int64) - st.visible_count[g] - own_ak
    kinds = [t for t in range(34) if hidden[t] > 0]
    rng.shuffle(kinds)
    for x in kinds:
        same = [y for y in kinds if y != x and hidden[y] == hidden[x]]
        if not same:
            continue
        y = same[0]
        perm = np.arange(42)
        perm[x], perm[y] = y, x
        for o in range(4):
            if o == seat:
                continue
            h = st.hand[g, o].copy()
            st.hand[g, o, x], st.hand[g, o, y] = h[y], h[x]
            if st.drawn_tile[g, o] >= 0:
                st.drawn_tile[g, o] = perm[st.drawn_tile[g, o]]
            ak = st.angang_tile[g, o]
            st.angang_tile[g, o] = np.where(ak >= 0, perm[np.maximum(ak, 0)], -1)
        w = st.wall[g]
        st.wall[g] = np.where(w >= 0, perm[np.maximum(w, 0)], -1)
        front, back = int(st.wall_front[g, 0]), int(st.wall_back[g, 0])
        live = st.wall[g, front:back].copy()
        rng.shuffle(live)
        st.wall[g, front:back] = live
        return True
    return False


def test_no_information_leak():
    """planes-v0 of a seat is unchanged when what it cannot see changes consistently; the
    oracle encoder does change (so the modification is real)."""
    rng = np.random.default_rng(0)
    n_checked = n_oracle_changed = 0
    for st in STATES:
        for seat in range(4):
            mod = st.copy()
            changed = [g for g in range(st.batch_size) if _relabel_hidden(mod, g, seat, rng)]
            games = np.array(changed)
            seats = np.full(len(games), seat)
            np.testing.assert_array_equal(
                PLANES.encode(st, games, seats), PLANES.encode(mod, games, seats)
            )
            o1, o2 = ORACLE.encode(st, games, seats), ORACLE.encode(mod, games, seats)
            n_oracle_changed += int((o1 != o2).reshape(len(games), -1).any(axis=1).sum())
            n_checked += len(games)
    assert n_checked >= 300
    assert n_oracle_changed >= n_checked * 0.9


def test_concealed_kong_tile_not_leaked():
    """Another seat's concealed kong: its tile never reaches planes-v0 (relabel it)."""
    for st in STATES:
        g, o, j = np.nonzero(st.meld_kind == MeldKind.ANGANG)
        for gi, oi, ji in zip(g, o, j):
            t = int(st.angang_tile[gi, oi, ji])
            for seat in range(4):
                if seat == oi:
                    continue
                mod = st.copy()
                others = [u for u in range(34) if u != t and mod.hand[gi, seat, u] == 0]
                u = others[0]
                mod.angang_tile[gi, oi, ji] = u
                a = PLANES.encode(st, [gi], [seat])
                np.testing.assert_array_equal(a, PLANES.encode(mod, [gi], [seat]))
    assert any((st.meld_kind == MeldKind.ANGANG).any() for st in STATES)


def test_tile_in_play_and_played_by():
    eng = MCREngine(64)
    eng.reset(seed=3)
    rng = np.random.default_rng(3)
    seen = 0
    for _ in range(60):
        eng.step(random_legal_actions(eng.legal_mask, rng))
        st = eng.state
        g = np.nonzero(st.phase == Phase.CLAIM)[0]
        for gi in g:
            for s in range(4):
                o = PLANES.encode(st, [gi], [s])
                assert _piece(o, "tile_in_play")[0, 0].nonzero()[0].tolist() == [
                    st.tile_in_play[gi]
                ]
                r = (st.played_by[gi] - s) % 4
                assert _piece(o, "played_by")[0, :, 0].nonzero()[0].tolist() == [r]
            seen += 1
    if seen == 0:
        pytest.skip("no claim round reached in random play (engine asks no seat)")


def _scripted(hands, draws, script):
    """One engine (batch 1) on the explicit wall of ``hands``/``draws`` after the ``script``
    of ``(seat, action)`` (the other seats Pass); yields the state after each step."""
    from mcr_env.engine.walls import make_wall

    eng = MCREngine(1)
    eng.reset(walls=make_wall(hands, draws=draws)[None])
    for seat, act in script:
        assert eng.legal_mask[0, seat, act], (seat, act)
        a = np.zeros((1, 4), dtype=np.int64)
        a[0, seat] = act
        eng.step(a)
        yield eng.state


def _unseen_counts(st, seat, enc=PLANES):
    """``(34,)`` the unseen count of each tile in ``seat``'s observation (sum of the
    thermometer), checked equal for the fused encoder and the piece reference."""
    from mcr_env.encoding.planes import make_reference

    o = enc.encode(st, [0], [seat])
    np.testing.assert_array_equal(o, make_reference(enc.id).encode(st, [0], [seat]))
    return _piece(o, "unseen", enc)[0].sum(axis=0).astype(int)


_P5 = 22  # B5 (5p)
DISCARD_WIN = (
    ["123456789m 2344z", "123456789s 11z 55p", "111999m 111s 19p 77z", "567z 222888s 13p 66z"],
    ["5p"],
    [(0, play_action(_P5)), (1, HU)],
)
"""(hands, draws, script) of :func:`_scripted`: seat 1 wins on seat 0's discard of B5."""
ROB_WIN = (
    ["123456789m 234z 5p", "123456789s 11z 46p", "111999m 55p 19p 777z", "567z 222888s 13p 66z"],
    ["2p", "4z", "3z", "2z", "5p"],
    [
        (0, play_action(_P5)),
        (2, peng_action(_P5)),
        (2, play_action(26)),  # B9
        (3, play_action(30)),  # F4
        (0, play_action(29)),  # F3
        (1, play_action(28)),  # F2
        (2, bugang_action(_P5)),
        (1, HU),
    ],
)
"""(hands, draws, script) of :func:`_scripted`: seat 1 robs seat 2's BuGang of B5."""


@pytest.mark.parametrize("enc", [PLANES, ORACLE], ids=lambda e: e.id)
def test_unseen_counts_won_discard_once(enc):
    """Win on a discard: in the terminal state the won tile is both in the winner's hand and in
    ``visible_count`` (as the tile in play); the winner's unseen count counts it once."""
    from mcr_env.engine.state import EndReason

    *_, st = _scripted(*DISCARD_WIN)
    assert (st.phase[0], st.end_reason[0], st.winner[0], st.win_from[0]) == (
        Phase.OVER,
        EndReason.DISCARD,
        1,
        0,
    )
    assert (st.hand[0, 1, _P5], st.visible_count[0, _P5]) == (3, 1)
    # winner: 3 copies in hand (2 + the won one), none visible elsewhere -> 1 unseen
    assert _unseen_counts(st, 1, enc)[_P5] == 4 - 3 - 0
    # the others: the won discard is visible, the winner's two are not -> 3 unseen
    for s in (0, 2, 3):
        assert _unseen_counts(st, s, enc)[_P5] == 4 - 0 - 1
    # every other tile of the winner: 4 - own copies - visible copies, clipped at 0
    u = _unseen_counts(st, 1, enc)
    exp = np.clip(4 - st.hand[0, 1].astype(int) - st.visible_count[0].astype(int), 0, 4)
    exp[_P5] = 1
    np.testing.assert_array_equal(u, exp)


@pytest.mark.parametrize("enc", [PLANES, ORACLE], ids=lambda e: e.id)
def test_unseen_counts_robbed_kong_once(enc):
    """Robbing the kong: in ROB the added tile counts once for everyone (it is in the open
    kong; the declarer no longer holds it); at the end the robbed tile, back out of the kong
    and in the winner's hand, was seen by every seat: it stays in ``visible_count`` and counts
    once for the winner too (nothing of it is unseen by anyone)."""
    from mcr_env.engine.state import EndReason

    states = [s.copy() for s in _scripted(*ROB_WIN)]
    rob, st = states[-2], states[-1]
    assert rob.phase[0] == Phase.ROB and rob.visible_count[0, _P5] == 4
    for s in range(4):
        assert _unseen_counts(rob, s, enc)[_P5] == 0
    assert (st.phase[0], st.end_reason[0], st.winner[0], st.win_from[0]) == (
        Phase.OVER,
        EndReason.ROB_KONG,
        1,
        2,
    )
    # a pung again + 1 in the winner's hand, all four seen by everybody
    assert (st.hand[0, 1, _P5], st.visible_count[0, _P5]) == (1, 4)
    for s in range(4):
        assert _unseen_counts(st, s, enc)[_P5] == 0

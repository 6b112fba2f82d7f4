"""Shared helpers for the engine tests: invariant checks and random legal play."""

from __future__ import annotations

import numpy as np

from mcr_env.engine.state import MeldKind, Phase

MELD_SIZE = {MeldKind.CHI: 3, MeldKind.PENG: 3, MeldKind.GANG: 4, MeldKind.ANGANG: 4}


def tile_census(eng) -> tuple[np.ndarray, np.ndarray]:
    """``(B, 34)`` copies of each kind found across wall, hands, melds and discards, and
    ``(B,)`` flowers found (wall + set aside)."""
    st = eng.state
    b = eng.batch_size
    counts = st.hand.sum(axis=1).astype(np.int64)
    # wall: undrawn slots of each segment
    n_seg = 4 if eng.config.wall_layout == "botzone" else 1
    flowers = st.flower_count.sum(axis=1).astype(np.int64)
    slots = np.arange(st.wall.shape[1])
    for k in range(n_seg):
        inside = (slots[None, :] >= st.wall_front[:, k : k + 1]) & (
            slots[None, :] < st.wall_back[:, k : k + 1]
        )
        tiles = np.where(inside, st.wall, -1)
        for t in range(34):
            counts[:, t] += (tiles == t).sum(axis=1)
        flowers += (tiles >= 34).sum(axis=1)
    # melds
    for j in range(4):
        kind = st.meld_kind[:, :, j]
        for kd, size in MELD_SIZE.items():
            for s in range(4):
                rows = np.nonzero(kind[:, s] == kd)[0]
                if kd == MeldKind.ANGANG:
                    tiles = st.angang_tile[rows, s, j]
                    counts[rows, tiles] += 4
                elif kd == MeldKind.CHI:
                    mid = st.meld_tile[rows, s, j]
                    for off in (-1, 0, 1):
                        counts[rows, mid + off] += 1
                else:
                    counts[rows, st.meld_tile[rows, s, j]] += size
    # unclaimed discards
    valid = (st.discards >= 0) & ~st.discard_claimed
    for t in range(34):
        counts[:, t] += ((st.discards == t) & valid).sum(axis=(1, 2))
    assert counts.shape == (b, 34)
    return counts, flowers


def check_invariants(eng) -> None:
    """Assert the engine contract invariants on every game of ``eng``."""
    st = eng.state
    counts, flowers = tile_census(eng)
    assert (counts == 4).all(), np.argwhere(counts != 4)[:5]
    expect_fl = 0 if eng.config.wall_layout == "botzone" else 8
    assert (flowers == expect_fl).all()
    size = st.hand.sum(axis=2) + 3 * st.n_melds  # 13, or 14 for the seat on turn / winner
    live = ~eng.terminated
    turn = turn_mask(eng)
    assert (size[turn] == 14).all()
    assert (size[~turn] == 13).all()
    # a live game has an acting seat with a legal action; non-acting seats have empty masks
    assert (eng.to_act.any(axis=1) | ~live).all()
    assert (eng.legal_mask.any(axis=2) == eng.to_act).all()
    assert not eng.to_act[~live].any()
    assert (st.phase[live] != Phase.OVER).all()
    # visible counts: unclaimed discards + open meld tiles
    assert (eng.rewards.sum(axis=1) == 0).all()
    assert (st.hand >= 0).all() and (st.hand <= 4).all()


def turn_mask(eng) -> np.ndarray:
    """``(B, 4) bool``: the seat holding 14 - 3m tiles (on turn, or the winner)."""
    st = eng.state
    turn = np.zeros((eng.batch_size, 4), dtype=bool)
    on_turn = np.isin(st.phase, (Phase.ACT, Phase.DISCARD))
    turn[np.nonzero(on_turn)[0], st.current_seat[on_turn]] = True
    won = st.winner >= 0
    turn[np.nonzero(won)[0], st.winner[won]] = True
    return turn


def random_actions(eng, rng) -> np.ndarray:
    """``(B, 4) int64``: a uniformly random legal action for every acting seat (0 elsewhere)."""
    m = eng.legal_mask
    r = rng.random(m.shape, dtype=np.float32) + 0.5
    return (r * m).argmax(axis=2)


# Robbing the kong (tests/test_engine_rules.py, tests/two_worlds.py): seat 1 Pengs 9p from the
# dealer, later draws the 4th 9p and adds it; seat 2 waits on 6p/9p.
ROB_HANDS = [
    "9p 1z2z3z4z5z6z 2s5s8s 3p5p6p",
    "1z2z3z4z5z6z7z 9p9p 1s4s7s 2p",
    "123456789m 1p1p 7p8p",
    "1z2z3z4z5z6z7z 3s6s9s 4p 2m 5m",
]
ROB_DRAWS = ["7z", "7z", "1z", "2z", "9p"]

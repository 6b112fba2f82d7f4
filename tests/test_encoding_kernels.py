"""The compiled encoders (``mcr_env.encoding.kernels``) against a plain-Python restatement of
docs/observations.md, one (game, seat) at a time with Python ints and lists (slow, obviously
right; it shares no code with the kernels nor with the numpy piece functions), on the pinned
golden states, on states of seeded games in every rules mode (official and botzone walls,
matches with penalties, ``claim_round="all"``) and on the scripted wins of test_encoding.py, in
random orders of (game, seat) pairs."""

from __future__ import annotations

import numpy as np
import pytest
from test_encoding import DISCARD_WIN, ROB_WIN, _scripted
from test_encoding_golden import load_states

from mcr_env.encoding import get_encoder
from mcr_env.engine import GameState, MCREngine, RulesConfig
from mcr_env.engine.sampling import sample_legal_actions
from mcr_env.scoring.shanten import shanten_batch

T = 34
CHI, PENG, GANG, ANGANG = 1, 2, 3, 4
OVER = 4
WON_ON_DISCARD = (2, 3)  # EndReason.DISCARD, ROB_KONG


def _thermo(counts):
    """4 channels: ``count >= k + 1``."""
    return [[1.0 if counts[t] > k else 0.0 for t in range(T)] for k in range(4)]


def _onehot(tile):
    return [1.0 if t == tile else 0.0 for t in range(T)]


def _flat(v):
    return [float(v)] * T


def planes_v0_row(st: GameState, g: int, s: int) -> list[list[float]]:
    """The 75 planes-v0 channels of seat ``s`` in game ``g`` (docs/observations.md)."""
    rel = [(s + r) % 4 for r in range(4)]
    hand = [int(x) for x in st.hand[g, s]]
    own_kong = [0] * T
    for t in st.angang_tile[g, s].tolist():
        if t >= 0:
            own_kong[t] += 1
    rows = _thermo(hand)
    rows.append(_onehot(int(st.drawn_tile[g, s])))
    rows.append([float(x) for x in own_kong])
    melds = {k: [] for k in (CHI, PENG, GANG)}
    n_angang = []
    for a in rel:
        chi, peng, gang = [0] * T, [0] * T, [0] * T
        kinds, tiles = st.meld_kind[g, a].tolist(), st.meld_tile[g, a].tolist()
        for k, t in zip(kinds, tiles):
            if k == CHI:
                for u in (t - 1, t, t + 1):
                    chi[u] += 1
            elif k == PENG:
                peng[t] += 1
            elif k == GANG:
                gang[t] += 1
        melds[CHI].append(chi)
        melds[PENG].append(peng)
        melds[GANG].append(gang)
        n_angang.append(kinds.count(ANGANG))
    for k in (CHI, PENG, GANG):
        rows += [[float(x) for x in m] for m in melds[k]]
    rows += [_flat(n) for n in n_angang]
    discards = [[t for t in st.discards[g, a].tolist()[: int(st.n_discards[g, a])]] for a in rel]
    rows += [[float(d.count(t)) for t in range(T)] for d in discards]
    for d in discards:
        for k in range(4):
            rows.append(_onehot(d[-1 - k] if k < len(d) else -1))
    rows += [_flat(int(st.flower_count[g, a])) for a in rel]
    unseen = [4 - hand[t] - int(st.visible_count[g, t]) - 4 * own_kong[t] for t in range(T)]
    tip = int(st.tile_in_play[g])
    won = (
        int(st.phase[g]) == OVER
        and int(st.end_reason[g]) in WON_ON_DISCARD
        and int(st.winner[g]) == s
        and tip >= 0
    )
    if won:  # the won discard is both in the hand and visible: counted once
        unseen[tip] += 1
    rows += _thermo(unseen)
    rows.append(_onehot(tip))
    pb = int(st.played_by[g])
    rows += [_flat(pb >= 0 and a == pb) for a in rel]
    cur = int(st.current_seat[g])
    rows += [_flat(int(st.phase[g]) != OVER and a == cur) for a in rel]
    rows.append(_onehot(27 + (s - int(st.dealer[g])) % 4))
    rows.append(_onehot(27 + int(st.prevalent_wind[g])))
    rows += [_flat(np.float32(int(st.tiles_left[g, a]) / 144.0)) for a in rel]
    rows += [_flat(int(st.tiles_left[g, a]) <= 0) for a in rel]
    rows += [_flat(int(st.phase[g]) == p) for p in range(5)]
    rows.append(_flat(bool(st.after_kong[g])))
    return rows


def oracle_row(st: GameState, g: int, s: int) -> list[list[float]]:
    """The 23 oracle-v0 channels after planes-v0: other hands, other concealed kongs, the
    undrawn wall, the next front-of-wall tile of each seat."""
    rel = [(s + r) % 4 for r in range(4)]
    rows = []
    for a in rel[1:]:
        rows += _thermo([int(x) for x in st.hand[g, a]])
    for a in rel[1:]:
        kongs = [0] * T
        for t in st.angang_tile[g, a].tolist():
            if t >= 0:
                kongs[t] += 1
        rows.append([float(x) for x in kongs])
    front, back = st.wall_front[g].tolist(), st.wall_back[g].tolist()
    botzone = any(b > 0 for b in back[1:])
    wall = st.wall[g].tolist()
    left = [0] * T
    for slot, t in enumerate(wall):
        seg = min(slot // 34, 3) if botzone else 0
        if front[seg] <= slot < back[seg] and 0 <= t < T:
            left[t] += 1
    rows += _thermo(left)
    for a in rel:
        seg = a if botzone else 0
        rows.append(_onehot(wall[front[seg]] if front[seg] < back[seg] else -1))
    return rows


def match_row(st: GameState, g: int, s: int) -> list[list[float]]:
    """The 20 planes-v1 channels after planes-v0: hand number one-hot, running scores."""
    rows = [_flat(h == int(st.hand_number[g])) for h in range(16)]
    for r in range(4):
        player = int(st.player_at_seat[g, (s + r) % 4])
        v = np.float32(st.match_scores[g, player]) / np.float32(100.0)
        rows.append(_flat(min(max(v, np.float32(-20.0)), np.float32(20.0))))
    return rows


EXTRA = {"planes-v0": None, "oracle-v0": oracle_row, "planes-v1": match_row}


def python_encode(encoder_id: str, st: GameState, games, seats) -> np.ndarray:
    out = []
    for g, s in zip(games.tolist(), seats.tolist()):
        rows = planes_v0_row(st, g, s)
        if EXTRA[encoder_id] is not None:
            rows += EXTRA[encoder_id](st, g, s)
        out.append(rows)
    return np.array(out, dtype=np.float32)


def _greedy(eng: MCREngine, rng: np.random.Generator) -> np.ndarray:
    """Hu whenever legal, a claim or kong 70% of the time, else the discard leaving the lowest
    shanten (ties at random), else a random legal action: hands get won."""
    mask = eng.legal_mask.copy()
    claim = mask[..., 36:].any(axis=-1) & (rng.random(mask.shape[:2]) < 0.7)
    mask[claim, :36] = False
    acts = sample_legal_actions(mask, rng, eng.to_act)
    g, s = np.nonzero(eng.to_act & mask[..., 2:36].any(axis=-1) & ~claim)
    for gi, si in zip(g.tolist(), s.tolist()):
        plays = np.flatnonzero(mask[gi, si, 2:36])
        hands = np.repeat(eng.state.hand[gi, si][None].astype(np.int64), plays.size, axis=0)
        hands[np.arange(plays.size), plays] -= 1
        sh = shanten_batch(hands, np.full(plays.size, int(eng.state.n_melds[gi, si])))
        best = plays[sh == sh.min()]
        acts[gi, si] = 2 + best[rng.integers(best.size)]
    hu = eng.to_act & eng.legal_mask[..., 1]
    acts[hu] = 1
    return acts


def _played_states() -> list[GameState]:
    """Snapshots along seeded greedy games in each rules mode."""
    configs = [
        RulesConfig(),
        RulesConfig(wall_layout="botzone", claim_round="all"),
        RulesConfig(match="match", illegal_action="penalize"),
    ]
    snaps = []
    for i, cfg in enumerate(configs):
        eng = MCREngine(6, cfg)
        eng.reset(seed=40 + i)
        rng = np.random.default_rng(i)
        for t in range(300):
            if t % 10 == 7:
                snaps.append(eng.state.copy())
            acts = _greedy(eng, rng)
            if cfg.illegal_action == "penalize":  # a few penalties: the match moves on
                bad = (eng.state.phase == 0) & (rng.random(6) < 0.03)
                acts[np.nonzero(bad)[0], eng.state.current_seat[bad]] = 0
            eng.step(acts)
            if eng.terminated.any() and t % 5 == 0:
                eng.reset(games=eng.terminated.copy())
    return snaps


STATES = None


def _states():
    global STATES
    if STATES is None:
        scripted = [st.copy() for script in (DISCARD_WIN, ROB_WIN) for st in _scripted(*script)]
        STATES = [load_states()] + _played_states() + scripted
    return STATES


@pytest.mark.parametrize("encoder_id", sorted(EXTRA))
def test_compiled_encoder_equals_plain_python(encoder_id):
    enc = get_encoder(encoder_id)
    rng = np.random.default_rng(7)
    rows = 0
    for k, st in enumerate(_states()):
        n = 160 if k == 0 else 10
        over = np.repeat(np.nonzero(st.phase == OVER)[0], 4)  # every seat of finished hands
        g = np.concatenate([rng.integers(0, st.batch_size, n), over])
        s = np.concatenate([rng.integers(0, 4, n), np.tile(np.arange(4), over.size // 4)])
        got = enc.encode(st, g, s)
        np.testing.assert_array_equal(got, python_encode(encoder_id, st, g, s))
        assert got.tobytes() == python_encode(encoder_id, st, g, s).tobytes()
        rows += g.size
    assert rows >= 160 + 10 * (len(_states()) - 1)


def test_played_states_cover_the_channels():
    """The states above reach the rare inputs: every meld kind, claim and robbing phases,
    wins on a discard, on a drawn tile and by robbing a kong, flowers, match scores, botzone
    walls."""
    sts = _states()
    kinds = set().union(*(set(st.meld_kind.ravel().tolist()) for st in sts))
    phases = set().union(*(set(st.phase.tolist()) for st in sts))
    assert {CHI, PENG, GANG, ANGANG} <= kinds
    assert {0, 1, 2, 4} <= phases
    assert any(((st.end_reason == 2) & (st.phase == OVER)).any() for st in sts)
    assert any(((st.end_reason == 1) & (st.phase == OVER)).any() for st in sts)
    assert any(((st.end_reason == 3) & (st.phase == OVER)).any() for st in sts)
    assert any((st.phase == 3).any() for st in sts)  # ROB
    assert any((st.match_scores != 0).any() for st in sts)
    assert any((st.wall_back[:, 1:] > 0).any() for st in sts)
    assert any((st.flower_count > 0).any() for st in sts)

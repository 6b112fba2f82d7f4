"""Differential test: the compiled engine against the plain-Python reference (reference_engine).

Seeded hands are played in batches by both; after every step the engine's full state of every
game (every GameState field but the wall itself, which is the input), its ``to_act``, legal
masks, rewards and hand results must equal what the reference computes on its own. Policies:
``uniform`` (a uniformly random legal action) and ``greedy`` (Hu whenever legal, every claim and
kong taken, else the discard leaving the lowest shanten), so that the claim, kong, robbing and
scoring paths are all exercised. Both wall layouts, both claim_round modes, match mode.
2,064 hands in all (the cases below).
"""

from __future__ import annotations

import numpy as np
import pytest
from reference_engine import PLAYER_AT_SEAT, RefGame

from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.scoring.shanten import shanten_batch

MAX_STEPS = 400  # a hand takes at most ~200 decisions


def _dealer_of(hand_number: int) -> tuple[int, int, list[int]]:
    """docs/rules.md §4, written out: round r = h // 4 with prevalent wind r, seating
    PLAYER_AT_SEAT[r]; the round's first dealer is the seat of player 0, then the next seats."""
    r, k = divmod(hand_number, 4)
    players = PLAYER_AT_SEAT[r]
    return (players.index(0) + k) % 4, r, players


def _new_ref(eng, g: int, hand_number: int) -> RefGame:
    cfg = eng.config
    dealer, wind, players = (
        _dealer_of(hand_number) if cfg.match == "match" else (0, 0, [0, 1, 2, 3])
    )
    length = 136 if cfg.wall_layout == "botzone" else 144
    wall = eng.state.wall[g, :length].tolist()  # the input of the hand
    return RefGame(
        wall,
        cfg.wall_layout,
        cfg.scoring_profile,
        cfg.claim_round,
        dealer,
        wind,
        hand_number,
        players,
    )


def _check(eng, refs, scores, tag) -> None:
    """Every game's engine state, masks and to_act equal the reference's (games whose
    reference is None are skipped)."""
    st = eng.state
    idx = [g for g, r in enumerate(refs) if r is not None]
    if not idx:
        return
    f = {name: getattr(st, name)[idx].tolist() for name in _FIELDS}
    to_act = eng.to_act[idx].tolist()
    masks: dict[tuple[int, int], set[int]] = {}
    for i, s, a in zip(*(x.tolist() for x in np.nonzero(eng.legal_mask[idx]))):
        masks.setdefault((i, s), set()).add(a)
    for i, g in enumerate(idx):
        ref = refs[g]
        where = f"{tag} game {g}"
        want = _ref_fields(ref)
        want["match_scores"] = scores[g]
        for name in _FIELDS:
            assert f[name][i] == want[name], f"{where}: {name} {f[name][i]} != {want[name]}"
        for s in range(4):
            asked = s in ref.masks
            assert to_act[i][s] == asked, f"{where}: to_act seat {s}"
            got = masks.get((i, s), set())
            assert got == (ref.masks[s] if asked else set()), f"{where}: mask seat {s}"


_FIELDS = (
    "meld_kind",
    "meld_tile",
    "meld_from",
    "meld_claimed",
    "meld_added",
    "n_melds",
    "discards",
    "discard_claimed",
    "discard_order",
    "n_discards",
    "total_discards",
    "visible_count",
    "flower_count",
    "flowers",
    "phase",
    "current_seat",
    "tile_in_play",
    "played_by",
    "after_kong",
    "tiles_left",
    "dealer",
    "prevalent_wind",
    "hand_number",
    "player_at_seat",
    "match_scores",
    "winner",
    "win_from",
    "end_reason",
    "hand",
    "drawn_tile",
    "angang_tile",
    "wall_front",
    "wall_back",
)


def _ref_fields(r: RefGame) -> dict:
    kinds, tiles, frm, claimed, added, angang = [], [], [], [], [], []
    for s in range(4):
        row = r.melds[s] + [None] * (4 - len(r.melds[s]))
        kinds.append([0 if m is None else m["kind"] for m in row])
        conc = [m is not None and m["kind"] == 4 for m in row]
        tiles.append([-1 if m is None or c else m["tile"] for m, c in zip(row, conc)])
        frm.append([-1 if m is None or c else m["frm"] for m, c in zip(row, conc)])
        claimed.append([-1 if m is None or c else m["claimed"] for m, c in zip(row, conc)])
        added.append([m is not None and m["added"] for m in row])
        angang.append([m["tile"] if c else -1 for m, c in zip(row, conc)])
    disc = [[d["tile"] for d in r.discards[s]] + [-1] * (48 - len(r.discards[s])) for s in range(4)]
    dcl = [
        [d["claimed"] for d in r.discards[s]] + [False] * (48 - len(r.discards[s]))
        for s in range(4)
    ]
    dord = [
        [d["order"] for d in r.discards[s]] + [-1] * (48 - len(r.discards[s])) for s in range(4)
    ]
    fl = [[(34 + i) in r.flowers[s] for i in range(8)] for s in range(4)]
    if r.botzone:
        front, back = list(r.front), list(r.back)
    else:
        front, back = [r.front[0], 0, 0, 0], [r.back[0], 0, 0, 0]
    return {
        "meld_kind": kinds,
        "meld_tile": tiles,
        "meld_from": frm,
        "meld_claimed": claimed,
        "meld_added": added,
        "n_melds": [len(r.melds[s]) for s in range(4)],
        "discards": disc,
        "discard_claimed": dcl,
        "discard_order": dord,
        "n_discards": [len(r.discards[s]) for s in range(4)],
        "total_discards": r.total_discards,
        "visible_count": r.visible_counts(),
        "flower_count": [len(r.flowers[s]) for s in range(4)],
        "flowers": fl,
        "phase": r.phase,
        "current_seat": r.current,
        "tile_in_play": r.tile_in_play,
        "played_by": r.played_by,
        "after_kong": r.after_kong,
        "tiles_left": [r.left(s) for s in range(4)],
        "dealer": r.dealer,
        "prevalent_wind": r.wind,
        "hand_number": r.hand_number,
        "player_at_seat": r.players,
        "winner": r.winner,
        "win_from": r.win_from,
        "end_reason": r.end_reason,
        "hand": [list(h) for h in r.hand],
        "drawn_tile": list(r.drawn),
        "angang_tile": angang,
        "wall_front": front,
        "wall_back": back,
    }


def _greedy(eng, rng) -> np.ndarray:
    """Hu if legal, else the highest claim/kong id, else the lowest-shanten discard (random
    among ties), else Pass."""
    mask, to_act, st = eng.legal_mask, eng.to_act, eng.state
    out = np.zeros(to_act.shape, dtype=np.int64)
    g, s = np.nonzero(to_act)
    m = mask[g, s]
    claims = m[:, 36:]
    has = claims.any(axis=1)
    out[g[has], s[has]] = 234 - claims[has][:, ::-1].argmax(axis=1)
    plays = m[:, 2:36]
    need = np.nonzero(~has & plays.any(axis=1))[0]
    if need.size:
        r, t = np.nonzero(plays[need])
        cand = st.hand[g[need][r], s[need][r]].astype(np.int64)
        cand[np.arange(r.size), t] -= 1
        sh = np.full((need.size, 34), 1e9)
        nm = st.n_melds[g[need][r], s[need][r]].astype(np.int64)
        sh[r, t] = shanten_batch(cand, nm) + rng.random(r.size) * 0.5
        out[g[need], s[need]] = 2 + sh.argmin(axis=1)
    hu = m[:, 1]
    out[g[hu], s[hu]] = 1
    return out


def _uniform(eng, rng) -> np.ndarray:
    keys = rng.random(eng.legal_mask.shape) + 1.0
    return np.where(eng.legal_mask, keys, 0.0).argmax(axis=-1)


def _play(config: RulesConfig, batch: int, seed: int, policy: str) -> int:
    """Play ``batch`` games (one hand each, or one 16-hand match each) with both engines;
    return the number of hands checked."""
    eng = MCREngine(batch, config)
    eng.reset(seed=seed)
    rng = np.random.default_rng(seed)
    refs = [_new_ref(eng, g, 0) for g in range(batch)]
    scores = [[0, 0, 0, 0] for _ in range(batch)]
    hands = 0
    choose = _greedy if policy == "greedy" else _uniform
    _check(eng, refs, scores, "reset")
    for step in range(MAX_STEPS * (16 if config.match == "match" else 1)):
        if all(r is None for r in refs):
            break
        acts = choose(eng, rng)
        for g, ref in enumerate(refs):
            if ref is not None:
                ref.step({s: int(acts[g, s]) for s in ref.masks})
        eng.step(acts)
        for g, ref in enumerate(refs):
            if ref is None:
                continue
            if ref.phase != 4:
                assert not eng.hand_over[g] and (eng.rewards[g] == 0).all()
                continue
            # the hand ended: rewards, the hand result, then the next hand (match)
            hands += 1
            assert eng.hand_over[g], f"step {step} game {g}: hand_over"
            assert eng.rewards[g].tolist() == ref.settlement
            res = eng.last_hand_result[g]
            assert (res.winner, res.win_from, int(res.end_reason)) == (
                ref.winner,
                ref.win_from,
                ref.end_reason,
            )
            assert res.settlement.tolist() == ref.settlement
            if ref.win_info is not None:
                assert res.total == ref.win_info[0] and res.fans == tuple(ref.win_info[1])
            for s in range(4):
                scores[g][ref.players[s]] += ref.settlement[s]
            if config.match == "match" and ref.hand_number < 15:
                assert not eng.terminated[g]
                refs[g] = _new_ref(eng, g, ref.hand_number + 1)
            else:
                assert eng.terminated[g]
                _check(eng, [ref if i == g else None for i in range(batch)], scores, "end")
                refs[g] = None
        _check(eng, refs, scores, f"step {step}")
    assert all(r is None for r in refs), "a game did not finish"
    return hands


CASES = [
    # (wall layout, claim_round, policy, games, seed)
    ("official", "options", "uniform", 300, 1),
    ("official", "options", "greedy", 300, 2),
    ("official", "all", "uniform", 200, 3),
    ("official", "all", "greedy", 200, 4),
    ("botzone", "options", "uniform", 300, 5),
    ("botzone", "options", "greedy", 300, 6),
    ("botzone", "all", "uniform", 200, 7),
    ("botzone", "all", "greedy", 200, 8),
]  # 2,000 single hands


@pytest.mark.parametrize("layout,claim_round,policy,games,seed", CASES)
def test_engine_matches_reference(layout, claim_round, policy, games, seed):
    profile = "botzone" if layout == "botzone" else "mcr"
    config = RulesConfig(wall_layout=layout, scoring_profile=profile, claim_round=claim_round)
    assert _play(config, games, seed, policy) == games


@pytest.mark.parametrize(
    "layout,policy,seed", [("official", "greedy", 11), ("botzone", "uniform", 12)]
)
def test_engine_matches_reference_match_mode(layout, policy, seed):
    """Two 16-hand matches per case: dealer rotation, seat changes, match scores (64 hands)."""
    config = RulesConfig(
        wall_layout=layout, match="match", claim_round="all" if seed % 2 else "options"
    )
    assert _play(config, 2, seed, policy) == 32


@pytest.mark.parametrize("layout", ["official", "botzone"])
def test_reference_sees_real_endings(layout):
    """The differential games reach every kind of ending and the claim/kong paths (the test
    would be weak if the greedy policy never won or never melded)."""
    eng = MCREngine(200, RulesConfig(wall_layout=layout))
    eng.reset(seed=21)
    rng = np.random.default_rng(21)
    melds = np.zeros(5, dtype=np.int64)
    while not eng.terminated.all():
        eng.step(_greedy(eng, rng))
        for k in range(1, 5):
            melds[k] = max(melds[k], int((eng.state.meld_kind == k).sum()))
    reasons = np.bincount(eng.state.end_reason, minlength=5)
    assert reasons[1] > 0 and reasons[2] > 0 and reasons[4] > 0  # self-drawn, discard, drawn
    assert (melds[1:] > 0).all()  # chows, pungs, kongs, concealed kongs

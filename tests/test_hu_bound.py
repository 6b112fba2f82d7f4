"""The compiled 8-point bound (mcr_env.scoring.hu_bound) against the exact scorer.

Whenever :func:`legal_win_bound` answers LEGAL or NOT_LEGAL, ``score_win(...).is_legal_win``
must say the same in both profiles (docs/rules.md §2, §7). Hands: the seeded generator of
every winning form (biased toward big fans, random win flags, promoted-kong variants) and
"natural" regular hands (random chows and pungs of random suits, random melds among them)
where most hands sit under 8 points.
"""

from __future__ import annotations

import numpy as np
import pytest

from mcr_env.engine import MCREngine, RulesConfig
from mcr_env.scoring import NotAWinError, score_win
from mcr_env.scoring.hu_bound import LEGAL, NOT_LEGAL, UNDECIDED, legal_win_bound
from mcr_env.testing.hands import random_winning_hand, with_promoted_kongs

_KIND = {"CHI": 1, "PENG": 2, "GANG": 3, "BUGANG": 3, "ANGANG": 4}


def _bound(hand, win, melds, sd=False, fourth=False, last=False, kong=False, seat=0, wind=0):
    c = np.zeros(34, dtype=np.int64)
    for t in hand:
        c[t] += 1
    c[win] += 1
    mk = np.zeros(4, dtype=np.int64)
    mt = np.zeros(4, dtype=np.int64)
    for j, (kind, tile, _offer) in enumerate(melds):
        mk[j] = _KIND[kind]
        mt[j] = tile
    before = c.copy()
    v = legal_win_bound(c, len(melds), mk, mt, win, sd, fourth, last, kong, seat, wind)
    assert (c == before).all()  # the counts are not changed
    return int(v)


def _exact(hand, win, melds, profile, **flags):
    try:
        return score_win(list(hand), win, list(melds), profile=profile, **flags).is_legal_win
    except NotAWinError:
        return None


def _natural_hand(rng):
    """A random regular hand: 4 sets (chow or pung, random suit and rank; honors pungs
    only) and a pair, 0-4 of the sets melded, random flags; None if a kind exceeds 4."""
    counts = np.zeros(34, dtype=np.int64)
    sets = []
    for _ in range(4):
        if rng.random() < 0.6:
            t = 9 * int(rng.integers(3)) + int(rng.integers(7))
            sets.append(("CHI", t + 1))
            counts[t : t + 3] += 1
        else:
            t = int(rng.integers(34))
            kind = "PENG" if rng.random() < 0.85 else ("GANG" if rng.random() < 0.6 else "ANGANG")
            sets.append((kind, t))
            counts[t] += 3 if kind == "PENG" else 4
    pair = int(rng.integers(34))
    counts[pair] += 2
    if counts.max() > 4:
        return None
    n_melds = int(rng.integers(5))
    order = rng.permutation(4)
    melds, concealed = [], [pair, pair]
    for j, i in enumerate(order):
        kind, t = sets[i]
        if j < n_melds or kind in ("GANG", "ANGANG"):
            offer = 2 if kind == "CHI" else (0 if kind == "ANGANG" else 1 + int(rng.integers(3)))
            melds.append((kind, t, offer))
        elif kind == "CHI":
            concealed += [t - 1, t, t + 1]
        else:
            concealed += [t] * 3
    win = concealed.pop(int(rng.integers(len(concealed))))
    flags = dict(
        is_self_drawn=bool(rng.random() < 0.4),
        is_4th_tile=bool(rng.random() < 0.1),
        is_wall_last=bool(rng.random() < 0.03),
        is_about_kong=bool(rng.random() < 0.05),
        seat_wind=int(rng.integers(4)),
        prevalent_wind=int(rng.integers(4)),
    )
    return sorted(concealed), win, melds, flags


def _check(hand, win, melds, flags, seen):
    v = _bound(
        hand,
        win,
        melds,
        flags["is_self_drawn"],
        flags["is_4th_tile"],
        flags["is_wall_last"],
        flags["is_about_kong"],
        flags["seat_wind"],
        flags["prevalent_wind"],
    )
    seen[v] = seen.get(v, 0) + 1
    if v == UNDECIDED:
        return
    for profile in ("mcr", "botzone"):
        legal = _exact(hand, win, melds, profile, **flags)
        assert legal is (v == LEGAL), (hand, win, melds, flags, profile, v)


@pytest.mark.parametrize("seed", [0, 1])
def test_bound_agrees_with_scorer_on_generated_hands(seed):
    rng = np.random.default_rng(seed)
    seen: dict[int, int] = {}
    for _ in range(400):
        wh = random_winning_hand(rng)
        for w in (wh, with_promoted_kongs(wh)):
            if w is None:
                continue
            kw = w.kwargs()
            flags = {k: kw[k] for k in kw if k not in ("hand", "win_tile", "melds", "flowers")}
            _check(w.hand, w.win_tile, list(w.melds), flags, seen)
    # the bound decides most of them, both ways
    assert seen.get(LEGAL, 0) > 200 and seen.get(NOT_LEGAL, 0) > 30


@pytest.mark.parametrize("seed", [0, 1])
def test_bound_agrees_with_scorer_on_natural_hands(seed):
    rng = np.random.default_rng(100 + seed)
    seen: dict[int, int] = {}
    n = 0
    while n < 600:
        h = _natural_hand(rng)
        if h is None:
            continue
        n += 1
        _check(*h, seen)
    assert seen.get(NOT_LEGAL, 0) > 150 and seen.get(LEGAL, 0) > 50


@pytest.mark.parametrize(
    "hand, win, melds, flags, expected",  # hand: the concealed tiles, winning tile included
    [
        # Seven Pairs (24)
        ("1133m5577p2266s77z", "7z", [], {}, LEGAL),
        # Mixed Triple Chow (8) on a discard
        ("123m123p123s55m999s", "9s", [], {}, LEGAL),
        # Last Tile Claim (8) whatever the rest
        ("123m456p789s55m789s", "9s", [], {"is_wall_last": True}, LEGAL),
        # melded hand with a promoted kong: 5 points in mcr, 10 in botzone (undecided)
        ("77p", "7p", [("PENG", 0, 1), ("BUGANG", 8, 1), ("CHI", 10, 2), ("PENG", 30, 1)], {}, -1),
        # Concealed Hand 2 + Mixed Double Chow 1 + Single Wait 1 (not legal in either)
        ("123m123p456s789s55z", "5z", [], {}, NOT_LEGAL),
        # Melded Hand 6 + Mixed Double Chow 1 = 7 (not legal in either)
        (
            "55z",
            "5z",
            [("CHI", 1, 1), ("CHI", 10, 1), ("CHI", 22, 1), ("PENG", 4, 1)],
            {},
            NOT_LEGAL,
        ),
    ],
)
def test_bound_examples(hand, win, melds, flags, expected):
    from mcr_env.tiles import parse_tiles

    tiles = parse_tiles(hand)
    w = parse_tiles(win)[0]
    tiles.remove(w)
    full = dict(
        is_self_drawn=False,
        is_4th_tile=False,
        is_wall_last=False,
        is_about_kong=False,
        seat_wind=0,
        prevalent_wind=0,
    )
    full.update(flags)
    v = _bound(
        tiles,
        w,
        melds,
        full["is_self_drawn"],
        full["is_4th_tile"],
        full["is_wall_last"],
        full["is_about_kong"],
        full["seat_wind"],
        full["prevalent_wind"],
    )
    assert v == expected
    if v != UNDECIDED:
        for profile in ("mcr", "botzone"):
            assert _exact(tiles, w, melds, profile, **full) is (v == LEGAL)


def test_engine_counts_bound_decisions():
    """Greedy-ish play (Hu whenever legal, else a random action): the engine's Hu decisions
    are counted, most complete hands are decided by the bound, and every win it settled on a
    bound decision was scored legal (the settlement raises otherwise)."""
    eng = MCREngine(32, RulesConfig())
    eng.reset(seed=3)
    rng = np.random.default_rng(3)
    from mcr_env.engine.actions import HU
    from mcr_env.engine.sampling import sample_legal_actions

    wins = 0
    for _ in range(400):
        acts = sample_legal_actions(eng.legal_mask, rng, eng.to_act)
        acts[eng.legal_mask[:, :, HU]] = HU
        eng.step(acts)
        wins += int((eng.hand_over & (eng.state.winner >= 0)).sum())
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
    d = eng.hu_decisions
    assert set(d) == {"bound_legal", "bound_not_legal", "exact"}
    total = sum(d.values())
    assert total > 0 and wins > 0
    assert d["bound_legal"] + d["bound_not_legal"] > d["exact"]

"""Differential test: score_win (botzone profile) == PyMahjongGB 1.4.0 on seeded random hands.

docs/rules.md §7: PyMahjongGB 1.4.0 is the arbiter of the botzone profile. Identical totals
and identical fan multisets are required on every hand, and on the same hand with its melded
kongs promoted (``BUGANG``, which PyMahjongGB knows only as ``GANG``). On the same hands the
mcr profile must equal the item-by-item restatement of §7
(:func:`mcr_env.testing.profiles.mcr_from_botzone`) and differ from botzone only where a §7
item applies. The long run is scripts/diff_scoring.py (``--profiles`` for the second part).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from script_helpers import load_script

from mcr_env.scoring import score_win
from mcr_env.testing import (
    FORMS,
    pymahjonggb_score,
    random_winning_hand,
    with_promoted_kongs,
)
from mcr_env.testing.profiles import mcr_from_botzone

N_HANDS = 20_000
SEED = 20240601


def differential_hands():
    """The differential test's hands: each random hand, then its promoted-kong variant."""
    rng = np.random.default_rng(SEED)
    for _ in range(N_HANDS):
        wh = random_winning_hand(rng)
        yield wh
        p = with_promoted_kongs(wh)
        if p is not None:
            yield p


def test_differential_20000_hands_identical():
    forms: Counter[str] = Counter()
    fans_seen: Counter[str] = Counter()
    mismatches = []
    n_promoted = 0
    for wh in differential_hands():
        if any(k == "BUGANG" for k, _, _ in wh.melds):
            n_promoted += 1
        else:
            forms[wh.form] += 1
        total, fans = pymahjonggb_score(wh)
        res = score_win(**wh.kwargs(), profile="botzone")
        ours = res.as_dict()
        fans_seen.update(ours)
        if ours != fans or res.total != total:
            mismatches.append((wh, ours, res.total, fans, total))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[0]}"
    assert sum(forms.values()) == N_HANDS and n_promoted >= 1000
    assert set(forms) == set(FORMS)
    assert min(forms.values()) >= 300
    # the hands exercise most of the fan table (all but the rarest 88/64-point fans)
    assert len(fans_seen) >= 70, sorted(fans_seen)


@pytest.mark.parametrize("form", FORMS)
def test_differential_each_form(form):
    rng = np.random.default_rng(1000 + FORMS.index(form))
    for _ in range(300):
        wh = random_winning_hand(rng, form=form)
        total, fans = pymahjonggb_score(wh)
        res = score_win(**wh.kwargs(), profile="botzone")
        assert (res.as_dict(), res.total) == (fans, total), wh


def test_mcr_differs_from_botzone_only_by_section7_items():
    by_item: Counter[int] = Counter()
    wrong, unexplained = [], []
    n_differ = 0
    for wh in differential_hands():
        mcr = score_win(**wh.kwargs())
        bz = score_win(**wh.kwargs(), profile="botzone")
        total, fans, items = mcr_from_botzone(wh)
        if (mcr.as_dict(), mcr.total) != (fans, total):
            wrong.append((wh, mcr.as_dict(), fans))
        if (mcr.as_dict(), mcr.total) != (bz.as_dict(), bz.total):
            n_differ += 1
            by_item.update(items)
            if not items:
                unexplained.append(wh)
    assert not wrong, f"{len(wrong)} hands differ from the restatement, first: {wrong[0]}"
    assert not unexplained, f"{len(unexplained)} unexplained differences: {unexplained[0]}"
    # items 4 and 6 (All Green, All Terminals) are too rare here: tests/test_scoring_profiles.py
    assert n_differ >= 3000 and all(by_item[i] >= 50 for i in (1, 2, 3, 5, 7)), by_item


def test_diff_script_with_profiles(capsys):
    """scripts/diff_scoring.py --profiles: the long run's JSON summary (a short run here)."""
    import json

    mod = load_script("diff_scoring")
    assert mod.main(["--hands", "400", "--seed", "3", "--profiles"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == 400 and out["scored"] > 400 and out["mismatches"] == 0
    assert out["mcr_vs_restatement_mismatches"] == out["unexplained_differences"] == 0
    # every difference is counted under at least one item
    assert 0 < out["profiles_differ"] <= sum(out["differences_by_item"].values())
    assert set(out["differences_by_item"]) <= set("1234567")

"""Differential test: score_win (botzone profile) == PyMahjongGB 1.4.0 on seeded random hands.

RULES.md: PyMahjongGB 1.4.0 is the arbiter of the botzone profile. Identical totals and
identical fan multisets are required on every hand. The long run is scripts/diff_scoring.py.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from mcr_env.scoring import score_win
from mcr_env.testing import FORMS, pymahjonggb_available, pymahjonggb_score, random_winning_hand

pytestmark = pytest.mark.skipif(not pymahjonggb_available(), reason="needs pymahjonggb==1.4.0")

N_HANDS = 20_000


def test_differential_20000_hands_identical():
    rng = np.random.default_rng(20240601)
    forms: Counter[str] = Counter()
    fans_seen: Counter[str] = Counter()
    mismatches = []
    for _ in range(N_HANDS):
        wh = random_winning_hand(rng)
        forms[wh.form] += 1
        total, fans = pymahjonggb_score(wh)
        res = score_win(**wh.kwargs(), profile="botzone")
        ours = res.as_dict()
        fans_seen.update(ours)
        if ours != fans or res.total != total:
            mismatches.append((wh, ours, res.total, fans, total))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[0]}"
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

"""Settlement (docs/rules.md §3): exact amounts, zero sum, batch = single, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcr_env.scoring.settlement import penalty, settle, settle_batch


def test_discard_win_example():
    out = settle(0, 10, discarder=2)
    assert out.dtype == np.int32 and out.shape == (4,)
    assert out.tolist() == [34, -8, -18, -8]


def test_self_drawn_example():
    assert settle(1, 10).tolist() == [-18, 54, -18, -18]
    assert settle(1, 10, None).tolist() == [-18, 54, -18, -18]


def test_minimum_win_and_robbing_the_kong():
    assert settle(3, 8, discarder=0).tolist() == [-16, -8, -8, 32]
    assert settle(2, 8).tolist() == [-16, -16, 48, -16]
    # Robbing the Kong: the kong declarer (seat 1) pays as a discarder.
    assert settle(0, 88, discarder=1).tolist() == [112, -96, -8, -8]


def test_exhaustive_draw_is_zero():
    assert settle(None, 0).tolist() == [0, 0, 0, 0]
    assert settle(None, 0).dtype == np.int32


def test_penalty():
    assert penalty(2).tolist() == [10, 10, -30, 10]
    assert penalty(2).dtype == np.int32
    assert penalty(0).sum() == 0


# no deadline: the first example compiles settle_row (numba) when its disk cache is cold
@settings(deadline=None)
@given(
    winner=st.integers(0, 3),
    total=st.integers(0, 2000),
    discarder=st.one_of(st.none(), st.integers(0, 3)),
)
def test_zero_sum_and_shape(winner, total, discarder):
    if discarder == winner:
        with pytest.raises(ValueError, match="differ"):
            settle(winner, total, discarder)
        return
    out = settle(winner, total, discarder)
    assert out.sum() == 0
    assert out[winner] == (24 + 3 * total if discarder is None else 24 + total)
    losers = [s for s in range(4) if s != winner]
    for s in losers:
        expected = 8 + total if discarder is None or s == discarder else 8
        assert out[s] == -expected


@settings(deadline=None)  # (the first example may compile the settlement kernel)
@given(
    st.lists(
        st.tuples(st.integers(-1, 3), st.integers(0, 500), st.integers(-1, 3)),
        min_size=0,
        max_size=40,
    )
)
def test_batch_equals_single(rows):
    rows = [(w, x, d) for w, x, d in rows if w < 0 or w != d]
    w = np.array([r[0] for r in rows], dtype=np.int64)
    x = np.array([r[1] for r in rows], dtype=np.int64)
    d = np.array([r[2] for r in rows], dtype=np.int64)
    out = settle_batch(w, x, d)
    assert out.shape == (len(rows), 4) and out.dtype == np.int32
    assert (out.sum(axis=1) == 0).all()
    for row, (wi, xi, di) in zip(out, rows):
        if wi < 0:
            assert row.tolist() == [0, 0, 0, 0]
        else:
            assert row.tolist() == settle(wi, xi, None if di < 0 else di).tolist()


def test_batch_examples():
    out = settle_batch(np.array([0, 1, -1]), np.array([10, 10, 99]), np.array([2, -1, 3]))
    assert out.tolist() == [[34, -8, -18, -8], [-18, 54, -18, -18], [0, 0, 0, 0]]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((4, 10, None), "winner must be a seat"),
        ((-1, 10, None), "winner must be a seat"),
        ((0, 10, 4), "discarder must be a seat"),
        ((0, 10, 0), "differ"),
        ((0, -1, 1), ">= 0"),
        ((None, 10, None), "exhaustive draw"),
        ((None, 0, 2), "exhaustive draw"),
    ],
)
def test_settle_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        settle(*args)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0, 10.0, 1), "total must be an int"),
        ((0, "10", 1), "total must be an int"),
        ((True, 10, 1), "winner must be a seat"),
    ],
)
def test_settle_bad_types(args, match):
    with pytest.raises(TypeError, match=match):
        settle(*args)


def test_penalty_bad_input():
    with pytest.raises(ValueError, match="offender"):
        penalty(4)
    with pytest.raises(TypeError, match="offender"):
        penalty(None)


def test_batch_bad_input():
    w, x, d = np.array([0, 1]), np.array([10, 10]), np.array([-1, 2])
    with pytest.raises(ValueError, match="winner must be in -1..3; row 1"):
        settle_batch(np.array([0, 5]), x, d)
    with pytest.raises(ValueError, match="discarder must be in -1..3; row 0"):
        settle_batch(w, x, np.array([-2, 2]))
    with pytest.raises(ValueError, match="row 1: winner and discarder"):
        settle_batch(w, x, np.array([-1, 1]))
    with pytest.raises(ValueError, match="row 0: total"):
        settle_batch(w, np.array([-5, 10]), d)
    with pytest.raises(ValueError, match="same length"):
        settle_batch(w, x[:1], d)
    with pytest.raises(TypeError, match="integer array"):
        settle_batch(w, x.astype(float), d)
    with pytest.raises(ValueError, match=r"shape \(N,\)"):
        settle_batch(w[None], x, d)

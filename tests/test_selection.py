"""The BC-anchored paired choice of the final policy (baselines.train.select_paired) on
constructed duplicate results whose answer is known."""

import numpy as np
import pytest

from baselines.train import select_paired
from mcr_env.eval import DuplicateResult, placement_points

WALLS, PERMS = 200, 4


def _result(name, per_wall, offset=2_000_000):
    """A DuplicateResult of ``name`` vs 3x ``rule`` whose agent scores ``per_wall[w]`` in
    every seating of wall w (the three opponents share minus that)."""
    pts = np.zeros((len(per_wall), PERMS, 4))
    pts[:, :, 0] = np.asarray(per_wall)[:, None]
    pts[:, :, 1:] = -pts[:, :, :1] / 3
    shape = pts.shape[:2]
    return DuplicateResult(
        match=f"{name} vs rule",
        lineup=[name, "rule", "rule", "rule"],
        stats=[],
        seats=np.broadcast_to(np.arange(4), pts.shape).copy(),
        points=pts,
        winner_pos=np.full(shape, -1),
        payer_pos=np.full(shape, -1),
        end_reason=np.zeros(shape, dtype=np.int64),
        win_points=np.full(shape, np.nan),
        placement=placement_points(pts),
        wall_seed=10_001,
        wall_offset=offset,
    )


@pytest.fixture
def luck():
    # the deal's luck: shared by every candidate on a wall, far larger than any gain
    return np.random.default_rng(7).normal(0.0, 20.0, WALLS)


def test_picks_the_largest_gain_whose_whole_ci_is_above_zero(luck):
    rng = np.random.default_rng(8)
    spread = rng.normal(0, 20.0, WALLS)
    spread -= spread.mean()  # exactly mean 0: ppo_b's gain is exactly 1.0, its CI ~ +-2.8
    cands = [
        ("bc", _result("bc", luck)),
        ("ppo_a", _result("ppo_a", luck + 0.5 + rng.normal(0, 0.5, WALLS))),  # small, sure
        ("ppo_b", _result("ppo_b", luck + 1.0 + spread)),  # big, unsure
        ("ppo_c", _result("ppo_c", luck - 1.0)),  # exactly 1 point worse on every wall
        ("ppo_d", _result("ppo_d", luck + 0.3)),  # exactly 0.3 better: sure, smaller
    ]
    best, diffs = select_paired(cands)
    assert [d.a for d in diffs] == ["bc", "ppo_a", "ppo_b", "ppo_c", "ppo_d"]
    assert all(d.b == "bc" and d.walls == WALLS for d in diffs)
    assert (diffs[0].mean, diffs[0].ci95_low, diffs[0].ci95_high) == (0.0, 0.0, 0.0)
    assert diffs[3].mean == pytest.approx(-1.0) and diffs[3].ci95_high == pytest.approx(-1.0)
    assert diffs[4].ci95_low == pytest.approx(0.3) and diffs[4].ci95_high == pytest.approx(0.3)
    # the premises: a is sure and above d; b reads higher than a but its CI holds 0
    assert 0 < diffs[1].ci95_low and diffs[1].mean > 0.3
    assert diffs[2].mean == pytest.approx(1.0) and diffs[2].ci95_low < 0 < diffs[2].ci95_high
    assert best == 1
    # the unpaired highest reading (what select_by: points does) is the unsure one
    assert int(np.argmax([r.points[:, :, 0].mean() for _, r in cands])) == 2


def test_keeps_the_anchor_unless_a_candidate_is_surely_better(luck):
    rng = np.random.default_rng(9)
    noisy = [(f"n{k}", _result(f"n{k}", luck + rng.normal(0, 10.0, WALLS))) for k in range(3)]
    same = ("same", _result("same", luck))  # plays exactly like BC: gain 0, CI [0, 0]
    worse = ("worse", _result("worse", luck - 5.0))
    best, diffs = select_paired([("bc", _result("bc", luck)), *noisy, same, worse])
    assert all(d.ci95_low <= 0 for d in diffs)
    assert best == 0
    assert select_paired([("bc", _result("bc", luck))])[0] == 0


def test_placement_metric_and_one_wall_keep_the_anchor(luck):
    cands = [("bc", _result("bc", luck)), ("up", _result("up", luck + 50.0))]
    best, diffs = select_paired(cands, metric="placement")
    assert diffs[1].metric == "placement" and best == 1
    one = [("bc", _result("bc", luck[:1])), ("up", _result("up", luck[:1] + 9.0))]
    best, diffs = select_paired(one)  # one wall: no CI (infinite bounds), no evidence
    assert diffs[1].mean == 9.0 and diffs[1].ci95_low == -np.inf and best == 0


def test_candidates_on_other_walls_are_an_error(luck):
    with pytest.raises(ValueError, match="same walls"):
        select_paired([("bc", _result("bc", luck)), ("x", _result("x", luck, offset=0))])
    with pytest.raises(ValueError, match="at least the anchor"):
        select_paired([])

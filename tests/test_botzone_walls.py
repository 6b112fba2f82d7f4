"""Judge walls: our botzone wall <-> the Botzone judge's initdata, and the per-seat order."""

from __future__ import annotations

import numpy as np
import pytest

from mcr_env.botzone.bot import BOTZONE_RULES
from mcr_env.botzone.judge import RequestNarrator, judge_initdata, wall_from_initdata
from mcr_env.engine import MCREngine
from mcr_env.engine.walls import seeded_walls
from mcr_env.tiles import code_to_tile


def test_initdata_round_trip_and_the_judges_order():
    walls = seeded_walls("botzone", 5, np.arange(20), np.zeros(20), np.zeros(20))
    for k, wall in enumerate(walls):
        init = judge_initdata(wall, quan=k % 4, srand=77)
        assert init["quan"] == k % 4 and init["srand"] == 77
        codes = init["walltiles"].split()
        assert len(codes) == 136
        back, quan = wall_from_initdata(init)
        np.testing.assert_array_equal(back, wall)
        assert quan == k % 4
        # the judge: seat j owns codes[34j : 34j + 34] and takes them from the end
        eng = MCREngine(1, BOTZONE_RULES)
        eng.reset(walls=back[None], prevalent_wind=quan)
        nar = RequestNarrator(eng)
        nar.start()
        for j in range(4):
            dealt = [code_to_tile(c) for c in codes[34 * j + 21 : 34 * j + 34]]
            want = np.bincount(dealt, minlength=34)
            if j == 0:  # the dealer has drawn its first tile: the next one from the end
                want[code_to_tile(codes[20])] += 1
            np.testing.assert_array_equal(eng.state.hand[0, j], want)
            assert nar.lines[0][j][0] == f"0 {j} {quan}"
        assert nar.lines[0][0][2] == f"2 {codes[20]}"


def test_initdata_errors():
    wall = seeded_walls("botzone", 1, np.arange(1), np.zeros(1), np.zeros(1))[0]
    with pytest.raises(ValueError, match="quan must be 0..3"):
        judge_initdata(wall, quan=4)
    init = judge_initdata(wall)
    with pytest.raises(ValueError, match="no 'quan'"):
        wall_from_initdata({"walltiles": init["walltiles"], "srand": 1})
    with pytest.raises(ValueError, match="no 'walltiles'"):
        wall_from_initdata({"quan": 1})
    with pytest.raises(ValueError, match="136 tiles"):
        wall_from_initdata({"walltiles": "W1 W2", "quan": 0})
    with pytest.raises(TypeError):
        wall_from_initdata("W1")

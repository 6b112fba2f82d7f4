"""Golden hashes: ``planes-v0`` and ``oracle-v0`` are frozen encoder ids (docs/design.md,
Observations), so their bytes on fixed states must never change (an optimisation of the encoder
must reproduce them exactly; a new channel layout needs a new id).

The states (``fixtures/encoding_states.npz``, one ``GameState`` of 480 rows) are snapshots of
meld-greedy random legal play (Hu whenever legal, else claims and kongs whenever legal) from
fixed seeds, in the official and botzone layouts and in match mode (winds, dealer rotation),
every 8 steps over 160 steps of 8 games. They are stored, not replayed, so that a later engine
change cannot move the pinned states. ``python tests/test_encoding_golden.py --write`` rebuilds
the fixture (only ever needed if ``GameState`` gains a field) and prints the hashes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from pathlib import Path

import numpy as np
import pytest

from mcr_env.encoding import get_encoder
from mcr_env.engine import GameState, MCREngine, RulesConfig

FIXTURE = Path(__file__).parent / "fixtures" / "encoding_states.npz"

GOLDEN = {
    "planes-v0": "0bb8502ff8aded94ddf8767d86f1151ead0358c9e0539c502ee811418220571e",
    "oracle-v0": "c9ac83f018aa4225acd181373d0386be1d134c95a77910857902b9ce28c7b5b3",
}


def _actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Hu if legal, else a claim/kong (ids >= 36) if any, else a random legal action."""
    keys = rng.random(mask.shape) + 1.0
    keys[..., 36:] += 2.0
    keys[..., 1] += 4.0
    return (keys * mask).argmax(axis=-1)


def build_states(batch=8, steps=160, every=8, seed=5) -> GameState:
    """Snapshots of seeded games, concatenated along the batch dimension.

    Official layout: finished games are reset at once. Botzone: only every 16 steps (so hands
    that are OVER are seen). Match mode with ``illegal_action="penalize"``: the seat on turn
    passes (illegal in ACT) 15% of the time, so that hands end by penalty and the match
    reaches later rounds (prevalent wind South and beyond, seat changes).
    """
    snaps = []
    configs = (
        ("official", "hand", 1, 0.0),
        ("botzone", "hand", 16, 0.0),
        ("official", "match", 1, 0.15),
    )
    for layout, match, reset_every, p_illegal in configs:
        cfg = RulesConfig(wall_layout=layout, match=match, illegal_action="penalize")
        eng = MCREngine(batch, cfg)
        eng.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for t in range(steps):
            if t % every == 0:
                snaps.append(eng.state.copy())
            acts = _actions(eng.legal_mask, rng)
            bad = (eng.state.phase == 0) & (rng.random(batch) < p_illegal)
            acts[np.nonzero(bad)[0], eng.state.current_seat[bad]] = 0  # Pass: illegal in ACT
            eng.step(acts)
            if eng.terminated.any() and t % reset_every == 0:
                eng.reset(games=eng.terminated.copy())
    return GameState(
        **{
            f.name: np.concatenate([getattr(s, f.name) for s in snaps])
            for f in dataclasses.fields(GameState)
        }
    )


def load_states() -> GameState:
    with np.load(FIXTURE) as z:
        return GameState(**{f.name: z[f.name] for f in dataclasses.fields(GameState)})


def encoder_hash(encoder_id: str, state: GameState) -> str:
    """sha256 of the ``(B * 4, C, 34) float32`` observations of every (game, seat)."""
    return hashlib.sha256(get_encoder(encoder_id).encode(state).tobytes()).hexdigest()


STATES = load_states() if FIXTURE.exists() else None


def test_fixture_states_are_varied():
    st = STATES
    assert st.batch_size == 480
    assert (st.meld_kind == 4).any() and (st.meld_kind == 3).any() and (st.meld_kind == 1).any()
    assert {0, 1, 2, 4} <= set(st.phase.tolist())  # ACT, DISCARD, CLAIM, OVER
    assert (st.flower_count > 0).any() and (st.prevalent_wind == 3).any() and (st.dealer > 0).any()
    assert (st.winner >= 0).any() and (st.after_kong).any()


@pytest.mark.parametrize("encoder_id", sorted(GOLDEN))
def test_encoder_bytes_are_frozen(encoder_id):
    assert encoder_hash(encoder_id, STATES) == GOLDEN[encoder_id]


@pytest.mark.parametrize("encoder_id", sorted(GOLDEN))
def test_subsets_equal_rows_of_the_full_encoding(encoder_id):
    enc = get_encoder(encoder_id)
    full = enc.encode(STATES)
    rng = np.random.default_rng(0)
    for n in (1, 7, 300):
        g = rng.integers(0, STATES.batch_size, n)
        s = rng.integers(0, 4, n)
        np.testing.assert_array_equal(enc.encode(STATES, g, s), full[g * 4 + s])
    out = np.full((5, *enc.shape), 7.0, dtype=np.float32)
    enc.encode(STATES, np.arange(5), np.zeros(5, np.intp), out=out)
    np.testing.assert_array_equal(out, full[np.arange(5) * 4])
    # a strided (not C-contiguous) out buffer, garbage on entry, for every dtype
    for dt in enc.dtypes:
        big = np.full((9, enc.num_channels, 2 * 34), 7, dtype=dt)
        strided = big[::3, :, ::2]  # every third row, every other column
        assert not strided.flags.c_contiguous
        got = enc.encode(STATES, np.arange(3), np.full(3, 2, np.intp), out=strided)
        assert got is strided
        want = enc.encode(STATES, np.arange(3), np.full(3, 2, np.intp), out=np.empty_like(got))
        if dt == np.float32:
            np.testing.assert_array_equal(want, full[np.arange(3) * 4 + 2])
        np.testing.assert_array_equal(strided, want)
        assert (big[1::3] == 7).all() and (big[::3, :, 1::2] == 7).all()  # untouched


if __name__ == "__main__":
    if "--write" in sys.argv:
        st = build_states()
        np.savez_compressed(
            FIXTURE, **{f.name: getattr(st, f.name) for f in dataclasses.fields(GameState)}
        )
    st = load_states()
    for k in sorted(GOLDEN):
        print(k, encoder_hash(k, st))


def test_fused_encoders_equal_the_piece_reference_along_games():
    """The fused encoders (with their per-batch-size count cache) equal the piece-by-piece
    reference at every step of real games: resets, claims, kongs, two engines of the same
    batch size encoded alternately (the cache must notice every change), subsets of pairs."""
    from mcr_env.encoding.planes import make_reference

    engines = [
        MCREngine(6, RulesConfig(illegal_action="penalize", match="match")),
        MCREngine(6, RulesConfig(wall_layout="botzone")),
    ]
    for i, eng in enumerate(engines):
        eng.reset(seed=20 + i)
    rng = np.random.default_rng(1)
    for encoder_id in ("planes-v0", "oracle-v0"):
        enc, ref = get_encoder(encoder_id), make_reference(encoder_id)
        for _ in range(60):
            for eng in engines:
                np.testing.assert_array_equal(enc.encode(eng.state), ref.encode(eng.state))
                g, s = np.nonzero(eng.to_act)
                np.testing.assert_array_equal(
                    enc.encode(eng.state, g, s), ref.encode(eng.state, g, s)
                )
                acts = _actions(eng.legal_mask, rng)
                if eng.config.illegal_action == "penalize":
                    bad = (eng.state.phase == 0) & (rng.random(6) < 0.05)
                    acts[np.nonzero(bad)[0], eng.state.current_seat[bad]] = 0
                eng.step(acts)
                if eng.terminated.any():
                    eng.reset(games=eng.terminated.copy())

"""Golden trajectories: sha256 of whole seeded games, pinned before optimising the engine.

Each case plays seeded walls with actions drawn from the legal masks by a fixed seeded sampler
(defined here, independent of the bench and the agents) and hashes, at every step, ``to_act``,
``legal_mask``, ``rewards``, ``player_rewards``, ``hand_over``, ``terminated``, then at the end
every :class:`GameState` field and every ``last_hand_result``. Any change of behaviour (a mask,
a draw, a settlement, a state field) changes the digest. The env case also hashes the packed
planes-v0 observations, rewards and the final observations of the same-step autoreset.

If a rules fix changes these digests on purpose, re-pin them in the same commit and say why.
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest

from mcr_env.engine import GameState, MCREngine, Phase, RulesConfig
from mcr_env.engine.actions import HU, NUM_ACTIONS, PASS, PLAY_OFFSET
from mcr_env.scoring.shanten import shanten_batch


def sample(mask: np.ndarray, rng, hu_bonus: float) -> np.ndarray:
    """``(B, 4) int64`` legal actions: argmax of uniform keys (+ ``hu_bonus`` on Hu, and a
    smaller bonus on Pass so that claims are not always taken) over the legal ids."""
    keys = rng.random(mask.shape) + 1.0
    keys[..., HU] += hu_bonus
    keys[..., PASS] += 0.5
    return np.where(mask, keys, 0.0).argmax(axis=-1).astype(np.int64)


def greedy(eng: MCREngine, rng) -> np.ndarray:
    """:func:`sample` with Hu first, except that in odd games the seat on turn plays a discard
    leaving the lowest shanten (random among ties), so that hands get won."""
    mask = eng.legal_mask
    acts = sample(mask, rng, 10.0)
    st = eng.state
    odd = (np.arange(eng.batch_size) % 2 == 1) & ~eng.terminated
    g = np.nonzero(odd & ((st.phase == Phase.ACT) | (st.phase == Phase.DISCARD)))[0]
    s = st.current_seat[g].astype(np.int64)
    g, s = g[acts[g, s] != HU], s[acts[g, s] != HU]
    if g.size == 0:
        return acts
    plays = mask[g, s, PLAY_OFFSET : PLAY_OFFSET + 34]  # (n, 34)
    hands = np.repeat(st.hand[g, s].astype(np.int64)[:, None, :], 34, axis=1)
    hands[:, np.arange(34), np.arange(34)] -= 1
    nm = np.repeat(st.n_melds[g, s].astype(np.int64), 34)
    sh = shanten_batch(np.maximum(hands, 0).reshape(-1, 34), nm).reshape(-1, 34)
    score = np.where(plays, -sh.astype(np.float64) * 4.0 + rng.random(plays.shape), -1e9)
    acts[g, s] = PLAY_OFFSET + score.argmax(axis=1)
    return acts


def _feed_step(h, eng: MCREngine) -> None:
    h.update(np.packbits(eng.to_act).tobytes())
    h.update(np.packbits(eng.legal_mask).tobytes())
    h.update(eng.rewards.tobytes())
    h.update(eng.player_rewards.tobytes())
    h.update(np.packbits(eng.hand_over).tobytes())
    h.update(np.packbits(eng.terminated).tobytes())


def _feed_final(h, eng: MCREngine) -> None:
    for f in dataclasses.fields(GameState):
        h.update(f.name.encode())
        h.update(np.ascontiguousarray(getattr(eng.state, f.name)).tobytes())
    h.update(eng.table_points.tobytes())
    for r in eng.last_hand_result:
        if r is None:
            h.update(b"none")
            continue
        fans = ",".join(f"{f.fan.name}:{f.points}x{f.count}" for f in r.fans)
        h.update(
            f"{r.hand_number}|{int(r.end_reason)}|{r.winner}|{r.win_from}|{r.win_tile}|"
            f"{fans}|{r.total}|{r.settlement.tolist()}|{r.player_at_seat.tolist()}|"
            f"{r.offenders}".encode()
        )


def play_to_end(config: RulesConfig, b: int, seed: int, win: bool) -> tuple[str, int]:
    """Play ``b`` seeded games to their end (:func:`greedy` if ``win`` else uniform
    :func:`sample`); returns (digest, number of steps)."""
    eng = MCREngine(b, config)
    eng.reset(seed=seed)
    rng = np.random.default_rng(seed + 1)
    h = hashlib.sha256()
    _feed_step(h, eng)
    steps = 0
    while not eng.terminated.all():
        eng.step(greedy(eng, rng) if win else sample(eng.legal_mask, rng, 0.0))
        _feed_step(h, eng)
        steps += 1
    _feed_final(h, eng)
    return h.hexdigest(), steps


def test_random_games_official():
    digest, steps = play_to_end(RulesConfig(), 256, seed=2024, win=False)
    assert (digest, steps) == (
        "fa7ddab29d17fa8b107e79e0048c39808e7a506c832d8fbb1e19be706593c562",
        118,
    )


def test_hu_greedy_games_official():
    digest, steps = play_to_end(RulesConfig(), 128, seed=77, win=True)
    assert (digest, steps) == (
        "d9a151c9f70617077dbd0ddf0eaa68cf81e286bcb8bff1602d5568c4a52a28b8",
        120,
    )


def test_hu_greedy_games_botzone():
    digest, steps = play_to_end(RulesConfig(wall_layout="botzone"), 64, seed=5, win=True)
    assert (digest, steps) == (
        "abf7641d873bb32478a92a51fdf76768bc565e758b2d568e2daa90c70cc585cd",
        115,
    )


def test_hu_greedy_match():
    digest, steps = play_to_end(RulesConfig(match="match"), 3, seed=11, win=True)
    assert (digest, steps) == (
        "1949d262614c842eff2a6ba31665e7090b5ec4cc511da8d95038fb0a116033df",
        1715,
    )


def test_autoreset_and_partial_steps():
    """Partial steps (``games=``) and partial resets of finished games, as the envs do."""
    b = 48
    eng = MCREngine(b, RulesConfig())
    eng.reset(seed=9)
    rng = np.random.default_rng(10)
    h = hashlib.sha256()
    for _ in range(400):
        games = rng.random(b) < 0.8
        eng.step(greedy(eng, rng), games=games)
        _feed_step(h, eng)
        if eng.terminated.any():
            eng.reset(games=eng.terminated.copy())
            _feed_step(h, eng)
    _feed_final(h, eng)
    assert h.hexdigest() == "0d243ef7de7e277d27482fa071be5083d8b316d7c413c225f664a0ad9528326a"


ENV_GOLDEN = {
    "options": ("8955a7cb48cb58e4fba57c9dfabb0b2d5196467ba194eb342dd65b8e80415e7e", 77, 26),
    "all": ("9f1b2160a2563141f6ee1a5e9acb60addcb73b5fdc6b38c5289dac8a126b06aa", 45, 22),
}


@pytest.mark.parametrize("claim_round", ["options", "all"])
def test_env_packed_same_step(claim_round):
    """The RL path: packed planes-v0 observations, rewards, same-step autoreset, with the
    skipping claim rounds and with every seat asked (the env default, docs/rules.md §10)."""
    from mcr_env.envs.batch import MCRBatchEnv

    env = MCRBatchEnv(32, observe="packed", claim_round=claim_round)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(4)
    h = hashlib.sha256()
    hands = wins = 0
    for _ in range(300):
        obs, rew, term, trunc, info = env.step(greedy(env.engine, rng))
        for k in ("observation", "games", "seats", "action_mask", "to_act"):
            h.update(np.ascontiguousarray(obs[k]).tobytes())
        h.update(rew.tobytes())
        h.update(np.packbits(term).tobytes())
        h.update(info["settlement"].tobytes())
        if "final_obs" in info:
            h.update(info["final_obs"].tobytes())
            h.update(info["final_rows"].tobytes())
        hands += int(info["hand_over"].sum())
        wins += int((info["settlement"] != 0).any(axis=1).sum())
    assert (h.hexdigest(), hands, wins) == ENV_GOLDEN[claim_round]


def test_sampler_is_legal():
    mask = np.zeros((2, 4, NUM_ACTIONS), dtype=bool)
    mask[0, 1, [PASS, 7]] = True
    mask[1, 2, HU] = True
    acts = sample(mask, np.random.default_rng(0), 10.0)
    assert acts[0, 1] in (PASS, 7) and acts[1, 2] == HU

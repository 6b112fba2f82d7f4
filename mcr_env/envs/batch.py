"""Native multi-agent batch environment: B tables, all four seats are agents.

:class:`MCRBatchEnv` is the thin RL layer over :class:`mcr_env.engine.core.MCREngine`: it adds
observations (an encoder), rewards (a :mod:`mcr_env.rewards` function) and automatic resets.
It contains no rules.

Step semantics: one ``step`` = one engine step = one decision per acting seat in every live
table (after a discard the answering seats act together). Arrays are indexed by absolute seat.

Autoreset (declared in ``autoreset_mode``):

* ``"same_step"`` (default): when a hand ends at step t, step t returns its rewards and
  ``terminated[b] = True`` and *already* the first observation of the next hand of table b
  (``engine.reset(games=...)``); the last observation of the finished hand is in
  ``info["final_obs"]`` (``(k, 4, C, 34)``, rows ``info["final_rows"]``).
* ``"next_step"``: step t returns the final observation; the next ``step`` ignores the actions
  of that table, resets it and returns its first observation with reward 0 and
  ``terminated = False``.
* ``"disabled"``: finished tables stay finished (``to_act`` all False) until :meth:`reset`.

Who is asked (``claim_round``, docs/rules.md §10): by default (``claim_round="all"``) every
non-discarder answers every discard and every other seat answers every BuGang's robbing window
(a seat without an option gets a Pass-only mask), so ``to_act`` and every seat's observation
(the phase it sees) depend only on what that seat may see. ``claim_round="options"`` is faster
(fewer decisions, ``scripts/bench_engine.py --claim-round options all``) but asks only the
seats that can claim and skips rounds nobody can claim: ``to_act`` and the observed phase then
LEAK hidden hands (who holds a pair of the discard, who waits on a promoted kong's tile) to any
agent that sees them.

In match mode (``RulesConfig(match="match")``) a table terminates after its 16th hand; the
per-hand settlement still arrives in ``info["settlement"]`` at every hand end, and
``info["player_at_seat"]`` maps seats to players.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from mcr_env.encoding import resolve_encoder
from mcr_env.engine.actions import NUM_ACTIONS
from mcr_env.engine.config import CLAIM_ROUNDS, RulesConfig
from mcr_env.engine.core import MCREngine
from mcr_env.envs.common import (
    ObservationBuffers,
    copy_masks_pairs,
    encode_pairs,
    settlement_only,
)
from mcr_env.rewards import RewardFunction, make_reward

AUTORESET_MODES = ("same_step", "next_step", "disabled")
MASK_DTYPE = np.int8
"""dtype of the ``action_mask`` of every env API here (``MCRBatchEnv``, ``ShardedBatchEnv``,
``MCR-v0`` and its vector env, the PettingZoo envs, the SB3 VecEnv's observations): 1 = legal,
0 = not. Why int8: Gymnasium's ``Discrete.sample(mask=...)`` and ``MultiDiscrete.sample``
require ``np.int8`` masks and PettingZoo's classic games (chess, go, connect four) return int8
``action_mask`` observations, so the envs follow them, and the native batch envs use the same
dtype so one policy reads every API. It has the bytes of the engine's bool ``legal_mask``, so
``mask.view(bool)`` converts without a copy (never index with an int8 mask or negate it with
``~``). The one bool exception is the ``action_masks()`` method of the Gymnasium and SB3 envs:
sb3-contrib's convention (its ``MaskablePPO`` turns any mask into bool anyway)."""
OBSERVE_MODES = ("all", "acting", "packed", "none")


def table_config(config: RulesConfig | None, claim_round: str) -> RulesConfig:
    """The engine config of a multi-agent batch env: ``config`` (default ``RulesConfig()``)
    with ``claim_round`` ("all" or "options", docs/rules.md §10) in place of its own.

    Raises:
        ValueError: unknown ``claim_round`` (the message lists the valid values).
        TypeError: ``config`` is not a RulesConfig.
    """
    if claim_round not in CLAIM_ROUNDS:
        raise ValueError(f"claim_round {claim_round!r} not valid; valid: {', '.join(CLAIM_ROUNDS)}")
    if config is None:
        config = RulesConfig()
    elif not isinstance(config, RulesConfig):
        raise TypeError(f"config must be a RulesConfig, got {type(config).__name__}")
    return dataclasses.replace(config, claim_round=claim_round)


def check_modes(autoreset_mode: str, observe: str) -> None:
    """Raise ValueError (listing the valid values) for an unknown autoreset or observe mode."""
    if autoreset_mode not in AUTORESET_MODES:
        raise ValueError(
            f"autoreset_mode {autoreset_mode!r} not valid; valid: {', '.join(AUTORESET_MODES)}"
        )
    if observe not in OBSERVE_MODES:
        raise ValueError(f"observe {observe!r} not valid; valid: {', '.join(OBSERVE_MODES)}")


class MCRBatchEnv:
    """B MCR tables in lockstep, four agents (seats) each.

    Args:
        num_tables: B >= 1.
        config: engine :class:`RulesConfig` (default: official wall, single hands, illegal
            actions raise ValueError naming game, seat and action; for a training mode that
            punishes them instead pass ``RulesConfig(illegal_action="penalize")``: the offender
            pays 30, the others get 10, the hand ends, docs/rules.md §3).
        encoder: encoder id (default ``"planes-v0"``) or an ``Encoder``.
        reward: reward name (:data:`mcr_env.rewards.REWARD_NAMES`) or a ``RewardFunction``.
        reward_kwargs: keyword arguments of a named reward.
        autoreset_mode: ``"same_step"``, ``"next_step"`` or ``"disabled"`` (module docstring).
        claim_round: ``"all"`` (default: every seat answers every claim round and robbing
            window; nothing leaks) or ``"options"`` (faster; ``to_act`` leaks hidden hands,
            module docstring). Overrides ``config.claim_round`` (docs/rules.md §10).
        observe: ``"all"`` (every seat, ``(B, 4, C, 34)``), ``"acting"`` (same shape, only
            rows of acting seats filled, others zero), ``"packed"`` (only the acting seats:
            ``observation (N, C, 34)`` with ``games (N,)`` / ``seats (N,)`` giving the pairs in
            ``np.nonzero(to_act)`` order; the fastest) or ``"none"`` (no observation; call
            :meth:`observe`).
        first_game: index of table 0 in a larger batch of which these tables are one shard
            (seeded walls derive from ``first_game + b``; used by
            :class:`mcr_env.envs.sharded.ShardedBatchEnv`, which runs the shards in worker
            processes).
        obs_dtype: dtype of ``observation`` (and ``info["final_obs"]``): ``"float32"``
            (default) or ``"uint8"`` where the encoder writes it (``encoder.dtypes``: the
            compiled ``planes-v0`` and ``oracle-v0``): the same planes in a quarter of the
            bytes, every value the same except the ``tiles_left`` channels (the count instead
            of count / 144): ``obs.astype(np.float32) / encoder.divisor("uint8")[:, None]`` is
            the float32 observation bit for bit.

    Observation dict returned by ``reset``/``step``:
        ``observation`` ``(B, 4, C, 34)`` float32 (``obs_dtype``; absent with
        ``observe="none"``),
        ``action_mask`` ``(B, 4, 235) int8`` (1 = legal; :data:`MASK_DTYPE`, as Gymnasium and
        PettingZoo; ``mask.view(bool)`` is the bool mask without a copy), ``to_act``
        ``(B, 4) bool``.

    ``step`` returns ``(obs, rewards (B, 4) float32, terminated (B,) bool, truncated (B,) bool
    (always False: hands always end), info)``; ``info["settlement"]`` is the raw settlement
    ``(B, 4) int32`` (points, docs/rules.md §3) of the hands that ended at this step.

    Raises:
        ValueError / TypeError: bad arguments (the message names them).
    """

    def __init__(
        self,
        num_tables: int,
        config: RulesConfig | None = None,
        encoder: Any = "planes-v0",
        reward: str | RewardFunction = "settlement",
        reward_kwargs: dict | None = None,
        autoreset_mode: str = "same_step",
        observe: str = "all",
        claim_round: str = "all",
        first_game: int = 0,
        obs_dtype: Any = "float32",
    ):
        check_modes(autoreset_mode, observe)
        config = table_config(config, claim_round)
        self.engine = MCREngine(num_tables, config, first_game=first_game)
        self.num_tables = self.engine.batch_size
        self.config = self.engine.config
        self.encoder = resolve_encoder(encoder)
        self.reward_fn = make_reward(reward, **(reward_kwargs or {}))
        self._settlement_only = settlement_only(self.reward_fn)  # 0 at steps no hand ends
        self.autoreset_mode = autoreset_mode
        self.observe_mode = observe
        self._pending = np.zeros(self.num_tables, dtype=bool)  # next_step: reset at next step
        self._n_pending = 0  # how many of _pending are True
        # (B * 4,) games and seats of every pair, game-major (observe="all")
        self._all_pairs = (
            np.repeat(np.arange(self.num_tables), 4),
            np.tile(np.arange(4), self.num_tables),
        )
        check = getattr(self.encoder, "check_dtype", None)
        if check is not None:
            self.obs_dtype = check(obs_dtype)
        elif np.dtype(obs_dtype) != np.float32:
            raise ValueError(f"encoder {self.encoder!r} writes float32 observations only")
        else:
            self.obs_dtype = np.dtype(np.float32)
        # observations and action masks handed out (reused once the caller drops them)
        self._buffers = ObservationBuffers(self.encoder.shape, dtype=self.obs_dtype)
        self._mask_buffers = ObservationBuffers((4, NUM_ACTIONS), dtype=MASK_DTYPE)
        self._started = False

    # ------------------------------------------------------------------ observations
    def observe(self, games: Any = None, seats: Any = None) -> np.ndarray:
        """Observations of (game, seat) pairs now: ``(N, C, 34) float32`` (all pairs:
        ``(B * 4, C, 34)``, game-major; always float32, whatever ``obs_dtype``)."""
        return self.encoder.encode(self.engine.state, games, seats)

    def _obs(self) -> dict[str, np.ndarray]:
        eng = self.engine
        # int8 0/1 like every env API of the package (MASK_DTYPE); same bytes as the bool
        # mask; a copy of to_act and the acting pairs from the same compiled pass
        mask, to_act, g, s = copy_masks_pairs(
            eng.legal_mask, eng.to_act, self._mask_buffers.take(self.num_tables)
        )
        out = {"action_mask": mask, "to_act": to_act}
        b, c = self.num_tables, self.encoder.num_channels
        if self.observe_mode == "all":
            ga, sa = self._all_pairs
            obs = encode_pairs(self.encoder, eng.state, ga, sa, self._buffers)
            out["observation"] = obs.reshape(b, 4, c, 34)
        elif self.observe_mode == "acting":
            obs = np.zeros((b, 4, c, 34), dtype=self.obs_dtype)
            if g.size:
                obs[g, s] = encode_pairs(self.encoder, eng.state, g, s, dtype=self.obs_dtype)
            out["observation"] = obs
        elif self.observe_mode == "packed":
            out["observation"] = encode_pairs(self.encoder, eng.state, g, s, self._buffers)
            out["games"], out["seats"] = g, s
        return out

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, walls: Any = None) -> tuple[dict, dict]:
        """Deal new hands at every table.

        Args:
            seed: root seed (table b's walls derive from (seed, b, episode), independent of B).
            walls: optional explicit walls ``(B, 144)`` / ``(B, 136)`` (engine layout).

        Returns:
            ``(obs, info)``; ``info["player_at_seat"]`` ``(B, 4) int8``.
        """
        self.engine.reset(seed=seed, walls=walls)
        self._pending[:] = False
        self._n_pending = 0
        self.reward_fn.reset(self.engine, None)
        self._started = True
        return self._obs(), {"player_at_seat": self.engine.state.player_at_seat.copy()}

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Apply ``actions (B, 4)`` (entries of non-acting seats ignored).

        Raises:
            RuntimeError: before ``reset``.
            ValueError / TypeError: shape or dtype of ``actions``; an illegal action for an
                acting seat (with the engine's default ``illegal_action="raise"``).
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        eng = self.engine
        # (next_step: the tables to reset now; _pending is replaced, never changed, by a step;
        # np.count_nonzero: a fraction of the cost of ndarray.any)
        pending, n_pending = self._pending, self._n_pending
        eng.step(actions)
        settlement = eng.rewards.copy()
        hand_over = eng.hand_over.copy()
        terminated = eng.terminated.copy()
        if self._settlement_only and not np.count_nonzero(hand_over):
            rewards = np.zeros((self.num_tables, 4), dtype=np.float32)  # no hand ended: 0
        elif n_pending:
            emit = np.repeat(~pending[:, None], 4, axis=1)  # (B, 4)
            rewards = self.reward_fn(settlement, hand_over, eng, emit)
            rewards = np.where(pending[:, None], np.float32(0.0), rewards).astype(np.float32)
        elif self._settlement_only:  # a new float32 array of the settlement alone
            rewards = self.reward_fn(settlement, hand_over, eng)
        else:  # nothing pending: every seat's reward is emitted as is (a float32 copy)
            emit = np.ones((self.num_tables, 4), dtype=bool)
            rewards = np.array(self.reward_fn(settlement, hand_over, eng, emit), dtype=np.float32)
        info: dict[str, Any] = {"settlement": settlement, "hand_over": hand_over}
        if self.config.match == "match":
            info["player_at_seat"] = eng.state.player_at_seat.copy()
        if self.autoreset_mode == "same_step" and terminated.any():
            rows = np.nonzero(terminated)[0]
            if self.observe_mode != "none":
                info["final_obs"] = self._final_obs(rows)
            info["final_rows"] = rows
            self._reset_rows(terminated)
        elif self.autoreset_mode == "next_step":
            if n_pending:
                self._reset_rows(pending)
                terminated[pending] = False
            self._pending = terminated.copy()
            self._n_pending = int(np.count_nonzero(terminated))
        truncated = np.zeros(self.num_tables, dtype=bool)
        return self._obs(), rewards, terminated, truncated, info

    def _final_obs(self, rows: np.ndarray) -> np.ndarray:
        """``(n, 4, C, 34)`` (``obs_dtype``): the observations of every seat of tables
        ``rows (n,)`` now (same-step autoreset: the last observation of their finished
        hands)."""
        g = np.repeat(rows, 4)
        s = self._all_pairs[1][: 4 * len(rows)]  # 0, 1, 2, 3, 0, 1, ...
        final = encode_pairs(self.encoder, self.engine.state, g, s, dtype=self.obs_dtype)
        return final.reshape(len(rows), 4, *self.encoder.shape)

    def _reset_rows(self, rows: np.ndarray) -> None:
        self.engine.reset(games=rows)
        self.reward_fn.reset(self.engine, rows)

    # ------------------------------------------------------------------ misc
    def render(self, game: int = 0, seat: int | None = None) -> str:
        """Text of table ``game`` (seen from ``seat``, or everything if None)."""
        from mcr_env.envs.render import render_table

        return render_table(self.engine.state, game, seat)

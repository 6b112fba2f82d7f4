"""Gymnasium interfaces: ``MCR-v0`` (one learner seat vs three opponent policies) and its
natively batched vector version (``gymnasium.make_vec(..., vectorization_mode=
"vector_entry_point")``), both over :class:`mcr_env.engine.core.MCREngine`."""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from mcr_env._checks import check_int
from mcr_env.encoding import resolve_encoder
from mcr_env.engine.actions import ACTION_NAMES, NUM_ACTIONS
from mcr_env.engine.config import CLAIM_ROUNDS, RulesConfig
from mcr_env.engine.core import MCREngine
from mcr_env.engine.state import Phase
from mcr_env.envs.common import (
    ObservationBuffers,
    RandomPolicy,
    call_policy,
    encode_pairs,
    make_opponent,
    policy_label,
    policy_needs_obs,
    random_opponent_actions,
    settlement_only,
)
from mcr_env.rewards import make_reward

ILLEGAL_MODES = ("penalize", "raise")
MAX_DEAL_RETRIES = 64


def observation_space(encoder) -> spaces.Dict:
    """``Dict(observation=Box((C, 34) float32, per-channel bounds), action_mask=Box(0, 1,
    (235,), int8))`` of an encoder. An encoder object without named pieces (e.g. the
    baselines' ``planes-v0+look-v0``) gets unbounded channels."""
    if getattr(encoder, "pieces", None) is None:
        low = np.full(encoder.shape, -np.inf, dtype=np.float32)
        high = np.full(encoder.shape, np.inf, dtype=np.float32)
    else:
        low = np.zeros(encoder.shape, dtype=np.float32)
        high = np.zeros(encoder.shape, dtype=np.float32)
        for p in encoder.pieces:
            sl = encoder.piece_slice(p.name)
            low[sl] = p.low
            high[sl] = p.high
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
    )


def _rules(
    config: RulesConfig | dict | None,
    illegal_action: str | None,
    match: bool | None = None,
    claim_round: str | None = None,
) -> RulesConfig:
    """The engine config of an env: ``config`` (default ``RulesConfig()``) with
    ``illegal_action`` overriding ``config.illegal_action`` when given (None keeps it),
    ``match`` (True: 16-hand matches, docs/rules.md §4; False: single hands; None keeps
    ``config.match``) and ``claim_round`` overriding ``config.claim_round`` when given (None
    keeps it; docs/rules.md §10).

    Raises:
        ValueError: unknown ``illegal_action`` or ``claim_round``.
        TypeError: ``config`` is neither a RulesConfig nor a dict, or ``match`` not a bool.
    """
    if illegal_action is not None and illegal_action not in ILLEGAL_MODES:
        raise ValueError(
            f"illegal_action {illegal_action!r} not valid; valid: {', '.join(ILLEGAL_MODES)}"
        )
    if claim_round is not None and claim_round not in CLAIM_ROUNDS:
        raise ValueError(f"claim_round {claim_round!r} not valid; valid: {', '.join(CLAIM_ROUNDS)}")
    if match is not None and not isinstance(match, (bool, np.bool_)):
        raise TypeError(f"match must be a bool, got {match!r}")
    if config is None:
        config = RulesConfig()
    elif isinstance(config, dict):
        config = RulesConfig.from_dict(config)
    elif not isinstance(config, RulesConfig):
        raise TypeError(f"config must be a RulesConfig or dict, got {type(config).__name__}")
    if illegal_action is not None:
        config = dataclasses.replace(config, illegal_action=illegal_action)
    if match is not None:
        config = dataclasses.replace(config, match="match" if match else "hand")
    if claim_round is not None:
        config = dataclasses.replace(config, claim_round=claim_round)
    return config


def _opponents(opponents: Any) -> list:
    """Three opponent policies from ``opponents``: None (three :class:`RandomPolicy`), one
    spec for all three, or a list/tuple of 3 specs; a spec is a policy or a string
    (``"random"``, ``"rule"``, ``"*.pt"``, :func:`mcr_env.envs.common.make_opponent`). A
    comma-separated string of 3 specs (``"rule,random,rule"``) is a list too. Each string spec
    builds its own agent (seeded 1, 2, 3 by position).

    Raises:
        ValueError: not 1 or 3 specs, or an unknown spec string.
        TypeError: a spec that is neither a string nor a policy.
    """
    if opponents is None:
        return [RandomPolicy() for _ in range(3)]
    if isinstance(opponents, str) and "," in opponents:
        opponents = [x.strip() for x in opponents.split(",")]
    if isinstance(opponents, (list, tuple)):
        if len(opponents) != 3:
            raise ValueError(f"give one opponent policy or a list of 3, got {len(opponents)}")
        return [make_opponent(p, k + 1) for k, p in enumerate(opponents)]
    if isinstance(opponents, str):
        return [make_opponent(opponents, k + 1) for k in range(3)]
    return [make_opponent(opponents)] * 3


def _with_masks(info: dict[str, Any]) -> dict[str, Any]:
    """Vector-env info with Gymnasium's ``_key`` mask ``(B,) bool`` (all True) added for each
    key that has none (keys with partial masks, ``final_obs``, set theirs)."""
    for k in [k for k in info if not k.startswith("_") and f"_{k}" not in info]:
        info[f"_{k}"] = np.ones(len(info[k]), dtype=bool)
    return info


class _LearnerTables:
    """B tables, one learner seat each, opponents' decisions played in between (shared by the
    single and the vector env)."""

    def __init__(self, n, config, encoder, reward, reward_kwargs, opponents, learner_seat):
        self.engine = MCREngine(n, config)
        self.n = n
        self.encoder = resolve_encoder(encoder)
        self.reward_fn = make_reward(reward, **(reward_kwargs or {}))
        self.opponents = _opponents(opponents)
        if learner_seat != "random" and (
            isinstance(learner_seat, bool) or learner_seat not in (0, 1, 2, 3)
        ):
            raise ValueError(f"learner_seat must be 0..3 or 'random', got {learner_seat!r}")
        self.learner_seat_spec = learner_seat
        self.match = config.match == "match"
        self.learner = np.zeros(n, dtype=np.int64)  # (B,) absolute seat of the learner now
        self.player = np.zeros(n, dtype=np.int64)  # (B,) learner's player (= seat in hand 1)
        self.hand_ended = np.zeros(n, dtype=bool)  # (B,) a hand ended in the last advance()
        self.rng = np.random.default_rng()
        self._rows = np.arange(n)  # (B,) table indices
        # learner observations handed out (vector env; one table allocates less than it checks)
        self._buffers = ObservationBuffers(self.encoder.shape) if n > 1 else None
        self._acts = np.zeros((n, 4), dtype=np.int64)  # (B, 4) actions of the next engine step
        # three RandomPolicy opponents: compiled actions, legal by construction (no blame pass)
        self._random_opponents = all(type(p) is RandomPolicy for p in self.opponents)
        self._pure_reward = settlement_only(self.reward_fn)  # 0 at steps where no hand ends

    def seed_rng(self, rng: np.random.Generator) -> None:
        self.rng = rng
        for p in self.opponents:
            if isinstance(p, RandomPolicy):
                p.seed(rng)

    def choose_seats(self, rows: np.ndarray) -> None:
        if self.learner_seat_spec == "random":
            self.player[rows] = self.rng.integers(0, 4, size=len(rows))
        else:
            self.player[rows] = self.learner_seat_spec
        self.follow_player(rows)

    def follow_player(self, rows: np.ndarray) -> None:
        """Set the learner's seat of ``rows`` (indices) to its player's seat in the current
        hand (``state.player_at_seat``; the identity in single hands and in hand 1)."""
        pas = self.engine.state.player_at_seat[rows]  # (k, 4) player at each seat
        self.learner[rows] = np.argmax(pas == self.player[rows, None], axis=1)

    def hook_opponents(self, rows: np.ndarray | None = None, actions=None) -> None:
        """Opponents that follow whole games (outside Botzone bots,
        :mod:`mcr_env.botzone.process`): ``attach(engine, seats, games=rows)`` after a reset of
        ``rows`` (``actions`` None), else ``observe(engine, actions, games=rows)`` after a
        step."""
        seen: list = []
        for pol in self.opponents:
            if any(pol is q for q in seen):
                continue
            seen.append(pol)
            if actions is None and hasattr(pol, "attach"):
                rel = (np.arange(4)[None, :] - self.learner[:, None]) % 4
                seats = np.zeros((self.n, 4), dtype=bool)
                for k, q in enumerate(self.opponents):
                    if q is pol:
                        seats |= rel == k + 1
                pol.attach(self.engine, seats, games=rows)
            elif actions is not None and hasattr(pol, "observe"):
                pol.observe(self.engine, actions, games=rows)

    def learner_to_act(self) -> np.ndarray:
        """``(B,) bool``: the learner's seat is asked now."""
        return self.engine.to_act[self._rows, self.learner]

    def opponent_actions(self, active: np.ndarray) -> np.ndarray:
        """``(B, 4)`` actions of the acting opponent seats of ``active`` tables.

        Raises:
            ValueError, TypeError: errors of :func:`call_policy` (e.g. an action outside
                0..234), re-raised with the policy (``opponents[k]``) and seats prefixed.
                Illegal (in-range) actions are named by :meth:`blame_opponent`.
        """
        eng = self.engine
        acts = np.zeros((self.n, 4), dtype=np.int64)
        who = eng.to_act & active[:, None]
        who[np.arange(self.n), self.learner] = False
        for k, pol in enumerate(self.opponents):
            rel = (np.arange(4)[None, :] - self.learner[:, None]) % 4  # (B, 4) relative seat
            g, s = np.nonzero(who & (rel == k + 1))
            if g.size == 0:
                continue
            obs = encode_pairs(self.encoder, eng.state, g, s) if policy_needs_obs(pol) else None
            try:
                acts[g, s] = call_policy(pol, obs, eng.legal_mask[g, s], eng.state, g, s)
            except (TypeError, ValueError) as e:
                where = f"opponent policy opponents[{k}] ({policy_label(pol)})"
                raise type(e)(f"{where} at seat(s) {sorted(set(s.tolist()))}: {e}") from e
        return acts

    def blame_opponent(
        self, acts: np.ndarray, active: np.ndarray, error: ValueError | None = None
    ) -> None:
        """Raise a ValueError naming the opponent policy, seat, table, action and legal actions
        if an opponent's action in ``acts (B, 4)`` is illegal; return otherwise. Called before
        every engine step: an opponent policy is part of the environment, so its illegal
        action is an error in every ``illegal_action`` mode (only the learner's is punished
        with "penalize")."""
        eng = self.engine
        who = eng.to_act & active[:, None]
        who[np.arange(self.n), self.learner] = False
        g, s = np.nonzero(who)
        bad = np.nonzero(~eng.legal_mask[g, s, acts[g, s]])[0]
        if eng.config.illegal_action == "penalize" and bad.size:
            # outside Botzone bots (penalized_by_engine): an illegal answer is the bot's
            # offence, punished by the engine as the judge does (mcr_env.botzone.process)
            k_of = (s[bad] - self.learner[g[bad]]) % 4 - 1
            keep = [not getattr(self.opponents[k], "penalized_by_engine", False) for k in k_of]
            bad = bad[np.asarray(keep, dtype=bool)]
        if bad.size == 0:
            return
        g, s = int(g[bad[0]]), int(s[bad[0]])
        k = (s - int(self.learner[g])) % 4 - 1
        a = int(acts[g, s])
        legal = ", ".join(ACTION_NAMES[x] for x in np.flatnonzero(eng.legal_mask[g, s]))
        raise ValueError(
            f"opponent policy opponents[{k}] ({policy_label(self.opponents[k])}) at seat {s} "
            f"of table {g} returned illegal action {a} ({ACTION_NAMES[a]}) "
            f"(phase {Phase(eng.state.phase[g]).name}); legal: {legal}"
        ) from error

    def advance(self, learner_actions: np.ndarray | None, active: np.ndarray) -> np.ndarray:
        """Play ``active`` tables until the learner must act or the hand ends.

        ``learner_actions (B,)`` is applied first (with the opponents answering the same claim
        round). Returns the learner's summed reward ``(B,) float32`` over the engine steps.
        Without learner actions (dealing, :meth:`start`) a hand that ends is void (it is
        re-dealt): the reward function sees neither its settlement nor its end, so it is not
        paid and not counted in a match (``table_points``).
        """
        eng = self.engine
        rows = self._rows
        total = np.zeros(self.n, dtype=np.float32)
        self.settlement = np.zeros((self.n, 4), dtype=np.int32)
        self.player_settlement = np.zeros((self.n, 4), dtype=np.int32)  # match mode
        first = learner_actions is not None
        active = active & ~eng.terminated
        self.hand_ended[:] = False
        while active.any():
            if self._random_opponents:
                acts = random_opponent_actions(
                    eng.to_act, eng.legal_mask, self.learner, active, self.opponents, self._acts
                )
            else:
                acts = self.opponent_actions(active)
                self.blame_opponent(acts, active)
            if first:
                acts[rows, self.learner] = learner_actions
                first = False
            eng.step(acts, games=active)
            if not self._random_opponents:  # RandomPolicy follows no game
                self.hook_opponents(active, acts)
            over = eng.hand_over.copy()
            ended = over.any()
            settle = eng.rewards.copy() if ended else None
            self.hand_ended |= over
            if learner_actions is None and ended:  # void hands of the deal: not seen by reward
                settle[over] = 0
                over[:] = False
            if ended:
                self.settlement += settle
                if self.match:  # by player: the seats rotate when the next hand is dealt
                    self.player_settlement += np.where(over[:, None], eng.player_rewards, 0)
            seat = self.learner.copy()  # the learner's seat in the hand that just ended
            if self.match and ended:  # match: the next hand is dealt, seats rotate
                dealt = np.nonzero(eng.hand_over & ~eng.terminated)[0]
                if dealt.size:
                    self.follow_player(dealt)
            learner_asked = self.learner_to_act()
            if ended or not self._pure_reward:
                if settle is None:
                    settle = np.zeros((self.n, 4), dtype=np.int32)
                emit = np.zeros((self.n, 4), dtype=bool)
                emit[rows, seat] = active & (eng.terminated | over | learner_asked)
                r = self.reward_fn(settle, over, eng, emit)
                total += np.where(active, r[rows, seat], 0.0)
            # else: a settlement-only reward is 0 at a step where no hand ended
            active = active & ~eng.terminated & ~learner_asked
        return total

    def start(self, rows: np.ndarray, seed, walls, new_match: bool) -> np.ndarray:
        """Deal ``rows`` (bool) and play until the learner's first decision; a hand that ends
        before it (e.g. an opponent's win on its first draw) is void and re-dealt (counted in
        the returned ``(B,) int64``), unless ``walls`` were given: then ValueError (an explicit
        wall is never replaced by a random one). ``new_match``: reset the reward function for
        all tables (``reward_fn.reset(engine, None)``: a new match for ``table_points``);
        otherwise only ``rows`` start a new episode (``reward_fn.reset(engine, rows)``: the
        match goes on)."""
        eng = self.engine
        redeals = np.zeros(self.n, dtype=np.int64)
        eng.reset(seed=seed, walls=walls, games=rows)
        self.choose_seats(np.nonzero(rows)[0])
        self.hook_opponents(rows)
        self.reward_fn.reset(eng, None if new_match else rows)
        for _ in range(MAX_DEAL_RETRIES):
            waiting = rows & ~self.learner_to_act() & ~eng.terminated
            self.hand_ended[:] = False
            if waiting.any():
                self.advance(None, waiting)
            # a hand over before the learner's first decision (in a match: hand 1, the rest
            # of the match already dealt) is void: deal again
            again = rows & (eng.terminated | self.hand_ended)
            if not again.any():
                return redeals
            if walls is not None:
                raise ValueError(
                    f"the explicit wall of table(s) {np.nonzero(again)[0].tolist()} ends the hand "
                    "before the learner's first decision (learner seat(s) "
                    f"{self.learner[again].tolist()}); explicit walls are never re-dealt: give "
                    "another wall or learner seat"
                )
            redeals += again
            eng.reset(games=again)
            self.follow_player(np.nonzero(again)[0])
            self.hook_opponents(again)
            self.reward_fn.reset(eng, again)
        raise RuntimeError("could not deal a hand reaching the learner's decision")

    def hand_info(self, row=None) -> dict[str, Any]:
        """Match mode: ``hand_number``, ``dealer`` and ``prevalent_wind`` of the current hand
        and ``learner_player`` (the learner's player, 0..3) of table ``row`` (ints), or of all
        tables (``(B,)`` arrays) if ``row`` is None; {} in single-hand mode."""
        if not self.match:
            return {}
        st = self.engine.state
        sel = slice(None) if row is None else row
        out = {
            "hand_number": st.hand_number[sel].astype(np.int64),
            "dealer": st.dealer[sel].astype(np.int64),
            "prevalent_wind": st.prevalent_wind[sel].astype(np.int64),
            "learner_player": self.player[sel].copy(),
        }
        return {k: int(v) for k, v in out.items()} if row is not None else out

    def obs(self, rows: np.ndarray | None = None) -> dict[str, np.ndarray]:
        g = np.arange(self.n) if rows is None else rows
        s = self.learner[g]
        mask = self.engine.legal_mask[g, s].astype(np.int8)
        return {
            "observation": encode_pairs(self.encoder, self.engine.state, g, s, self._buffers),
            "action_mask": mask,
        }


class MCREnv(gym.Env):
    """Mahjong Competition Rules (MCR), one learner seat against three opponent policies.

    ## Description
    A hand of MCR (Chinese Official / Guobiao mahjong, docs/rules.md) at a four-seat table. The
    agent plays one seat (``learner_seat``); the three others are played by opponent policies
    (default: uniformly random legal actions). Every call to ``step`` is one decision of the
    learner; opponents' decisions in between are played inside ``step``. In a claim round the
    learner and the opponents answer the same discard at once, nobody seeing another's answer.
    The learner is asked only when it has an option besides Pass (the engine's default
    ``RulesConfig.claim_round="options"``, the fastest): this leaks nothing, because the learner
    observes only its own decisions, and whether it has an option depends only on its own hand
    and the discard; the opponents' rounds are played inside ``step`` unseen (docs/rules.md
    §10; the two-worlds tests check it). ``config=RulesConfig(claim_round="all")`` asks it in
    every round (Pass-only masks when it cannot claim).

    ## Action Space
    ``Discrete(235)`` (docs/design.md layout): 0 Pass, 1 Hu, 2-35 Play t, 36-98 Chi, 99-132 Peng,
    133-166 Gang, 167-200 AnGang, 201-234 BuGang; names via
    ``mcr_env.encoding.actions.action_name``. Only actions with ``action_mask == 1`` are legal.

    ## Observation Space
    ``Dict(observation=Box((C, 34), float32), action_mask=Box(0, 1, (235,), int8))`` where
    ``observation`` is the encoder's planes for the learner's seat (default ``planes-v0``,
    C = 75; channel table in ``docs/observations.md``) and ``action_mask`` marks legal actions.

    ## Rewards
    0 until the hand ends, then the learner's settlement in points (docs/rules.md §3: winner
    ``+24 + x`` or ``+24 + 3x``, discarder ``-(8 + x)``, ...); other reward functions by name
    (``reward="win_loss" | "scaled" | "table_points" | "shaping"``, see ``mcr_env.rewards``).
    ``info["settlement"]`` always has the raw ``(4,) int32`` settlement of the step (by seat).

    Matches of single-hand episodes (``reward="table_points"``, docs/rules.md §4): an episode is
    one hand, and the hands of consecutive ``reset()`` calls are the hands of one match
    (``hands_per_match``, default 16; the seat index is the player); the table points are paid
    at the end of the match's last hand, 0 at the others. The first ``reset`` and
    ``reset(options={"new_match": True})`` start a new match (a seed alone does not). A hand
    re-dealt before the learner's first decision (below) is void: not paid and not counted.

    Whole matches (``match=True``): an episode is a 16-hand match with the seat rotation,
    dealership and prevalent winds of docs/rules.md §4/§8 (``RulesConfig(match="match")``). The
    learner is a player (``learner_seat`` = its seat in hand 1) and moves with the rotation:
    ``info["learner_seat"]`` is its seat in the current hand. Rewards: the learner's
    settlement at the end of every hand (default), or ``reward="table_points"``: 4/2/1/0 by
    rank at the end of the match (ties share). Observations default to ``planes-v1`` (the
    match context: hand number, running scores; winds as in planes-v0). ``info`` also has
    ``hand_number``, ``dealer``, ``prevalent_wind`` of the current hand and ``learner_player``,
    and ``player_settlement (4,) int32``, the step's settlement by player
    (``player_settlement[learner_player]`` is the learner's): ``info["settlement"]`` is by the
    seats of the hand that ended, and after hands 4, 8 and 12 the learner's seat in the next
    hand (``info["learner_seat"]``) is another one (docs/rules.md §8).

    ## Starting State
    A seeded shuffled wall (or ``options={"walls": ...}``); 13 tiles each, East (seat 0)
    draws first. ``reset`` returns the learner's first decision; if the hand ends before it
    (an opponent wins before the learner has acted), a new hand is dealt (in a match: the
    match is dealt again; ``info["redeals"]``). An explicit wall is never re-dealt: if its
    hand ends before the learner's first decision, ``reset`` raises ``ValueError`` (choose
    another wall or ``learner_seat``).

    ## Episode End
    Terminated when the hand ends (a win, an exhaustive draw, or a penalty), or with
    ``match=True`` when the 16th hand ends. Never truncated. ``step`` before the first
    ``reset``, after the end of the episode or after a failed ``reset`` raises
    ``RuntimeError``.

    ## Arguments
    ``render_mode`` (None or "ansi"), ``learner_seat`` (0-3 or "random", default 0),
    ``opponents`` (one spec for all three or a list of 3: ``"random"``, ``"rule"``, a
    checkpoint ``"*.pt"``, an agent with batched ``act(obs, mask, view)`` or a callable
    ``policy(obs_dict) -> action``), ``config`` (``RulesConfig`` or dict), ``match`` (bool,
    default False), ``encoder`` (default "planes-v0", with ``match=True`` "planes-v1"),
    ``reward`` and ``reward_kwargs``, ``illegal_action`` (see below).

    Illegal actions (Gymnasium's convention: any action of the action space may be stepped):
    by default (``illegal_action="penalize"``) an action of the learner outside
    ``action_mask`` is punished as the Botzone judge does (docs/rules.md §3 research option: the
    offender pays 30, each other seat gets 10) and ends the hand; so
    ``gymnasium.utils.env_checker.check_env`` and SB3's ``check_env`` pass as shipped. One
    keyword away, ``illegal_action="raise"`` raises ``ValueError`` naming the game, seat and
    action, and nothing changes. ``illegal_action=None`` keeps ``config.illegal_action``. An
    illegal action of an opponent policy is always an error (``ValueError`` naming the
    policy ``opponents[k]``, its seat and the table): opponents are part of the environment.

    ## Version History
    * v0: initial version (planes-v0 observations, settlement rewards); whole matches
      (``match=True``, planes-v1), opponent spec strings, illegal actions punished by
      default (pre-release, no id bump).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        render_mode: str | None = None,
        learner_seat: int | str = 0,
        opponents: Any = None,
        config: RulesConfig | dict | None = None,
        encoder: Any = None,
        reward: Any = "settlement",
        reward_kwargs: dict | None = None,
        illegal_action: str | None = "penalize",
        match: bool = False,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not in {self.metadata['render_modes']}")
        self.render_mode = render_mode
        cfg = _rules(config, illegal_action, match or None)
        if encoder is None:
            encoder = "planes-v1" if cfg.match == "match" else "planes-v0"
        self._t = _LearnerTables(1, cfg, encoder, reward, reward_kwargs, opponents, learner_seat)
        self.observation_space = observation_space(self._t.encoder)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._done = True
        self._started = False  # reset() called once: later resets continue the match

    @property
    def engine(self) -> MCREngine:
        """The underlying batch-1 engine."""
        return self._t.engine

    @property
    def learner_seat(self) -> int:
        """Absolute seat of the learner in the current hand."""
        return int(self._t.learner[0])

    def _obs(self) -> dict[str, np.ndarray]:
        o = self._t.obs()
        return {"observation": o["observation"][0], "action_mask": o["action_mask"][0]}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a hand and play it to the learner's first decision (class docstring,
        "Starting State").

        Args:
            seed: seeds the env's generator (walls, random opponents, ``learner_seat="random"``).
            options: ``{"walls": (L,) tile ids}`` (L = 144 official, 136 botzone) and/or
                ``{"new_match": True}`` (single-hand matches: start a new match).

        Returns:
            ``(obs, info)``: ``obs`` as in the observation space (``observation (C, 34)
            float32``, ``action_mask (235,) int8``); ``info`` has ``learner_seat``,
            ``redeals`` (hands re-dealt because they ended before the learner acted).

        Raises:
            ValueError / TypeError: unknown or malformed options, a bad wall, an explicit
                wall whose hand ends before the learner's first decision.
        """
        super().reset(seed=seed)
        self._t.seed_rng(self.np_random)
        options = options or {}
        unknown = set(options) - {"walls", "new_match"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; valid: new_match, walls")
        new_match = options.get("new_match", False)
        if not isinstance(new_match, (bool, np.bool_)):
            raise TypeError(f"options['new_match'] must be a bool, got {new_match!r}")
        walls = options.get("walls")
        if walls is not None:
            walls = np.asarray(walls)
            if walls.ndim != 1:
                raise ValueError(
                    f"options['walls'] must be one wall, (L,) tile ids, got shape {walls.shape}"
                )
            walls = walls[None]
        engine_seed = None if seed is None else int(self.np_random.integers(2**62))
        new_match = bool(new_match) or not self._started
        self._done = True  # until the deal succeeds
        self._started = True
        redeals = self._t.start(np.ones(1, dtype=bool), engine_seed, walls, new_match)
        self._done = False
        info = {"learner_seat": self.learner_seat, "redeals": int(redeals[0])}
        info.update(self._t.hand_info(0))
        return self._obs(), info

    def step(self, action):
        """The learner's ``action`` (one int action id), then the opponents until the
        learner's next decision or the end of the episode.

        Returns:
            ``(obs, reward float, terminated, truncated=False, info)``; ``info["settlement"]``
            is the step's raw ``(4,) int32`` settlement by seat (docs/rules.md §3).

        Raises:
            RuntimeError: before ``reset``, after the episode ended, after a failed reset.
            TypeError: ``action`` is not one integer.
            ValueError: an illegal action with ``illegal_action="raise"`` (else it is
                penalized, class docstring); an opponent policy's illegal action.
        """
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        if self._done:
            raise RuntimeError("step() after the hand ended (or a failed reset): call reset()")
        a = np.asarray(action)
        if a.shape not in ((), (1,)) or not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"action must be one integer action id, got {action!r}")
        r = self._t.advance(a.reshape(1).astype(np.int64), np.ones(1, dtype=bool))
        terminated = bool(self._t.engine.terminated[0])
        self._done = terminated
        info = {"settlement": self._t.settlement[0].copy(), "learner_seat": self.learner_seat}
        if self._t.match:
            info["player_settlement"] = self._t.player_settlement[0].copy()
        info.update(self._t.hand_info(0))
        return self._obs(), float(r[0]), terminated, False, info

    def action_masks(self) -> np.ndarray:
        """``(235,) bool`` legal actions of the learner now (the last observation's
        ``action_mask``; the interface sb3-contrib's ``MaskablePPO`` calls).

        Raises:
            RuntimeError: before the first ``reset``.
        """
        if not self._started:
            raise RuntimeError("action_masks() before reset(): call reset() first")
        return self._t.engine.legal_mask[0, self.learner_seat].copy()

    def render(self):
        """``render_mode="ansi"``: the table as the learner's seat sees it (str; other hands
        as backs); None otherwise."""
        if self.render_mode != "ansi":
            return None
        from mcr_env.envs.render import render_table

        return render_table(self._t.engine.state, 0, self.learner_seat)


class MCRVectorEnv(VectorEnv):
    """``num_envs`` tables of :class:`MCREnv` played by one batched engine (not N copies).

    Same arguments as :class:`MCREnv` plus ``num_envs``. Autoreset mode: SAME_STEP (declared
    in ``metadata["autoreset_mode"]``): when a table's hand ends, ``step`` returns its final
    reward and ``terminated = True`` together with the first observation of the next hand;
    the final observation is in ``info["final_obs"]`` (with mask ``info["_final_obs"]``).
    As Gymnasium's own vector envs do, what belongs to the finished hand is in
    ``info["final_info"]`` (mask ``info["_final_info"]``): its ``settlement (B, 4) int32``
    and ``learner_seat (B,)`` (with ``match=True`` also the finished hand's ``hand_number``,
    ``dealer``, ``prevalent_wind`` and ``learner_player``); the top-level keys of an autoreset
    row describe the new hand
    (``learner_seat``, and ``redeals (B,)`` = hands re-dealt before the learner's first
    decision, with mask ``_redeals`` = the autoreset rows). ``info["settlement"]`` is the
    step's raw settlement at every row (at a terminal row the finished hand's, as in
    ``final_info``). Every info key ``k`` has its Gymnasium mask ``info["_k"] (B,) bool``.
    ``action_masks()`` gives the learners' ``(B, 235) bool`` legal actions.
    ``reset(options={"walls": (num_envs, L) walls})`` deals explicit walls; as in
    :class:`MCREnv` a wall whose hand ends before the learner's first decision raises
    ``ValueError`` (it is never replaced by a random redeal). Opponents of all tables are
    queried batched. ``step`` before ``reset`` (or after a failed ``reset``) raises
    ``RuntimeError``. With ``reward="table_points"`` each table
    plays consecutive matches of ``hands_per_match`` hands across its autoresets; ``reset()``
    starts a new match on every table (docs/rules.md §4).

    ``match=True`` plays 16-hand matches per table (as :class:`MCREnv`; per-table
    ``hand_number``, ``dealer``, ``prevalent_wind`` in ``info``). Illegal actions of the
    learners are punished (``illegal_action="penalize"``, the default, as for
    :class:`MCREnv`) or raise ``ValueError`` (game = table index, seat, action)::

        gymnasium.make_vec("mcr_env/MCR-v0", num_envs=64, vectorization_mode="vector_entry_point",
                           illegal_action="raise")
    """

    metadata = {"render_modes": ["ansi"], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 1, render_mode: str | None = None, **kwargs: Any):
        check_int(num_envs, "num_envs", 1)
        num_envs = int(num_envs)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not in {self.metadata['render_modes']}")
        self.render_mode = render_mode
        illegal = kwargs.pop("illegal_action", "penalize")
        cfg = _rules(kwargs.pop("config", None), illegal, kwargs.pop("match", False) or None)
        encoder = kwargs.pop("encoder", None)
        if encoder is None:
            encoder = "planes-v1" if cfg.match == "match" else "planes-v0"
        self.num_envs = num_envs
        self._t = _LearnerTables(
            num_envs,
            cfg,
            encoder,
            kwargs.pop("reward", "settlement"),
            kwargs.pop("reward_kwargs", None),
            kwargs.pop("opponents", None),
            kwargs.pop("learner_seat", 0),
        )
        if kwargs:
            raise TypeError(f"unknown arguments {sorted(kwargs)}")
        self.single_observation_space = observation_space(self._t.encoder)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._needs_reset = True  # no reset() yet, or the last one failed

    @property
    def engine(self) -> MCREngine:
        """The batched engine of the N tables."""
        return self._t.engine

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a hand at every table and play each to its learner's first decision.

        Args:
            seed: root seed of all tables.
            options: ``{"walls": (N, L) tile ids}``.

        Returns:
            ``(obs, info)``: ``observation (N, C, 34) float32``, ``action_mask (N, 235)
            int8``; ``info["learner_seat"] (N,)``, ``info["redeals"] (N,)``.

        Raises:
            ValueError / TypeError: unknown options or bad walls.
        """
        if seed is not None:
            self._np_random, self._np_random_seed = gym.utils.seeding.np_random(seed)
        elif getattr(self, "_np_random", None) is None:
            self._np_random, self._np_random_seed = gym.utils.seeding.np_random()
        self._t.seed_rng(self._np_random)
        options = options or {}
        unknown = set(options) - {"walls"}
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; valid: walls")
        engine_seed = None if seed is None else int(self._np_random.integers(2**62))
        rows = np.ones(self.num_envs, dtype=bool)
        self._needs_reset = True  # until the deal succeeds
        redeals = self._t.start(rows, engine_seed, options.get("walls"), new_match=True)
        self._needs_reset = False
        info = {"learner_seat": self._t.learner.copy(), "redeals": redeals}
        info.update(self._t.hand_info())
        return self._t.obs(), _with_masks(info)

    def step(self, actions):
        """``actions (N,)`` int learner actions, one per table; SAME_STEP autoreset (class
        docstring).

        Returns:
            ``(obs, rewards (N,) float32, terminated (N,) bool, truncated (N,) bool, info)``;
            ``info["settlement"] (N, 4) int32``, and for finished tables ``final_obs`` /
            ``final_info``.

        Raises:
            RuntimeError: before ``reset`` (or after a failed one).
            TypeError: ``actions`` not ``(N,)`` integers.
            ValueError: an illegal action with ``illegal_action="raise"``.
        """
        if self._needs_reset:
            raise RuntimeError("step() before reset() (or after a failed reset): call reset()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"actions must be ({self.num_envs},) integers, got {a.shape} {a.dtype}")
        rows = np.ones(self.num_envs, dtype=bool)
        r = self._t.advance(a.astype(np.int64), rows)
        eng = self._t.engine
        terminated = eng.terminated.copy()
        info: dict[str, Any] = {"settlement": self._t.settlement.copy()}
        if self._t.match:
            info["player_settlement"] = self._t.player_settlement.copy()
        if terminated.any():
            final = self._t.obs()
            info["final_obs"] = np.array(
                [
                    {"observation": final["observation"][i], "action_mask": final["action_mask"][i]}
                    if terminated[i]
                    else None
                    for i in range(self.num_envs)
                ],
                dtype=object,
            )
            info["_final_obs"] = terminated.copy()
            # Gymnasium SAME_STEP convention: the finished episode's step info is in
            # final_info; the top-level keys of an autoreset row are the new hand's reset info
            info["final_info"] = {
                "settlement": self._t.settlement.copy(),
                "_settlement": terminated.copy(),
                "learner_seat": self._t.learner.copy(),
                "_learner_seat": terminated.copy(),
            }
            if self._t.match:
                info["final_info"]["player_settlement"] = self._t.player_settlement.copy()
                info["final_info"]["_player_settlement"] = terminated.copy()
            for k, v in self._t.hand_info().items():  # match mode: the finished hand's
                info["final_info"][k] = v
                info["final_info"][f"_{k}"] = terminated.copy()
            info["_final_info"] = terminated.copy()
            info["redeals"] = self._t.start(terminated, None, None, new_match=False)
            info["_redeals"] = terminated.copy()
        info["learner_seat"] = self._t.learner.copy()
        info.update(self._t.hand_info())
        return self._t.obs(), r, terminated, np.zeros_like(terminated), _with_masks(info)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 235) bool`` legal actions of the learner at every table now (the
        ``action_mask`` of the last observation; sb3-contrib's masking interface)."""
        if self._needs_reset:
            raise RuntimeError("action_masks() before reset(): call reset() first")
        eng = self._t.engine
        return eng.legal_mask[np.arange(self.num_envs), self._t.learner].copy()

    def render(self):
        """``render_mode="ansi"``: every table as its learner's seat sees it (str)."""
        if self.render_mode != "ansi":
            return None
        from mcr_env.envs.render import render_table

        return "\n\n".join(
            render_table(self._t.engine.state, i, int(self._t.learner[i]))
            for i in range(self.num_envs)
        )

"""PettingZoo interfaces: AEC (:class:`raw_env`, :func:`env`) and parallel (:func:`parallel_env`).

Agents ``player_0`` .. ``player_3`` are the four players of one table. In single hands player i
sits at seat i (seat 0 = East, the dealer). Observations are ``{"observation": (C, 34) float32,
"action_mask": (235,) int8}`` (encoder ``planes-v0`` by default); actions are ``Discrete(235)``.
Single hands: an episode is one hand; all agents terminate together when it ends, each
receiving its settlement (docs/rules.md §3) or another reward function by name
(``mcr_env.rewards``). ``render_mode="human"`` prints the table, ``"ansi"`` returns it: the
whole table as a spectator sees it with the hands open (every concealed hand and concealed
kong), not any agent's view, so never feed it to an agent; one seat's view is
``mcr_env.engine.render.render_table(env.unwrapped.engine.state, 0, seat)``.

Whole matches (``match=True``, docs/rules.md §4/§8): an episode is a 16-hand match with the
seat rotation, dealership and prevalent winds of the rules; agent ``player_i`` is player i and
moves with the rotation (``infos[agent]["seat"]`` is its seat in the current hand). Each agent
gets its settlement at the end of every hand, or with ``reward="table_points"`` its 4/2/1/0
table points at the end of the match (ties share). Observations default to ``planes-v1``
(match context: hand number, running scores). Infos also carry ``hand_number``.

Reset options: ``"walls"`` (an explicit wall, :mod:`mcr_env.engine.walls`) and
``"new_match"``. With ``reward="table_points"`` in single hands (docs/rules.md §4) the hands of
consecutive resets are the hands of one match (``hands_per_match``, default 16; agent
``player_i`` = seat i); the table points are paid when the match's last hand ends. The first
reset and ``reset(options={"new_match": True})`` start a new match (a seed alone does not).

AEC turn order: after a draw (or a Chi/Peng) the seat to play acts alone. In a claim round
(after a discard, or in the robbing window after a BuGang) the seats the engine asks answer one
after another, downstream from the player of the tile; nothing changes until the last of them
has answered, so no seat sees another's answer; then the round is resolved (docs/rules.md §2).

Who is asked (``claim_round``, docs/rules.md §10): by default (``claim_round="all"``) every
non-discarder answers every discard and every other seat answers every BuGang's robbing window,
as at the Botzone judge; a seat without an option gets a Pass-only mask. So the turn order
(``agent_selection``, the agents with a non-empty mask in the parallel env) and every
observation depend only on what each seat may see. ``claim_round="options"`` is faster (fewer
decisions; ``scripts/bench_engine.py --paths env --claim-round options all`` measures it) but
asks only the seats that can claim, and skips a round nobody can claim: the turn order then
LEAKS hidden hands (which seat holds a pair of the discard, who waits on a promoted kong's
tile), in the AEC order, in the parallel env's set of asked agents and in the phase every seat
observes. Use it only where no agent learns from the order (e.g. self-play with a shared
policy fed only its own decisions).

Illegal actions, as in PettingZoo's classic games (``TerminateIllegalWrapper``): by default
(``illegal_action="penalize"``) an action outside the agent's ``action_mask`` ends the hand at
once with the offender penalized (it pays 30, each other seat gets 10: the Botzone judge's
rule, docs/rules.md §3) and PettingZoo's illegal-move warning. So every ``pettingzoo.test``
check that applies (``api_test``, ``parallel_api_test``, ``seed_test``, ``parallel_seed_test``,
``render_test``) passes as shipped; ``max_cycles_test`` does not apply (a turn-based game
without a ``max_cycles`` argument, like PettingZoo's classic games). One keyword away,
``illegal_action="raise"`` raises ``ValueError`` naming the game, seat (agent) and action before
anything changes (in AEC, when the agent steps). ``None`` keeps ``config.illegal_action``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from mcr_env.engine.actions import NUM_ACTIONS, PASS
from mcr_env.engine.core import MCREngine
from mcr_env.envs.gym_env import _rules, observation_space
from mcr_env.rewards import make_reward

AGENTS = tuple(f"player_{i}" for i in range(4))


class _Table:
    """One engine table with observation/reward plumbing shared by both interfaces. Agents
    are players: ``seat_of(p)`` maps a player to its seat in the current hand."""

    def __init__(self, config, encoder, reward, reward_kwargs, illegal_action, match, claim_round):
        from mcr_env.encoding import resolve_encoder

        self.engine = MCREngine(
            1, _rules(config, illegal_action, match or None, claim_round=claim_round)
        )
        self.match = self.engine.config.match == "match"
        if encoder is None:
            encoder = "planes-v1" if self.match else "planes-v0"
        self.encoder = resolve_encoder(encoder)
        self.reward_fn = make_reward(reward, **(reward_kwargs or {}))
        self.started = False  # reset once: later resets continue the reward's match

    @property
    def penalize(self) -> bool:
        return self.engine.config.illegal_action == "penalize"

    def seat_of(self, player: int) -> int:
        """Seat of ``player`` in the current hand."""
        return int(np.flatnonzero(self.engine.state.player_at_seat[0] == player)[0])

    def player_at(self, seat: int) -> int:
        return int(self.engine.state.player_at_seat[0, seat])

    def reset(self, seed, options: dict | None) -> None:
        """Deal a new hand (match) (``options``: "walls", "new_match"; other keys are ignored,
        as PettingZoo allows). The first reset and ``new_match=True`` start a new match of the
        reward function (``table_points``); later resets continue it.

        Raises:
            TypeError: ``options["new_match"]`` is not a bool.
        """
        options = options or {}
        new_match = options.get("new_match", False)
        if not isinstance(new_match, (bool, np.bool_)):
            raise TypeError(f"options['new_match'] must be a bool, got {new_match!r}")
        walls = options.get("walls")
        w = None if walls is None else np.asarray(walls)
        if w is not None and w.ndim == 1:
            w = w.reshape(1, -1)
        elif w is not None and w.ndim == 2 and self.match:  # (16, L): one wall per hand
            w = w[None]
        self.engine.reset(seed=seed, walls=w)
        new_match = bool(new_match) or not self.started or self.match
        self.reward_fn.reset(self.engine, None if new_match else np.ones(1, dtype=bool))
        self.started = True

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One engine step with ``actions (4,)`` by seat; returns the reward and the raw
        settlement by PLAYER ``((4,) float32, (4,) int32)`` (in a match the settlement of a
        hand that ended is mapped with that hand's seating)."""
        eng = self.engine
        pas = eng.state.player_at_seat[0].copy()  # seating of the hand being played
        eng.step(actions.reshape(1, 4))
        settle = eng.rewards[0].copy()
        r = self.reward_fn(eng.rewards.copy(), eng.hand_over.copy(), eng)[0]
        by_player_r = np.zeros(4, dtype=np.float32)
        by_player_s = np.zeros(4, dtype=np.int32)
        by_player_r[pas] = r
        by_player_s[pas] = settle
        return by_player_r, by_player_s

    def is_legal(self, seat: int, action: Any) -> bool:
        """Whether ``action`` is legal for ``seat`` now.

        Raises:
            TypeError: ``action`` is not one integer.
        """
        a = np.asarray(action)
        if a.shape not in ((), (1,)) or not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"action must be one integer action id, got {action!r}")
        a = int(a.reshape(-1)[0])
        return 0 <= a < NUM_ACTIONS and bool(self.engine.legal_mask[0, seat, a])

    def check_action(self, seat: int, action: Any) -> bool:
        """``True`` if ``action`` of ``seat`` is legal. An illegal one raises in "raise" mode
        (before anything changes; in AEC the engine would only see it when the claim round is
        resolved) and warns (PettingZoo's illegal-move warning) in "penalize" mode.

        Raises:
            ValueError: illegal action, "raise" mode (names game, seat, agent and action).
            TypeError: ``action`` is not an integer.
        """
        if self.is_legal(seat, action):
            return True
        if not self.penalize:
            a = int(np.asarray(action).reshape(-1)[0])
            mask = self.engine.legal_mask[0, seat]
            raise ValueError(
                f"illegal action {a} for game 0, seat {seat} ({AGENTS[self.player_at(seat)]}); "
                f"legal: {np.nonzero(mask)[0].tolist()}"
            )
        EnvLogger.warn_on_illegal_move()
        return False

    def observe(self, player: int) -> dict[str, np.ndarray]:
        eng = self.engine
        seat = self.seat_of(player)
        obs = self.encoder.encode(eng.state, np.zeros(1, np.intp), np.array([seat]))[0]
        return {"observation": obs, "action_mask": eng.legal_mask[0, seat].astype(np.int8)}

    def info(self, player: int, settlement: int | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {} if settlement is None else {"settlement": int(settlement)}
        if self.match:
            out["seat"] = self.seat_of(player)
            out["hand_number"] = int(self.engine.state.hand_number[0])
        return out

    def render(self) -> str:
        from mcr_env.envs.render import render_table

        return render_table(self.engine.state, 0, None)


class _TableEnv:
    """Construction and spaces shared by the AEC and the parallel env (one :class:`_Table`)."""

    metadata: dict

    def _init_table(
        self,
        render_mode,
        config,
        encoder,
        reward,
        reward_kwargs,
        illegal_action,
        match,
        claim_round,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not in {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._table = _Table(
            config, encoder, reward, reward_kwargs, illegal_action, match, claim_round
        )
        self.possible_agents = list(AGENTS)
        obs_space = observation_space(self._table.encoder)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.agents: list[str] = []

    @property
    def engine(self) -> MCREngine:
        """The underlying batch-1 engine (to read, e.g. for a seat's rendered view; stepping it
        directly bypasses the env)."""
        return self._table.engine

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def render(self):
        """ "human": print the table (returns None); "ansi": return its text. The full table
        with every hand open (a spectator's view, module docstring), not an agent's."""
        if self.render_mode is None:
            return None
        text = self._table.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass


_ARGS_DOC = """
    Args:
        render_mode: None, "human" (print the table) or "ansi" (return its text).
        config: ``RulesConfig`` or dict.
        encoder: encoder id (default "planes-v0"; with ``match=True`` "planes-v1").
        reward, reward_kwargs: reward function by name (default "settlement").
        illegal_action: "penalize" (default: the hand ends, the offender pays, a warning),
            "raise", or None (``config.illegal_action``); module docstring.
        match: play whole 16-hand matches (module docstring).
        claim_round: "all" (default: every seat answers every claim round and robbing window,
            nothing leaks) or "options" (faster; the turn order leaks hidden hands, module
            docstring; docs/rules.md §10). Overrides ``config.claim_round``.

    Raises:
        ValueError / TypeError: bad arguments (the message names them).
"""


class raw_env(_TableEnv, AECEnv):  # noqa: N801 (PettingZoo naming convention)
    __doc__ = "MCR table as a PettingZoo AEC environment (see the module docstring).\n" + _ARGS_DOC

    metadata = {"render_modes": ["human", "ansi"], "name": "mcr_v0", "is_parallelizable": True}

    def __init__(
        self,
        render_mode: str | None = None,
        config: Any = None,
        encoder: Any = None,
        reward: Any = "settlement",
        reward_kwargs: dict | None = None,
        illegal_action: str | None = "penalize",
        match: bool = False,
        claim_round: str = "all",
    ):
        super().__init__()
        self._init_table(
            render_mode, config, encoder, reward, reward_kwargs, illegal_action, match, claim_round
        )

    def observe(self, agent):
        """``{"observation": (C, 34) float32, "action_mask": (235,) int8}`` of ``agent`` now
        (its mask is all zero when it is not asked)."""
        return self._table.observe(self.possible_agents.index(agent))

    def _queue_from_engine(self) -> None:
        """The seats to ask now, in order downstream of the tile's player (claim rounds)."""
        eng = self._table.engine
        seats = np.nonzero(eng.to_act[0])[0].tolist()
        start = int(eng.state.played_by[0]) if int(eng.state.played_by[0]) >= 0 else 0
        seats.sort(key=lambda s: (s - start) % 4)
        self._queue = seats
        self._answers = np.full(4, PASS, dtype=np.int64)
        if seats:
            self.agent_selection = self.possible_agents[self._table.player_at(seats[0])]

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new hand (or match); ``agent_selection`` is the first agent asked.
        ``options``: ``{"walls": (L,) tile ids}``."""
        self._table.reset(seed, options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._table.info(i) for i, a in enumerate(self.agents)}
        self._queue_from_engine()

    def step(self, action):
        """The answer (one int action id) of ``agent_selection``. In a claim round the
        answers are collected and the engine steps once all asked agents have answered (an
        illegal answer resolves the round at once: penalized or ``ValueError``, module
        docstring).

        Raises:
            TypeError: ``action`` is not one integer.
            ValueError: an illegal action with ``illegal_action="raise"``.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._table.seat_of(self.possible_agents.index(agent))
        legal = self._table.check_action(seat, action)
        self._cumulative_rewards[agent] = 0.0
        self._answers[seat] = int(action)
        self._queue.pop(0)
        self._clear_rewards()
        if legal and self._queue:
            self.agent_selection = self.possible_agents[self._table.player_at(self._queue[0])]
            self._accumulate_rewards()
            return
        # round complete (or an illegal answer: the round is resolved now, the others pass,
        # and the engine punishes the offender: the hand ends at once)
        r, settle = self._table.step(self._answers)
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(r[i])
            self.infos[a] = self._table.info(i, settle[i])
        if bool(self._table.engine.terminated[0]):
            for a in self.agents:
                self.terminations[a] = True
            self.agent_selection = agent
        else:
            self._queue_from_engine()
        self._accumulate_rewards()


class parallel_raw_env(_TableEnv, ParallelEnv):  # noqa: N801 (PettingZoo naming convention)
    __doc__ = (
        "MCR table as a PettingZoo parallel environment: every step, all agents the engine "
        "asks act at once (actions of the other live agents are ignored; their mask is all "
        "zero). Every asked agent must have an action; an unknown agent key is an error. Once "
        "the episode has ended (``agents`` empty) ``step`` returns empty dicts (PettingZoo "
        "convention) until ``reset``.\n" + _ARGS_DOC
    )

    metadata = {"render_modes": ["human", "ansi"], "name": "mcr_v0"}

    def __init__(
        self,
        render_mode: str | None = None,
        config: Any = None,
        encoder: Any = None,
        reward: Any = "settlement",
        reward_kwargs: dict | None = None,
        illegal_action: str | None = "penalize",
        match: bool = False,
        claim_round: str = "all",
    ):
        self._init_table(
            render_mode, config, encoder, reward, reward_kwargs, illegal_action, match, claim_round
        )
        self._reset_once = False

    def _all_obs(self):
        return {a: self._table.observe(i) for i, a in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new hand (or match). Returns ``(observations, infos)``, dicts by agent
        (observation dicts as in :meth:`raw_env.observe`). ``options``: ``{"walls": ...}``."""
        self._table.reset(seed, options)
        self._reset_once = True
        self.agents = list(self.possible_agents)
        return self._all_obs(), {a: self._table.info(i) for i, a in enumerate(self.agents)}

    def step(self, actions: dict):
        """One engine step with the actions of the asked agents (others' ignored).

        After the episode has ended (``self.agents`` empty) it returns five empty dicts and
        changes nothing, as PettingZoo's own parallel wrappers do; call ``reset``.

        Raises:
            RuntimeError: before the first ``reset``.
            KeyError: an unknown agent key (names it and the valid agents).
            ValueError: an asked agent has no action (names it); an illegal action
                (``illegal_action="raise"``).
            TypeError: ``actions`` is not a dict, or an action is not an integer.
        """
        if not self._reset_once:
            raise RuntimeError("step() before reset(): call reset() first")
        if not self.agents:
            return {}, {}, {}, {}, {}
        if not isinstance(actions, dict):
            raise TypeError(f"actions must be a dict agent -> action, got {type(actions).__name__}")
        unknown = sorted(set(actions) - set(self.possible_agents), key=str)
        if unknown:
            raise KeyError(
                f"unknown agent(s) {unknown} in actions; agents: {', '.join(self.possible_agents)}"
            )
        eng = self._table.engine
        asked = [self._table.player_at(int(s)) for s in np.nonzero(eng.to_act[0])[0]]
        missing = [self.possible_agents[p] for p in asked if actions.get(AGENTS[p]) is None]
        if missing:
            raise ValueError(
                f"missing action for asked agent(s) {missing} (asked now: "
                f"{[AGENTS[p] for p in sorted(asked)]})"
            )
        acts = np.full(4, PASS, dtype=np.int64)
        for p in asked:
            seat = self._table.seat_of(p)
            self._table.check_action(seat, actions[AGENTS[p]])
            acts[seat] = int(actions[AGENTS[p]])
        r, settle = self._table.step(acts)
        done = bool(eng.terminated[0])
        obs = self._all_obs()
        rewards = {a: float(r[i]) for i, a in enumerate(self.possible_agents)}
        terms = {a: done for a in self.agents}
        truncs = {a: False for a in self.agents}
        infos = {a: self._table.info(i, settle[i]) for i, a in enumerate(self.possible_agents)}
        if done:
            self.agents = []
        return obs, rewards, terms, truncs, infos


def env(**kwargs) -> AECEnv:
    """AEC environment with PettingZoo's standard wrappers (out-of-bounds assertion, order
    enforcement). Illegal (in-bounds) actions end the hand, penalized, with a warning (or
    raise with ``illegal_action="raise"``; module docstring)."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def parallel_env(**kwargs) -> ParallelEnv:
    """Parallel environment (:class:`parallel_raw_env`)."""
    return parallel_raw_env(**kwargs)

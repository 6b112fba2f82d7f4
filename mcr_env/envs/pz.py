"""PettingZoo interfaces: AEC (:class:`raw_env`, :func:`env`) and parallel (:func:`parallel_env`).

Agents ``player_0`` .. ``player_3`` are the four seats of one table (seat 0 = East, the
dealer). Observations are ``{"observation": (C, 34) float32, "action_mask": (235,) int8}``
(encoder ``planes-v0`` by default); actions are ``Discrete(235)``. Single hands: an episode is
one hand; all agents terminate together when it ends, each receiving its settlement (RULES.md
§3) or another reward function by name (``mcr_env.rewards``). ``render_mode="ansi"``.

Reset options: ``"walls"`` (an explicit wall, :mod:`mcr_env.engine.walls`) and
``"new_match"``. With ``reward="table_points"`` (RULES.md §4) the hands of consecutive resets
are the hands of one match (``hands_per_match``, default 16; agent ``player_i`` = seat i); the
table points are paid when the match's last hand ends. The first reset and
``reset(options={"new_match": True})`` start a new match (a seed alone does not).

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

Illegal actions: by default (``illegal_action=None`` -> ``config.illegal_action``, default
"raise") an action outside the agent's ``action_mask`` raises ``ValueError`` naming the game,
seat (agent) and action, before anything changes (in AEC, when the agent steps, not when its
claim round is resolved). Pass ``illegal_action="penalize"`` to punish it instead (the offender
pays 30, the others get 10, the hand ends; RULES.md §3 research option), e.g. for checkers or
training loops that sample actions without the mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from mcr_env.engine.actions import NUM_ACTIONS, PASS
from mcr_env.engine.core import MCREngine
from mcr_env.envs.gym_env import _rules, observation_space
from mcr_env.rewards import make_reward

AGENTS = tuple(f"player_{i}" for i in range(4))


class _Table:
    """One engine table with observation/reward plumbing shared by both interfaces."""

    def __init__(self, config, encoder, reward, reward_kwargs, illegal_action, claim_round):
        from mcr_env.encoding import get_encoder

        self.engine = MCREngine(1, _rules(config, illegal_action, claim_round=claim_round))
        self.encoder = get_encoder(encoder) if isinstance(encoder, str) else encoder
        self.reward_fn = make_reward(reward, **(reward_kwargs or {}))
        self.started = False  # reset once: later resets continue the reward's match

    def reset(self, seed, options: dict | None) -> None:
        """Deal a new hand (``options``: "walls", "new_match"; other keys are ignored, as
        PettingZoo allows). The first reset and ``new_match=True`` start a new match of the
        reward function (``table_points``); later resets continue it.

        Raises:
            TypeError: ``options["new_match"]`` is not a bool.
        """
        options = options or {}
        new_match = options.get("new_match", False)
        if not isinstance(new_match, (bool, np.bool_)):
            raise TypeError(f"options['new_match'] must be a bool, got {new_match!r}")
        walls = options.get("walls")
        w = None if walls is None else np.asarray(walls).reshape(1, -1)
        self.engine.reset(seed=seed, walls=w)
        new_match = bool(new_match) or not self.started
        self.reward_fn.reset(self.engine, None if new_match else np.ones(1, dtype=bool))
        self.started = True

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        eng = self.engine
        eng.step(actions.reshape(1, 4))
        settle = eng.rewards[0].copy()
        r = self.reward_fn(eng.rewards.copy(), eng.hand_over.copy(), eng)
        return r[0], settle

    def check_action(self, seat: int, action: Any) -> None:
        """Raise now if ``action`` of ``seat`` is illegal and the mode is "raise" (in AEC the
        engine would only see it when the claim round is resolved).

        Raises:
            ValueError: illegal action (names game, seat, agent and action).
            TypeError: ``action`` is not an integer.
        """
        if self.engine.config.illegal_action != "raise":
            return
        a = np.asarray(action)
        if a.shape not in ((), (1,)) or not np.issubdtype(a.dtype, np.integer):
            raise TypeError(f"action must be one integer action id, got {action!r}")
        a = int(a.reshape(-1)[0])
        mask = self.engine.legal_mask[0, seat]
        if not 0 <= a < NUM_ACTIONS or not mask[a]:
            raise ValueError(
                f"illegal action {a} for game 0, seat {seat} ({AGENTS[seat]}); "
                f"legal: {np.nonzero(mask)[0].tolist()}"
            )

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        eng = self.engine
        obs = self.encoder.encode(eng.state, np.zeros(1, np.intp), np.array([seat]))[0]
        return {"observation": obs, "action_mask": eng.legal_mask[0, seat].astype(np.int8)}

    def render(self) -> str:
        from mcr_env.envs.render import render_table

        return render_table(self.engine.state, 0, None)


class _TableEnv:
    """Construction and spaces shared by the AEC and the parallel env (one :class:`_Table`)."""

    metadata: dict

    def _init_table(
        self, render_mode, config, encoder, reward, reward_kwargs, illegal_action, claim_round
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} not in {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._table = _Table(config, encoder, reward, reward_kwargs, illegal_action, claim_round)
        self.possible_agents = list(AGENTS)
        obs_space = observation_space(self._table.encoder)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.agents: list[str] = []

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]


class raw_env(_TableEnv, AECEnv):  # noqa: N801 (PettingZoo naming convention)
    """MCR table as a PettingZoo AEC environment (see the module docstring).

    Args:
        render_mode: None or "ansi".
        config: ``RulesConfig`` or dict (single hands only).
        encoder: encoder id (default "planes-v0").
        reward, reward_kwargs: reward function by name (default "settlement").
        illegal_action: None (default: ``config.illegal_action``, "raise" unless configured),
            "raise" or "penalize" (module docstring).
        claim_round: "all" (default: every seat answers every claim round and robbing window,
            nothing leaks) or "options" (faster; the turn order leaks hidden hands, module
            docstring; docs/rules.md §10). Overrides ``config.claim_round``.

    Raises:
        ValueError / TypeError: bad arguments (the message names them).
    """

    metadata = {"render_modes": ["ansi"], "name": "mcr_v0", "is_parallelizable": True}

    def __init__(
        self,
        render_mode: str | None = None,
        config: Any = None,
        encoder: Any = "planes-v0",
        reward: Any = "settlement",
        reward_kwargs: dict | None = None,
        illegal_action: str | None = None,
        claim_round: str = "all",
    ):
        super().__init__()
        self._init_table(
            render_mode, config, encoder, reward, reward_kwargs, illegal_action, claim_round
        )

    def observe(self, agent):
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
            self.agent_selection = self.possible_agents[seats[0]]

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._table.reset(seed, options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._queue_from_engine()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        self._table.check_action(seat, action)
        self._cumulative_rewards[agent] = 0.0
        self._answers[seat] = int(action)
        self._queue.pop(0)
        self._clear_rewards()
        if self._queue:
            self.agent_selection = self.possible_agents[self._queue[0]]
            self._accumulate_rewards()
            return
        r, settle = self._table.step(self._answers)
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(r[i])
            self.infos[a] = {"settlement": int(settle[i])}
        if bool(self._table.engine.terminated[0]):
            for a in self.agents:
                self.terminations[a] = True
            self.agent_selection = agent
        else:
            self._queue_from_engine()
        self._accumulate_rewards()

    def render(self):
        if self.render_mode is None:
            return None
        return self._table.render()

    def close(self):
        pass


class parallel_raw_env(_TableEnv, ParallelEnv):  # noqa: N801 (PettingZoo naming convention)
    """MCR table as a PettingZoo parallel environment: every step, all seats the engine asks
    act at once (the others' actions are ignored; their mask is all zero). Same arguments as
    :class:`raw_env` (``claim_round="all"`` by default: the set of asked agents leaks nothing;
    "options" leaks hidden hands, module docstring). Once the hand has ended (``agents``
    empty) ``step`` returns empty dicts (PettingZoo convention) until ``reset``."""

    metadata = {"render_modes": ["ansi"], "name": "mcr_v0"}

    def __init__(
        self,
        render_mode: str | None = None,
        config: Any = None,
        encoder: Any = "planes-v0",
        reward: Any = "settlement",
        reward_kwargs: dict | None = None,
        illegal_action: str | None = None,
        claim_round: str = "all",
    ):
        self._init_table(
            render_mode, config, encoder, reward, reward_kwargs, illegal_action, claim_round
        )
        self._reset_once = False

    def _all_obs(self):
        return {a: self._table.observe(i) for i, a in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._table.reset(seed, options)
        self._reset_once = True
        self.agents = list(self.possible_agents)
        return self._all_obs(), {a: {} for a in self.agents}

    def step(self, actions: dict):
        """One engine step with the actions of the asked seats (others ignored).

        After the hand has ended (``self.agents`` empty) it returns five empty dicts and
        changes nothing, as PettingZoo's own parallel wrappers do; call ``reset``.

        Raises:
            RuntimeError: before the first ``reset``.
            ValueError: an illegal action (``illegal_action="raise"``).
        """
        if not self._reset_once:
            raise RuntimeError("step() before reset(): call reset() first")
        if not self.agents:
            return {}, {}, {}, {}, {}
        acts = np.full(4, PASS, dtype=np.int64)
        for i, a in enumerate(self.possible_agents):
            if a in actions and actions[a] is not None:
                acts[i] = int(actions[a])
        r, settle = self._table.step(acts)
        done = bool(self._table.engine.terminated[0])
        obs = self._all_obs()
        rewards = {a: float(r[i]) for i, a in enumerate(self.possible_agents)}
        terms = {a: done for a in self.agents}
        truncs = {a: False for a in self.agents}
        infos = {a: {"settlement": int(settle[i])} for i, a in enumerate(self.possible_agents)}
        if done:
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def render(self):
        if self.render_mode is None:
            return None
        return self._table.render()

    def close(self):
        pass


def env(**kwargs) -> AECEnv:
    """AEC environment with PettingZoo's standard wrappers (out-of-bounds assertion, order
    enforcement). Illegal (in-bounds) actions raise ValueError unless
    ``illegal_action="penalize"`` (module docstring)."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def parallel_env(**kwargs) -> ParallelEnv:
    """Parallel environment (:class:`parallel_raw_env`)."""
    return parallel_raw_env(**kwargs)

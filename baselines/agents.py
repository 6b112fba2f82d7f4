"""Baseline agents and the one interface every agent implements.

Agent interface
---------------
An agent answers a batch of N decisions at once (N acting seats, possibly from different games
and seats)::

    actions = agent.act(obs, mask, view)   # -> (N,) int64 action ids (docs/design.md layout)

* ``obs``: ``(N, C, 34) float32`` observations of the acting seats from the agent's encoder
  (``planes-v0``), or ``None`` when the agent says it does not need them
  (``agent.needs_obs is False``; saves the encoding cost for non-neural agents).
* ``mask``: ``(N, 235) bool`` legal actions; every row has at least one True. The returned
  action of each row is always legal.
* ``view``: a :class:`SeatView` (what the acting seat may see, read from the engine's public
  fields plus that seat's own private fields, never hidden information) or ``None`` when
  ``agent.needs_view is False``.

Agents are not thread-safe; the random generator of a seeded agent advances with every call.
Loops that drive agents (:mod:`mcr_env.eval`, :mod:`baselines.bc`) build ``obs`` / ``view``
only for agents that ask for them.

Agents here: :class:`RandomAgent` (uniform over legal actions), :class:`RuleBasedAgent`
(plan-steered discards and claims, see :mod:`baselines.hand_plans`), :class:`LookaheadAgent`
(the same plans plus a one-draw look-ahead on discards, :mod:`baselines.lookahead`),
:class:`TorchPolicyAgent`
(a :class:`baselines.network.PolicyValueNet` checkpoint).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from baselines.hand_plans import rule_decisions, tables, view_arrays
from mcr_env.engine.actions import ACTION_KIND, ACTION_TILE, CHI_CLAIMED_TILE, NUM_ACTIONS
from mcr_env.eval.seat_view import SeatView

_ACT_KIND = ACTION_KIND.astype(np.int64)
_ACT_TILE = ACTION_TILE.astype(np.int64)
_CHI_CLAIMED = CHI_CLAIMED_TILE.astype(np.int64)

__all__ = [
    "AGENT_SPECS",
    "Agent",
    "LookaheadAgent",
    "RandomAgent",
    "RuleBasedAgent",
    "SeatView",
    "TorchPolicyAgent",
    "make_agent",
    "register",
]


def _check_mask(mask: np.ndarray) -> np.ndarray:
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.shape[1] != NUM_ACTIONS:
        raise ValueError(f"mask must be (N, {NUM_ACTIONS}) bool, got {mask.shape}")
    mask = mask.astype(bool, copy=False)
    if mask.shape[0] and not mask.any(axis=1).all():
        raise ValueError("every mask row needs at least one legal action")
    return mask


class Agent:
    """Base class: see the module docstring for the interface."""

    name: str = "agent"
    needs_obs: bool = False
    needs_view: bool = False

    def act(self, obs, mask: np.ndarray, view: SeatView | None = None) -> np.ndarray:
        """Return ``(N,) int64`` legal action ids for ``(N, 235) bool`` masks."""
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniformly random legal actions (seeded).

    Args:
        seed: seed of the agent's numpy generator.
    """

    needs_obs = False
    needs_view = False

    def __init__(self, seed: int | None = 0, name: str = "random") -> None:
        self.rng = np.random.default_rng(seed)
        self.name = name

    def act(self, obs, mask: np.ndarray, view: SeatView | None = None) -> np.ndarray:
        mask = _check_mask(mask)
        noise = self.rng.random(mask.shape)
        return np.where(mask, noise + 1.0, 0.0).argmax(axis=1).astype(np.int64)


class RuleBasedAgent(Agent):
    """Plan-steered heuristic player (greedy, deterministic), batched and compiled.

    * Hu whenever it is legal (the engine makes Hu legal only for >= 8-point wins).
    * Discards: keep the hand whose :func:`baselines.hand_plans.hand_value` (soft-min over
      distances to fan-bearing plans: flushes, All Pungs, straights, Seven Pairs, knitted
      hands, ...) is highest; ties go to the tile with more visible copies, then to honors.
    * Kongs (AnGang/BuGang): taken when the hand is not worse than after the best discard.
    * Claims (Chi/Peng/Gang): taken when the hand after the claim (and its best discard) is
      worth more than ``claim_margin`` times the current hand.
    * ``defensive=True`` (a second baseline): once at least ``defend_visible`` tiles are
      visible and the hand's best plan distance (penalty included) after its best discard is
      >= ``defend_distance``, it discards the tile of least :func:`baselines.hand_plans.danger`
      among those keeping at least ``defend_keep`` of the best discard's hand value (and,
      with ``defend_claims``, passes on claims); otherwise it plays as above. Measured against
      the normal agent (README, "Baselines"): fewer deal-ins, slightly fewer wins, no
      significant difference in points.

    The decisions of all N rows run in one compiled call
    (:func:`baselines.hand_plans.rule_decisions`); with ``defensive=False`` they are exactly
    those of the original pure-Python agent (tests/test_rule_agent.py). Reads only its
    :class:`SeatView` (own hand, own melds, public visible counts).

    Args:
        claim_margin: multiplicative margin a claim must beat (> 1 = reluctant to meld).
        sharpness: soft-min sharpness of :func:`hand_value`.
        defensive: play the defensive variant.
        defend_distance: plan distance from which the defensive variant defends.
        defend_visible: visible tiles from which the defensive variant defends.
        defend_keep: fraction of the best hand value a safer discard must keep.
        defend_claims: whether the defending agent also passes on claims.
        name: the agent's name (default ``"rule"`` / ``"rule-defensive"``).

    Raises:
        ValueError: a non-positive ``claim_margin`` or ``sharpness``.
    """

    needs_obs = False
    needs_view = True

    def __init__(
        self,
        claim_margin: float = 1.15,
        sharpness: float = 1.3,
        defensive: bool = False,
        defend_distance: float = 3.0,
        defend_visible: int = 30,
        defend_keep: float = 0.5,
        defend_claims: bool = False,
        name: str | None = None,
    ) -> None:
        if claim_margin <= 0 or sharpness <= 0:
            raise ValueError("claim_margin and sharpness must be positive")
        self.claim_margin = float(claim_margin)
        self.sharpness = float(sharpness)
        self.defensive = bool(defensive)
        self.defend_distance = float(defend_distance)
        self.defend_visible = int(defend_visible)
        self.defend_keep = float(defend_keep)
        self.defend_claims = bool(defend_claims)
        self.name = name if name is not None else ("rule-defensive" if defensive else "rule")

    def act(self, obs, mask: np.ndarray, view: SeatView | None = None) -> np.ndarray:
        mask = _check_mask(mask)
        if view is None:
            raise ValueError("RuleBasedAgent needs a SeatView (needs_view=True)")
        if mask.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        gc, gn, hon = tables()
        return rule_decisions(
            *view_arrays(view),
            np.ascontiguousarray(mask),
            self.claim_margin,
            self.sharpness,
            self.defensive,
            self.defend_distance,
            self.defend_visible,
            self.defend_keep,
            self.defend_claims,
            gc,
            gn,
            hon,
            _ACT_KIND,
            _ACT_TILE,
            _CHI_CLAIMED,
        )


class LookaheadAgent(Agent):
    """The rule agent's plans plus a one-draw look-ahead on discards (tile efficiency).

    The same as :class:`RuleBasedAgent` (Hu whenever legal, kongs and claims by plan value,
    here with its own ``claim_margin``) except the discard: among the ``top_k`` discards of
    highest :func:`baselines.hand_plans.hand_value` it plays the one whose hand has the highest
    *expected* value after the next draw, each unseen copy of every tile weighted equally
    (:func:`baselines.lookahead.lookahead_discard`; unseen = 4 - visible - own). A stronger
    teacher than the rule agent (measured in the README, "Training"): documented, not a
    replacement of the baseline. Reads only its :class:`SeatView`.

    Args:
        claim_margin: multiplicative margin a claim must beat (> 1 = reluctant to meld).
        sharpness: soft-min sharpness of :func:`hand_value`.
        top_k: discards looked ahead (1 = the rule agent's discard ranking without its
            visible-count tie-break order, up to ties).
        name: the agent's name.

    Raises:
        ValueError: a non-positive ``claim_margin``, ``sharpness`` or ``top_k``.
    """

    needs_obs = False
    needs_view = True

    def __init__(
        self,
        claim_margin: float = 1.6,
        sharpness: float = 1.3,
        top_k: int = 4,
        name: str = "rule-lookahead",
    ) -> None:
        if claim_margin <= 0 or sharpness <= 0 or int(top_k) < 1:
            raise ValueError("claim_margin, sharpness and top_k must be positive")
        self.claim_margin = float(claim_margin)
        self.sharpness = float(sharpness)
        self.top_k = int(top_k)
        self.name = name

    def act(self, obs, mask: np.ndarray, view: SeatView | None = None) -> np.ndarray:
        from baselines.lookahead import lookahead_decisions

        mask = _check_mask(mask)
        if view is None:
            raise ValueError("LookaheadAgent needs a SeatView (needs_view=True)")
        if mask.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        gc, gn, hon = tables()
        return lookahead_decisions(
            *view_arrays(view),
            np.ascontiguousarray(mask),
            self.claim_margin,
            self.sharpness,
            self.top_k,
            gc,
            gn,
            hon,
            _ACT_KIND,
            _ACT_TILE,
            _CHI_CLAIMED,
        )


class TorchPolicyAgent(Agent):
    """An agent driven by a :class:`baselines.network.PolicyValueNet`.

    Args:
        net: the network (or use :meth:`from_checkpoint`).
        greedy: take the most probable legal action (else sample from the masked softmax).
        seed: seed of the sampling generator (torch).
    """

    needs_obs = True
    needs_view = False

    def __init__(self, net, greedy: bool = True, seed: int = 0, name: str = "policy") -> None:
        import torch

        import baselines.features  # noqa: F401 (registers the +rule-v0 / +look-v0 encoders)

        self.net = net.eval()
        self.greedy = bool(greedy)
        self.gen = torch.Generator().manual_seed(int(seed))
        self.name = name
        self.encoder = getattr(net, "encoder", "planes-v0")

    @classmethod
    def from_checkpoint(
        cls, path: str | Path, greedy: bool = True, seed: int = 0, name: str = "policy"
    ) -> TorchPolicyAgent:
        """Load a checkpoint written by :func:`baselines.network.save_checkpoint`."""
        from baselines.network import load_checkpoint

        net, _ = load_checkpoint(path)
        return cls(net, greedy=greedy, seed=seed, name=name)

    def act(self, obs, mask: np.ndarray, view: SeatView | None = None) -> np.ndarray:
        import torch

        mask = _check_mask(mask)
        if obs is None:
            raise ValueError("TorchPolicyAgent needs observations (needs_obs=True)")
        if len(obs) != len(mask):
            raise ValueError(f"obs has {len(obs)} rows, mask {len(mask)}")
        if len(mask) == 0:
            return np.zeros(0, dtype=np.int64)
        with torch.no_grad():
            logits, _ = self.net(
                torch.as_tensor(np.asarray(obs, dtype=np.float32)), torch.as_tensor(mask)
            )
            if self.greedy:
                a = logits.argmax(dim=1)
            else:
                a = torch.multinomial(torch.softmax(logits, dim=1), 1, generator=self.gen)[:, 0]
        return a.numpy().astype(np.int64)


AGENT_SPECS = ("random", "rule", "rule-defensive", "rule-lookahead")
"""The named agents of :func:`make_agent` (besides checkpoint paths)."""


def make_agent(spec: str, seed: int = 0) -> Agent:
    """Build an agent from a short spec: ``random``, ``rule``, ``rule-defensive``,
    ``rule-lookahead`` or a checkpoint path (``*.pt``).

    Raises:
        UnknownAgentSpec (a ValueError, :mod:`mcr_env.envs.common`): unknown spec.
        FileNotFoundError: a missing checkpoint.
        ValueError: a file that is not a checkpoint.
    """
    if spec == "random":
        return RandomAgent(seed=seed)
    if spec == "rule":
        return RuleBasedAgent()
    if spec == "rule-defensive":
        return RuleBasedAgent(defensive=True)
    if spec == "rule-lookahead":
        return LookaheadAgent()
    if spec.endswith(".pt"):
        return TorchPolicyAgent.from_checkpoint(spec, seed=seed, name=Path(spec).stem)
    from mcr_env.envs.common import UnknownAgentSpec

    raise UnknownAgentSpec(
        f"unknown agent spec {spec!r}; valid: {', '.join(AGENT_SPECS)}, <checkpoint>.pt"
    )


def register(register_agent) -> None:
    """Register this module's specs with :func:`mcr_env.eval.registry.register_agent` (the
    ``mcr_env.agents`` entry point of the ``baselines`` package; scripts call it directly)."""
    for spec in AGENT_SPECS:
        register_agent(spec, make_agent)
    register_agent(".pt", make_agent, suffix=True)

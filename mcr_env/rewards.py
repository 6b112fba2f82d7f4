"""Named reward functions over MCR settlements, and potential-based shaping.

Every environment of :mod:`mcr_env.envs` computes its per-seat rewards with one
:class:`RewardFunction`, chosen by name (:func:`make_reward`) or passed as an object; the raw
settlement (docs/rules.md §3, points, ``(4,) int32`` per table) is always also reported in ``info``.

========================= ======================================================================
name                      reward of a seat at the step where a hand ends (0 before)
========================= ======================================================================
``settlement`` (default)  the settlement delta in points: winner ``+24 + x`` (discard win) or
                          ``+24 + 3x`` (self-drawn), discarder ``-(8 + x)``, others ``-8`` or
                          ``-(8 + x)``; 0 in an exhaustive draw (docs/rules.md §3). Sums to 0.
``scaled``                ``settlement / scale`` (default ``scale = 100`` points).
``win_loss``              winner ``+1``; on a discard win (or Robbing the Kong) the discarder
                          ``-1``, the two others 0; on a self-drawn win each other seat
                          ``-1/3``; false-Hu penalty (docs/rules.md §3 research option): offender
                          ``-1``, others ``+1/3``; exhaustive draw 0. Sums to 0.
``table_points``          match mode (docs/rules.md §4): settlements are summed per seat over
                          ``hands_per_match`` (16) hands; at the last hand of the match each
                          seat gets its table points 4/2/1/0 by rank (ties share the points of
                          the ranks they span: two tied first get 3 each); 0 at other steps.
                          With ``centered=True`` the mean 1.75 is subtracted (sums to 0).
========================= ======================================================================

Shaping. :class:`PotentialShaping` wraps any of them with
``F = gamma * Phi(s') - Phi(s)`` (Ng, Harada & Russell 1999, "Policy invariance under reward
transformations"), which leaves optimal policies unchanged. The default potential
(:class:`ShantenPotential`) is ``Phi = -scale * shanten`` of the seat's concealed hand
(``mcr_env.scoring.shanten.shanten_batch``, min over all hand forms). The potential of a
terminal state is 0 by default (``terminal_zero=True``, required for policy invariance in
episodic tasks), so the shaping terms of a hand sum (discounted) to ``-Phi(s_0)``; with
``terminal_zero=False`` they sum to ``gamma**T * Phi(s_T) - Phi(s_0)``.

Granularity. A reward function is called once per engine step with the settlement deltas of
that step. ``emit (B, 4) bool`` says for which seats a transition ends at this call (default:
every seat at every step, i.e. ``gamma`` per engine step, as in the native batch env and
PettingZoo); the single-agent Gymnasium env emits only for its learner seat at the learner's
decisions and at the end of a hand, so ``gamma`` is then per learner decision. Stateless
rewards ignore ``emit``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "REWARD_NAMES",
    "PotentialShaping",
    "RewardFunction",
    "ScaledReward",
    "SettlementReward",
    "ShantenPotential",
    "TablePointsReward",
    "WinLossReward",
    "make_reward",
    "table_points",
    "win_loss",
]

TABLE_POINTS = (4.0, 2.0, 1.0, 0.0)
"""Competition table points by rank (docs/rules.md §4)."""


def _check_settlement(settlement: Any) -> np.ndarray:
    s = np.asarray(settlement)
    if s.ndim != 2 or s.shape[1] != 4:
        raise ValueError(f"settlement must have shape (B, 4), got {s.shape}")
    if not np.issubdtype(s.dtype, np.integer):
        raise TypeError(f"settlement must be an integer array (points), got {s.dtype}")
    return s


def _check_terminated(terminated: Any, b: int) -> np.ndarray:
    t = np.asarray(terminated)
    if t.shape != (b,) or t.dtype != np.bool_:
        raise ValueError(
            f"terminated must be a (B,) bool array with B={b}, got {t.shape} {t.dtype}"
        )
    return t


def win_loss(settlement: np.ndarray) -> np.ndarray:
    """Win/loss reward of settlements (see the module table).

    Args:
        settlement: ``(N, 4)`` integer points, each row a settlement of docs/rules.md §3 (or zeros).

    Returns:
        ``(N, 4) float32``: winner +1; discarder -1 (others 0) on a discard win; -1/3 each on
        a self-drawn win; penalty rows (three seats paid): offender -1, others +1/3; 0 rows 0.

    Raises:
        ValueError / TypeError: bad shape or dtype.
    """
    s = _check_settlement(settlement).astype(np.int64)
    out = np.zeros(s.shape, dtype=np.float32)
    n_pos = (s > 0).sum(axis=1)
    # One winner: the payer(s) of the largest payment lose; equal payments = self-drawn.
    win = n_pos == 1
    pay = np.where(s < 0, -s, 0)
    max_pay = pay.max(axis=1, keepdims=True)
    is_max = (pay == max_pay) & (pay > 0)
    n_max = is_max.sum(axis=1, keepdims=True)
    out[win] = np.where(s[win] > 0, 1.0, np.where(is_max[win], -1.0 / n_max[win], 0.0))
    # Penalty: three receivers, one offender.
    pen = n_pos == 3
    out[pen] = np.where(s[pen] > 0, 1.0 / 3.0, -1.0)
    return out


def table_points(totals: np.ndarray) -> np.ndarray:
    """Competition table points 4/2/1/0 by rank of match totals; ties share (docs/rules.md §4).

    Args:
        totals: ``(N, 4)`` numbers (summed settlement points of each seat over a match).

    Returns:
        ``(N, 4) float32``: seats tied over ranks ``i..j`` each get the mean of the points of
        those ranks (two tied first: 3 each; all four tied: 1.75 each). Each row sums to 7.
    """
    t = np.asarray(totals)
    if t.ndim != 2 or t.shape[1] != 4:
        raise ValueError(f"totals must have shape (N, 4), got {t.shape}")
    greater = (t[:, None, :] > t[:, :, None]).sum(axis=2)  # (N, 4) seats strictly ahead
    equal = (t[:, None, :] == t[:, :, None]).sum(axis=2)  # (N, 4) tied, self included
    cum = np.concatenate([[0.0], np.cumsum(TABLE_POINTS)])
    return ((cum[greater + equal] - cum[greater]) / equal).astype(np.float32)


class RewardFunction:
    """Base of reward functions: ``__call__(settlement, terminated, engine, emit) -> (B, 4)``.

    Attributes:
        name: registry name (``"settlement"``, ...).
    """

    name = "base"

    def reset(self, engine: Any, rows: np.ndarray | None = None) -> None:
        """Start new episodes in ``rows`` (``(B,) bool``; ``None`` = all); ``engine`` is reset."""

    def __call__(
        self,
        settlement: np.ndarray,
        terminated: np.ndarray,
        engine: Any = None,
        emit: np.ndarray | None = None,
    ) -> np.ndarray:
        """Rewards of one engine step.

        Args:
            settlement: ``(B, 4) int32`` settlement deltas of this step (points; zeros unless a
                hand ended at this step).
            terminated: ``(B,) bool``: the hand of each table ended at this step.
            engine: the engine after the step (read by shaping only).
            emit: ``(B, 4) bool`` seats whose transition ends here (shaping only); None = all.

        Returns:
            ``(B, 4) float32``.
        """
        raise NotImplementedError


class SettlementReward(RewardFunction):
    """Raw settlement points (docs/rules.md §3) as float32."""

    name = "settlement"

    def __call__(self, settlement, terminated, engine=None, emit=None):
        return _check_settlement(settlement).astype(np.float32)


class ScaledReward(RewardFunction):
    """Settlement points divided by ``scale`` (default 100).

    Raises:
        ValueError: ``scale`` is not a positive finite number.
    """

    name = "scaled"

    def __init__(self, scale: float = 100.0):
        if not (isinstance(scale, (int, float)) and np.isfinite(scale) and scale > 0):
            raise ValueError(f"scale must be a positive finite number, got {scale!r}")
        self.scale = float(scale)

    def __call__(self, settlement, terminated, engine=None, emit=None):
        return (_check_settlement(settlement) / self.scale).astype(np.float32)


class WinLossReward(RewardFunction):
    """Zero-sum win/loss reward (:func:`win_loss`)."""

    name = "win_loss"

    def __call__(self, settlement, terminated, engine=None, emit=None):
        return win_loss(settlement)


class TablePointsReward(RewardFunction):
    """Match table points (docs/rules.md §4).

    With an engine in match mode (``RulesConfig(match="match")``) the engine's own
    ``table_points`` (per player) are paid to the seats of those players when a match
    terminates. Otherwise (single-hand engine, hands auto-reset by the environment) settlements
    are summed per seat over ``hands_per_match`` consecutive hands of a table and the table
    points are paid at the end of the last one; the seat index is then the player. Only
    ``reset(engine, None)`` starts a new match; ``reset(engine, rows)`` (a new hand on some
    tables) does not. The environments call ``reset(engine, None)`` at the vector envs'
    ``reset``, at the first ``reset`` of MCR-v0 / PettingZoo (one hand per episode, so their
    later resets continue the match) and with ``reset(options={"new_match": True})``.

    Args:
        hands_per_match: hands in a match (default 16; single-hand engines only).
        centered: subtract the mean 1.75 so that the rewards of a match sum to 0.
    """

    name = "table_points"

    def __init__(self, hands_per_match: int = 16, centered: bool = False):
        if isinstance(hands_per_match, bool) or not isinstance(hands_per_match, int):
            raise TypeError("hands_per_match must be an int")
        if hands_per_match < 1:
            raise ValueError(f"hands_per_match must be >= 1, got {hands_per_match}")
        self.hands_per_match = hands_per_match
        self.centered = bool(centered)
        self._totals: np.ndarray | None = None  # (B, 4) int64 points in the current match
        self._hands: np.ndarray | None = None  # (B,) int64 hands finished in the match

    def reset(self, engine=None, rows=None):
        if rows is None:
            self._totals = self._hands = None

    def __call__(self, settlement, terminated, engine=None, emit=None):
        s = _check_settlement(settlement)
        t = _check_terminated(terminated, s.shape[0])
        out = np.zeros(s.shape, dtype=np.float32)
        shift = 1.75 if self.centered else 0.0
        config = getattr(engine, "config", None)
        if getattr(config, "match", "hand") == "match":
            done = np.nonzero(engine.terminated)[0]
            if done.size:
                players = engine.state.player_at_seat[done].astype(np.intp)  # (k, 4)
                pts = np.take_along_axis(engine.table_points[done], players, axis=1)
                out[done] = pts - shift
            return out
        if self._totals is None or self._totals.shape[0] != s.shape[0]:
            self._totals = np.zeros((s.shape[0], 4), dtype=np.int64)
            self._hands = np.zeros(s.shape[0], dtype=np.int64)
        self._totals += s
        self._hands += t
        done = t & (self._hands >= self.hands_per_match)
        if done.any():
            out[done] = table_points(self._totals[done]) - shift
            self._totals[done] = 0
            self._hands[done] = 0
        return out

    @property
    def match_totals(self) -> np.ndarray | None:
        """``(B, 4) int64`` points summed in the current (unfinished) match of each table."""
        return None if self._totals is None else self._totals.copy()


class ShantenPotential:
    """``Phi = -scale * shanten`` of each seat's concealed hand: ``(engine) -> (B, 4) float32``.

    Shanten (``mcr_env.scoring.shanten.shanten_batch``) is the minimum over the regular form,
    Seven Pairs, Thirteen Orphans, Honors and Knitted, Knitted Straight; -1 = complete hand.
    The hand is the seat's concealed counts ``state.hand (B, 4, 34)`` with ``state.n_melds``
    melds (concealed kongs included), each seat's own information only.
    """

    def __init__(self, scale: float = 1.0):
        if not np.isfinite(scale):
            raise ValueError(f"scale must be finite, got {scale!r}")
        self.scale = float(scale)

    def __call__(self, engine: Any) -> np.ndarray:
        from mcr_env.scoring.shanten import shanten_batch

        counts, n_melds = engine.state.hand, engine.state.n_melds  # (B, 4, 34), (B, 4)
        b = counts.shape[0]
        sh = shanten_batch(counts.reshape(b * 4, 34), n_melds.reshape(b * 4))
        return (-self.scale * np.asarray(sh, dtype=np.float32)).reshape(b, 4)


class PotentialShaping(RewardFunction):
    """``base + F`` with ``F = gamma * Phi(s') - Phi(s)`` per seat (Ng, Harada & Russell 1999).

    ``s`` is the state at the seat's previous emitted transition (or the start of the hand),
    ``s'`` the state now. ``Phi(s') = 0`` when the hand has ended if ``terminal_zero``.

    Args:
        base: the wrapped reward function (object or registry name).
        gamma: discount per emitted transition, in (0, 1].
        potential: ``(engine) -> (B, 4)`` potential; default :class:`ShantenPotential`.
        terminal_zero: use ``Phi = 0`` at the end of a hand (default True).

    Attributes:
        last_shaping: ``(B, 4) float32`` the shaping term F of the last call (0 where not
            emitted), for logging.
    """

    name = "shaping"

    def __init__(
        self,
        base: RewardFunction | str = "settlement",
        gamma: float = 0.99,
        potential: Callable[[Any], np.ndarray] | None = None,
        terminal_zero: bool = True,
    ):
        if not 0.0 < float(gamma) <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
        self.base = make_reward(base) if isinstance(base, str) else base
        if not isinstance(self.base, RewardFunction):
            raise TypeError(f"base must be a RewardFunction or a name, got {type(base).__name__}")
        self.gamma = float(gamma)
        self.potential = potential if potential is not None else ShantenPotential()
        self.terminal_zero = bool(terminal_zero)
        self._phi: np.ndarray | None = None  # (B, 4) float32 potential at the last emit
        self.last_shaping: np.ndarray | None = None

    def reset(self, engine, rows=None):
        self.base.reset(engine, rows)
        phi = np.asarray(self.potential(engine), dtype=np.float32)
        if rows is None or self._phi is None:
            self._phi = phi.copy()
        else:
            self._phi[rows] = phi[rows]

    def __call__(self, settlement, terminated, engine=None, emit=None):
        r = self.base(settlement, terminated, engine, emit)
        t = _check_terminated(terminated, r.shape[0])
        if engine is None:
            raise ValueError("potential-based shaping needs the engine (its state) at each call")
        if self._phi is None:
            raise RuntimeError("PotentialShaping.reset(engine) must be called before stepping")
        phi_new = np.asarray(self.potential(engine), dtype=np.float32)
        if self.terminal_zero:
            phi_new = np.where(t[:, None], np.float32(0.0), phi_new)
        em = np.ones(r.shape, dtype=bool) if emit is None else np.asarray(emit, dtype=bool)
        if em.shape != r.shape:
            raise ValueError(f"emit must have shape {r.shape}, got {em.shape}")
        f = np.where(em, self.gamma * phi_new - self._phi, np.float32(0.0)).astype(np.float32)
        self._phi = np.where(em, phi_new, self._phi).astype(np.float32)
        self.last_shaping = f
        return (r + f).astype(np.float32)


_REGISTRY: dict[str, Callable[..., RewardFunction]] = {
    "settlement": SettlementReward,
    "scaled": ScaledReward,
    "win_loss": WinLossReward,
    "table_points": TablePointsReward,
    "shaping": PotentialShaping,
}
REWARD_NAMES = tuple(_REGISTRY)
"""Names accepted by :func:`make_reward`."""


def make_reward(spec: str | RewardFunction | None = "settlement", **kwargs: Any) -> RewardFunction:
    """A reward function by name (with constructor keyword arguments) or passed through.

    ``make_reward("scaled", scale=50)``; ``make_reward("shaping", base="win_loss", gamma=0.99)``;
    ``None`` means ``"settlement"``.

    Raises:
        ValueError: unknown name (the message lists :data:`REWARD_NAMES`), or kwargs given
            with an object.
        TypeError: ``spec`` is neither a str nor a :class:`RewardFunction`.
    """
    if spec is None:
        spec = "settlement"
    if isinstance(spec, RewardFunction):
        if kwargs:
            raise ValueError("keyword arguments apply only when a reward is given by name")
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"reward must be a name or a RewardFunction, got {type(spec).__name__}")
    if spec not in _REGISTRY:
        raise ValueError(f"unknown reward {spec!r}; valid: {', '.join(REWARD_NAMES)}")
    return _REGISTRY[spec](**kwargs)

"""``planes-v0+rule-v0``: planes-v0 followed by the rule agent's look-ahead features.

The rule-based agent's plan evaluations (:func:`baselines.hand_plans.rule_features`: value
and plan distance after each discard, deal-in danger, the value of each claim and kong
option, and its chosen discard) as 9 more ``(34,)`` channels after the 75 of ``planes-v0``
(``(84, 34) float32``). A
network reading them can imitate the teacher closely and learn where to deviate from it (as
Suphx's look-ahead features do for Riichi). The features are computed from the acting seat's
:class:`mcr_env.encoding.seat_view.SeatView` and the public tile in play only (no hidden
information). Importing this module registers the encoder id with
:func:`mcr_env.encoding.register_encoder`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from baselines.hand_plans import NUM_FEATURES, rule_features, tables, view_arrays
from mcr_env.encoding import get_encoder, register_encoder
from mcr_env.encoding.seat_view import SeatView

FEATURE_ENCODER_ID = "planes-v0+rule-v0"


class RuleFeatureEncoder:
    """Encoder ``base`` (default ``planes-v0``) + :data:`NUM_FEATURES` rule-feature channels.

    Same interface as :class:`mcr_env.encoding.base.Encoder`: ``id``, ``num_channels``,
    ``shape``, ``dtype``, ``encode(state, games, seats) -> (N, C, 34) float32``.

    Args:
        base_id: the encoder whose channels come first.
        claim_margin, sharpness: the rule agent's parameters the features are computed with.
    """

    dtype = np.float32

    def __init__(
        self, base_id: str = "planes-v0", claim_margin: float = 1.15, sharpness: float = 1.3
    ) -> None:
        self.base = get_encoder(base_id)
        self.id = f"{base_id}+rule-v0"
        self.num_channels = self.base.num_channels + NUM_FEATURES
        self.shape = (self.num_channels, 34)
        self.claim_margin = float(claim_margin)
        self.sharpness = float(sharpness)

    def __repr__(self) -> str:
        return f"RuleFeatureEncoder({self.id!r}, C={self.num_channels})"

    def encode(
        self, state: Any, games: Any = None, seats: Any = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """``(N, C, 34) float32`` observations of (game, seat) pairs (all ``B * 4`` pairs,
        game-major, when both are None), written into ``out`` when given (an ``(N, C, 34)
        float32`` buffer, entirely overwritten: the sharded env's shared memory).

        Raises:
            ValueError / TypeError: as :meth:`mcr_env.encoding.base.Encoder.encode`; an ``out``
            of another shape or dtype.
        """
        base = self.base.encode(state, games, seats)
        if games is None and seats is None:
            b = int(state.phase.shape[0])
            games = np.repeat(np.arange(b), 4)
            seats = np.tile(np.arange(4), b)
        games = np.asarray(games, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        shape = (len(games), self.num_channels, 34)
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif out.shape != shape or out.dtype != np.float32:
            raise ValueError(f"out must be {shape} float32, got {out.shape} {out.dtype}")
        out[:, : self.base.num_channels] = base
        if len(games) == 0:
            return out
        view = SeatView.from_state(state, games, seats)
        out[:, self.base.num_channels :] = self._features(
            view, np.asarray(state.tile_in_play[games], dtype=np.int64)
        )
        return out

    def _features(self, view: SeatView, tile_in_play: np.ndarray) -> np.ndarray:
        gc, gn, hon = tables()
        return rule_features(
            *view_arrays(view),
            tile_in_play,
            self.claim_margin,
            self.sharpness,
            gc,
            gn,
            hon,
        )


class LookaheadFeatureEncoder(RuleFeatureEncoder):
    """Encoder ``base`` + :data:`baselines.lookahead.NUM_LOOK_FEATURES` channels of the
    look-ahead agent (:func:`baselines.lookahead.lookahead_features`: the rule features with
    the look-ahead agent's parameters, its chosen discard and the expected value after the next
    draw of its looked-ahead discards); id ``<base>+look-v0``, ``(C, 34) float32``.

    Args:
        base_id: the encoder whose channels come first.
        claim_margin, sharpness, top_k: the look-ahead agent's parameters (defaults: those of
            :class:`baselines.agents.LookaheadAgent`).
    """

    def __init__(
        self,
        base_id: str = "planes-v0",
        claim_margin: float | None = None,
        sharpness: float | None = None,
        top_k: int | None = None,
    ) -> None:
        from baselines.lookahead import DEFAULTS, NUM_LOOK_FEATURES

        super().__init__(
            base_id,
            DEFAULTS["claim_margin"] if claim_margin is None else claim_margin,
            DEFAULTS["sharpness"] if sharpness is None else sharpness,
        )
        self.top_k = int(DEFAULTS["top_k"] if top_k is None else top_k)
        self.id = f"{base_id}+look-v0"
        self.num_channels = self.base.num_channels + NUM_LOOK_FEATURES
        self.shape = (self.num_channels, 34)

    def __repr__(self) -> str:
        return f"LookaheadFeatureEncoder({self.id!r}, C={self.num_channels})"

    def _features(self, view: SeatView, tile_in_play: np.ndarray) -> np.ndarray:
        from baselines.lookahead import lookahead_features

        gc, gn, hon = tables()
        return lookahead_features(
            *view_arrays(view),
            tile_in_play,
            self.claim_margin,
            self.sharpness,
            self.top_k,
            gc,
            gn,
            hon,
        )


def _register() -> None:
    for base in ("planes-v0", "oracle-v0"):
        for suffix, cls in (("rule-v0", RuleFeatureEncoder), ("look-v0", LookaheadFeatureEncoder)):
            try:
                register_encoder(f"{base}+{suffix}", lambda b=base, k=cls: k(b))
            except ValueError:  # already registered (module reloaded)
                pass


_register()

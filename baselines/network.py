"""Policy-value network over tile-count planes (``planes-v0``), plus checkpoint I/O.

Architecture: a residual 1-D CNN along the 34-tile axis. The input ``(N, C, 34) float32`` is
lifted to ``channels`` feature maps by a 3-wide convolution, passed through ``blocks`` residual
blocks (conv-BN-ReLU-conv-BN + skip), then split into

* a policy head: 1x1 conv to 8 maps, flatten ``(N, 8 * 34)``, linear to 235 logits; illegal
  actions get the logit :data:`MASKED_LOGIT` so their probability is exactly 0 after softmax;
* a value head: 1x1 conv to 4 maps, flatten, linear ``hidden``, ReLU, linear 1 (the expected
  scaled settlement of the seat).

Checkpoints are plain dicts ``{"format": CHECKPOINT_FORMAT, "config": {...}, "state_dict":
{...}}`` saved with :func:`torch.save` and read back with ``torch.load(..., weights_only=True)``
(no pickled code), see :func:`save_checkpoint` / :func:`load_checkpoint`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch
from torch import nn

from baselines.config import NetworkConfig

NUM_ACTIONS = 235
"""A: size of the action layout (docs/design.md)."""
NUM_TILE_KINDS = 34
"""T: length of the tile axis."""
MASKED_LOGIT = -1e9
"""Logit given to illegal actions (softmax probability underflows to exactly 0)."""
CHECKPOINT_FORMAT = "mcr-policy-v0"
"""Tag stored in every checkpoint; :func:`load_checkpoint` rejects other formats."""


class ResidualBlock(nn.Module):
    """conv3-BN-ReLU-conv3-BN plus the identity, then ReLU; shape-preserving ``(N, F, 34)``."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm1d(channels)
        self.conv2 = nn.Conv1d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm1d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(x + y)


class PolicyValueNet(nn.Module):
    """Residual 1-D CNN policy-value network.

    Args:
        in_channels: C, channels of the observation ``(N, C, 34)``.
        config: widths (:class:`baselines.config.NetworkConfig`).
        encoder: id of the observation encoder the net was built for (stored in checkpoints).

    Raises:
        ValueError: a non-positive size.
    """

    def __init__(
        self, in_channels: int, config: NetworkConfig | None = None, encoder: str = "planes-v0"
    ) -> None:
        super().__init__()
        config = config or NetworkConfig()
        if in_channels <= 0 or config.channels <= 0 or config.blocks < 0 or config.hidden <= 0:
            raise ValueError(f"invalid network sizes: in_channels={in_channels}, {config}")
        self.in_channels = int(in_channels)
        self.config = config
        self.encoder = encoder
        ch = config.channels
        self.stem = nn.Sequential(
            nn.Conv1d(in_channels, ch, 3, padding=1, bias=False), nn.BatchNorm1d(ch), nn.ReLU()
        )
        self.trunk = nn.Sequential(*[ResidualBlock(ch) for _ in range(config.blocks)])
        self.policy_conv = nn.Sequential(nn.Conv1d(ch, 8, 1), nn.ReLU())
        self.policy_fc = nn.Linear(8 * NUM_TILE_KINDS, NUM_ACTIONS)
        self.value_conv = nn.Sequential(nn.Conv1d(ch, 4, 1), nn.ReLU())
        self.value_fc = nn.Sequential(
            nn.Linear(4 * NUM_TILE_KINDS, config.hidden), nn.ReLU(), nn.Linear(config.hidden, 1)
        )

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values.

        Args:
            obs: ``(N, C, 34) float32`` observations.
            mask: ``(N, 235) bool`` legal actions, or None for raw logits.

        Returns:
            ``logits (N, 235) float32`` (illegal = :data:`MASKED_LOGIT`), ``values (N,) float32``.

        Raises:
            ValueError: wrong shapes.
        """
        if obs.dim() != 3 or obs.shape[1] != self.in_channels or obs.shape[2] != NUM_TILE_KINDS:
            raise ValueError(f"obs must be (N, {self.in_channels}, 34), got {tuple(obs.shape)}")
        h = self.trunk(self.stem(obs))
        logits = self.policy_fc(self.policy_conv(h).flatten(1))
        values = self.value_fc(self.value_conv(h).flatten(1)).squeeze(-1)
        if mask is not None:
            logits = masked_logits(logits, mask)
        return logits, values


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Set illegal logits to :data:`MASKED_LOGIT`.

    Args:
        logits: ``(N, 235) float32``.
        mask: ``(N, 235) bool``; every row must have at least one legal action.

    Raises:
        ValueError: shape mismatch, or a row without a legal action.
    """
    if mask.shape != logits.shape:
        raise ValueError(f"mask shape {tuple(mask.shape)} != logits shape {tuple(logits.shape)}")
    mask = mask.bool()
    if mask.numel() and not bool(mask.any(dim=1).all()):
        raise ValueError("every mask row needs at least one legal action")
    return logits.masked_fill(~mask, MASKED_LOGIT)


def save_checkpoint(net: PolicyValueNet, path: str | Path, extra: dict | None = None) -> Path:
    """Save ``net`` as ``{"format", "config", "state_dict", "extra"}`` with :func:`torch.save`.

    ``extra`` must hold only plain data (numbers, strings, lists, dicts) so that
    ``torch.load(weights_only=True)`` can read it back.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": CHECKPOINT_FORMAT,
        "config": {
            "in_channels": net.in_channels,
            "encoder": net.encoder,
            **dataclasses.asdict(net.config),
        },
        "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "extra": dict(extra or {}),
    }
    torch.save(payload, path)
    return path


def load_checkpoint(path: str | Path) -> tuple[PolicyValueNet, dict]:
    """Load a checkpoint written by :func:`save_checkpoint` (``weights_only=True``).

    Returns:
        ``(net in eval mode, extra dict)``.

    Raises:
        FileNotFoundError: no such file.
        ValueError: the file is not a checkpoint of this format (not a torch file at all, a
            torch file of something else, or a network that does not match its config).
    """
    try:
        payload = torch.load(Path(path), map_location="cpu", weights_only=True)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as e:  # torch raises UnpicklingError, RuntimeError, EOFError, IndexError...
        first = (str(e).strip().splitlines() or [""])[0]
        what = f"{type(e).__name__}: {first}"
        raise ValueError(f"{path} is not a torch checkpoint ({what})") from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not a {CHECKPOINT_FORMAT} checkpoint")
    try:
        cfg = dict(payload["config"])
        in_channels = int(cfg.pop("in_channels"))
        encoder = str(cfg.pop("encoder"))
        net = PolicyValueNet(in_channels, NetworkConfig(**cfg), encoder=encoder)
        net.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, RuntimeError) as e:  # missing fields, a config or weights off
        first = (str(e).strip().splitlines() or [""])[0]
        raise ValueError(f"{path}: a broken {CHECKPOINT_FORMAT} checkpoint ({first})") from None
    net.eval()
    return net, dict(payload.get("extra", {}))

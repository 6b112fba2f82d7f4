"""Behaviour cloning of the RuleBasedAgent into a PolicyValueNet.

1. :func:`collect_demonstrations` plays hands with four :class:`baselines.agents.RuleBasedAgent`
   through the batched engine and records, for every acting seat with more than one legal
   action, ``(observation (C, 34), legal mask (235,), action)``, the hand it belongs to, the
   decision kind (:data:`KINDS`) and the seat's final settlement (a value target).
2. :func:`train_bc` holds out whole hands (``val_fraction``, split by game so no hand is on
   both sides), minimises the cross-entropy of the masked policy (illegal logits set to a large
   negative number, the same masks at train and play time) plus a small value loss toward the
   scaled settlement, and reports the held-out accuracy overall and per decision kind.

Observations are stored as float16 (planes-v0 values are small integers and fractions that
float16 holds to ~1e-3) to halve memory.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

import baselines.features  # noqa: F401  (registers planes-v0+rule-v0)
from baselines.agents import RuleBasedAgent
from baselines.config import BCConfig, EnvConfig
from baselines.network import PolicyValueNet
from mcr_env.engine.actions import ANGANG_OFFSET, CHI_OFFSET, HU, NUM_ACTIONS, PLAY_OFFSET

KINDS = ("discard", "claim", "kong", "hu")
"""Decision kinds: own-turn discard (no kong option), claim round (Chi/Peng/Gang or Pass),
own turn with a concealed/added kong option, and a decision where Hu is legal."""


def decision_kinds(mask: np.ndarray) -> np.ndarray:
    """``(N,) int8`` index into :data:`KINDS` of each ``(N, 235) bool`` legal set."""
    mask = np.asarray(mask, dtype=bool)
    kind = np.full(mask.shape[0], 1, dtype=np.int8)  # claim
    own = mask[:, PLAY_OFFSET:CHI_OFFSET].any(axis=1)
    kong = mask[:, ANGANG_OFFSET:].any(axis=1)
    kind[own] = 0
    kind[own & kong] = 2
    kind[mask[:, HU]] = 3
    return kind


@dataclass
class Demonstrations:
    """Recorded decisions (struct of arrays, N samples)."""

    obs: np.ndarray
    """(N, C, 34) float16: observation of the acting seat."""
    mask: np.ndarray
    """(N, 235) bool: its legal actions."""
    action: np.ndarray
    """(N,) int64: the RuleBasedAgent's action."""
    ret: np.ndarray
    """(N,) float32: the seat's settlement at the end of the hand, in points."""
    hand: np.ndarray
    """(N,) int64: index of the hand (0..hands-1) the decision belongs to."""
    kind: np.ndarray
    """(N,) int8: decision kind, index into :data:`KINDS`."""
    hands: int
    """number of hands played."""
    win_rate: float
    """fraction of hands that ended in a legal win."""


def collect_demonstrations(
    hands: int,
    batch_envs: int,
    seed: int,
    env: EnvConfig | None = None,
    progress: bool = True,
    teacher=None,
) -> Demonstrations:
    """Play ``hands`` hands with four copies of ``teacher`` (default ``RuleBasedAgent()``) and
    record their non-forced decisions.

    Raises:
        ValueError: ``hands`` or ``batch_envs`` < 1.
    """
    from mcr_env.encoding import get_encoder
    from mcr_env.engine.config import RulesConfig
    from mcr_env.engine.core import MCREngine
    from mcr_env.eval.play import play_games

    if hands < 1 or batch_envs < 1:
        raise ValueError(f"hands and batch_envs must be >= 1, got {hands}, {batch_envs}")
    env = env or EnvConfig()
    rules = RulesConfig.from_dict(dict(env.rules))
    encoder = get_encoder(env.encoder)
    agent = teacher if teacher is not None else RuleBasedAgent()
    obs_l, mask_l, act_l, ret_l, hand_l = [], [], [], [], []
    wins = 0
    bar = tqdm(
        total=hands, desc=f"BC data ({agent.name} self-play)", unit="hand", disable=not progress
    )
    done = 0
    chunk_id = 0
    while done < hands:
        n = min(batch_envs, hands - done)
        engine = MCREngine(n, config=rules)
        engine.reset(seed=seed + chunk_id)
        chunk_keys: list[np.ndarray] = []

        def record(ai, games, seats, obs, mask, actions, _keys=chunk_keys):
            keep = mask.sum(axis=1) > 1
            if keep.any():
                obs_l.append(obs[keep].astype(np.float16))
                mask_l.append(mask[keep].copy())
                act_l.append(actions[keep].copy())
                _keys.append(games[keep] * 4 + seats[keep])

        points = play_games(engine, [agent], np.zeros((n, 4), dtype=np.int64), encoder, record)
        flat = points.reshape(-1)
        for k in chunk_keys:
            ret_l.append(flat[k].astype(np.float32))
            hand_l.append(done + k // 4)
        wins += int((engine.state.winner >= 0).sum())
        done += n
        chunk_id += 1
        bar.update(n)
    bar.close()
    mask = np.concatenate(mask_l)
    return Demonstrations(
        obs=np.concatenate(obs_l),
        mask=mask,
        action=np.concatenate(act_l).astype(np.int64),
        ret=np.concatenate(ret_l),
        hand=np.concatenate(hand_l).astype(np.int64),
        kind=decision_kinds(mask),
        hands=hands,
        win_rate=wins / hands,
    )


def load_demonstrations(path, num_channels: int | None = None) -> Demonstrations:
    """Demonstrations from a dataset file instead of rule-based self-play, e.g. the decisions of
    all four seats of Botzone match logs (``scripts/botzone_logs.py replay ... --bc``).

    The ``.npz`` holds ``obs (N, C, 34)``, ``mask (N, 235) bool``, ``action (N,) int``, ``ret
    (N,)`` (the seat's settlement points) and ``match (N,) int`` (which hand each decision
    belongs to: :func:`train_bc` holds out whole hands). Rows with a single legal action are
    dropped, as :func:`collect_demonstrations` does; ``win_rate`` is the fraction of hands in
    which some seat ended with positive points.

    Args:
        path: the ``.npz`` file.
        num_channels: the C the network expects (``None``: not checked).

    Raises:
        FileNotFoundError: no such file.
        ValueError: a missing array, inconsistent lengths, an action outside its mask, or C
            different from ``num_channels``.
    """
    with np.load(path) as z:
        missing = [k for k in ("obs", "mask", "action", "ret", "match") if k not in z]
        if missing:
            raise ValueError(f"{path}: missing arrays {missing}")
        obs, mask = z["obs"].astype(np.float16), z["mask"].astype(bool)
        action, ret = z["action"].astype(np.int64), z["ret"].astype(np.float32)
        match = z["match"].astype(np.int64)
    n = len(action)
    if not (len(obs) == len(mask) == len(ret) == len(match) == n):
        raise ValueError(f"{path}: obs, mask, action, ret and match differ in length")
    if obs.ndim != 3 or obs.shape[2] != 34 or mask.shape[1:] != (NUM_ACTIONS,):
        raise ValueError(f"{path}: obs must be (N, C, 34) and mask (N, 235), got {obs.shape}")
    if num_channels is not None and obs.shape[1] != num_channels:
        raise ValueError(
            f"{path}: observations have {obs.shape[1]} channels, the network reads "
            f"{num_channels} (bc.data needs env.encoder of the dataset, e.g. planes-v0)"
        )
    if n and not mask[np.arange(n), np.clip(action, 0, NUM_ACTIONS - 1)].all():
        raise ValueError(f"{path}: an action is outside its legal mask")
    _, hand = np.unique(match, return_inverse=True)
    hands = int(hand.max()) + 1 if n else 0
    won = int(np.unique(hand[ret > 0]).size)
    keep = mask.sum(axis=1) > 1
    return Demonstrations(
        obs=obs[keep],
        mask=mask[keep],
        action=action[keep],
        ret=ret[keep],
        hand=hand[keep].astype(np.int64),
        kind=decision_kinds(mask[keep]),
        hands=hands,
        win_rate=won / hands if hands else 0.0,
    )


def split_by_hand(demos: Demonstrations, val_fraction: float, seed: int):
    """``(train_idx, val_idx)`` sample indices: a random ``val_fraction`` of the *hands* is
    held out (every decision of a hand is on the same side).

    Raises:
        ValueError: ``val_fraction`` outside [0, 1).
    """
    if not 0.0 <= val_fraction < 1.0:
        raise ValueError(f"val_fraction must be in [0, 1), got {val_fraction}")
    rng = np.random.default_rng(seed + 7)
    n_val = int(round(val_fraction * demos.hands))
    val_hands = np.zeros(demos.hands, dtype=bool)
    val_hands[rng.permutation(demos.hands)[:n_val]] = True
    is_val = val_hands[demos.hand]
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


def _accuracy(net, demos: Demonstrations, idx: np.ndarray, device, batch: int = 2048) -> dict:
    """Greedy accuracy on samples ``idx``: overall and per decision kind (with counts)."""
    correct = np.zeros(len(idx), dtype=bool)
    net.eval()
    with torch.no_grad():
        for s in range(0, len(idx), batch):
            j = idx[s : s + batch]
            logits, _ = net(
                torch.from_numpy(demos.obs[j]).float().to(device),
                torch.from_numpy(demos.mask[j]).to(device),
            )
            correct[s : s + batch] = logits.argmax(1).cpu().numpy() == demos.action[j]
    out = {"accuracy": float(correct.mean()) if len(idx) else float("nan"), "samples": len(idx)}
    for k, name in enumerate(KINDS):
        sel = demos.kind[idx] == k
        out[f"accuracy_{name}"] = float(correct[sel].mean()) if sel.any() else float("nan")
        out[f"samples_{name}"] = int(sel.sum())
    return out


def train_bc(
    net: PolicyValueNet,
    demos: Demonstrations,
    cfg: BCConfig,
    reward_scale: float,
    seed: int,
    writer=None,
    progress: bool = True,
    device: str | torch.device = "cpu",
) -> dict:
    """Fit ``net`` to the demonstrations (masked cross-entropy + 0.5 x value MSE).

    Args:
        net: the network (trained in place, on ``device``).
        demos: from :func:`collect_demonstrations`.
        cfg: epochs, batch size, learning rate, held-out fraction.
        reward_scale: value target = settlement points x reward_scale.
        seed: seed of the split and the minibatch order.
        writer: optional TensorBoard ``SummaryWriter`` (``losses/bc_*``, ``charts/bc_*``).

    Returns:
        dict with the last epoch's training ``loss`` and ``accuracy``, the held-out
        ``val_accuracy`` and ``val_accuracy_<kind>`` / ``val_samples_<kind>`` for every kind
        of :data:`KINDS`, ``samples``, ``val_samples``, ``seconds`` and ``samples_per_s``.
    """
    device = torch.device(device)
    rng = np.random.default_rng(seed)
    train_idx, val_idx = split_by_hand(demos, cfg.val_fraction, seed)
    net.to(device)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=max(1, cfg.epochs * -(-len(train_idx) // cfg.batch_size))
    )
    ret_all = demos.ret * reward_scale
    ce = nn.CrossEntropyLoss()
    step = 0
    t0 = time.time()
    stats: dict = {}
    for epoch in range(cfg.epochs):
        net.train()
        order = train_idx[rng.permutation(len(train_idx))]
        tot_loss = tot_acc = 0.0
        batches = range(0, len(order), cfg.batch_size)
        for start in tqdm(batches, desc=f"BC epoch {epoch + 1}/{cfg.epochs}", disable=not progress):
            idx = order[start : start + cfg.batch_size]
            obs = torch.from_numpy(demos.obs[idx]).float().to(device)
            mask = torch.from_numpy(demos.mask[idx]).to(device)
            act = torch.from_numpy(demos.action[idx]).to(device)
            ret = torch.from_numpy(ret_all[idx]).to(device)
            logits, values = net(obs, mask)
            pol_loss = ce(logits, act)
            v_loss = ((values - ret) ** 2).mean()
            loss = pol_loss + 0.5 * v_loss
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            sched.step()
            acc = (logits.argmax(1) == act).float().mean().item()
            tot_loss += loss.item() * len(idx)
            tot_acc += acc * len(idx)
            if writer is not None and step % 20 == 0:
                writer.add_scalar("losses/bc_policy_loss", pol_loss.item(), step)
                writer.add_scalar("losses/bc_value_loss", v_loss.item(), step)
                writer.add_scalar("charts/bc_accuracy", acc, step)
            step += 1
        n = max(len(order), 1)
        stats = {"epoch": epoch + 1, "loss": tot_loss / n, "accuracy": tot_acc / n}
        if len(val_idx):
            val = _accuracy(net, demos, val_idx, device)
            stats["val_accuracy"] = val["accuracy"]
            if writer is not None:
                writer.add_scalar("charts/bc_val_accuracy", val["accuracy"], epoch + 1)
    seconds = time.time() - t0
    if len(val_idx):
        val = _accuracy(net, demos, val_idx, device)
        for k, v in val.items():
            stats[f"val_{k}"] = v
    net.eval()
    stats["samples"] = int(len(train_idx))
    stats["seconds"] = seconds
    stats["samples_per_s"] = cfg.epochs * len(train_idx) / max(seconds, 1e-9)
    return stats

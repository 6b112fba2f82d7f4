"""Behaviour cloning of the RuleBasedAgent into a PolicyValueNet.

1. :func:`collect_demonstrations` plays hands with four :class:`baselines.agents.RuleBasedAgent`
   through the batched engine and records, for every acting seat with more than one legal
   action, ``(observation (C, 34), legal mask (235,), action)`` plus the seat's final
   settlement (a value target).
2. :func:`train_bc` minimises the cross-entropy of the masked policy (illegal logits set to a
   large negative number, the same masks at train and play time) plus a small value loss toward
   the scaled settlement.

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

from baselines.agents import RuleBasedAgent
from baselines.config import BCConfig, EnvConfig
from baselines.network import PolicyValueNet


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
    hands: int
    """number of hands played."""
    win_rate: float
    """fraction of hands that ended in a legal win."""


def collect_demonstrations(
    hands: int, batch_envs: int, seed: int, env: EnvConfig | None = None, progress: bool = True
) -> Demonstrations:
    """Play ``hands`` hands with four RuleBasedAgents and record their non-forced decisions.

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
    agent = RuleBasedAgent()
    obs_l, mask_l, act_l, key_l, ret_l = [], [], [], [], []
    wins = 0
    bar = tqdm(
        total=hands, desc="BC data (rule-based self-play)", unit="hand", disable=not progress
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
        key_l.extend(chunk_keys)
        wins += int((engine.state.winner >= 0).sum())
        done += n
        chunk_id += 1
        bar.update(n)
    bar.close()
    return Demonstrations(
        obs=np.concatenate(obs_l),
        mask=np.concatenate(mask_l),
        action=np.concatenate(act_l).astype(np.int64),
        ret=np.concatenate(ret_l),
        hands=hands,
        win_rate=wins / hands,
    )


def load_demonstrations(path) -> Demonstrations:
    """Demonstrations from a dataset file (``.npz``: ``obs (N, C, 34)``, ``mask (N, 235)
    bool``, ``action (N,) int``, ``ret (N,)`` settlement points; optional ``match (N,)``), e.g.
    the decisions of all four seats of Botzone match logs (``scripts/botzone_logs.py --bc``).
    Rows with a single legal action are dropped, as :func:`collect_demonstrations` does.

    Raises:
        FileNotFoundError: no such file.
        ValueError: a missing array or inconsistent lengths.
    """
    with np.load(path) as z:
        missing = [k for k in ("obs", "mask", "action", "ret") if k not in z]
        if missing:
            raise ValueError(f"{path}: missing arrays {missing}")
        obs, mask = z["obs"].astype(np.float16), z["mask"].astype(bool)
        action, ret = z["action"].astype(np.int64), z["ret"].astype(np.float32)
        matches = z["match"] if "match" in z else None
    if not len(obs) == len(mask) == len(action) == len(ret):
        raise ValueError(f"{path}: obs, mask, action and ret differ in length")
    keep = mask.sum(axis=1) > 1
    hands = int(len(np.unique(matches))) if matches is not None else 0
    wins = float(np.mean(ret > 0)) if len(ret) else 0.0
    return Demonstrations(obs[keep], mask[keep], action[keep], ret[keep], hands, wins)


def train_bc(
    net: PolicyValueNet,
    demos: Demonstrations,
    cfg: BCConfig,
    reward_scale: float,
    seed: int,
    writer=None,
    progress: bool = True,
) -> dict:
    """Fit ``net`` to the demonstrations (masked cross-entropy + 0.5 x value MSE).

    Args:
        net: the network (trained in place).
        demos: from :func:`collect_demonstrations`.
        cfg: epochs, batch size, learning rate.
        reward_scale: value target = settlement points x reward_scale.
        seed: seed of the minibatch order.
        writer: optional TensorBoard ``SummaryWriter`` (``losses/bc_*``, ``charts/bc_accuracy``).

    Returns:
        dict with the final epoch's ``loss``, ``accuracy`` and ``seconds``.
    """
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    n = len(demos.action)
    obs_t = torch.from_numpy(demos.obs)
    mask_t = torch.from_numpy(demos.mask)
    act_t = torch.from_numpy(demos.action)
    ret_t = torch.from_numpy(demos.ret * reward_scale)
    ce = nn.CrossEntropyLoss()
    step = 0
    t0 = time.time()
    stats = {}
    net.train()
    for epoch in range(cfg.epochs):
        order = rng.permutation(n)
        tot_loss = tot_acc = 0.0
        batches = range(0, n, cfg.batch_size)
        for start in tqdm(batches, desc=f"BC epoch {epoch + 1}/{cfg.epochs}", disable=not progress):
            idx = torch.from_numpy(order[start : start + cfg.batch_size])
            logits, values = net(obs_t[idx].float(), mask_t[idx])
            pol_loss = ce(logits, act_t[idx])
            v_loss = ((values - ret_t[idx]) ** 2).mean()
            loss = pol_loss + 0.5 * v_loss
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            acc = (logits.argmax(1) == act_t[idx]).float().mean().item()
            tot_loss += loss.item() * len(idx)
            tot_acc += acc * len(idx)
            if writer is not None:
                writer.add_scalar("losses/bc_policy_loss", pol_loss.item(), step)
                writer.add_scalar("losses/bc_value_loss", v_loss.item(), step)
                writer.add_scalar("charts/bc_accuracy", acc, step)
            step += 1
        stats = {"epoch": epoch + 1, "loss": tot_loss / n, "accuracy": tot_acc / n}
    net.eval()
    stats["seconds"] = time.time() - t0
    stats["samples"] = n
    return stats

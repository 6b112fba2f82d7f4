"""PPO self-play for MCR (CleanRL style: one file, typed config, stable metric names).

The four seats of every table share one policy-value network. One iteration:

1. **Rollout.** ``num_envs`` hands are dealt (seeded) and played to their end through the
   native batch env (:class:`mcr_env.envs.batch.MCRBatchEnv`, packed observations of the
   acting seats, no autoreset). At every step the acting seats with more than one legal
   action are answered by one batched forward pass (masked logits: illegal actions get a large
   negative logit); the buffer stores ``obs (C, 34)``, ``mask (235,)``, ``action``,
   ``logprob``, ``value`` and the (game, seat) key. Forced decisions (a single legal action)
   are played but not stored.
2. **Per-seat GAE.** A seat's transitions are its own decision points, in order; the reward is 0
   at every decision except the seat's last one in the hand, which receives the hand's
   settlement (points x ``env.reward_scale``), and the hand end is terminal (bootstrap value 0).
   Every hand is complete, so there is no truncation.
3. **Update.** ``update_epochs`` passes of clipped-surrogate PPO over shuffled minibatches,
   recomputing logits with the *stored* masks (so the update sees exactly the legal sets the
   rollout sampled from), value loss (clipped optionally), entropy bonus.

BatchNorm layers stay in eval mode throughout (statistics frozen from behaviour cloning), so
the log-probabilities recomputed at update time equal the rollout ones before the first step.

TensorBoard scalars: ``charts/learning_rate``, ``charts/SPS`` (decisions per second),
``charts/win_rate``, ``charts/mean_win_points``, ``charts/draw_rate``,
``charts/decisions_per_hand``, ``losses/value_loss``, ``losses/policy_loss``,
``losses/entropy``, ``losses/old_approx_kl``, ``losses/approx_kl``, ``losses/clipfrac``,
``losses/explained_variance``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical
from tqdm import tqdm

from baselines.config import EnvConfig, PPOConfig
from baselines.network import PolicyValueNet, save_checkpoint
from baselines.rollout import collect_rollout, resolve_device

__all__ = ["rollout", "per_seat_gae", "train_ppo", "sample_seed"]


def rollout(
    net: PolicyValueNet, env, seed: int, gen: torch.Generator, device: str = "cpu"
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Play one batch of hands to the end with the shared policy, sampling actions
    (:func:`baselines.rollout.collect_rollout`: one batched forward pass per step for all
    acting seats of all tables and shards; draws keyed by (seed, table, seat, step)).

    Args:
        net: the policy (eval mode).
        env: a :class:`mcr_env.envs.batch.MCRBatchEnv` or
            :class:`mcr_env.envs.sharded.ShardedBatchEnv` with ``autoreset_mode="disabled"``,
            ``observe="packed"`` and the ``settlement`` reward.
        seed: seed of the deal.
        gen: torch generator; one draw from it seeds the action sampling.
        device: device of ``net``.

    Returns:
        ``(buffer, points)``: buffer arrays of T stored transitions (``obs (T, C, 34)
        float32``, ``mask (T, 235) bool``, ``action (T,) int64``, ``logprob (T,) float32``,
        ``value (T,) float32``, ``key (T,) int64`` = game * 4 + seat, ``step (T,) int64``, in
        time order) and the hands' rewards summed per seat ``(B, 4) float64`` (settlement
        points).
    """
    buf, points, _ = collect_rollout(net, env, seed, sample_seed(gen), device)
    return buf, points


def sample_seed(gen: torch.Generator) -> int:
    """One seed for :func:`baselines.rollout.counter_uniform` drawn from ``gen``."""
    return int(torch.randint(0, 2**62, (1,), generator=gen).item())


def per_seat_gae(
    key: np.ndarray,
    value: np.ndarray,
    final_reward: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Generalized advantage estimation along each seat's own decision sequence.

    Args:
        key: ``(T,) int64`` sequence id (game * 4 + seat) of each transition, in time order.
        value: ``(T,) float32`` value estimates.
        final_reward: ``(K,) float`` reward of sequence k at its last decision (the scaled
            settlement); every other decision has reward 0 and the sequence end is terminal.
        gamma, gae_lambda: discount and GAE lambda.

    Returns:
        ``(advantages (T,) float32, returns (T,) float32)``.
    """
    t = key.shape[0]
    order = np.argsort(key, kind="stable")
    k_sorted = key[order]
    v_sorted = value[order].astype(np.float64)
    last = np.ones(t, dtype=bool)
    last[:-1] = k_sorted[:-1] != k_sorted[1:]
    adv_sorted = np.zeros(t, dtype=np.float64)
    gae = 0.0
    for i in range(t - 1, -1, -1):
        if last[i]:
            delta = final_reward[k_sorted[i]] - v_sorted[i]
            gae = delta
        else:
            delta = gamma * v_sorted[i + 1] - v_sorted[i]
            gae = delta + gamma * gae_lambda * gae
        adv_sorted[i] = gae
    adv = np.empty(t, dtype=np.float32)
    adv[order] = adv_sorted
    ret = adv + value.astype(np.float32)
    return adv, ret


def train_ppo(
    net: PolicyValueNet,
    cfg: PPOConfig,
    env: EnvConfig,
    seed: int,
    writer=None,
    checkpoint_dir: str | Path | None = None,
    progress: bool = True,
) -> dict:
    """Fine-tune ``net`` in place with PPO self-play; returns summary statistics.

    Args:
        net: the shared policy (e.g. after behaviour cloning).
        cfg: PPO hyper-parameters (:class:`baselines.config.PPOConfig`).
        env: encoder id, reward scale and engine rule overrides.
        seed: root seed (deals ``seed * 100_003 + iteration``, action sampling).
        writer: optional TensorBoard ``SummaryWriter``.
        checkpoint_dir: where ``ppo_<iteration>.pt`` checkpoints go (None = no checkpoints).

    Raises:
        ValueError: ``cfg.iterations < 0``, ``cfg.num_envs < 1`` or an unknown ``cfg.backend``.
    """
    if cfg.iterations < 0 or cfg.num_envs < 1:
        raise ValueError(f"iterations must be >= 0 and num_envs >= 1, got {cfg}")
    if cfg.backend not in ("inprocess", "ray"):
        raise ValueError(f"ppo.backend {cfg.backend!r} not valid; valid: inprocess, ray")
    # ---- seeding
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    dev = resolve_device(cfg.device)
    net.to(dev)
    rollouts = _rollout_backend(net, cfg, env, dev)
    try:
        return _train(
            net, cfg, env, seed, writer, checkpoint_dir, progress, gen, rng, dev, rollouts
        )
    finally:
        rollouts.close()
        net.cpu()


class _LocalRollouts:
    """The in-process backend: one batch env on this machine (sharded over worker processes
    when ``num_workers`` != 0)."""

    def __init__(self, cfg: PPOConfig, env: EnvConfig, dev: torch.device):
        from mcr_env.engine.config import RulesConfig
        from mcr_env.envs.sharded import default_num_workers, make_batch_env

        workers = default_num_workers() if cfg.num_workers < 0 else cfg.num_workers
        self.env = make_batch_env(
            cfg.num_envs,
            workers,
            config=RulesConfig.from_dict(dict(env.rules)),
            encoder=env.encoder,
            reward="settlement",
            autoreset_mode="disabled",
            observe="packed",
            copy_obs=False,
        )
        self.dev = dev

    def collect(self, net, seed: int, sample_seed: int):
        return collect_rollout(net, self.env, seed, sample_seed, self.dev)

    def close(self) -> None:
        if hasattr(self.env, "close"):
            self.env.close()


def _rollout_backend(net: PolicyValueNet, cfg: PPOConfig, env: EnvConfig, dev: torch.device):
    if cfg.backend == "inprocess":
        return _LocalRollouts(cfg, env, dev)
    from baselines.distributed import RayRollouts
    from mcr_env.engine.config import RulesConfig

    return RayRollouts(
        cfg.num_envs,
        net,
        {"config": RulesConfig.from_dict(dict(env.rules)), "encoder": env.encoder},
        num_actors=cfg.ray_actors,
        workers_per_actor=max(cfg.num_workers, 0),
        address=cfg.ray_address or None,
        device=cfg.device,
    )


def _train(net, cfg, env, seed, writer, checkpoint_dir, progress, gen, rng, dev, rollouts) -> dict:
    """The iterations of :func:`train_ppo` (rollouts from ``rollouts.collect``)."""
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
    net.eval()  # BatchNorm statistics stay frozen (see module docstring)
    global_step = 0
    start = time.time()
    summary: dict = {}
    bar = tqdm(range(1, cfg.iterations + 1), desc="PPO", unit="it", disable=not progress)
    for iteration in bar:
        if cfg.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / cfg.iterations
            optimizer.param_groups[0]["lr"] = frac * cfg.lr
        # ---- rollout: complete hands
        deal = seed * 100_003 + iteration
        buf, points, winners = rollouts.collect(net, deal, sample_seed(gen))
        t = len(buf["action"])
        global_step += t
        final_reward = (points.reshape(-1) * env.reward_scale).astype(np.float64)
        adv, ret = per_seat_gae(buf["key"], buf["value"], final_reward, cfg.gamma, cfg.gae_lambda)
        won = winners >= 0
        win_pts = points[np.nonzero(won)[0], winners[won]] if won.any() else np.zeros(0)

        # ---- update
        obs_t = torch.from_numpy(buf["obs"]).to(dev)
        mask_t = torch.from_numpy(buf["mask"]).to(dev)
        act_t = torch.from_numpy(buf["action"]).to(dev)
        logp_t = torch.from_numpy(buf["logprob"]).to(dev)
        val_t = torch.from_numpy(buf["value"]).to(dev)
        adv_t = torch.from_numpy(adv).to(dev)
        ret_t = torch.from_numpy(ret).to(dev)
        clipfracs = []
        for _epoch in range(cfg.update_epochs):
            order = rng.permutation(t)
            for s in range(0, t, cfg.minibatch_size):
                mb = torch.from_numpy(order[s : s + cfg.minibatch_size]).to(dev)
                logits, newvalue = net(obs_t[mb], mask_t[mb])
                dist = Categorical(logits=logits)
                newlogp = dist.log_prob(act_t[mb])
                entropy = dist.entropy()
                logratio = newlogp - logp_t[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
                mb_adv = adv_t[mb]
                if cfg.norm_adv and len(mb) > 1:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss1 = -mb_adv * ratio
                pg_loss2 = -mb_adv * torch.clamp(ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()
                if cfg.clip_vloss:
                    v_unclipped = (newvalue - ret_t[mb]) ** 2
                    v_clipped = val_t[mb] + torch.clamp(
                        newvalue - val_t[mb], -cfg.clip_coef, cfg.clip_coef
                    )
                    v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - ret_t[mb]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - ret_t[mb]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - cfg.ent_coef * entropy_loss + cfg.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                optimizer.step()

        var_y = float(np.var(ret))
        explained_var = np.nan if var_y == 0 else 1 - float(np.var(ret - buf["value"])) / var_y
        sps = global_step / max(time.time() - start, 1e-9)
        summary = {
            "iteration": iteration,
            "decisions": global_step,
            "win_rate": float(won.mean()),
            "mean_win_points": float(win_pts.mean()) if win_pts.size else float("nan"),
            "draw_rate": float((~won).mean()),
            "policy_loss": float(pg_loss.item()),
            "value_loss": float(v_loss.item()),
            "entropy": float(entropy_loss.item()),
            "approx_kl": float(approx_kl.item()),
            "seconds": time.time() - start,
        }
        if writer is not None:
            writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
            writer.add_scalar("charts/win_rate", summary["win_rate"], global_step)
            if win_pts.size:
                writer.add_scalar("charts/mean_win_points", summary["mean_win_points"], global_step)
            writer.add_scalar("charts/draw_rate", summary["draw_rate"], global_step)
            writer.add_scalar("charts/decisions_per_hand", t / cfg.num_envs, global_step)
            writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
            writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
            writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
            writer.add_scalar("losses/old_approx_kl", old_approx_kl.item(), global_step)
            writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
            writer.add_scalar("losses/clipfrac", float(np.mean(clipfracs)), global_step)
            writer.add_scalar("losses/explained_variance", explained_var, global_step)
        bar.set_postfix(win=f"{summary['win_rate']:.2f}", sps=f"{sps:.0f}")
        if checkpoint_dir is not None and (
            iteration % cfg.checkpoint_every == 0 or iteration == cfg.iterations
        ):
            save_checkpoint(
                net, Path(checkpoint_dir) / f"ppo_{iteration}.pt", {"iteration": iteration}
            )
    return summary

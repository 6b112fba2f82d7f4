"""PPO for MCR (CleanRL style: one file, typed config, stable metric names).

One iteration of :func:`train_ppo`:

1. **Pool draw.** Every table of the ``num_envs`` draws an entry of ``cfg.pool``
   (:func:`draw_lineups`): ``self`` = the learner in all four seats (self-play); ``rule``,
   ``rule-defensive``, ``random`` = the learner in one seat (drawn) against three baseline
   agents; ``past`` = against three copies of a past snapshot of the learner (every
   ``checkpoint_every`` iterations; the starting, e.g. BC, policy until the first).
2. **Rollout** (:func:`rollout`). The hands are dealt (seeded) and played to their end through
   :class:`mcr_env.envs.batch.MCRBatchEnv` (packed observations of the acting seats, no
   autoreset, the reward ``env.reward`` of :mod:`mcr_env.rewards` with ``env.reward_kwargs``,
   times ``env.reward_scale``). Learner decisions with more than one legal action are answered
   by one batched forward pass (masked logits) and stored: ``obs``, ``mask``, ``action``,
   ``logprob``, ``value``, the (game, seat) key, and ``reward`` = everything the seat receives
   from this decision until its next stored one (its last one gets the hand's end). Forced
   decisions are played, not stored; opponents' decisions are not stored.
3. **Per-seat GAE** (:func:`per_seat_gae`) along each learner seat's own decisions; the hand
   end is terminal (every hand is complete, no truncation).
4. **Update** (:func:`ppo_update`): ``update_epochs`` passes of clipped-surrogate PPO over
   shuffled minibatches with the *stored* masks, value loss (clipped optionally), entropy bonus.

**Backends.** Pure self-play (``pool: [self]``) with the ``settlement`` reward and no oracle
critic rolls out through :func:`baselines.rollout.collect_rollout` (batched inference, the
same games for any split) on ``backend: inprocess`` (one batch env, sharded over
``num_workers`` processes) or ``backend: ray`` (Ray actors, :mod:`baselines.distributed`);
everything else (opponent pool, other rewards, the oracle critic) runs :func:`rollout` in
this process.

With ``oracle_critic`` the values come from a separate critic network reading the env's
``oracle-v0`` based observation (hidden hands and wall included), while the policy reads the
channels of its own encoder (``planes-v0`` first; one encoder call gives both,
:func:`policy_channels`). The critic is used only in training; the policy never sees hidden
information.

BatchNorm layers stay in eval mode throughout (statistics frozen from behaviour cloning), so
the log-probabilities recomputed at update time equal the rollout ones before the first step.

TensorBoard scalars: ``charts/learning_rate``, ``charts/SPS`` (stored decisions per second),
``charts/win_rate``, ``charts/learner_points`` (mean settlement per learner seat per hand),
``charts/mean_win_points``, ``charts/draw_rate``, ``charts/decisions_per_hand``,
``losses/value_loss``, ``losses/policy_loss``, ``losses/entropy``, ``losses/old_approx_kl``,
``losses/approx_kl``, ``losses/kl_ref`` (KL to the starting policy, ``kl_coef``),
``losses/clipfrac``, ``losses/explained_variance``.

**Exploring from BC.** ``policy_temperature`` T divides the starting policy's logits by T
(:func:`soften_policy`: greedy actions unchanged, the sampled ones explore).

**Staying close to BC.** ``value_warmup`` iterations first fit the value head alone (the
policy frozen: the BC value head was fitted to the teacher's self-play, not to the pool);
``kl_coef`` adds a penalty on the KL divergence from the policy PPO started from.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical
from tqdm import tqdm

from baselines.config import EnvConfig, PPOConfig
from baselines.network import PolicyValueNet, save_checkpoint

__all__ = [
    "POOL_ENTRIES",
    "draw_lineups",
    "final_rewards",
    "per_seat_gae",
    "policy_channels",
    "ppo_update",
    "rollout",
    "sample_seed",
    "soften_policy",
    "train_ppo",
]

POOL_ENTRIES = ("self", "rule", "rule-defensive", "rule-lookahead", "random", "past")
"""Valid entries of ``PPOConfig.pool``."""


def policy_channels(env_encoder_id: str, policy_encoder_id: str) -> np.ndarray:
    """Indices of the policy encoder's channels inside the env encoder's observation.

    ``oracle-v0`` = ``planes-v0`` + oracle pieces, so with an oracle critic the env encodes
    ``oracle-v0[+rule-v0]`` once and the policy reads ``planes-v0[+rule-v0]`` from it.

    Raises:
        ValueError: the policy encoder's channels are not contained in the env encoder's.
    """
    from mcr_env.encoding import get_encoder

    if env_encoder_id == policy_encoder_id:
        return np.arange(get_encoder(env_encoder_id).num_channels)
    planes, oracle = get_encoder("planes-v0").num_channels, get_encoder("oracle-v0").num_channels
    if policy_encoder_id == "planes-v0" and env_encoder_id.startswith("oracle-v0"):
        return np.arange(planes)
    feats = policy_encoder_id.removeprefix("planes-v0+")
    if feats in ("rule-v0", "look-v0") and env_encoder_id == f"oracle-v0+{feats}":
        extra = get_encoder(policy_encoder_id).num_channels - planes
        return np.concatenate([np.arange(planes), oracle + np.arange(extra)])
    raise ValueError(f"policy encoder {policy_encoder_id!r} is not part of {env_encoder_id!r}")


def draw_lineups(
    pool: tuple, weights: tuple, num_tables: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Per table, a pool entry and the learner seats.

    Returns:
        ``(entry (B,) int64 index into pool, learner (B, 4) bool)``; ``self`` tables have four
        learner seats, the others one (uniform).

    Raises:
        ValueError: an unknown pool entry or bad weights.
    """
    bad = [e for e in pool if e not in POOL_ENTRIES]
    if not pool or bad:
        raise ValueError(f"pool entries must be in {POOL_ENTRIES}, got {list(pool)}")
    if weights and (len(weights) != len(pool) or min(weights) < 0 or sum(weights) <= 0):
        raise ValueError(f"pool_weights must be {len(pool)} non-negative numbers, got {weights}")
    p = np.asarray(weights if weights else [1.0] * len(pool), dtype=np.float64)
    entry = rng.choice(len(pool), size=num_tables, p=p / p.sum())
    learner = np.zeros((num_tables, 4), dtype=bool)
    is_self = np.array([pool[e] == "self" for e in entry], dtype=bool)
    learner[is_self] = True
    solo = np.flatnonzero(~is_self)
    learner[solo, rng.integers(0, 4, size=solo.size)] = True
    return entry.astype(np.int64), learner


def _act_opponents(env, obs, rows, agent, pol_idx) -> np.ndarray:
    """Actions of ``agent`` for the packed rows ``rows`` of ``obs``."""
    from mcr_env.encoding.seat_view import SeatView

    games, seats = obs["games"][rows], obs["seats"][rows]
    masks = obs["action_mask"][games, seats].view(np.bool_)  # the env's int8 0/1, as bool
    o = obs["observation"][rows][:, pol_idx] if agent.needs_obs else None
    view = SeatView.from_state(env.engine.state, games, seats) if agent.needs_view else None
    return np.asarray(agent.act(o, masks, view), dtype=np.int64)


def rollout(
    net: PolicyValueNet,
    env,
    seed: int,
    gen: torch.Generator,
    learner: np.ndarray | None = None,
    opponents: list | None = None,
    table_opponent: np.ndarray | None = None,
    critic: nn.Module | None = None,
    pol_idx: np.ndarray | None = None,
    reward_scale: float = 1.0,
    device: torch.device | str = "cpu",
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Play one batch of hands to the end, sampling the learner's actions.

    Args:
        net: the policy (eval mode).
        env: a :class:`mcr_env.envs.batch.MCRBatchEnv` with ``autoreset_mode="disabled"`` and
            ``observe="packed"``.
        seed: seed of the deal.
        gen: torch generator for action sampling.
        learner: ``(B, 4) bool`` learner seats (None = all).
        opponents: agents (batched ``act(obs, mask, view)``) of the other seats (None
            entries are skipped).
        table_opponent: ``(B,) int`` index into ``opponents`` per table (-1 = none).
        critic: optional value network on the full observation (oracle critic).
        pol_idx: channels of the observation the policy reads (None = all).
        reward_scale: factor on the env's rewards.
        device: torch device of ``net`` / ``critic``.

    Returns:
        ``(buffer, points)``: buffer arrays of T stored transitions (``obs (T, C, 34)
        float32`` (full env observation), ``mask (T, 235) bool``, ``action (T,) int64``,
        ``logprob (T,) float32``, ``value (T,) float32``, ``reward (T,) float32`` (scaled),
        ``key (T,) int64`` = game * 4 + seat, in time order) and the settlement of the hands
        summed per seat ``(B, 4) float64`` (points).
    """
    obs, _ = env.reset(seed=seed)
    b = env.num_tables
    learner = np.ones((b, 4), dtype=bool) if learner is None else learner
    opponents = opponents or []
    table_opponent = np.full(b, -1) if table_opponent is None else table_opponent
    buf: dict[str, list] = {
        k: [] for k in ("obs", "mask", "action", "logprob", "value", "key", "reward")
    }
    last_idx = np.full((b, 4), -1, dtype=np.int64)
    rewards_t: list[float] = []
    n_stored = 0
    points = np.zeros((b, 4), dtype=np.float64)
    terminated = np.zeros(b, dtype=bool)
    while not bool(terminated.all()):
        games, seats = obs["games"], obs["seats"]
        masks = obs["action_mask"][games, seats].view(np.bool_)  # the env's int8 0/1, as bool
        actions = np.zeros((b, 4), dtype=np.int64)
        is_learner = learner[games, seats]
        for k, agent in enumerate(opponents):
            if agent is None:  # the "self" entry: its tables have no opponent seats
                continue
            rows = np.flatnonzero(~is_learner & (table_opponent[games] == k))
            if rows.size:
                actions[games[rows], seats[rows]] = _act_opponents(
                    env, obs, rows, agent, pol_idx if pol_idx is not None else slice(None)
                )
        free = is_learner & (masks.sum(axis=1) > 1)
        forced = is_learner & ~free
        if forced.any():
            actions[games[forced], seats[forced]] = masks[forced].argmax(axis=1)
        if free.any():
            g, s, m = games[free], seats[free], masks[free]
            o_full = obs["observation"][free]
            o_pol = o_full if pol_idx is None else o_full[:, pol_idx]
            with torch.no_grad():
                logits, values = net(
                    torch.from_numpy(np.ascontiguousarray(o_pol)).to(device),
                    torch.from_numpy(m).to(device),
                )
                if critic is not None:
                    _, values = critic(torch.from_numpy(o_full).to(device))
                a = torch.multinomial(torch.softmax(logits, dim=1), 1, generator=gen)[:, 0]
                logp = Categorical(logits=logits).log_prob(a)
            a_np = a.cpu().numpy().astype(np.int64)
            actions[g, s] = a_np
            buf["obs"].append(o_full)
            buf["mask"].append(m)
            buf["action"].append(a_np)
            buf["logprob"].append(logp.cpu().numpy())
            buf["value"].append(values.cpu().numpy())
            buf["key"].append((g * 4 + s).astype(np.int64))
            last_idx[g, s] = n_stored + np.arange(len(g))
            rewards_t.extend([0.0] * len(g))
            n_stored += len(g)
        obs, rewards, term, _, info = env.step(actions)
        r = np.asarray(rewards, dtype=np.float64) * reward_scale
        got = (last_idx >= 0) & (r != 0)
        for gi, si in zip(*np.nonzero(got)):
            rewards_t[last_idx[gi, si]] += float(r[gi, si])
        terminated |= term
        points += np.asarray(info["settlement"], dtype=np.float64)
    out = {k: np.concatenate(v) for k, v in buf.items() if k != "reward"}
    out["reward"] = np.asarray(rewards_t, dtype=np.float32)
    return out, points


def soften_policy(net: PolicyValueNet, temperature: float) -> PolicyValueNet:
    """Divide the last layer of ``net``'s policy head (weight and bias) by ``temperature`` in
    place, so every logit becomes ``logit / temperature`` (masked logits stay masked): the
    greedy action of every state is unchanged, the softmax is flatter for ``temperature > 1``.

    Returns:
        ``net``.

    Raises:
        ValueError: ``temperature <= 0``.
    """
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    with torch.no_grad():
        net.policy_fc.weight.div_(temperature)
        net.policy_fc.bias.div_(temperature)
    return net


def sample_seed(gen: torch.Generator) -> int:
    """One seed for :func:`baselines.rollout.counter_uniform` drawn from ``gen``."""
    return int(torch.randint(0, 2**62, (1,), generator=gen).item())


def final_rewards(key: np.ndarray, points: np.ndarray, scale: float) -> np.ndarray:
    """``(T,) float32`` per-transition rewards of a settlement-only rollout: each sequence's
    last transition gets ``points (B, 4)`` of its (game, seat) times ``scale``, others 0."""
    reward = np.zeros(len(key), dtype=np.float32)
    if len(key):
        order = np.argsort(key, kind="stable")
        ks = key[order]
        last = np.ones(len(key), dtype=bool)
        last[:-1] = ks[:-1] != ks[1:]
        flat = points.reshape(-1)
        reward[order[last]] = flat[ks[last]] * scale
    return reward


class _SelfPlayRollouts:
    """The fast self-play backends: a batch env here (sharded over ``num_workers``) or Ray
    actors, both through :func:`baselines.rollout.collect_rollout`."""

    def __init__(self, net, cfg: PPOConfig, env: EnvConfig, dev: torch.device):
        from mcr_env.engine.config import RulesConfig

        rules = RulesConfig.from_dict(dict(env.rules))
        self.dev = dev
        self.env = self.ray = self.buffer = None
        if cfg.backend == "inprocess":
            from mcr_env.envs.sharded import default_num_workers, make_batch_env

            workers = default_num_workers() if cfg.num_workers < 0 else cfg.num_workers
            self.env = make_batch_env(
                cfg.num_envs,
                workers,
                config=rules,
                # the shared policy is fed only its own decisions, so the faster skipping
                # claim rounds of the rules leak nothing here (docs/rules.md §10)
                claim_round=rules.claim_round,
                encoder=env.encoder,
                reward="settlement",
                autoreset_mode="disabled",
                observe="packed",
                copy_obs=False,
                backend=cfg.shard_backend,
            )
        else:
            from baselines.distributed import RayRollouts

            self.ray = RayRollouts(
                cfg.num_envs,
                net,
                {
                    "config": rules,
                    "encoder": env.encoder,
                    "claim_round": rules.claim_round,
                    "backend": cfg.shard_backend,
                },
                num_actors=cfg.ray_actors,
                workers_per_actor=max(cfg.num_workers, 0),
                address=cfg.ray_address or None,
                device=str(dev),
            )

    def collect(self, net, seed: int, sample: int):
        """``(buffer, points, winners)`` of one batch of hands (the buffer arrays are
        overwritten by the next call)."""
        from baselines.rollout import RolloutBuffer, collect_rollout

        if self.ray is not None:
            return self.ray.collect(net, seed, sample)
        if self.buffer is None:  # reused: each rollout is consumed before the next one
            self.buffer = RolloutBuffer(self.env.encoder.shape)
        return collect_rollout(net, self.env, seed, sample, self.dev, buffer=self.buffer)

    def close(self) -> None:
        for x in (self.env, self.ray):
            if x is not None and hasattr(x, "close"):
                x.close()


def per_seat_gae(
    key: np.ndarray, value: np.ndarray, reward: np.ndarray, gamma: float, gae_lambda: float
) -> tuple[np.ndarray, np.ndarray]:
    """Generalized advantage estimation along each seat's own decision sequence.

    Args:
        key: ``(T,) int64`` sequence id (game * 4 + seat) of each transition, in time order.
        value: ``(T,) float32`` value estimates.
        reward: ``(T,) float`` reward received after each transition (until the seat's next
            decision); each sequence's last transition is terminal (bootstrap value 0).
        gamma, gae_lambda: discount and GAE lambda.

    Returns:
        ``(advantages (T,) float32, returns (T,) float32)``.
    """
    t = key.shape[0]
    order = np.argsort(key, kind="stable")
    k_sorted = key[order]
    v_sorted = value[order].astype(np.float64)
    r_sorted = np.asarray(reward, dtype=np.float64)[order]
    last = np.ones(t, dtype=bool)
    last[:-1] = k_sorted[:-1] != k_sorted[1:]
    adv_sorted = np.zeros(t, dtype=np.float64)
    gae = 0.0
    for i in range(t - 1, -1, -1):
        if last[i]:
            gae = r_sorted[i] - v_sorted[i]
        else:
            delta = r_sorted[i] + gamma * v_sorted[i + 1] - v_sorted[i]
            gae = delta + gamma * gae_lambda * gae
        adv_sorted[i] = gae
    adv = np.empty(t, dtype=np.float32)
    adv[order] = adv_sorted
    ret = adv + value.astype(np.float32)
    return adv, ret


def ppo_update(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    buf: dict[str, np.ndarray],
    adv: np.ndarray,
    ret: np.ndarray,
    cfg: PPOConfig,
    rng: np.random.Generator,
    critic: nn.Module | None = None,
    pol_idx: np.ndarray | None = None,
    device: torch.device | str = "cpu",
    reference: nn.Module | None = None,
    value_only: bool = False,
) -> dict:
    """``cfg.update_epochs`` epochs of clipped PPO on one rollout; returns the last
    minibatch's losses (``kl_ref``: the mean ``KL(policy || reference)`` over legal actions,
    0 without a reference) and the mean clip fraction.

    ``reference``: a frozen policy; with ``cfg.kl_coef > 0`` the loss adds ``cfg.kl_coef x``
    the mean KL from the current policy to it. ``value_only``: the loss is the value loss
    alone (the value-warm-up iterations; the optimizer should then hold only value-head or
    critic parameters)."""
    t = len(buf["action"])
    obs_full = torch.from_numpy(buf["obs"])
    obs_pol = obs_full if pol_idx is None else torch.from_numpy(buf["obs"][:, pol_idx])
    mask_t = torch.from_numpy(buf["mask"])
    act_t = torch.from_numpy(buf["action"])
    logp_t = torch.from_numpy(buf["logprob"])
    val_t = torch.from_numpy(buf["value"])
    adv_t = torch.from_numpy(adv)
    ret_t = torch.from_numpy(ret)
    clipfracs = []
    out: dict = {}
    for _epoch in range(cfg.update_epochs):
        order = rng.permutation(t)
        for s in range(0, t, cfg.minibatch_size):
            mb = torch.from_numpy(order[s : s + cfg.minibatch_size])
            logits, newvalue = net(obs_pol[mb].to(device), mask_t[mb].to(device))
            if critic is not None:
                _, newvalue = critic(obs_full[mb].to(device))
            dist = Categorical(logits=logits)
            newlogp = dist.log_prob(act_t[mb].to(device))
            entropy = dist.entropy()
            logratio = newlogp - logp_t[mb].to(device)
            ratio = logratio.exp()
            with torch.no_grad():
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
            mb_adv = adv_t[mb].to(device)
            if cfg.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(
                -mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)
            ).mean()
            r_mb, v_mb = ret_t[mb].to(device), val_t[mb].to(device)
            if cfg.clip_vloss:
                v_clipped = v_mb + torch.clamp(newvalue - v_mb, -cfg.clip_coef, cfg.clip_coef)
                v_loss = 0.5 * torch.max((newvalue - r_mb) ** 2, (v_clipped - r_mb) ** 2).mean()
            else:
                v_loss = 0.5 * ((newvalue - r_mb) ** 2).mean()
            entropy_loss = entropy.mean()
            kl_ref = torch.zeros((), device=logits.device)
            if reference is not None and cfg.kl_coef > 0 and not value_only:
                with torch.no_grad():
                    ref_logits, _ = reference(obs_pol[mb].to(device), mask_t[mb].to(device))
                logp_all = torch.log_softmax(logits, dim=1)
                ref_all = torch.log_softmax(ref_logits, dim=1)
                legal = mask_t[mb].to(device).bool()  # stored masks may be int8
                terms = torch.where(legal, logp_all.exp() * (logp_all - ref_all), 0.0)
                kl_ref = terms.sum(dim=1).mean()
            if value_only:
                loss = cfg.vf_coef * v_loss
            else:
                loss = (
                    pg_loss
                    - cfg.ent_coef * entropy_loss
                    + cfg.vf_coef * v_loss
                    + cfg.kl_coef * kl_ref
                )
            optimizer.zero_grad()
            loss.backward()
            params = [p for g in optimizer.param_groups for p in g["params"]]
            nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
            optimizer.step()
            out = {
                "policy_loss": float(pg_loss.item()),
                "value_loss": float(v_loss.item()),
                "entropy": float(entropy_loss.item()),
                "old_approx_kl": float(old_approx_kl.item()),
                "approx_kl": float(approx_kl.item()),
                "kl_ref": float(kl_ref.item()),
            }
    out["clipfrac"] = float(np.mean(clipfracs)) if clipfracs else 0.0
    return out


def _make_opponent(entry: str, seed: int):
    from baselines.agents import LookaheadAgent, RandomAgent, RuleBasedAgent

    if entry == "rule-lookahead":
        return LookaheadAgent(name="pool-rule-lookahead")
    if entry == "rule":
        return RuleBasedAgent(name="pool-rule")
    if entry == "rule-defensive":
        return RuleBasedAgent(defensive=True, name="pool-rule-defensive")
    if entry == "random":
        return RandomAgent(seed=seed, name="pool-random")
    return None


def train_ppo(
    net: PolicyValueNet,
    cfg: PPOConfig,
    env: EnvConfig,
    seed: int,
    writer=None,
    checkpoint_dir: str | Path | None = None,
    progress: bool = True,
    device: torch.device | str | None = None,
    callback: Callable[[int, PolicyValueNet], None] | None = None,
) -> dict:
    """Train ``net`` in place with PPO against the pool; returns summary statistics.

    Args:
        net: the shared policy (e.g. after behaviour cloning), on ``device``.
        cfg: PPO hyper-parameters (:class:`baselines.config.PPOConfig`).
        env: encoder id, reward (``env.reward``, ``env.reward_kwargs``, ``env.reward_scale``)
            and engine rule overrides.
        seed: root seed (deals ``seed * 100_003 + iteration``, pool draws, action sampling).
        writer: optional TensorBoard ``SummaryWriter``.
        checkpoint_dir: where ``ppo_<iteration>.pt`` checkpoints go (None = no checkpoints).
        device: torch device of ``net`` (None = ``cfg.device``).
        callback: called as ``callback(iteration, net)`` after every iteration (e.g. the
            learning-curve evaluation of :mod:`baselines.train`).

    Raises:
        ValueError: ``cfg.iterations < 0``, ``cfg.num_envs < 1``, a bad pool, an unknown
            ``cfg.backend``, or ``backend: ray`` with a pool, another reward or the oracle
            critic (those roll out in this process).
    """
    from baselines.rollout import resolve_device
    from mcr_env.engine.config import RulesConfig
    from mcr_env.envs.batch import MCRBatchEnv

    if cfg.iterations < 0 or cfg.num_envs < 1:
        raise ValueError(f"iterations must be >= 0 and num_envs >= 1, got {cfg}")
    if not cfg.policy_temperature > 0:
        raise ValueError(f"ppo.policy_temperature must be > 0, got {cfg.policy_temperature}")
    if cfg.backend not in ("inprocess", "ray"):
        raise ValueError(f"ppo.backend {cfg.backend!r} not valid; valid: inprocess, ray")
    from mcr_env.envs.sharded import BACKENDS

    if cfg.shard_backend not in BACKENDS:
        raise ValueError(
            f"ppo.shard_backend {cfg.shard_backend!r} not valid; valid: {', '.join(BACKENDS)}"
        )
    draw_lineups(tuple(cfg.pool), tuple(cfg.pool_weights), 1, np.random.default_rng(0))
    fast = (
        tuple(cfg.pool) == ("self",)
        and not cfg.oracle_critic
        and env.reward == "settlement"
        and not env.reward_kwargs
    )
    if cfg.backend == "ray" and not fast:
        raise ValueError(
            "ppo.backend ray runs pure self-play with the settlement reward only; use "
            "backend: inprocess for ppo.pool, env.reward or ppo.oracle_critic"
        )
    device = resolve_device(cfg.device) if device is None else torch.device(device)
    if cfg.iterations > 0 and cfg.policy_temperature != 1.0:
        soften_policy(net, cfg.policy_temperature)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    env_encoder = env.encoder
    if cfg.oracle_critic:
        env_encoder = env.encoder.replace("planes-v0", "oracle-v0", 1)
    pol_idx = policy_channels(env_encoder, env.encoder)
    if len(pol_idx) == 0 or env_encoder == env.encoder:
        pol_idx = None
    if fast:
        net.to(device)
        backend = _SelfPlayRollouts(net, cfg, env, device)
        try:
            return _iterations(
                net,
                cfg,
                env,
                seed,
                writer,
                checkpoint_dir,
                progress,
                device,
                callback,
                gen,
                rng,
                backend=backend,
            )
        finally:
            backend.close()
    rules = RulesConfig.from_dict(dict(env.rules))
    batch_env = MCRBatchEnv(
        cfg.num_envs,
        config=rules,
        claim_round=rules.claim_round,  # as the fast path: the rules' own (docs/rules.md §10)
        encoder=env_encoder,
        reward=env.reward,
        reward_kwargs=dict(env.reward_kwargs),
        autoreset_mode="disabled",
        observe="packed",
    )
    return _iterations(
        net,
        cfg,
        env,
        seed,
        writer,
        checkpoint_dir,
        progress,
        device,
        callback,
        gen,
        rng,
        batch_env=batch_env,
        pol_idx=pol_idx,
        env_encoder=env_encoder,
    )


def _pool_rollout(
    net,
    cfg,
    env,
    seed,
    iteration,
    deal,
    gen,
    rng,
    batch_env,
    opponents,
    past_net,
    critic,
    pol_idx,
    device,
):
    """One in-process rollout against lineups drawn from the pool: ``(buffer, points,
    winners (B,), learner (B, 4) bool)``."""
    from baselines.agents import TorchPolicyAgent

    pool = tuple(cfg.pool)
    entry, learner = draw_lineups(pool, tuple(cfg.pool_weights), cfg.num_envs, rng)
    agents = [
        TorchPolicyAgent(past_net, greedy=False, seed=seed + iteration, name="pool-past")
        if e == "past"
        else opponents[k]
        for k, e in enumerate(pool)
    ]
    table_opp = np.where(np.array([pool[e] == "self" for e in entry]), -1, entry)
    buf, points = rollout(
        net,
        batch_env,
        deal,
        gen,
        learner,
        agents,
        table_opp,
        critic,
        pol_idx,
        env.reward_scale,
        device,
    )
    return buf, points, batch_env.engine.state.winner.copy(), learner


def _iterations(
    net,
    cfg,
    env,
    seed,
    writer,
    checkpoint_dir,
    progress,
    device,
    callback,
    gen,
    rng,
    backend=None,
    batch_env=None,
    pol_idx=None,
    env_encoder=None,
) -> dict:
    """The iterations of :func:`train_ppo`: ``backend`` (fast self-play) or the in-process
    pool rollouts on ``batch_env``."""
    critic = None
    params = list(net.parameters())
    if cfg.oracle_critic and batch_env is not None:
        critic = PolicyValueNet(batch_env.encoder.num_channels, net.config, encoder=env_encoder)
        critic.to(device).eval()
        params += list(critic.parameters())
    optimizer = torch.optim.Adam(params, lr=cfg.lr, eps=1e-5)
    value_params = (
        list(critic.parameters())
        if critic is not None
        else [*net.value_conv.parameters(), *net.value_fc.parameters()]
    )
    value_optimizer = torch.optim.Adam(value_params, lr=cfg.lr, eps=1e-5)
    reference = copy.deepcopy(net).eval() if cfg.kl_coef > 0 else None
    if reference is not None:
        for p in reference.parameters():
            p.requires_grad_(False)
    pool = tuple(cfg.pool)
    opponents = [_make_opponent(e, seed + k) for k, e in enumerate(pool)]
    past_net = copy.deepcopy(net).eval()
    net.eval()  # BatchNorm statistics stay frozen (see module docstring)
    global_step = 0
    start = time.time()
    summary: dict = {}
    bar = tqdm(range(1, cfg.iterations + 1), desc="PPO", unit="it", disable=not progress)
    for iteration in bar:
        if cfg.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / cfg.iterations
            optimizer.param_groups[0]["lr"] = frac * cfg.lr
        # ---- rollout: complete hands against the drawn lineups
        deal = seed * 100_003 + iteration
        if backend is not None:
            buf, points, winners = backend.collect(net, deal, sample_seed(gen))
            buf["reward"] = final_rewards(buf["key"], points, env.reward_scale)
            learner = np.ones(points.shape, dtype=bool)
        else:
            buf, points, winners, learner = _pool_rollout(
                net,
                cfg,
                env,
                seed,
                iteration,
                deal,
                gen,
                rng,
                batch_env,
                opponents,
                past_net,
                critic,
                pol_idx,
                device,
            )
        t = len(buf["action"])
        global_step += t
        adv, ret = per_seat_gae(buf["key"], buf["value"], buf["reward"], cfg.gamma, cfg.gae_lambda)
        won = winners >= 0
        win_pts = points[np.nonzero(won)[0], winners[won]] if won.any() else np.zeros(0)
        warm = iteration <= cfg.value_warmup
        losses = ppo_update(
            net,
            value_optimizer if warm else optimizer,
            buf,
            adv,
            ret,
            cfg,
            rng,
            critic,
            pol_idx,
            device,
            reference=reference,
            value_only=warm,
        )
        var_y = float(np.var(ret))
        explained_var = np.nan if var_y == 0 else 1 - float(np.var(ret - buf["value"])) / var_y
        sps = global_step / max(time.time() - start, 1e-9)
        summary = {
            "iteration": iteration,
            "decisions": global_step,
            "win_rate": float(won.mean()),
            "learner_points": float(points[learner].mean()),
            "mean_win_points": float(win_pts.mean()) if win_pts.size else float("nan"),
            "draw_rate": float((~won).mean()),
            **losses,
            "seconds": time.time() - start,
        }
        if writer is not None:
            writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
            writer.add_scalar("charts/win_rate", summary["win_rate"], global_step)
            writer.add_scalar("charts/learner_points", summary["learner_points"], global_step)
            if win_pts.size:
                writer.add_scalar("charts/mean_win_points", summary["mean_win_points"], global_step)
            writer.add_scalar("charts/draw_rate", summary["draw_rate"], global_step)
            writer.add_scalar("charts/decisions_per_hand", t / cfg.num_envs, global_step)
            for k in (
                "value_loss",
                "policy_loss",
                "entropy",
                "old_approx_kl",
                "approx_kl",
                "kl_ref",
            ):
                writer.add_scalar(f"losses/{k}", losses[k], global_step)
            writer.add_scalar("losses/clipfrac", losses["clipfrac"], global_step)
            writer.add_scalar("losses/explained_variance", explained_var, global_step)
        bar.set_postfix(pts=f"{summary['learner_points']:+.2f}", sps=f"{sps:.0f}")
        if iteration % cfg.checkpoint_every == 0 or iteration == cfg.iterations:
            past_net = copy.deepcopy(net).eval()
            if checkpoint_dir is not None:
                save_checkpoint(
                    net, Path(checkpoint_dir) / f"ppo_{iteration}.pt", {"iteration": iteration}
                )
        if callback is not None:
            callback(iteration, net)
    return summary

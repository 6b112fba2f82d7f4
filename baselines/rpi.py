"""Rollout policy improvement (RPI): Monte Carlo policy iteration on the learner's own states.

An RL stage after behaviour cloning that replaces PPO's noisy per-hand returns by paired
*branch* rollouts (approximate policy iteration with rollouts, as in Bertsekas' rollout
algorithms and Lagoudakis & Parr's classification-based policy iteration). One round of
:func:`train_rpi`:

1. **Trunk hands** (:func:`collect_branches`). The learner (the current policy, greedy) sits
   at one seat (drawn per table) against three copies of an opponent (``rpi.opponents``, drawn
   per table). Every learner decision with more than one legal action is recorded
   (observation, mask, the policy's action ``a0``, its ``top_k`` most probable legal actions).
   With probability ``branch_prob`` a decision becomes a *branch point*: the engine state
   just before that step is saved.
2. **Branches.** From every branch point each other candidate ``a`` (the ``top_k - 1``
   alternatives) is played once: the saved state is loaded into an engine
   (:meth:`mcr_env.engine.core.MCREngine.load_state`), the learner plays ``a`` at that
   decision and then its greedy policy again, the opponents play as before, to the end of the
   hand. The sample is ``d = points(a) - points(a0)`` of the learner's seat: the same wall and
   the same hidden hands in both (common random numbers), so the deal's luck cancels. All
   agents are deterministic, so replaying ``a0`` gives the trunk's own result exactly (a test
   checks it).
3. **Advantage network** (:func:`fit_advantage`). A :class:`baselines.network.PolicyValueNet`
   (trunk copied from the policy, policy head zeroed so it starts at A = 0) whose 235 outputs
   ``A(s, .)`` are fitted (Huber loss) so that ``A(s, a) - A(s, a0) ~ d x reward_scale``.
   Hidden information enters only these training targets; ``A`` reads the seat's own
   observation. Because the deal is a sample of everything the seat cannot see given what it
   saw, ``E[d | observation]`` is the advantage of ``a`` over ``a0`` under the rollout policy:
   the regression is unbiased, while labelling each state with its per-deal best action would
   favour actions that were lucky on that deal. The fit is checked on held-out hands
   (``r2_val``: 1 - MSE / MSE of predicting 0).
4. **Improvement and distillation** (:func:`improve_labels`, :func:`distill`). Every recorded
   trunk decision is relabelled with the candidate of largest ``A`` when it beats ``a0`` by
   more than ``margin`` points (else ``a0`` stays), and the policy is fine-tuned from its own
   weights by masked cross-entropy to those labels (BatchNorm statistics frozen).

The branch rollouts use the true wall only to score training targets; the trained policy
reads only its observation (docs/rules.md §10, information). Decisions with one legal action
are played, not recorded.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from baselines.bc import decision_kinds
from baselines.network import PolicyValueNet

__all__ = [
    "RPI_OPPONENTS",
    "BranchData",
    "collect_branches",
    "distill",
    "fit_advantage",
    "improve_labels",
    "train_rpi",
]


RPI_OPPONENTS = ("rule", "rule-defensive", "rule-lookahead")
"""Valid ``rpi.opponents``: deterministic agents (a replayed branch must equal its trunk)."""


@dataclass
class BranchData:
    """Trunk decisions (T rows) and branch samples (P rows) of :func:`collect_branches`."""

    obs: np.ndarray
    """(T, C, 34) float16: the learner's observation at each recorded decision."""
    mask: np.ndarray
    """(T, 235) bool: its legal actions."""
    action: np.ndarray
    """(T,) int64: the action the policy played (``a0``)."""
    cand: np.ndarray
    """(T, K) int64: the policy's K most probable legal actions (-1 = fewer legal actions);
    ``cand[:, 0] == action``."""
    hand: np.ndarray
    """(T,) int64: trunk hand (table) index of the decision."""
    points: np.ndarray
    """(H,) float64: the learner's settlement of each trunk hand, in points."""
    pair_row: np.ndarray
    """(P,) int64: trunk decision (row of ``obs``) each branch starts from."""
    pair_action: np.ndarray
    """(P,) int64: the alternative action played there."""
    pair_diff: np.ndarray
    """(P,) float64: learner points of the branch minus the trunk's, same hand (points)."""
    hands: int
    """H, trunk hands played."""


class _Learner:
    """Greedy policy agent for the rollouts: optional forced first actions (branches) and a
    recorder of the trunk decisions with state snapshots at branch points."""

    needs_obs = True
    needs_view = False
    needs_ids = True

    def __init__(self, net, top_k: int, name: str = "rpi-learner") -> None:
        self.net = net
        self.top_k = int(top_k)
        self.name = name
        self.engine = None
        self.forced: np.ndarray | None = None  # (G,) action to force at `forced_seat`, -1 done
        self.forced_seat: np.ndarray | None = None
        self.branch_prob = 0.0
        self.claim_branch_prob = 0.0
        self.rng: np.random.Generator | None = None
        self.rec: dict[str, list] | None = None

    def act(self, obs, mask, view=None, games=None, seats=None) -> np.ndarray:
        if len(mask) == 0:
            return np.zeros(0, dtype=np.int64)
        with torch.no_grad():
            logits, _ = self.net(
                torch.as_tensor(np.asarray(obs, dtype=np.float32)), torch.as_tensor(mask)
            )
        k = min(self.top_k, mask.shape[1])
        top = torch.topk(logits, k, dim=1).indices.numpy().astype(np.int64)
        a = top[:, 0].copy()
        if self.forced is not None:
            f = self.forced[games]
            hit = (f >= 0) & (self.forced_seat[games] == seats)
            if hit.any():
                a[hit] = f[hit]
                self.forced[games[hit]] = -1
        if self.rec is not None:
            n_legal = mask.sum(axis=1)
            free = np.flatnonzero(n_legal > 1)
            if free.size:
                cand = top[free].copy()
                cand[np.arange(k)[None, :] >= n_legal[free, None]] = -1
                prob = np.where(
                    decision_kinds(mask[free]) == 1, self.claim_branch_prob, self.branch_prob
                )
                branch = self.rng.random(free.size) < prob
                self.rec["obs"].append(np.asarray(obs)[free].astype(np.float16))
                self.rec["mask"].append(np.asarray(mask)[free].astype(bool))
                self.rec["action"].append(a[free])
                self.rec["cand"].append(cand)
                self.rec["game"].append(games[free].astype(np.int64))
                self.rec["seat"].append(seats[free].astype(np.int64))
                self.rec["branch"].append(branch)
                if branch.any():
                    st = self.engine.state
                    g = games[free][branch]
                    self.rec["snap"].append(
                        {f.name: getattr(st, f.name)[g].copy() for f in dataclasses.fields(st)}
                    )
        return a


def _play_branches(
    snaps: dict[str, np.ndarray],
    seats: np.ndarray,
    forced: np.ndarray,
    agent_index: np.ndarray,
    agents: list,
    learner: _Learner,
    rules,
    encoder,
    batch_size: int,
) -> np.ndarray:
    """Play every saved state to the end with ``forced[i]`` at the learner's (seat ``seats[i]``)
    first decision; ``(N,) float64`` learner points."""
    from mcr_env.engine.core import MCREngine
    from mcr_env.engine.state import GameState
    from mcr_env.eval.play import play_games

    n = len(forced)
    out = np.zeros(n, dtype=np.float64)
    for s in range(0, n, batch_size):
        sl = slice(s, min(s + batch_size, n))
        m = sl.stop - sl.start
        state = GameState.empty(m)
        for name, arr in snaps.items():
            np.copyto(getattr(state, name), arr[sl])
        engine = MCREngine(m, config=rules)
        engine.load_state(state, copy=False)
        learner.forced = forced[sl].copy()
        learner.forced_seat = seats[sl].copy()
        points = play_games(engine, agents, agent_index[sl], encoder)
        learner.forced = learner.forced_seat = None
        out[sl] = points[np.arange(m), seats[sl]]
    return out


def collect_branches(
    net: PolicyValueNet,
    hands: int,
    opponents: list,
    opponent_weights: tuple,
    rules,
    encoder,
    seed: int,
    top_k: int = 3,
    branch_prob: float = 0.25,
    batch_size: int = 256,
    progress: bool = False,
    claim_branch_prob: float | None = None,
) -> BranchData:
    """Play ``hands`` trunk hands (the learner, greedy, at a random seat against three copies
    of an opponent drawn per table) and the branch rollouts of their branch points.

    Args:
        net: the policy (eval mode; not changed).
        hands: trunk hands H (>= 1).
        opponents: deterministic agents (e.g. ``RuleBasedAgent``), one drawn per table.
        opponent_weights: draw weights of ``opponents`` (empty = uniform).
        rules: ``RulesConfig``; encoder: the policy's encoder object.
        seed: seed of the deals (``engine.reset(seed=seed + chunk)``), seats and draws.
        top_k: candidates per decision (the policy's action and ``top_k - 1`` alternatives).
        branch_prob: probability that a recorded decision becomes a branch point.
        claim_branch_prob: the same for claim-round decisions (Chi/Peng/Gang or Pass, no Hu
            option; ``baselines.bc.decision_kinds``); None = ``branch_prob``.
        batch_size: games played in parallel.

    Returns:
        :class:`BranchData`.

    Raises:
        ValueError: ``hands < 1``, ``top_k < 2``, ``branch_prob`` outside [0, 1], no opponent.
    """
    from mcr_env.engine.core import MCREngine
    from mcr_env.eval.play import play_games

    claim_branch_prob = branch_prob if claim_branch_prob is None else claim_branch_prob
    probs_ok = 0.0 <= branch_prob <= 1.0 and 0.0 <= claim_branch_prob <= 1.0
    if hands < 1 or top_k < 2 or not probs_ok or not opponents:
        raise ValueError(
            f"need hands >= 1, top_k >= 2, branch probabilities in [0, 1] and an opponent; "
            f"got {hands}, {top_k}, {branch_prob}, {claim_branch_prob}, {len(opponents)} "
            "opponents"
        )
    rng = np.random.default_rng(seed)
    p = np.asarray(opponent_weights or [1.0] * len(opponents), dtype=np.float64)
    if len(p) != len(opponents) or (p < 0).any() or p.sum() <= 0:
        raise ValueError(f"opponent_weights must be {len(opponents)} weights >= 0, got {p}")
    learner = _Learner(net, top_k)
    learner.branch_prob, learner.rng = float(branch_prob), rng
    learner.claim_branch_prob = float(claim_branch_prob)
    agents = [learner, *opponents]
    keys = ("obs", "mask", "action", "cand", "hand", "prow", "pact", "pdiff")
    acc: dict[str, list] = {k: [] for k in keys}
    hand_points = np.zeros(hands, dtype=np.float64)
    n_rows = 0
    bar = tqdm(total=hands, desc="RPI rollouts", unit="hand", disable=not progress)
    for chunk, start in enumerate(range(0, hands, batch_size)):
        g = min(batch_size, hands - start)
        seat = rng.integers(0, 4, size=g)
        opp = 1 + rng.choice(len(opponents), size=g, p=p / p.sum())
        agent_index = np.repeat(opp[:, None], 4, axis=1)
        agent_index[np.arange(g), seat] = 0
        engine = MCREngine(g, config=rules)
        engine.reset(seed=seed + chunk)
        learner.engine = engine
        learner.rec = {
            k: [] for k in ("obs", "mask", "action", "cand", "game", "seat", "branch", "snap")
        }
        points = play_games(engine, agents, agent_index, encoder)
        rec, learner.rec = learner.rec, None
        hand_points[start : start + g] = points[np.arange(g), seat]
        if not rec["action"]:
            bar.update(g)
            continue
        cat = {k: np.concatenate(rec[k]) for k in rec if k != "snap"}
        t = len(cat["action"])
        for k in ("obs", "mask", "action", "cand"):
            acc[k].append(cat[k])
        acc["hand"].append(start + cat["game"])
        rows = np.flatnonzero(cat["branch"])
        if rows.size:
            snaps = {k: np.concatenate([s[k] for s in rec["snap"]]) for k in rec["snap"][0]}
            alt = cat["cand"][rows, 1:]  # (R, K-1)
            r_idx, k_idx = np.nonzero(alt >= 0)
            if r_idx.size:
                sub = {k: v[r_idx] for k, v in snaps.items()}
                games = cat["game"][rows][r_idx]
                got = _play_branches(
                    sub,
                    cat["seat"][rows][r_idx],
                    alt[r_idx, k_idx],
                    agent_index[games],
                    agents,
                    learner,
                    rules,
                    encoder,
                    batch_size,
                )
                acc["prow"].append(n_rows + rows[r_idx])
                acc["pact"].append(alt[r_idx, k_idx])
                acc["pdiff"].append(got - points[games, cat["seat"][rows][r_idx]])
        n_rows += t
        bar.update(g)
    bar.close()
    learner.engine = None

    def cat_or(k, shape, dtype):
        return np.concatenate(acc[k]) if acc[k] else np.zeros(shape, dtype=dtype)

    return BranchData(
        obs=cat_or("obs", (0, encoder.num_channels, 34), np.float16),
        mask=cat_or("mask", (0, 235), bool),
        action=cat_or("action", (0,), np.int64),
        cand=cat_or("cand", (0, top_k), np.int64),
        hand=cat_or("hand", (0,), np.int64),
        points=hand_points,
        pair_row=cat_or("prow", (0,), np.int64),
        pair_action=cat_or("pact", (0,), np.int64),
        pair_diff=cat_or("pdiff", (0,), np.float64),
        hands=hands,
    )


def _split_hands(hands: int, val_fraction: float, seed: int) -> np.ndarray:
    """``(H,) bool``: the held-out hands (a random ``val_fraction`` of them)."""
    rng = np.random.default_rng(seed + 11)
    val = np.zeros(hands, dtype=bool)
    val[rng.permutation(hands)[: int(round(val_fraction * hands))]] = True
    return val


def fit_advantage(
    net: PolicyValueNet,
    data: BranchData,
    reward_scale: float,
    epochs: int = 4,
    lr: float = 1e-3,
    batch_size: int = 256,
    huber: float = 0.5,
    val_fraction: float = 0.1,
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> tuple[PolicyValueNet, dict]:
    """Fit the advantage network on the branch samples.

    The network is a copy of ``net`` with its policy head's last layer zeroed (A = 0 at the
    start); its 235 raw outputs are ``A(s, .)``. The loss is the Huber loss (``huber``, in
    scaled points) of ``A(s, a) - A(s, a0)`` against ``d x reward_scale``; BatchNorm
    statistics stay frozen. Held-out hands (``val_fraction``, split by hand) give ``r2_val``
    = 1 - MSE / mean(target^2) (0 = no better than predicting no advantage); the weights of
    the epoch with the lowest held-out MSE are kept (the last epoch without held-out hands).

    Returns:
        ``(advantage net in eval mode, stats)``; stats: ``pairs``, ``r2_train``, ``r2_val``
        (NaN without held-out pairs), ``epoch`` kept, ``seconds``.
    """
    device = torch.device(device)
    t0 = time.time()
    anet = copy.deepcopy(net).to(device).eval()
    with torch.no_grad():
        anet.policy_fc.weight.zero_()
        anet.policy_fc.bias.zero_()
    val_hand = _split_hands(data.hands, val_fraction, seed)
    is_val = val_hand[data.hand[data.pair_row]]
    tr, va = np.flatnonzero(~is_val), np.flatnonzero(is_val)
    target = (data.pair_diff * reward_scale).astype(np.float32)
    opt = torch.optim.Adam(anet.parameters(), lr=lr, weight_decay=1e-5)
    rng = np.random.default_rng(seed)

    def pred(idx: np.ndarray) -> torch.Tensor:
        rows = data.pair_row[idx]
        a_out, _ = anet(torch.from_numpy(data.obs[rows]).float().to(device))
        ar = torch.arange(len(idx), device=device)
        alt = torch.from_numpy(data.pair_action[idx]).to(device)
        base = torch.from_numpy(data.action[rows]).to(device)
        return a_out[ar, alt] - a_out[ar, base]

    def mse(idx: np.ndarray) -> float:
        if len(idx) == 0:
            return float("nan")
        tot = 0.0
        with torch.no_grad():
            for s in range(0, len(idx), 2048):
                j = idx[s : s + 2048]
                tot += float(((pred(j) - torch.from_numpy(target[j]).to(device)) ** 2).sum())
        return tot / len(idx)

    def r2(idx: np.ndarray) -> float:
        if len(idx) == 0:
            return float("nan")
        return 1.0 - mse(idx) / max(float(np.mean(target[idx].astype(np.float64) ** 2)), 1e-12)

    best = (mse(va), 0, copy.deepcopy(anet.state_dict()))
    loss_fn = nn.HuberLoss(delta=huber)
    for epoch in range(1, epochs + 1):
        order = tr[rng.permutation(len(tr))]
        for s in range(0, len(order), batch_size):
            j = order[s : s + batch_size]
            loss = loss_fn(pred(j), torch.from_numpy(target[j]).to(device))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(anet.parameters(), 1.0)
            opt.step()
        v = mse(va)
        if len(va) == 0 or v < best[0]:
            best = (v, epoch, copy.deepcopy(anet.state_dict()))
    anet.load_state_dict(best[2])
    anet.eval()
    stats = {
        "pairs": int(len(target)),
        "r2_train": r2(tr),
        "r2_val": r2(va),
        "epoch": int(best[1]),
        "seconds": time.time() - t0,
    }
    return anet, stats


def improve_labels(
    anet: PolicyValueNet,
    data: BranchData,
    margin: float,
    reward_scale: float,
    device: str | torch.device = "cpu",
) -> np.ndarray:
    """``(T,) int64`` improved action of every trunk decision: the candidate (``data.cand``)
    of largest ``A`` if ``A(s, a) - A(s, a0) > margin x reward_scale`` (``margin`` in
    points), else the policy's own action ``a0``."""
    device = torch.device(device)
    out = data.action.copy()
    with torch.no_grad():
        for s in range(0, len(out), 2048):
            sl = slice(s, s + 2048)
            a_out, _ = anet(torch.from_numpy(data.obs[sl]).float().to(device))
            a_out = a_out.cpu().numpy()
            cand = data.cand[sl]
            vals = np.where(cand >= 0, np.take_along_axis(a_out, np.maximum(cand, 0), 1), -np.inf)
            gain = vals - vals[:, :1]
            j = gain.argmax(axis=1)
            better = gain[np.arange(len(j)), j] > margin * reward_scale
            out[sl][better] = cand[np.arange(len(j)), j][better]
    return out


def distill(
    net: PolicyValueNet,
    data: BranchData,
    labels: np.ndarray,
    epochs: int = 2,
    lr: float = 3e-4,
    batch_size: int = 256,
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> dict:
    """Fine-tune ``net`` in place by masked cross-entropy to ``labels`` on the trunk
    decisions (BatchNorm statistics frozen); returns ``accuracy`` on the labels overall and
    ``accuracy_changed`` on the relabelled decisions, and ``seconds``."""
    device = torch.device(device)
    t0 = time.time()
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    ce = nn.CrossEntropyLoss()
    net.eval()
    n = len(labels)
    for _epoch in range(epochs):
        order = rng.permutation(n)
        for s in range(0, n, batch_size):
            j = order[s : s + batch_size]
            logits, _ = net(
                torch.from_numpy(data.obs[j]).float().to(device),
                torch.from_numpy(data.mask[j]).to(device),
            )
            loss = ce(logits, torch.from_numpy(labels[j]).to(device))
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
    pred = np.zeros(n, dtype=np.int64)
    with torch.no_grad():
        for s in range(0, n, 2048):
            logits, _ = net(
                torch.from_numpy(data.obs[s : s + 2048]).float().to(device),
                torch.from_numpy(data.mask[s : s + 2048]).to(device),
            )
            pred[s : s + 2048] = logits.argmax(1).cpu().numpy()
    changed = labels != data.action
    return {
        "accuracy": float((pred == labels).mean()) if n else float("nan"),
        "accuracy_changed": float((pred[changed] == labels[changed]).mean())
        if changed.any()
        else float("nan"),
        "seconds": time.time() - t0,
    }


def _make_opponent(name: str):
    from baselines.agents import LookaheadAgent, RuleBasedAgent

    if name == "rule":
        return RuleBasedAgent(name="rpi-rule")
    if name == "rule-defensive":
        return RuleBasedAgent(defensive=True, name="rpi-rule-defensive")
    if name == "rule-lookahead":
        return LookaheadAgent(name="rpi-rule-lookahead")
    raise ValueError(
        f"rpi.opponents: {name!r} is not a deterministic opponent; valid: "
        f"{', '.join(RPI_OPPONENTS)}"
    )


def train_rpi(
    net: PolicyValueNet,
    cfg,
    env,
    seed: int,
    writer=None,
    progress: bool = True,
    device: str | torch.device = "cpu",
    callback=None,
) -> dict:
    """``cfg.rounds`` rounds of rollout policy improvement on ``net`` (in place).

    Args:
        net: the policy (e.g. after behaviour cloning); its encoder must be ``env.encoder``.
        cfg: :class:`baselines.config.RPIConfig`.
        env: :class:`baselines.config.EnvConfig` (encoder, rules, ``reward_scale``).
        seed: root seed; round r deals from ``seed * 1_000_003 + r * 10_007`` (chunk c adds c).
        writer: optional TensorBoard ``SummaryWriter`` (``rpi/...`` scalars per round).
        callback: ``callback(round, net)`` after each round (learning-curve points).

    Returns:
        ``{"rounds": [per-round stats]}``: trunk hands and decisions, branch pairs, the share
        of pairs with a different result, the learner's mean trunk points, the advantage fit
        (``r2_train``, ``r2_val``), the share of relabelled decisions, distillation accuracy,
        seconds.

    Raises:
        ValueError: bad sizes or an opponent that is not deterministic.
    """
    from mcr_env.encoding import get_encoder
    from mcr_env.engine.config import RulesConfig

    if cfg.rounds < 0 or cfg.hands < 1:
        raise ValueError(f"rpi.rounds must be >= 0 and rpi.hands >= 1, got {cfg}")
    opponents = [_make_opponent(n) for n in cfg.opponents]
    rules = RulesConfig.from_dict(dict(env.rules))
    encoder = get_encoder(env.encoder)
    device = torch.device(device)
    out: list[dict] = []
    for r in range(1, cfg.rounds + 1):
        t0 = time.time()
        net.eval()
        cpu_net = copy.deepcopy(net).cpu().eval()
        data = collect_branches(
            cpu_net,
            cfg.hands,
            opponents,
            tuple(cfg.opponent_weights),
            rules,
            encoder,
            seed * 1_000_003 + r * 10_007,
            top_k=cfg.top_k,
            branch_prob=cfg.branch_prob,
            batch_size=cfg.batch_size,
            progress=progress,
            claim_branch_prob=cfg.claim_branch_prob,
        )
        t_roll = time.time() - t0
        anet, fit = fit_advantage(
            net,
            data,
            env.reward_scale,
            epochs=cfg.adv_epochs,
            lr=cfg.adv_lr,
            val_fraction=cfg.val_fraction,
            seed=seed + r,
            device=device,
        )
        labels = improve_labels(anet, data, cfg.margin, env.reward_scale, device=device)
        dist = distill(
            net,
            data,
            labels,
            epochs=cfg.distill_epochs,
            lr=cfg.distill_lr,
            seed=seed + r,
            device=device,
        )
        net.eval()
        stats = {
            "round": r,
            "hands": data.hands,
            "decisions": int(len(data.action)),
            "pairs": int(len(data.pair_diff)),
            "pairs_changed": float((data.pair_diff != 0).mean()) if len(data.pair_diff) else 0.0,
            "learner_points": float(data.points.mean()),
            "rollout_seconds": t_roll,
            "adv_r2_train": fit["r2_train"],
            "adv_r2_val": fit["r2_val"],
            "adv_epoch": fit["epoch"],
            "relabelled": float((labels != data.action).mean()) if len(labels) else 0.0,
            "distill_accuracy": dist["accuracy"],
            "distill_accuracy_changed": dist["accuracy_changed"],
            "seconds": time.time() - t0,
        }
        out.append(stats)
        if writer is not None:
            for k in ("learner_points", "adv_r2_val", "relabelled", "distill_accuracy_changed"):
                writer.add_scalar(f"rpi/{k}", stats[k], r)
        if progress:
            print(
                f"RPI round {r}: {stats['hands']} hands, {stats['pairs']} branch pairs "
                f"({stats['pairs_changed']:.0%} changed the result), advantage fit R2 held-out "
                f"{stats['adv_r2_val']:.3f}, relabelled {stats['relabelled']:.2%} of "
                f"{stats['decisions']} decisions, {stats['seconds']:.0f} s"
            )
        del data
        if callback is not None:
            callback(r, net)
    return {"rounds": out}

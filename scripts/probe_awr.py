"""Probe: advantage-weighted policy improvement from paired branch rollouts, anchored to BC.

Option (a) of the RL work in the README ("Why RL does not improve on BC here"), in the form
that keeps no separate advantage network: the BC policy plays ``--hands`` trunk hands against
three rule agents (:func:`baselines.rpi.collect_branches`: every claim-round decision and a
share ``--branch-prob`` of the others branched to the policy's next ``--top-k - 1`` choices,
each played out once from the saved engine state, the same wall and hidden hands), then the
policy is fine-tuned by the paired advantage-weighted log-likelihood

    loss = - mean_pairs  w * (log pi(a | s) - log pi(a0 | s))  +  kl * mean_s KL(pi_bc || pi)

with ``w = clip(d x 0.01, -clip, clip)``, ``d`` = branch points minus trunk points of the
learner's seat (an unbiased sample of the advantage of ``a`` over the policy's own ``a0``
under the rollout policy), and evaluated paired against the BC checkpoint on ``--walls``
walls of block ``--block`` against three rule agents.

    python scripts/probe_awr.py collect --bc runs/<run>/bc.pt --hands 3000 --out /tmp/awr.npz
    python scripts/probe_awr.py update --bc runs/<run>/bc.pt --data /tmp/awr.npz --kl 1.0
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BLOCK_SIZE = 1_000_000


def collect(args) -> None:
    import baselines.features  # noqa: F401
    from baselines.agents import RuleBasedAgent
    from baselines.network import load_checkpoint
    from baselines.rpi import collect_branches
    from mcr_env.encoding import get_encoder
    from mcr_env.engine.config import RulesConfig

    net, _ = load_checkpoint(args.bc)
    net.eval()
    t0 = time.process_time()
    data = collect_branches(
        net,
        args.hands,
        [RuleBasedAgent(name="rpi-rule")],
        (),
        RulesConfig(),
        get_encoder(net.encoder),
        args.seed,
        top_k=args.top_k,
        branch_prob=args.branch_prob,
        claim_branch_prob=1.0,
        batch_size=250,
    )
    np.savez(args.out, **dataclasses.asdict(data))
    print(
        json.dumps(
            {
                "hands": data.hands,
                "decisions": int(len(data.action)),
                "pairs": int(len(data.pair_diff)),
                "pair_mean": float(data.pair_diff.mean()),
                "pair_std": float(data.pair_diff.std()),
                "cpu_seconds": round(time.process_time() - t0, 1),
            }
        )
    )


def awr_update(net, bc_net, data, epochs, lr, kl, clip, batch_size=256, seed=0) -> dict:
    """Fine-tune ``net`` in place by the paired advantage-weighted loss of the module
    docstring (BatchNorm statistics frozen).

    Args:
        net, bc_net: the policy to update and the frozen anchor (``PolicyValueNet``).
        data: :class:`baselines.rpi.BranchData` fields as arrays (``obs (T, C, 34)``,
            ``mask (T, 235) bool``, ``action (T,) int64``, ``pair_row / pair_action (P,)
            int64``, ``pair_diff (P,) float64`` points).
        epochs, lr: passes over the pairs, Adam learning rate; kl: weight of the anchor;
        clip: bound of the weight ``|w|`` (scaled points, 0.01 per point).

    Returns:
        ``{"changed": share of trunk decisions whose greedy action differs from bc_net's}``.
    """
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    w_all = np.clip(data["pair_diff"] * 0.01, -clip, clip).astype(np.float32)
    n_pairs, n_rows = len(w_all), len(data["action"])
    net.eval()
    bc_net.eval()
    steps = max(n_pairs // batch_size, 1)
    for _ in range(epochs):
        order = rng.permutation(n_pairs)
        for s in range(steps):
            j = order[s * batch_size : (s + 1) * batch_size]
            rows = data["pair_row"][j]
            obs = torch.from_numpy(data["obs"][rows]).float()
            mask = torch.from_numpy(data["mask"][rows])
            logp = torch.log_softmax(net(obs, mask)[0], dim=1)
            ar = torch.arange(len(j))
            alt = torch.from_numpy(data["pair_action"][j])
            base = torch.from_numpy(data["action"][rows])
            w = torch.from_numpy(w_all[j])
            pg = -(w * (logp[ar, alt] - logp[ar, base])).mean()
            # KL(pi_bc || pi) on random trunk decisions: the anchor
            k = rng.integers(0, n_rows, size=batch_size)
            o2 = torch.from_numpy(data["obs"][k]).float()
            m2 = torch.from_numpy(data["mask"][k])
            lp2 = torch.log_softmax(net(o2, m2)[0], dim=1)
            with torch.no_grad():
                lq = torch.log_softmax(bc_net(o2, m2)[0], dim=1)
            q = lq.exp()
            kl_term = (q * (lq - lp2)).masked_fill(~m2, 0.0).sum(1).mean()
            loss = pg + kl * kl_term
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
    changed = 0
    with torch.no_grad():
        for s in range(0, n_rows, 2048):
            o = torch.from_numpy(data["obs"][s : s + 2048]).float()
            m = torch.from_numpy(data["mask"][s : s + 2048])
            changed += int((net(o, m)[0].argmax(1) != bc_net(o, m)[0].argmax(1)).sum())
    return {"changed": changed / max(n_rows, 1)}


def update(args) -> None:
    import baselines.features  # noqa: F401
    from baselines.agents import RuleBasedAgent, TorchPolicyAgent
    from baselines.network import load_checkpoint, save_checkpoint
    from mcr_env.eval import duplicate_evaluate, paired_difference

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    data = dict(np.load(args.data))
    bc_net, _ = load_checkpoint(args.bc)
    net, _ = load_checkpoint(args.bc)
    t0 = time.process_time()
    stats = awr_update(net, bc_net, data, args.epochs, args.lr, args.kl, args.clip, seed=args.seed)
    stats["update_cpu_seconds"] = round(time.process_time() - t0, 1)
    if args.save:
        save_checkpoint(net, args.save, {"stage": "awr-probe"})
    opp = RuleBasedAgent()
    res = {}
    for name, n in (("awr", net), ("bc", bc_net)):
        res[name] = duplicate_evaluate(
            [TorchPolicyAgent(n.eval(), greedy=True, name=name), opp, opp, opp],
            args.walls,
            seed=10001,
            wall_offset=args.block * BLOCK_SIZE,
            batch_size=500,
            encoder="planes-v0+look-v0",
            progress=False,
        )
    for metric in ("points", "placement"):
        d = paired_difference(res["awr"], "awr", res["bc"], "bc", metric)
        stats[f"awr_minus_bc_{metric}"] = [d.mean, d.ci95_low, d.ci95_high]
    stats.update(kl=args.kl, lr=args.lr, epochs=args.epochs, clip=args.clip, walls=args.walls)
    print(json.dumps(stats), flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--bc", required=True)
    c.add_argument("--hands", type=int, default=3000)
    c.add_argument("--top-k", type=int, default=3)
    c.add_argument("--branch-prob", type=float, default=0.25)
    c.add_argument("--seed", type=int, default=4242)
    c.add_argument("--out", required=True)
    u = sub.add_parser("update")
    u.add_argument("--bc", required=True)
    u.add_argument("--data", required=True)
    u.add_argument("--epochs", type=int, default=2)
    u.add_argument("--lr", type=float, default=1e-4)
    u.add_argument("--kl", type=float, default=1.0)
    u.add_argument("--clip", type=float, default=0.5)
    u.add_argument("--walls", type=int, default=500)
    u.add_argument("--block", type=int, default=2)
    u.add_argument("--seed", type=int, default=0)
    u.add_argument("--save", default="")
    args = p.parse_args(argv)
    (collect if args.cmd == "collect" else update)(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

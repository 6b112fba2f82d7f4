"""Learning curve of PPO fine-tuning from a BC checkpoint, paired against that checkpoint.

Loads ``--bc`` (a ``bc.pt`` of the main job), evaluates it once against three ``--opponent``
agents on ``--walls`` walls of block ``--block`` (wall indices ``block x 1,000,000 ...``, seed
``config seed + 10,000``; block 2 by default, disjoint from the main job's report block 0 and
selection block 1), then runs :func:`baselines.ppo.train_ppo` with the ``ppo`` section of
``--config`` (plus ``--set`` overrides) and every ``--eval-every`` iterations evaluates the
current greedy policy on the same walls and prints one JSON line: the iteration, the hands
played, the training CPU seconds of this process (evaluation excluded, ``time.process_time``)
and the wall seconds, the paired gain over BC (``mcr_env.eval.paired_difference``, per wall,
95% CI) in points and placement per hand, and PPO's last losses (entropy, KL to the start).
Every evaluated checkpoint is saved as ``<out>/ppo_<i>.pt``; the lines go to
``<out>/curve.jsonl`` too.

    python scripts/ppo_curve.py --bc runs/<run>/bc.pt --out runs/curve-a \\
        --set ppo.iterations=300 ppo.policy_temperature=2 ppo.oracle_critic=true
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class _LastScalars:
    """A stand-in for TensorBoard's ``SummaryWriter``: keeps the last value of each tag."""

    def __init__(self) -> None:
        self.last: dict[str, float] = {}

    def add_scalar(self, tag: str, value, step=None) -> None:
        self.last[tag] = float(value)


def main(argv=None) -> int:
    import torch

    import baselines.features  # noqa: F401  (registers the feature encoders)
    from baselines.config import load_config
    from baselines.network import load_checkpoint, save_checkpoint
    from baselines.ppo import train_ppo
    from baselines.train import evaluate_policy, seed_everything
    from mcr_env.encoding import get_encoder
    from mcr_env.eval import json_safe, paired_difference

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bc", required=True, help="BC checkpoint (bc.pt) PPO starts from")
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    p.add_argument("--out", required=True, help="directory of the checkpoints and curve.jsonl")
    p.add_argument("--opponent", default="rule")
    p.add_argument("--walls", type=int, default=600)
    p.add_argument("--block", type=int, default=2)
    p.add_argument("--eval-every", type=int, default=25)
    args = p.parse_args(argv)
    cfg = load_config(args.config, args.set)
    if args.block in (cfg.eval.report_block,):
        p.error(f"--block {args.block} is the report block of {args.config}")
    if args.walls < 2 or args.eval_every < 1:
        p.error("--walls must be >= 2 and --eval-every >= 1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seed_everything(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    net, _ = load_checkpoint(args.bc)
    if net.encoder != cfg.env.encoder:
        p.error(f"--bc reads {net.encoder!r}, the config's env.encoder is {cfg.env.encoder!r}")
    encoder = get_encoder(cfg.env.encoder)
    ecfg = dataclasses.replace(cfg, eval=dataclasses.replace(cfg.eval, opponents=(args.opponent,)))
    (res_bc,) = evaluate_policy(net, ecfg, encoder, args.walls, args.block, "bc")
    lines = (out / "curve.jsonl").open("w")
    writer = _LastScalars()
    clock = {"cpu": 0.0, "eval_cpu": 0.0, "t0": time.time(), "cpu0": time.process_time()}

    def emit(row: dict) -> None:
        text = json.dumps(json_safe(row), allow_nan=False)
        print(text, flush=True)
        lines.write(text + "\n")
        lines.flush()

    s = res_bc.stat("bc")
    emit(
        {
            "iteration": 0,
            "stage": "bc",
            "walls": args.walls,
            "block": args.block,
            "opponent": args.opponent,
            "bc_points": [s.mean_points, s.ci95_low, s.ci95_high],
            "config_ppo": dataclasses.asdict(cfg.ppo),
            "reward": cfg.env.reward,
            "reward_kwargs": dict(cfg.env.reward_kwargs),
        }
    )
    clock["cpu0"] = time.process_time()

    def on_iteration(it: int, cur) -> None:
        if it % args.eval_every and it != cfg.ppo.iterations:
            return
        train_cpu = time.process_time() - clock["cpu0"] - clock["eval_cpu"]
        e0 = time.process_time()
        save_checkpoint(cur, out / f"ppo_{it}.pt", {"iteration": it})
        (res,) = evaluate_policy(cur, ecfg, encoder, args.walls, args.block, f"ppo_{it}")
        row: dict = {
            "iteration": it,
            "hands": it * cfg.ppo.num_envs,
            "train_cpu_s": round(train_cpu, 1),
            "wall_s": round(time.time() - clock["t0"], 1),
            "points": res.stat(f"ppo_{it}").mean_points,
        }
        for metric in ("points", "placement"):
            d = paired_difference(res, f"ppo_{it}", res_bc, "bc", metric)
            row[f"gain_{metric}"] = [d.mean, d.ci95_low, d.ci95_high]
        for k in ("entropy", "kl_ref", "approx_kl", "clipfrac", "explained_variance"):
            row[k] = writer.last.get(f"losses/{k}")
        row["learner_points"] = writer.last.get("charts/learner_points")
        clock["eval_cpu"] += time.process_time() - e0
        emit(row)

    train_ppo(
        net,
        cfg.ppo,
        cfg.env,
        cfg.seed,
        writer,
        None,
        progress=False,
        device="cpu",
        callback=on_iteration,
    )
    lines.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

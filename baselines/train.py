"""The main job: behaviour cloning, PPO fine-tuning, duplicate evaluation (``make run``).

:func:`run` creates ``<runs_dir>/<name>-<YYYYmmdd-HHMMSS>/`` holding

* ``config.yaml`` -- the resolved config; ``meta.json`` -- git commit, versions, timings;
* ``bc.pt`` / ``final.pt`` (and ``ppo_<i>.pt``) -- checkpoints (``torch.load(weights_only=True)``);
* ``tb/`` -- TensorBoard scalars (``charts/...``, ``losses/...``);
* ``eval.csv``, ``eval.json``, ``eval.png`` -- the duplicate evaluation of the final policy vs
  each opponent (three copies of it at the table).

It prints the results table at the end.
"""

from __future__ import annotations

import json
import platform
import random
import subprocess
import time
from datetime import datetime
from pathlib import Path

import numpy as np
import torch
import yaml

from baselines.config import RunConfig, to_dict
from baselines.network import PolicyValueNet, save_checkpoint


def git_commit(cwd: str | Path | None = None) -> str:
    """The current git commit (with ``-dirty`` if the tree has changes), or ``"unknown"``."""
    try:
        cwd = cwd or Path(__file__).resolve().parent
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def make_run_dir(cfg: RunConfig) -> Path:
    """Create ``<runs_dir>/<name>-<time>/`` (suffixed if it exists) with ``config.yaml``."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(cfg.runs_dir) / f"{cfg.name}-{stamp}"
    run_dir, k = base, 1
    while run_dir.exists():
        run_dir = base.with_name(f"{base.name}-{k}")
        k += 1
    run_dir.mkdir(parents=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(to_dict(cfg), sort_keys=False))
    return run_dir


def seed_everything(seed: int) -> None:
    """Seed python, numpy and torch (CleanRL seeding block)."""
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 (legacy global state some libraries still read)
    torch.manual_seed(seed)


def validate(cfg: RunConfig) -> None:
    """Check what :func:`run` would otherwise find wrong only after creating the run directory
    (the encoder id, the engine rules, the evaluation opponents and seat permutations).

    Raises:
        ValueError / TypeError: the first bad value, naming its config key.
    """
    from mcr_env.encoding import get_encoder
    from mcr_env.engine.config import RulesConfig
    from mcr_env.eval import seat_permutations

    for key, check in (
        ("env.encoder", lambda: get_encoder(cfg.env.encoder)),
        ("env.rules", lambda: RulesConfig.from_dict(dict(cfg.env.rules))),
        ("eval.permutations", lambda: seat_permutations(cfg.eval.permutations)),
    ):
        try:
            check()
        except (TypeError, ValueError, KeyError) as e:
            raise type(e)(f"config {key}: {e}") from e
    for name in cfg.eval.opponents:
        if name not in ("random", "rule"):
            raise ValueError(
                f"config eval.opponents: unknown opponent {name!r}; valid: random, rule"
            )


def run(cfg: RunConfig, progress: bool = True) -> dict:
    """Run the whole job for ``cfg``; returns ``{"run_dir", "results", "meta"}``. The config
    is checked (:func:`validate`) before anything is written."""
    from torch.utils.tensorboard import SummaryWriter

    from baselines.agents import RandomAgent, RuleBasedAgent, TorchPolicyAgent
    from baselines.bc import collect_demonstrations, load_demonstrations, train_bc
    from baselines.ppo import train_ppo
    from mcr_env.encoding import get_encoder
    from mcr_env.engine.config import RulesConfig
    from mcr_env.eval import duplicate_evaluate, json_safe, results_table, write_results

    validate(cfg)
    t_start = time.time()
    seed_everything(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    run_dir = make_run_dir(cfg)
    meta: dict = {
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "machine": platform.machine(),
        "started": datetime.now().isoformat(timespec="seconds"),
    }
    print(f"run directory: {run_dir}")
    writer = SummaryWriter(str(run_dir / "tb"))
    encoder = get_encoder(cfg.env.encoder)
    net = PolicyValueNet(encoder.num_channels, cfg.network, encoder=cfg.env.encoder)

    if cfg.bc.hands > 0 or cfg.bc.data:
        t0 = time.time()
        if cfg.bc.data:  # a dataset file, e.g. Botzone match logs (scripts/botzone_logs.py)
            demos = load_demonstrations(cfg.bc.data)
        else:
            demos = collect_demonstrations(
                cfg.bc.hands, cfg.bc.batch_envs, cfg.seed, cfg.env, progress=progress
            )
        meta["bc_data"] = {
            "hands": demos.hands,
            "samples": int(len(demos.action)),
            "rule_selfplay_win_rate": demos.win_rate,
            "seconds": time.time() - t0,
        }
        if cfg.bc.data:
            meta["bc_data"]["source"] = cfg.bc.data
            print(f"BC data: {len(demos.action)} decisions from {cfg.bc.data}")
        else:
            print(
                f"BC data: {len(demos.action)} decisions from {demos.hands} hands "
                f"(rule-based self-play: {demos.win_rate:.1%} of hands won)"
            )
        meta["bc"] = train_bc(
            net, demos, cfg.bc, cfg.env.reward_scale, cfg.seed, writer, progress=progress
        )
        del demos
        print(f"BC: accuracy {meta['bc']['accuracy']:.3f}, loss {meta['bc']['loss']:.3f}")
        save_checkpoint(net, run_dir / "bc.pt", {"stage": "bc"})

    if cfg.ppo.iterations > 0:
        meta["ppo"] = train_ppo(net, cfg.ppo, cfg.env, cfg.seed, writer, run_dir, progress=progress)
        print(
            f"PPO: {meta['ppo']['iteration']} iterations, {meta['ppo']['decisions']} decisions, "
            f"self-play win rate {meta['ppo']['win_rate']:.1%}"
        )
    final = save_checkpoint(net, run_dir / "final.pt", {"stage": "final"})
    meta["train_seconds"] = time.time() - t_start

    results = []
    if cfg.eval.walls > 0:
        rules = RulesConfig.from_dict(dict(cfg.env.rules))
        policy = TorchPolicyAgent.from_checkpoint(final, greedy=cfg.eval.greedy, name="trained")
        for opp_name in cfg.eval.opponents:
            if opp_name == "random":
                opp = RandomAgent(seed=cfg.seed, name="random")
            elif opp_name == "rule":
                opp = RuleBasedAgent(name="rule")
            else:
                raise ValueError(f"unknown opponent {opp_name!r}; valid: random, rule")
            results.append(
                duplicate_evaluate(
                    [policy, opp, opp, opp],
                    cfg.eval.walls,
                    permutations=cfg.eval.permutations,
                    seed=cfg.seed + 10_000,
                    batch_size=cfg.eval.batch_size,
                    rules=rules,
                    encoder=encoder,
                    progress=progress,
                    desc=f"trained vs {opp_name}",
                )
            )
        meta["total_seconds"] = time.time() - t_start
        paths = write_results(results, run_dir, meta={"config": to_dict(cfg), **meta})
        print(results_table(results))
        print(f"results: {paths['csv']}, {paths['json']}, plot: {paths['png']}")
    meta["total_seconds"] = time.time() - t_start
    # strict JSON: NaN / inf (e.g. an empty statistic) become null
    (run_dir / "meta.json").write_text(json.dumps(json_safe(meta), indent=2, allow_nan=False))
    writer.close()
    print(f"done in {meta['total_seconds']:.0f} s; run directory: {run_dir}")
    return {"run_dir": run_dir, "results": results, "meta": meta}

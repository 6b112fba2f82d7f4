"""The main job: behaviour cloning, optional rollout policy improvement, PPO fine-tuning,
duplicate evaluation (``make run``).

:func:`run` creates ``<runs_dir>/<name>-<YYYYmmdd-HHMMSS>/`` holding

* ``config.yaml`` -- the resolved config; ``meta.json`` -- git commit, versions, timings;
* ``bc.pt`` / ``final.pt`` (and ``rpi_<r>.pt``, ``ppo_<i>.pt``) -- checkpoints
  (``torch.load(weights_only=True)``);
* ``tb/`` -- TensorBoard scalars (``charts/...``, ``losses/...``);
* ``eval.csv``, ``eval.json``, ``eval.png`` -- the duplicate evaluation of the final policy vs
  each opponent (three copies of it at the table) on the report block of walls, with the
  paired difference (trained minus opponent) in points and placement, and the final
  policy's paired gain over the BC checkpoint on the same walls (``eval.gain_over_bc``,
  :func:`gain_over_bc`);
* ``curve.json``, ``curve.png`` -- the learning curve: duplicate evaluations after BC, after
  each rollout-policy-improvement round (:mod:`baselines.rpi`) and along PPO on the
  *selection* block of walls (disjoint from the report block), against training time; the
  final policy is chosen among the curve checkpoints (``eval.select_best``): by default
  (``eval.select_by: paired_bc``, :func:`select_paired`) the BC checkpoint, unless a later
  one beats it paired on the selection walls against ``rule`` with its whole 95% CI above 0;
  the per-candidate paired gains are in ``meta.json`` (``selection``).

It prints the results table at the end.
"""

from __future__ import annotations

import copy
import dataclasses
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
from baselines.network import PolicyValueNet, load_checkpoint, save_checkpoint


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


BLOCK_SIZE = 1_000_000
"""Walls per evaluation block: block k holds wall indices k x BLOCK_SIZE ... (disjoint)."""


def _opponent(name: str, seed: int):
    from baselines.agents import AGENT_SPECS, make_agent

    if name not in AGENT_SPECS:
        raise ValueError(f"unknown opponent {name!r}; valid: {', '.join(AGENT_SPECS)}")
    return make_agent(name, seed=seed)


def evaluate_policy(
    net, cfg: RunConfig, encoder, walls: int, block: int, label: str, progress: bool = False
) -> list:
    """Duplicate evaluation of ``net`` (greedy per ``cfg.eval.greedy``) against three copies
    of each opponent of ``cfg.eval.opponents`` on ``walls`` walls of block ``block``."""
    from baselines.agents import TorchPolicyAgent
    from mcr_env.engine.config import RulesConfig
    from mcr_env.eval import duplicate_evaluate

    rules = RulesConfig.from_dict(dict(cfg.env.rules))
    policy = TorchPolicyAgent(
        copy.deepcopy(net).cpu().eval(), greedy=cfg.eval.greedy, seed=cfg.seed, name=label
    )
    out = []
    for opp_name in cfg.eval.opponents:
        opp = _opponent(opp_name, cfg.seed)
        out.append(
            duplicate_evaluate(
                [policy, opp, opp, opp],
                walls,
                permutations=cfg.eval.permutations,
                seed=cfg.seed + 10_000,
                wall_offset=block * BLOCK_SIZE,
                batch_size=cfg.eval.batch_size,
                num_workers=cfg.eval.num_workers,
                shard_backend=cfg.eval.shard_backend,
                rules=rules,
                encoder=encoder,
                progress=progress,
                desc=f"{label} vs {opp_name}",
            )
        )
    return out


def same_weights(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    """True when ``a`` and ``b`` hold exactly the same state (names, shapes, values)."""
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(
        sa[k].shape == sb[k].shape and torch.equal(sa[k].cpu(), sb[k].cpu()) for k in sa
    )


def gain_over_bc(
    final_net, bc_path: str | Path, results: list, cfg: RunConfig, encoder, progress: bool = False
) -> list:
    """The final policy's paired gain over the behaviour-cloned one on the report walls.

    For each opponent of ``cfg.eval.gain_over_bc`` the BC checkpoint plays the walls of the
    final report (``results``: the final policy, named ``trained``, against three copies of
    each opponent of ``cfg.eval.opponents``) and the per-wall difference ``trained - bc`` is
    taken (:func:`mcr_env.eval.paired_difference`, 95% CI over walls), in points and in
    placement per hand. When the final policy *is* the BC checkpoint (:func:`same_weights`)
    the difference is exactly 0 and nothing is played.

    Opponents of ``gain_over_bc`` that are not in ``cfg.eval.opponents`` (no final-report
    match to pair with) are skipped.

    Returns:
        ``[Difference]``, two per opponent (points, placement), ``a="trained (vs 3x <opp>)"``,
        ``b="bc (vs 3x <opp>)"``.
    """
    from mcr_env.eval import paired_difference

    by_opp = {r.lineup[1]: r for r in results}
    out = []
    bc_net, _ = load_checkpoint(bc_path)
    same = same_weights(final_net, bc_net)
    for opp in cfg.eval.gain_over_bc:
        if opp not in by_opp:
            continue
        res = by_opp[opp]
        if same:
            res_bc, bc_name = res, "trained"
        else:
            (res_bc,) = evaluate_policy(
                bc_net,
                dataclasses.replace(cfg, eval=dataclasses.replace(cfg.eval, opponents=(opp,))),
                encoder,
                res.points.shape[0],
                cfg.eval.report_block,
                "bc",
                progress=progress,
            )
            bc_name = "bc"
        for metric in ("points", "placement"):
            d = paired_difference(res, "trained", res_bc, bc_name, metric)
            out.append(dataclasses.replace(d, a=f"trained (vs 3x {opp})", b=f"bc (vs 3x {opp})"))
    return out


SELECT_BY = ("paired_bc", "points")
"""Valid values of ``eval.select_by`` (:func:`select_paired`, or the best curve reading)."""


def select_paired(candidates: list[tuple[str, object]], metric: str = "points") -> tuple[int, list]:
    """BC-anchored paired choice of the final policy among learning-curve checkpoints.

    ``candidates[0]`` is the anchor (the BC checkpoint); every candidate ``(name, result)``
    is one :class:`mcr_env.eval.DuplicateResult` of that checkpoint against three copies of
    one opponent on the *same* walls (the selection block), its name in the lineup. The
    per-wall difference ``candidate - anchor`` (:func:`mcr_env.eval.paired_difference`,
    95% normal CI over walls) is taken for each; the choice is the candidate with the largest
    mean difference among those whose whole CI is above 0, else the anchor itself. So the
    choice is worse than the anchor only when a 95% CI misses (the deal's luck cancels in the
    pairing: the CI is ~5x narrower than that of one unpaired reading).

    Returns:
        ``(index into candidates, [Difference per candidate])`` (the anchor's own entry is
        exactly 0 with a zero-width CI).

    Raises:
        ValueError: no candidates, or results not on the same walls and permutations.
    """
    from mcr_env.eval import paired_difference

    if not candidates:
        raise ValueError("select_paired needs at least the anchor candidate")
    name0, res0 = candidates[0]
    diffs = [paired_difference(res, name, res0, name0, metric) for name, res in candidates]
    best = 0
    for i, d in enumerate(diffs[1:], start=1):
        if d.ci95_low > 0 and d.mean > diffs[best].mean:
            best = i
    return best, diffs


def _curve_row(stage: str, seconds: float, results: list) -> dict:
    from mcr_env.eval import difference

    row: dict = {"stage": stage, "train_seconds": seconds}
    for r in results:
        opp = r.lineup[1]
        d = difference(r, r.lineup[0], opp)  # agent minus one opponent seat, per wall
        s = r.stat(r.lineup[0])
        row[opp] = {
            "mean_points": s.mean_points,
            "ci95_low": s.ci95_low,
            "ci95_high": s.ci95_high,
            "mean_placement": s.mean_placement,
            "diff_points": d.mean,
            "hands": s.hands,
        }
    return row


def plot_curve(curve: list[dict], path: str | Path) -> Path:
    """Learning curve: the agent's duplicate points per hand (95% CI) against each opponent
    vs training time (seconds), one line per opponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    opps = [k for k in curve[0] if isinstance(curve[0][k], dict)] if curve else []
    for opp in opps:
        x = [row["train_seconds"] / 60 for row in curve]
        y = [row[opp]["mean_points"] for row in curve]
        lo = [row[opp]["mean_points"] - row[opp]["ci95_low"] for row in curve]
        hi = [row[opp]["ci95_high"] - row[opp]["mean_points"] for row in curve]
        ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=f"vs 3x {opp}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("training time (minutes, BC data + BC + PPO)")
    ax.set_ylabel("duplicate points per hand (95% CI)")
    ax.set_title("Learning curve (selection walls)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return Path(path)


def validate(cfg: RunConfig) -> None:
    """Check what :func:`run` would otherwise find wrong only after creating the run directory
    (the encoder id, the engine rules, the evaluation opponents and seat permutations, the
    RPI opponents, the selection and report wall blocks, the ``bc.data`` file).

    Raises:
        ValueError / TypeError: the first bad value, naming its config key.
    """
    import baselines.features  # noqa: F401  (registers planes-v0+rule-v0)
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
    from baselines.agents import AGENT_SPECS

    for key, what, names in (
        ("eval.opponents", "opponent", cfg.eval.opponents),
        ("bc.teacher", "teacher", (cfg.bc.teacher,)),
        ("eval.gain_over_bc", "opponent", cfg.eval.gain_over_bc),
    ):
        for name in names:
            if name not in AGENT_SPECS:
                raise ValueError(
                    f"config {key}: unknown {what} {name!r}; valid: {', '.join(AGENT_SPECS)}"
                )
    if cfg.rpi.rounds > 0:
        from baselines.rpi import RPI_OPPONENTS

        bad = [n for n in cfg.rpi.opponents if n not in RPI_OPPONENTS]
        if bad or not cfg.rpi.opponents:
            raise ValueError(
                f"config rpi.opponents: {list(cfg.rpi.opponents)} must be a non-empty list of "
                f"deterministic agents: {', '.join(RPI_OPPONENTS)}"
            )
    if cfg.bc.data and not Path(cfg.bc.data).is_file():
        raise ValueError(f"config bc.data: no such file {cfg.bc.data!r}")
    if cfg.eval.select_by not in SELECT_BY:
        raise ValueError(
            f"config eval.select_by: {cfg.eval.select_by!r} not valid; "
            f"valid: {', '.join(SELECT_BY)}"
        )
    if cfg.eval.selection_block == cfg.eval.report_block:
        raise ValueError(
            "config eval.selection_block and eval.report_block must differ (selection and "
            f"report walls must be disjoint), both {cfg.eval.report_block}"
        )


def run(cfg: RunConfig, progress: bool = True) -> dict:
    """Run the whole job for ``cfg``; returns ``{"run_dir", "results", "meta", "curve"}``.
    The config is checked (:func:`validate`) before anything is written.

    Raises:
        ValueError / TypeError: see :func:`validate`; an unknown device.
    """
    from torch.utils.tensorboard import SummaryWriter

    import baselines.features  # noqa: F401  (registers planes-v0+rule-v0)
    from baselines.bc import collect_demonstrations, load_demonstrations, train_bc
    from baselines.ppo import train_ppo
    from baselines.rollout import resolve_device
    from mcr_env.encoding import get_encoder
    from mcr_env.eval import difference, json_safe, results_table, write_results

    validate(cfg)
    t_start = time.time()
    seed_everything(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    device = resolve_device(cfg.device)
    run_dir = make_run_dir(cfg)
    meta: dict = {
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "machine": platform.machine(),
        "device": str(device),
        "torch_threads": cfg.torch_threads,
        "started": datetime.now().isoformat(timespec="seconds"),
    }
    print(f"run directory: {run_dir} (device {device}, {cfg.torch_threads} torch thread(s))")
    writer = SummaryWriter(str(run_dir / "tb"))
    encoder = get_encoder(cfg.env.encoder)
    net = PolicyValueNet(encoder.num_channels, cfg.network, encoder=cfg.env.encoder).to(device)
    curve: list[dict] = []
    candidates: list[tuple[str, Path, list]] = []
    eval_seconds = 0.0

    def curve_point(stage: str, ckpt: Path) -> None:
        nonlocal eval_seconds
        if cfg.eval.curve_walls <= 0:
            return
        t0 = time.time()
        res = evaluate_policy(
            net, cfg, encoder, cfg.eval.curve_walls, cfg.eval.selection_block, stage
        )
        eval_seconds += time.time() - t0
        row = _curve_row(stage, time.time() - t_start - eval_seconds, res)
        curve.append(row)
        candidates.append((stage, ckpt, res))
        txt = ", ".join(
            f"vs {k}: {v['mean_points']:+.2f}" for k, v in row.items() if isinstance(v, dict)
        )
        print(f"curve [{stage}] at {row['train_seconds']:.0f} s: {txt}")
        (run_dir / "curve.json").write_text(json.dumps(json_safe(curve), indent=2, allow_nan=False))

    bc_path: Path | None = None
    if cfg.bc.hands > 0 or cfg.bc.data:
        t0 = time.time()
        if cfg.bc.data:  # a dataset file, e.g. Botzone match logs (scripts/botzone_logs.py)
            demos = load_demonstrations(cfg.bc.data, encoder.num_channels)
        else:
            from baselines.agents import make_agent

            demos = collect_demonstrations(
                cfg.bc.hands,
                cfg.bc.batch_envs,
                cfg.seed,
                cfg.env,
                progress=progress,
                teacher=make_agent(cfg.bc.teacher, seed=cfg.seed),
            )
        meta["bc_data"] = {
            "hands": demos.hands,
            "samples": int(len(demos.action)),
            "teacher": None if cfg.bc.data else cfg.bc.teacher,
            "teacher_selfplay_win_rate": demos.win_rate,
            "seconds": time.time() - t0,
        }
        source = cfg.bc.data or f"{cfg.bc.teacher} self-play"
        if cfg.bc.data:
            meta["bc_data"]["source"] = cfg.bc.data
        print(
            f"BC data: {len(demos.action)} decisions from {demos.hands} hands "
            f"({source}: {demos.win_rate:.1%} of hands won) "
            f"in {meta['bc_data']['seconds']:.0f} s"
        )
        meta["bc"] = train_bc(
            net,
            demos,
            cfg.bc,
            cfg.env.reward_scale,
            cfg.seed,
            writer,
            progress=progress,
            device=device,
        )
        del demos
        bc = meta["bc"]
        kinds = ", ".join(
            f"{k} {bc.get(f'val_accuracy_{k}', float('nan')):.3f}"
            f" (n={bc.get(f'val_samples_{k}', 0)})"
            for k in ("discard", "claim", "kong", "hu")
        )
        print(
            f"BC: held-out accuracy {bc.get('val_accuracy', float('nan')):.3f} ({kinds}); "
            f"train accuracy {bc['accuracy']:.3f}, {bc['samples_per_s']:.0f} samples/s"
        )
        bc_path = save_checkpoint(net, run_dir / "bc.pt", {"stage": "bc"})
        curve_point("bc", bc_path)

    if cfg.rpi.rounds > 0:
        from baselines.rpi import train_rpi

        def on_round(r: int, _net) -> None:
            ck = save_checkpoint(net, run_dir / f"rpi_{r}.pt", {"stage": "rpi", "round": r})
            curve_point(f"rpi_{r}", ck)

        meta["rpi"] = train_rpi(
            net,
            cfg.rpi,
            cfg.env,
            cfg.seed,
            writer,
            progress=progress,
            device=device,
            callback=on_round,
        )

    if cfg.ppo.iterations > 0:
        n_pts = max(cfg.eval.curve_points - 1, 1)
        marks = {round(cfg.ppo.iterations * (k + 1) / n_pts) for k in range(n_pts)}

        def on_iteration(it: int, _net) -> None:
            if it in marks:
                ck = save_checkpoint(net, run_dir / f"ppo_{it}.pt", {"iteration": it})
                curve_point(f"ppo_{it}", ck)

        meta["ppo"] = train_ppo(
            net,
            cfg.ppo,
            cfg.env,
            cfg.seed,
            writer,
            run_dir,
            progress=progress,
            device=device,
            callback=on_iteration,
        )
        print(
            f"PPO: {meta['ppo']['iteration']} iterations, {meta['ppo']['decisions']} decisions, "
            f"learner points/hand in training {meta['ppo']['learner_points']:+.2f}"
        )
    meta["curve"] = curve
    final_src = "last"
    if cfg.eval.select_best and curve:
        opps = [r.lineup[1] for r in candidates[0][2]]
        opp = "rule" if "rule" in opps else opps[0]
        k = opps.index(opp)
        if cfg.eval.select_by == "paired_bc":
            best, diffs = select_paired([(c[0], c[2][k]) for c in candidates])
            meta["selection"] = [
                {"stage": c[0], "opponent": opp, **dataclasses.asdict(d)}
                for c, d in zip(candidates, diffs, strict=True)
            ]
            how = (
                f"paired against {candidates[0][0]} vs 3x {opp} on the selection walls: "
                + ", ".join(
                    f"{c[0]} {d.mean:+.2f} [{d.ci95_low:+.2f}, {d.ci95_high:+.2f}]"
                    for c, d in zip(candidates[1:], diffs[1:], strict=True)
                )
            )
        else:
            best = max(range(len(curve)), key=lambda i: curve[i][opp]["mean_points"])
            how = f"best against {opp} on the selection walls"
        final_src = candidates[best][0]
        net, _ = load_checkpoint(candidates[best][1])
        print(f"final policy: {final_src} ({how})")
    meta["final_policy"] = final_src
    final = save_checkpoint(net, run_dir / "final.pt", {"stage": "final", "from": final_src})
    meta["train_seconds"] = time.time() - t_start - eval_seconds
    meta["curve_eval_seconds"] = eval_seconds

    results = []
    diffs = []
    if cfg.eval.walls > 0:
        final_net, _ = load_checkpoint(final)
        results = evaluate_policy(
            final_net,
            cfg,
            encoder,
            cfg.eval.walls,
            cfg.eval.report_block,
            "trained",
            progress=progress,
        )
        for r in results:
            for metric in ("points", "placement"):
                diffs.append(difference(r, "trained", r.lineup[1], metric))
        if bc_path is not None and cfg.eval.gain_over_bc:
            gain = gain_over_bc(final_net, bc_path, results, cfg, encoder, progress=progress)
            meta["gain_over_bc"] = [dataclasses.asdict(d) for d in gain]
            diffs.extend(gain)
        meta["total_seconds"] = time.time() - t_start
        paths = write_results(
            results, run_dir, meta={"config": to_dict(cfg), **meta}, differences=diffs
        )
        print(results_table(results))
        for d in diffs:
            print(
                f"{d.a} - {d.b} ({d.metric} per hand, {d.walls} walls x "
                f"{results[0].points.shape[1]} seatings): {d.mean:+.3f} "
                f"[{d.ci95_low:+.3f}, {d.ci95_high:+.3f}]"
            )
        print(f"results: {paths['csv']}, {paths['json']}, plot: {paths['png']}")
    if curve:
        print(f"learning curve: {plot_curve(curve, run_dir / 'curve.png')}")
    meta["total_seconds"] = time.time() - t_start
    # strict JSON: NaN / inf (e.g. an empty statistic) become null
    (run_dir / "meta.json").write_text(json.dumps(json_safe(meta), indent=2, allow_nan=False))
    writer.close()
    print(f"done in {meta['total_seconds']:.0f} s; run directory: {run_dir}")
    return {"run_dir": run_dir, "results": results, "meta": meta, "curve": curve}

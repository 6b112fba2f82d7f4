"""Duplicate evaluation of one agent against three copies of an opponent.

Usage::

    python scripts/evaluate.py --agent runs/<run>/final.pt --opponent random --walls 500
    python scripts/evaluate.py --agent rule --opponent random --walls 2000 --out runs/eval-rule
    python scripts/evaluate.py --agent rule --opponent rule-defensive --walls 2000 --workers 2

Agents: ``random``, ``rule``, ``rule-defensive``, a checkpoint path (``*.pt``), resolved by
:mod:`mcr_env.eval.registry`, or ``cmd:<command>``, an outside Botzone bot process
(``--opponent "cmd:python path/to/bot.py"``; :mod:`mcr_env.botzone.process`: then the judge's
rules are played, botzone layout and profile with its -30/+10 penalty, at most ``--cmd-batch``
games at once, and the bots' incidents and answer times are printed). Each wall is replayed
under every seat permutation (``--permutations rotations`` = 4, ``all`` = 24); ``--wall-offset``
selects the block of walls (keep selection and final-report blocks apart). ``--workers k``
plays the batches in k spawned worker processes (``-1`` = one per CPU, 0 = in this process;
:mod:`mcr_env.eval.parallel`; not with ``cmd:`` bots): the same results for every k >= 1, and
the in-process ones for agents without mutable state (rule agents, checkpoints; a ``random``
agent's draws depend on which batches one copy plays). Prints a table (per
agent: mean points and mean placement points per hand with 95% CIs, win, deal-in, self-draw and
exhaustive-draw rates, mean points of wins), the agent-minus-opponent difference in points and
placement with 95% CIs over the walls, and the agent's per-seat results; writes ``eval.csv``,
``eval.json`` and ``eval.png`` into ``--out``. Bad input (unknown agent, missing checkpoint,
``--walls 0``) prints one ``evaluate.py: error: ...`` line and exits with status 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import baselines.features  # noqa: E402, F401  (registers planes-v0+rule-v0)
from baselines.agents import register  # noqa: E402
from baselines.train import git_commit  # noqa: E402
from mcr_env.engine.config import RulesConfig  # noqa: E402
from mcr_env.eval import (  # noqa: E402
    difference,
    duplicate_evaluate,
    results_table,
    write_results,
)
from mcr_env.eval.cli import (  # noqa: E402
    OneLineParser,
    UsageError,
    cli_main,
    load_agent,
    require_nonnegative,
    require_positive,
)
from mcr_env.eval.registry import register_agent  # noqa: E402

register(register_agent)  # the baselines' specs: random, rule, rule-defensive, *.pt

PROG = "evaluate.py"


def run(argv: list[str] | None = None):
    """Parse arguments, evaluate, print and save; returns the :class:`DuplicateResult`.

    Raises:
        UsageError: bad arguments, unknown agent spec or unloadable checkpoint.
    """
    import torch

    p = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("--agent", required=True, help="random | rule | path/to/checkpoint.pt")
    p.add_argument("--opponent", default="random", help="random | rule | path/to/checkpoint.pt")
    p.add_argument("--walls", type=int, default=500, help="number of distinct walls")
    p.add_argument("--permutations", default="rotations", choices=["rotations", "all"])
    p.add_argument("--seed", type=int, default=0, help="seed of the walls and random agents")
    p.add_argument("--wall-offset", type=int, default=0, help="index of the first wall")
    p.add_argument("--batch-size", type=int, default=256, help="games played in parallel")
    p.add_argument("--wall-layout", default="official", choices=["official", "botzone"])
    p.add_argument("--out", default="runs/eval", help="output directory")
    p.add_argument("--threads", type=int, default=2, help="torch threads (in this process)")
    p.add_argument(
        "--workers",
        type=int,
        default=0,
        help="worker processes: 0 = in this process, -1 = one per CPU (each: 1 torch thread)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--cmd-io",
        default="json",
        choices=["json", "simple"],
        help="interaction style of cmd: bots",
    )
    p.add_argument("--cmd-timeout", type=float, default=5.0, help="seconds per cmd: bot answer")
    p.add_argument(
        "--cmd-batch",
        type=int,
        default=16,
        help="games at once with cmd: bots (one process per bot seat)",
    )
    args = p.parse_args(argv)
    require_positive(walls=args.walls, batch_size=args.batch_size, threads=args.threads)
    require_nonnegative(seed=args.seed, wall_offset=args.wall_offset)
    if args.workers < -1:
        raise UsageError(f"--workers must be >= -1, got {args.workers}")
    torch.set_num_threads(args.threads)
    cmd = dict(io=args.cmd_io, timeout=args.cmd_timeout)
    agent = load_agent(args.agent, args.seed, "--agent", cmd)
    opp = load_agent(args.opponent, args.seed + 1, "--opponent", cmd)
    if agent.name == opp.name:
        opp.name = f"{opp.name}-opponent"
    encoders = {getattr(a, "encoder", "planes-v0") for a in (agent, opp) if a.needs_obs}
    if len(encoders) > 1:
        raise UsageError(f"--agent and --opponent read different observations: {sorted(encoders)}")
    procs = [a for a in (agent, opp) if hasattr(a, "incidents")]
    rules = RulesConfig(wall_layout=args.wall_layout)
    batch = args.batch_size
    if procs:  # outside Botzone bots play the judge's rules
        rules = RulesConfig(
            wall_layout="botzone", scoring_profile="botzone", illegal_action="penalize"
        )
        batch = min(batch, args.cmd_batch)
        if args.workers:
            for x in procs:
                x.close()
            raise UsageError("--workers needs agents without outside processes (cmd:): use 0")
    try:
        res = duplicate_evaluate(
            [agent, opp, opp, opp],
            args.walls,
            permutations=args.permutations,
            seed=args.seed,
            wall_offset=args.wall_offset,
            batch_size=batch,
            rules=rules,
            encoder=encoders.pop() if encoders else "planes-v0",
            progress=not args.no_progress,
            num_workers=args.workers,
        )
    finally:
        for a in procs:
            a.close()
    meta = {"args": vars(args), "git_commit": git_commit()}
    diffs = [difference(res, agent.name, opp.name, m) for m in ("points", "placement")]
    try:
        paths = write_results([res], args.out, meta=meta, differences=diffs)
    except OSError as e:  # an --out that cannot be a directory (a file on the way, no rights)
        raise UsageError(f"--out {args.out!r}: cannot write the results ({e})") from None
    print(results_table([res]))
    for d in diffs:
        print(
            f"{d.a} - {d.b} ({d.metric} per hand, {d.walls} walls): {d.mean:+.3f} "
            f"[{d.ci95_low:+.3f}, {d.ci95_high:+.3f}]"
        )
    for row in res.seat_breakdown(agent.name):
        print(
            f"{agent.name} in seat {row['seat']}: {row['hands']} hands, "
            f"{row['mean_points']:+.3f} points, {row['mean_placement']:.3f} placement"
        )
    print(f"results: {paths['csv']}, {paths['json']}, plot: {paths['png']}")
    for a in procs:
        ms = [1e3 * x for x in a.seconds] or [float("nan")]
        print(
            f"{a.name}: incidents: {len(a.incidents)}, processes: {a.starts}, "
            f"answer ms mean {sum(ms) / len(ms):.2f} max {max(ms):.1f}"
        )
        for inc in a.incidents[:10]:
            print(f"  game {inc.game} seat {inc.seat}: {inc.kind}: {inc.detail}")
    return res


def main(argv: list[str] | None = None) -> int:
    """Exit status of :func:`run`: 0, or 2 after one ``evaluate.py: error: ...`` line."""
    return cli_main(PROG, run, argv)


if __name__ == "__main__":
    sys.exit(main())

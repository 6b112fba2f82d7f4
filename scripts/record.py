"""Play seeded games and write them as game records (JSON lines, mcr_env.engine.records).

Usage::

    python scripts/record.py --games 100 --seed 0 --out runs/records.jsonl
    python scripts/record.py --games 4 --match --wall-layout botzone --agents rule,random
    python scripts/replay.py runs/records.jsonl            # verify them

Agents: one spec for all four seats, two (alternating seats) or four comma-separated specs
(``random``, ``rule`` or a checkpoint ``*.pt``, see ``baselines.agents.make_agent``); the agent
at seat s is seeded with ``seed + s``. Games run ``--batch-size`` at a time on one engine, reset
with ``--seed`` for the first batch and with the next episode counters after that, so every
record's walls re-derive from its ``origin``. Prints one JSON line with counts, timing,
versions and the git commit. Bad input (unknown agent, missing checkpoint, ``--games 0``)
prints one ``record.py: error: ...`` line and exits with status 2.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from tqdm import tqdm  # noqa: E402

from baselines.agents import register  # noqa: E402
from baselines.train import git_commit  # noqa: E402
from mcr_env.engine import MCREngine, RulesConfig  # noqa: E402
from mcr_env.engine.records import GameRecorder, write_records  # noqa: E402
from mcr_env.eval.cli import (  # noqa: E402
    OneLineParser,
    UsageError,
    cli_main,
    load_agent,
    require_nonnegative,
)
from mcr_env.eval.registry import register_agent  # noqa: E402

register(register_agent)  # the baselines' specs: random, rule, rule-defensive, *.pt
from mcr_env.eval.play import play_games  # noqa: E402

PROG = "record.py"


def run(argv: list[str] | None = None) -> dict:
    """Parse arguments, play and record the games, write the JSONL file; returns the summary.

    Raises:
        UsageError: bad arguments, unknown agent spec or unloadable checkpoint.
    """
    p = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=100, help="number of games (hands or matches)")
    p.add_argument("--seed", type=int, default=0, help="root seed of the walls and agents")
    p.add_argument(
        "--agents", default="random", help="one spec, or 2 (alternating seats) or 4 comma-separated"
    )
    p.add_argument("--wall-layout", default="official", choices=["official", "botzone"])
    p.add_argument("--scoring-profile", default="mcr", choices=["mcr", "botzone"])
    p.add_argument("--match", action="store_true", help="16-hand matches instead of single hands")
    p.add_argument("--batch-size", type=int, default=64, help="games played in parallel")
    p.add_argument("--out", default="runs/records.jsonl", help="output JSONL file")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = p.parse_args(argv)
    if args.games < 1 or args.batch_size < 1:
        p.error("--games and --batch-size must be >= 1")
    require_nonnegative(seed=args.seed)
    specs = args.agents.split(",")
    if len(specs) not in (1, 2, 4):
        p.error(f"--agents takes 1, 2 (alternating) or 4 specs, got {len(specs)}")
    specs = (specs * 4)[:4]
    agents = [load_agent(spec, args.seed + s, "--agents") for s, spec in enumerate(specs)]
    encoder = None
    if any(a.needs_obs for a in agents):
        from mcr_env.encoding import get_encoder

        encoder = get_encoder(next(a.encoder for a in agents if a.needs_obs))
    config = RulesConfig(
        wall_layout=args.wall_layout,
        scoring_profile=args.scoring_profile,
        match="match" if args.match else "hand",
    )
    b = min(args.batch_size, args.games)
    rec = GameRecorder(MCREngine(b, config))
    agent_index = np.tile(np.arange(4), (b, 1))
    records: list[dict] = []
    t0 = time.perf_counter()
    bar = tqdm(total=args.games, unit="game", disable=args.no_progress)
    while len(records) < args.games:
        n = min(b, args.games - len(records))
        games = np.arange(b) < n
        rec.reset(seed=args.seed if not records else None, games=games)
        play_games(rec, agents, agent_index, encoder, max_steps=200_000)
        done = sorted(rec.pop_finished(), key=lambda r: r["origin"]["game"])
        records += done
        bar.update(len(done))
    bar.close()
    seconds = time.perf_counter() - t0
    try:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        write_records(args.out, records)
    except OSError as e:  # a file where a folder should be, no rights, ...
        raise UsageError(f"--out {args.out!r}: cannot write the records ({e})") from None
    hands = [h for r in records for h in r["hands"]]
    reasons = [h["result"]["end_reason"] for h in hands]
    summary = {
        "out": str(args.out),
        "games": len(records),
        "hands": len(hands),
        "decisions": sum(len(h["decisions"]) for h in hands),
        "wins": sum(r in ("SELF_DRAWN", "DISCARD", "ROB_KONG") for r in reasons),
        "exhaustive_draws": reasons.count("EXHAUSTIVE"),
        "agents": specs,
        "config": dataclasses.asdict(config),
        "seconds": round(seconds, 3),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "commit": git_commit(),
    }
    print(json.dumps(summary))
    return summary


def main(argv: list[str] | None = None) -> int:
    """Exit status of :func:`run`: 0, or 2 after one ``record.py: error: ...`` line."""
    return cli_main(PROG, run, argv)


if __name__ == "__main__":
    sys.exit(main())

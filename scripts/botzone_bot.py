"""Run any agent as a Botzone bot on stdin/stdout (JSON or simple I/O, keep-running).

Usage::

    python scripts/botzone_bot.py --agent rule            # keep-running (the default)
    python scripts/botzone_bot.py --agent runs/<run>/final.pt --once

Agents: ``random``, ``rule`` or a checkpoint path (``*.pt``). The bot answers the Botzone
"Chinese-Standard-Mahjong" requests (see :mod:`mcr_env.botzone.protocol`); legal actions come
from the engine with the botzone layout and profile. ``--once`` answers one turn and exits (a
new process per turn).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcr_env.botzone.bot import BotzoneBot, run_bot  # noqa: E402
from mcr_env.botzone.protocol import RequestError  # noqa: E402
from mcr_env.eval.cli import (  # noqa: E402
    OneLineParser,
    UsageError,
    cli_main,
    load_agent,
    require_nonnegative,
)

PROG = "botzone_bot.py"


def run(argv: list[str] | None = None) -> int:
    """Parse arguments and serve one game on stdin/stdout; returns 0.

    Raises:
        UsageError: bad arguments, an agent that cannot be built, or input that is not a
            game's requests (unreadable JSON, a request that does not fit the game so far).
    """
    p = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("--agent", default="rule", help="random | rule | path/to/checkpoint.pt")
    p.add_argument("--seed", type=int, default=0, help="seed of a random agent")
    p.add_argument("--once", action="store_true", help="answer one turn, then exit")
    args = p.parse_args(argv)
    require_nonnegative(seed=args.seed)
    agent = load_agent(args.agent, args.seed, "--agent")
    try:
        return run_bot(lambda: BotzoneBot(agent), keep_running=not args.once)
    except (RequestError, json.JSONDecodeError) as e:
        raise UsageError(f"bad input: {e}") from None


def main(argv: list[str] | None = None) -> int:
    """Exit status: 0, or 2 after one ``botzone_bot.py: error: ...`` line."""
    return cli_main(PROG, run, argv)


if __name__ == "__main__":
    sys.exit(main())

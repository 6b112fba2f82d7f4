"""Pack a policy checkpoint as a Botzone submission zip (numpy-only forward pass).

Usage::

    python scripts/export_botzone.py runs/<run>/final.pt --out bot.zip
    python bot.zip        # the bot, on stdin/stdout; needs only numpy; Python 3.6+

The zip has ``__main__.py`` at its root, the weights as ``weights.npz`` (batch norm folded)
and the mcr_env packages the bot needs (:mod:`baselines.botzone_export`).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcr_env.eval.cli import OneLineParser, UsageError, cli_main  # noqa: E402

PROG = "export_botzone.py"


def run(argv: list[str] | None = None) -> Path:
    """Parse arguments and write the zip; returns its path.

    Raises:
        UsageError: bad arguments, or a checkpoint that cannot be read.
    """
    from baselines.botzone_export import export_submission

    p = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("checkpoint", help="path/to/checkpoint.pt")
    p.add_argument("--out", default="bot.zip", help="zip to write")
    p.add_argument(
        "--python",
        default="3.6",
        choices=["3.6", "3.7"],
        help="oldest Python the bot runs on (3.6, Botzone's, packs the dataclasses backport)",
    )
    args = p.parse_args(argv)
    try:
        out = export_submission(args.checkpoint, args.out, python=args.python)
    except FileNotFoundError:
        raise UsageError(f"checkpoint {args.checkpoint!r} not found") from None
    except ValueError as e:
        raise UsageError(f"checkpoint {args.checkpoint!r}: {e}") from None
    except RuntimeError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB)")
    return out


def main(argv: list[str] | None = None) -> int:
    """Exit status: 0, or 2 after one ``export_botzone.py: error: ...`` line."""
    return cli_main(PROG, run, argv)


if __name__ == "__main__":
    sys.exit(main())

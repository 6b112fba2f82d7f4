"""Train and evaluate an agent: behaviour cloning, PPO self-play, duplicate evaluation.

Usage::

    python scripts/train.py --config configs/default.yaml [--set ppo.iterations=5 ...]

Prints progress bars, a summary line per stage and the final results table; everything is
written to ``runs/<name>-<time>/`` (see :mod:`baselines.train`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from baselines.config import load_config  # noqa: E402
from baselines.train import run  # noqa: E402


def main(argv: list[str] | None = None) -> dict:
    """Parse arguments and run the job; returns what :func:`baselines.train.run` returns. A
    config that cannot be loaded (missing file, unknown key, wrong value type) exits with
    status 2 after one ``train.py: error: ...`` line (argparse's usage error)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/default.yaml", help="YAML config file")
    p.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="dotted overrides, e.g. ppo.iterations=2 bc.hands=64 (values parsed as YAML)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    args = p.parse_args(argv)
    try:
        cfg = load_config(args.config, args.set)
    except FileNotFoundError:
        p.error(f"--config {args.config!r}: no such file")
    except (ValueError, TypeError) as e:  # unknown keys (listed), wrong value types, bad YAML
        p.error(f"{args.config}: {e}")
    return run(cfg, progress=not args.no_progress)


if __name__ == "__main__":
    main()

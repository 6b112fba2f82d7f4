"""Command-line plumbing shared by the evaluation and recording scripts: bad user input (an
unknown agent, a missing checkpoint, ``--walls 0``, an argparse error) prints one line
``<prog>: error: <message>`` on stderr and exits with status 2, as ``mcr-score`` does; other
exceptions (bugs) keep their traceback."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

EXIT_USAGE = 2
"""Exit status for bad input (as argparse uses)."""


class UsageError(Exception):
    """Bad command-line input; the message is printed as one line."""


class OneLineParser(argparse.ArgumentParser):
    """ArgumentParser raising :class:`UsageError` instead of printing usage and exiting
    (``--help`` still prints help and exits 0)."""

    def error(self, message: str):  # noqa: D102 (argparse override)
        raise UsageError(message)


def require_positive(**values: int) -> None:
    """Raise :class:`UsageError` ``--name must be >= 1, got v`` for the first value < 1
    (keyword names use ``_`` for ``-``: ``batch_size`` is ``--batch-size``)."""
    for name, v in values.items():
        if v < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 1, got {v}")


def require_nonnegative(**values: int) -> None:
    """Raise :class:`UsageError` ``--name must be >= 0, got v`` for the first value < 0 (a
    ``--seed``: agents draw from ``numpy.random.default_rng(seed)``, which takes no negative
    seeds)."""
    for name, v in values.items():
        if v < 0:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 0, got {v}")


def load_agent(spec: str, seed: int, option: str, cmd_options: dict | None = None) -> Any:
    """:func:`mcr_env.eval.registry.make_agent` ``(spec, seed)``, or for ``cmd:<command>`` an
    outside Botzone bot (:class:`mcr_env.botzone.process.BotzoneProcessAgent` with
    ``cmd_options`` such as ``io``, ``timeout``); any failure to build or load the agent
    (unknown spec, missing or unreadable checkpoint, empty command) becomes a
    :class:`UsageError` naming the command-line ``option`` and the spec."""
    from mcr_env.eval.registry import make_agent

    if spec.startswith("cmd:"):
        from mcr_env.botzone.process import BotzoneProcessAgent

        try:
            return BotzoneProcessAgent(spec[4:], **(cmd_options or {}))
        except ValueError as e:
            raise UsageError(f"{option} {spec!r}: {e}") from None

    try:
        return make_agent(spec, seed=seed)
    except FileNotFoundError:
        raise UsageError(f"{option} {spec!r}: checkpoint file not found") from None
    except ValueError as e:
        raise UsageError(f"{option} {spec!r}: {e}") from None
    except Exception as e:  # a checkpoint that cannot be loaded is bad input too
        first = (str(e).strip().splitlines() or [""])[0]  # torch's messages span lines
        raise UsageError(f"{option} {spec!r}: cannot load ({type(e).__name__}: {first})") from None


def cli_main(prog: str, run: Callable[[Sequence[str] | None], Any], argv=None) -> int:
    """Call ``run(argv)``; return 0, or print ``<prog>: error: <message>`` on stderr and return
    :data:`EXIT_USAGE` when it raises :class:`UsageError`."""
    try:
        run(argv)
    except UsageError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    return 0

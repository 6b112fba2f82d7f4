"""Replay game records (JSON lines) through the engine, verify them and print the table.

Usage::

    python scripts/replay.py runs/records.jsonl                 # verify every record
    python scripts/replay.py runs/records.jsonl --index 3       # final table of record 3
    python scripts/replay.py runs/records.jsonl --index 3 --moves --seat 0 --codes
    python scripts/replay.py runs/records.jsonl --index 3 --html out.html [--seat 0]

Without ``--index`` every record is replayed and verified (legal actions, hand results,
settlements, final state; see ``mcr_env.engine.records.replay``) and one line per record is
printed. With ``--index i`` record i is printed move by move (``--moves``) or as its final
table, in full or as one seat sees it (``--seat``), with Unicode tiles or Botzone codes
(``--codes``). ``--html out.html`` writes record ``--index`` (default 0) as a self-contained
HTML page stepping through it move by move (``mcr_env.play.html``; with ``--seat`` only that
seat's view is in the file). Exits with status 1 and the error message if a record is malformed
or does not replay, or a file cannot be read or written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcr_env.engine.records import RecordError, ReplayError, read_records, replay  # noqa: E402
from mcr_env.engine.render import render_hand_result, render_record  # noqa: E402
from mcr_env.play.html import write_html  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, replay and print; returns the exit status (0 ok, 1 failure)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("path", help="JSONL file written by scripts/record.py")
    p.add_argument("--index", type=int, default=None, help="print this record (0-based)")
    p.add_argument("--moves", action="store_true", help="print the table after every step")
    p.add_argument("--seat", type=int, default=None, choices=range(4), help="view of one seat")
    p.add_argument("--codes", action="store_true", help="Botzone codes instead of glyphs")
    p.add_argument("--html", default=None, help="write record --index as this HTML page")
    args = p.parse_args(argv)
    try:
        records = read_records(args.path)
        if not records and (args.html is not None or args.index is not None):
            p.error(f"{args.path} holds no records")
        if args.html is not None:
            i = 0 if args.index is None else args.index
            if not 0 <= i < len(records):
                p.error(f"--index {i} out of range 0..{len(records) - 1}")
            path = write_html(args.html, records[i], args.seat)
            print(f"record {i}: verified, wrote {path}")
            return 0
        if args.index is not None:
            if not 0 <= args.index < len(records):
                p.error(f"--index {args.index} out of range 0..{len(records) - 1}")
            render_record(
                records[args.index],
                moves=args.moves,
                seat=args.seat,
                tiles="codes" if args.codes else "glyphs",
            )
            print(f"record {args.index}: verified")
            return 0
        for i, rec in enumerate(records):
            try:
                replay(rec)
            except (RecordError, ReplayError) as e:
                raise type(e)(f"record {i}: {e}") from e
            results = [h["result"] for h in rec["hands"]]
            o = rec["origin"]
            line = f"record {i}: ok  seed {o['seed']} game {o['game']} episode {o['episode']}"
            if len(results) == 1:
                line += "  " + render_hand_result(results[0])
            else:
                line += f"  {len(results)} hands  final scores {rec['final_scores']}"
            print(line)
        print(f"{len(records)} record(s) verified")
        return 0
    except (RecordError, ReplayError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # no such records file, or an --html page that cannot be written
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

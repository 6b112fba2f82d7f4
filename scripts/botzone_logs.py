"""PKU/Botzone match logs (data.txt): replay them through the engine, or write ours as data.txt.

Usage::

    python scripts/botzone_logs.py replay data.txt --records games.jsonl --bc bc.npz
    python scripts/botzone_logs.py write games.jsonl --out data.txt

``replay`` checks every match (every action legal, draws, fans and scores equal ours; see
:mod:`mcr_env.botzone.datatxt`), prints how many replayed and lists every match that did not
(its id, the first bad line and why), and writes our JSONL records (``--records``) and a
behaviour-cloning dataset of every decision of all four seats (``--bc``, an ``.npz`` of obs,
mask, action, ret, seat, match). ``write`` turns our records (single hands
of the botzone layout, e.g. from ``scripts/record.py --wall-layout botzone``) into data.txt.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from mcr_env.botzone.datatxt import DataFormatError, replay_file, write_datatxt  # noqa: E402
from mcr_env.engine.records import read_records, write_records  # noqa: E402
from mcr_env.eval.cli import OneLineParser, UsageError, cli_main  # noqa: E402

PROG = "botzone_logs.py"


def run(argv: list[str] | None = None) -> dict:
    """Parse arguments and run the subcommand; returns a summary dict.

    Raises:
        UsageError: bad arguments, an unreadable or malformed input file.
    """
    p = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("replay", help="replay data.txt through the engine")
    r.add_argument("data", help="data.txt")
    r.add_argument("--records", help="write our JSONL records here")
    r.add_argument("--bc", help="write the behaviour-cloning dataset (.npz) here")
    r.add_argument("--limit", type=int, default=None, help="first N matches only")
    r.add_argument("--show", type=int, default=20, help="failures to print")
    w = sub.add_parser("write", help="write our records as data.txt")
    w.add_argument("records", help="JSONL records")
    w.add_argument("--out", default="data.txt", help="data.txt to write")
    args = p.parse_args(argv)
    if args.cmd == "write":
        try:
            records = read_records(args.records)
            lines = write_datatxt(records, [str(k) for k in range(len(records))])
        except (OSError, ValueError) as e:
            raise UsageError(f"{args.records}: {e}") from None
        Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {len(records)} matches to {args.out}")
        return {"matches": len(records)}
    try:
        res = replay_file(args.data, collect=bool(args.bc), limit=args.limit)
    except OSError as e:
        raise UsageError(f"{args.data}: {e}") from None
    except DataFormatError as e:
        raise UsageError(str(e)) from None
    n_ok, n_bad = len(res.replays), len(res.failures)
    fans = sum(r.fans_compared for r in res.replays)
    print(
        f"{n_ok + n_bad} matches: {n_ok} replayed ({fans} with fans compared one by one), "
        f"{n_bad} did not"
    )
    for f in res.failures[: args.show]:
        print(f"  match {f.match_id}, line {f.line_no}: {f.line!r}: {f.reason}")
    if args.records:
        write_records(args.records, [x.record for x in res.replays])
        print(f"records: {args.records}")
    summary = {"replayed": n_ok, "failed": n_bad, "fans_compared": fans}
    if args.bc and res.replays:
        data = res.dataset()
        np.savez_compressed(args.bc, **data)
        summary["samples"] = int(len(data["action"]))
        print(f"BC dataset: {args.bc} ({len(data['action'])} decisions)")
    print(json.dumps(summary))
    return summary


def main(argv: list[str] | None = None) -> int:
    """Exit status: 0, or 2 after one ``botzone_logs.py: error: ...`` line."""
    return cli_main(PROG, run, argv)


if __name__ == "__main__":
    sys.exit(main())

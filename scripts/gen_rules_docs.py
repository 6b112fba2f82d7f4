"""Regenerate the fan table of docs/rules.md §6 from the scorer's data.

Usage: ``python scripts/gen_rules_docs.py [--check] [--file docs/rules.md]``. The table sits
between the two marker comments of :mod:`mcr_env.scoring.docs`; the rest of the file is left
as written. ``--check`` exits 1 if the table differs from the generated one (for CI).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcr_env.scoring.docs import FAN_TABLE_BEGIN, FAN_TABLE_END, fan_table_markdown

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(ROOT / "docs" / "rules.md"))
    ap.add_argument("--check", action="store_true", help="fail if the table is out of date")
    args = ap.parse_args(argv)
    path = Path(args.file)
    text = path.read_text(encoding="utf-8")
    start = text.find(FAN_TABLE_BEGIN)
    end = text.find(FAN_TABLE_END)
    if start < 0 or end < start:
        print(f"{path}: fan table markers not found", file=sys.stderr)
        return 1
    end += len(FAN_TABLE_END) + 1  # the marker line and its newline
    new = text[:start] + fan_table_markdown() + text[end:]
    if args.check:
        if new != text:
            print(
                f"{path}: the fan table is out of date; run {Path(__file__).name}", file=sys.stderr
            )
            return 1
        print(f"{path}: the fan table is up to date")
        return 0
    path.write_text(new, encoding="utf-8")
    print(f"wrote the fan table of {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

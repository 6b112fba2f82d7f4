"""Generate docs/observations.md (the channel tables of the registered encoders).

Usage: ``python scripts/gen_obs_docs.py [--check] [--out docs/observations.md]``.
``--check`` exits 1 if the file differs from what would be generated (for CI).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcr_env.encoding.docs import observations_markdown

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "observations.md"))
    ap.add_argument("--check", action="store_true", help="fail if the file is out of date")
    args = ap.parse_args(argv)
    text = observations_markdown()
    out = Path(args.out)
    if args.check:
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            print(f"{out} is out of date; run scripts/gen_obs_docs.py", file=sys.stderr)
            return 1
        print(f"{out} is up to date")
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

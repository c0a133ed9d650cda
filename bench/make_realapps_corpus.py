"""Build the re-anchoring corpus of real applications (issue 19): each application of
bench/realapps/catalog records its task, then every scenario's screens are shot with the
truth of where each target is (AT-SPI or the X window tree).

    .venv/bin/python bench/make_realapps_corpus.py [--out /tmp/deskreel-realapps] [--app NAME]
    .venv/bin/python bench/make_realapps_corpus.py --subset tests/data/realapps

The applications come from Debian's packages (`make realapps` installs them). The corpus goes
outside the repository: every screen is a 1920x1080 PNG, tens of MB in all.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from realapps.catalog import apps
from realapps.corpus import build_app

DEFAULT_OUT = Path("/tmp/deskreel-realapps")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--app", action="append", help="only this application (repeatable)")
    parser.add_argument(
        "--subset",
        type=Path,
        help="write the committed test subset (tests/data/realapps) from the corpus already "
        "built, instead of building",
    )
    args = parser.parse_args()
    if args.subset:
        from realapps.subset import write_subset

        print(f"subset written to {args.subset}: {write_subset(args.out, args.subset)}")
        return 0
    unknown = [name for name in args.app or () if name not in apps()]
    if unknown:
        print(f"no application {unknown[0]!r}: choose from {', '.join(sorted(apps()))}")
        return 2
    build_all(args.out, args.app)
    return 0


def build_all(out: Path, only: list[str] | None = None) -> None:
    """Build the corpus of every application of the catalog (or of those named)."""
    catalog = apps()
    for name in only or sorted(catalog):
        manifest = build_app(catalog[name], out, log=lambda line: print(line, flush=True))
        print(f"{name}: {len(manifest['steps'])} pointer steps, {len(manifest['cases'])} cases")


if __name__ == "__main__":
    sys.exit(main())

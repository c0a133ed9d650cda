"""Fleet benchmarks: many recorders writing at once, and push and pull throughput.

1. writers: 1, 4 and 8 processes, each making a recorder's Store calls as fast as it can
   (tests/fleet_writer.py) for --seconds: all into one PostgreSQL database, side by side
   with one SQLite file per writer. Two loads: "rows" (raw events, batches of 100 rows) and
   "frames" (a 100 KB frame of its own, a shared frame, and a step with an anchor, per
   iteration). Prints the median total rate over --repeat runs, and PostgreSQL / SQLite.
2. push: a recording of 200 frames of 100 KB, 20,000 raw events and 200 steps, pushed from
   an SQLite file into an empty PostgreSQL database, and pulled back into a new file: MB/s
   of frame and anchor bytes, median over --repeat runs.

    DESKREEL_TEST_PG=postgresql://USER:PASSWORD@HOST/DB .venv/bin/python bench/bench_fleet.py \\
        [--seconds 3] [--repeat 3] [--writers 1 4 8]

The role in the URL must be allowed to create databases: every run gets a new one.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import argparse
import functools
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from deskreel.storage import Action, Anchor, RawEvent, Step, open_store  # noqa: E402
from deskreel.storage.store import server_name  # noqa: E402
from deskreel.storage.transfer import copy_recording  # noqa: E402
from tests.fleet_writer import write_like_a_recorder  # noqa: E402
from tests.pg import create_database, drop_database  # noqa: E402

FRAME_BYTES = 100_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url",
        default=os.environ.get("DESKREEL_TEST_PG"),
        help="PostgreSQL server (default: $DESKREEL_TEST_PG)",
    )
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 4, 8])
    args = parser.parse_args()
    if not args.url:
        sys.exit("bench_fleet: give --url or set DESKREEL_TEST_PG (.ci/postgres prints one)")
    server = make_url(args.url)
    print(
        f"PostgreSQL at {server_name(server)}; {os.cpu_count()} CPUs; {args.seconds:g} s "
        f"per run, median of {args.repeat}"
    )
    print()
    print(
        f"{'writers':>7}  {'load':<6}  {'PostgreSQL':>22}  {'SQLite (file each)':>22}  "
        f"{'PG/SQLite':>9}"
    )
    for load in ("rows", "frames"):
        for n in args.writers:
            pg = _median(
                [_writers(n, load, args.seconds, _database(server)) for _ in range(args.repeat)]
            )
            lite = _median([_writers(n, load, args.seconds, _files()) for _ in range(args.repeat)])
            unit = "rows/s" if load == "rows" else "frames/s"
            print(
                f"{n:>7}  {load:<6}  {pg:>13,.0f} {unit:<8}  {lite:>13,.0f} {unit:<8}  "
                f"{pg / lite:>9.2f}"
            )
    print()
    _transfer(server, args.repeat)


def _writers(
    n: int, load: str, seconds: float, targets: AbstractContextManager[list[str]]
) -> float:
    """Total rate of n writer processes started together, each into its own target."""
    with targets as urls:
        ctx = multiprocessing.get_context("spawn")
        write = functools.partial(
            write_like_a_recorder,
            seconds=seconds,
            rows=load == "rows",
            frames=load == "frames",
            frame_bytes=FRAME_BYTES,
            start_at=time.time() + 2.0,
        )
        with ctx.Pool(n) as pool:
            done = pool.starmap(write, [(urls[i % len(urls)], f"writer-{i}") for i in range(n)])
    if load == "rows":
        return sum(w.events / w.seconds for w in done)
    return sum(w.steps / w.seconds for w in done)


@contextmanager
def _files() -> Iterator[list[str]]:
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        yield [str(Path(tmp) / f"writer-{i}.db") for i in range(64)]


@contextmanager
def _database(server) -> Iterator[list[str]]:
    """A new database on the server for one run, dropped afterwards."""
    driver = (
        server.set(drivername="postgresql+psycopg") if server.drivername == "postgresql" else server
    )
    admin = create_engine(driver, isolation_level="AUTOCOMMIT")
    name = create_database(admin, "deskreel_bench")
    try:
        yield [server.set(database=name).render_as_string(hide_password=False)]
    finally:
        drop_database(admin, name)
        admin.dispose()


def _transfer(server, repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        local = Path(tmp) / "local.db"
        size = _big_recording(local)
        pushes, pulls = [], []
        for i in range(repeat):
            with _database(server) as [url]:
                with open_store(local) as source, open_store(url) as target:
                    began = time.perf_counter()
                    pushed = copy_recording(source, target, "big")
                    pushes.append(time.perf_counter() - began)
                back = Path(tmp) / f"back-{i}.db"
                with open_store(url) as source, open_store(back) as target:
                    began = time.perf_counter()
                    copy_recording(source, target, pushed.target_id)
                    pulls.append(time.perf_counter() - began)
        mb = size / 1e6
        for what, times in (
            ("push SQLite -> PostgreSQL", pushes),
            ("pull PostgreSQL -> SQLite", pulls),
        ):
            t = statistics.median(times)
            print(
                f"{what}: {mb:.1f} MB (200 frames, 20,000 events, 200 steps) in {t:.2f} s: "
                f"{mb / t:.1f} MB/s"
            )


def _big_recording(path: Path) -> int:
    """200 frames of 100 KB of random bytes, 20,000 events, 200 steps; its frame bytes."""
    with open_store(path) as store:
        rec = store.create_recording("big", source="recorder", screen=(1280, 800))
        store.add_events(
            rec,
            [RawEvent(t=i / 1000, kind="motion", x=i % 1280, y=i % 800) for i in range(20_000)],
            first_seq=0,
        )
        keys = [
            store.put_frame(os.urandom(FRAME_BYTES), width=1280, height=800, fmt="webp")
            for _ in range(200)
        ]
        anchor = Anchor(png=os.urandom(2000), box=(0, 0, 32, 32), offset=(16, 16))
        store.add_steps(
            rec,
            [
                Step(
                    step=i + 1,
                    action=Action(action="left_click", coordinate=(i, i)),
                    t_start=i / 10,
                    t_end=i / 10 + 0.05,
                    events=(i * 100, i * 100 + 99),
                    before_frame=k,
                    after_frame=k,
                    anchor=anchor,
                )
                for i, k in enumerate(keys)
            ],
        )
    return 200 * (FRAME_BYTES + 2000)


def _median(values: list[float]) -> float:
    return statistics.median(values)


if __name__ == "__main__":
    main()

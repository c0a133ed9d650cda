"""`deskreel test` on the sample suite: 8 recordings with 1, 2 and 4 workers.

The 8 recordings are copies of the committed sample (samples/demo.db) in a scratch
database, run against the sample app as samples/deskreel.toml runs it. Prints the wall
time of each run and its speed-up against 1 worker, and per test the medians of the
stages every attempt times: the X server's start (once per worker and screen), copying
the recording, starting the app until its window is mapped, the replay, and the teardown
(stopping the app's process group, releasing keys and buttons), against the replay.

    .venv/bin/python bench/bench_suite.py [--workers 1 2 4] [--tests 8]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "demo.db"
SUITE = ROOT / "samples" / "deskreel.toml"
STAGES = ("xvfb", "copy", "app", "replay", "teardown")


def deskreel(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deskreel", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def scratch_suite(folder: Path, tests: int) -> Path:
    """A copy of the sample suite whose database holds the sample `tests` times."""
    db = folder / "suite.db"
    with sqlite3.connect(f"{SAMPLE.as_uri()}?mode=ro", uri=True) as src:
        dst = sqlite3.connect(db)
        src.backup(dst)
        dst.close()
    for n in range(2, tests + 1):
        done = deskreel("edit", db, "-r", "demo", "--copy-to", f"demo-{n}")
        if done.returncode != 0:
            raise SystemExit(f"bench_suite: cannot copy the sample: {done.stderr.strip()}")
    text = SUITE.read_text().replace(
        'recordings = ["demo.db"]', f"recordings = [{json.dumps(str(db))}]"
    )
    text = text.replace('"app.py"', json.dumps(str(ROOT / "samples" / "app.py")))
    suite = folder / "deskreel.toml"
    suite.write_text(text)
    return suite


def run(suite: Path, workers: int, report: Path) -> tuple[float, dict[str, Any]]:
    began = time.monotonic()
    done = deskreel("test", suite, "--workers", workers, "--report", report)
    wall = time.monotonic() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"bench_suite: deskreel test exited {done.returncode}: {done.stderr}")
    return wall, json.loads((report / "results.json").read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--tests", type=int, default=8)
    args = parser.parse_args()
    print(f"deskreel test, the sample suite of {args.tests} recordings, {os.cpu_count()} cores")
    stages: dict[str, list[float]] = {s: [] for s in STAGES}
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as tmp:
        suite = scratch_suite(Path(tmp), args.tests)
        base = None
        for workers in args.workers:
            wall, results = run(suite, workers, Path(tmp) / f"report-{workers}")
            base = base or wall
            passed = sum(t["verdict"] == "passed" for t in results["tests"])
            rows.append((workers, wall, base / wall, passed, len(results["tests"])))
            for test in results["tests"]:
                for attempt in test["attempts"]:
                    for stage in STAGES:
                        stages[stage].append(attempt["phases"].get(stage, 0.0))
    print(f"{'workers':>8} {'wall s':>8} {'speed-up':>9} {'passed':>7}")
    for workers, wall, speedup, passed, total in rows:
        print(f"{workers:>8} {wall:>8.1f} {speedup:>8.2f}x {passed:>4}/{total}")
    replay = statistics.median(stages["replay"])
    print("per test, medians over every attempt of every run (s):")
    for stage in STAGES:
        values = stages[stage]
        started = [v for v in values if v > 0] if stage == "xvfb" else values
        median = statistics.median(started) if started else 0.0
        note = f" (started {len(started)} times)" if stage == "xvfb" else ""
        print(f"  {stage:<9} {median:7.3f}{note}")
    overhead = sum(statistics.median(stages[s]) for s in ("copy", "app", "teardown"))
    share = 100 * overhead / replay
    print(f"  overhead (copy + app + teardown) {overhead:.3f} s = {share:.1f}% of the replay")
    return 0


if __name__ == "__main__":
    sys.exit(main())

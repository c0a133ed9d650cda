"""Repeatability of `replay --verify` (issue 33): each recording of the real-applications
corpus (bench/make_realapps_corpus.py) replayed with --verify --keep-going, RUNS times, each
on a fresh start of its application, unchanged. A step that passes in one run and fails in
another is a defect, not noise: the table gives the runs that passed whole, the steps that
passed of all steps replayed, and, for each step that failed at least once, how often and
the first message.

    .venv/bin/python bench/bench_verify_repeat.py [--corpus /tmp/deskreel-realapps]
                                                  [--app NAME] [--runs 5]
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_realapps_corpus import DEFAULT_OUT
from realapps.catalog import apps
from realapps.catalog.app import App, Scenario
from realapps.corpus import start
from realapps.twin import desktop_for

from deskreel.matching import VerifyOptions
from deskreel.replayer import Progress, ReplayOptions
from deskreel.replayer.replay import replay
from deskreel.storage import StepResult, open_store


def verified_run(app: App, recording: Path, logs: Path) -> tuple[str, list[StepResult]]:
    """One replay of `recording` with --verify --keep-going on a fresh start of `app`: the
    run's verdict and its steps."""
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "run.db"
        shutil.copyfile(recording, db)
        with desktop_for(app, logs) as desktop, open_store(db) as store:
            start(app, Scenario("unchanged"), desktop)
            outcome = replay(
                store,
                store.recording(app.name),
                display=desktop.display.display,
                options=ReplayOptions(verify=VerifyOptions(keep_going=True)),
                progress=Progress(total=0, quiet=True, stream=io.StringIO()),
            )
            time.sleep(app.settle)
    return outcome.status, outcome.results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--app", action="append", help="only this application (repeatable)")
    parser.add_argument("--runs", type=int, default=5, help="fresh starts per application")
    args = parser.parse_args()
    catalog = apps()
    chosen = [a for a in sorted(args.app or catalog) if (args.corpus / a / "recording.db").exists()]
    if not chosen:
        print(f"no recording in {args.corpus}: build the corpus first", file=sys.stderr)
        return 2
    print(f"replay --verify --keep-going, {args.runs} fresh starts of each application, unchanged")
    print(f"{'application':22}{'runs passed':>12}{'steps passed':>14}")
    for name in chosen:
        app, folder = catalog[name], args.corpus / name
        failed: Counter[int] = Counter()
        first: dict[int, str] = {}
        passed_runs = steps = passed_steps = 0
        for run in range(args.runs):
            status, results = verified_run(
                app, folder / "recording.db", folder / "logs" / f"verify-{run}"
            )
            passed_runs += status == "passed"
            steps += len(results)
            passed_steps += sum(r.status == "passed" for r in results)
            for r in results:
                if r.status != "passed":
                    failed[r.step] += 1
                    first.setdefault(r.step, r.message)
        print(f"{name:22}{passed_runs:>8} / {args.runs}{passed_steps:>8} / {steps}")
        for step, count in sorted(failed.items()):
            print(f"  step {step} failed in {count} of {args.runs} runs: {first[step][:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`make demo`: the sample suite (samples/deskreel.toml) run as `deskreel test` runs it: the
committed sample recording replayed with --verify against the sample app on a private Xvfb,
the app moved on the screen and its widgets pushed down by a banner. The report folder holds
the suite's index.html and junit.xml, and the attempt's per-step report, database and logs.

The recording is samples/demo.db, made by `make samples` (samples/make_sample.py). Each
attempt replays a private copy of it, so the committed file never changes. Run from a source
checkout: `python -m deskreel.demo --out out/demo`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import threading
import time
from pathlib import Path

from deskreel.xsession.xvfb import VirtualDisplay

from .suite.app import AppFailure, RunningApp
from .suite.config import AppSpec, Ready

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_APP = ROOT / "samples" / "app.py"
SAMPLE = ROOT / "samples" / "demo.db"
SUITE = ROOT / "samples" / "deskreel.toml"
SAMPLE_TITLE = "deskreel sample"  # the sample app's window title (samples/app.py --title)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out/demo"))
    parser.add_argument(
        "--sample",
        type=Path,
        default=SAMPLE,
        help="the recording to replay (default: the committed samples/demo.db)",
    )
    args = parser.parse_args(argv)
    out: Path = args.out
    if not SAMPLE_APP.exists():
        return _refuse(f"{SAMPLE_APP} is missing: run it from a source checkout")
    if not args.sample.is_file():
        return _refuse(f"the sample recording {args.sample} is missing: `make samples` records it")
    from .errors import UserError
    from .suite.report import check_report_folder

    try:  # only a folder an earlier demo wrote (or an empty one) is cleared: --out ~ is not
        check_report_folder(out)
    except UserError as err:
        return _refuse(f"{err}: give --out a new or an earlier demo's folder")
    try:
        return _run(args.sample, out)
    except KeyboardInterrupt:
        print("deskreel demo: interrupted", file=sys.stderr)
        return 130


def _run(sample: Path, out: Path) -> int:
    """The sample suite with `sample` as its recording, into `out`: 0 passed, 1 failed."""
    from .suite.config import load_suite
    from .suite.report import Results, clear_report_folder, write_report
    from .suite.runner import Options, run_tests
    from .suite.session import stopped_by_signals

    suite = load_suite(SUITE)
    tests = [dataclasses.replace(t, database=sample.resolve()) for t in suite.tests]
    clear_report_folder(out)
    began = time.monotonic()
    stop = threading.Event()
    with stopped_by_signals(stop):  # Ctrl-C: the app and the X server are stopped first
        outcomes = run_tests(tests, Options(out=out), done=lambda o: None, stop=stop)
    if stop.is_set():
        raise KeyboardInterrupt
    write_report(
        out, Results(outcomes, seconds=time.monotonic() - began, workers=1, shards="all"),
        allow_flaky=False, junit=None,
    )  # fmt: skip
    attempt = outcomes[0].attempts[-1]
    folder = out / attempt.folder
    page = folder / "report" / "index.html"
    print(
        f"deskreel demo: {_verdict(folder / 'run.db', attempt.verdict)}"
        + (f"; report: {page}" if page.exists() else "")
    )
    return 0 if attempt.verdict == "passed" else 1


def _refuse(message: str) -> int:
    print(f"deskreel demo: {message}", file=sys.stderr)
    return 2


class SampleApp:
    """samples/app.py on a display, logging to `log`, started and stopped as `deskreel test`
    starts and stops applications; `widgets` come from its ready line."""

    def __init__(self, display: VirtualDisplay, log: Path, *args: str):
        command = (sys.executable, str(SAMPLE_APP), "--log", str(log), *args)
        self.app = RunningApp(
            AppSpec(command=command, ready=Ready(window_title=SAMPLE_TITLE)),
            display.env(),
            log.with_name(log.name + ".out"),
        )
        try:
            self.app.start()
            self.widgets = json.loads(_first_line(log))["widgets"]
        except (AppFailure, TimeoutError) as failure:
            self.stop()
            print(f"deskreel: the sample app did not start: {failure}", file=sys.stderr)
            raise SystemExit(2) from None

    def center(self, name: str) -> tuple[int, int]:
        x, y, w, h = self.widgets[name]
        return x + w // 2, y + h // 2

    def stop(self) -> None:
        self.app.stop()


def _first_line(log: Path, timeout: float = 5.0) -> str:
    """The first line the app logs (its widgets), which follows its window's mapping."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and (text := log.read_text()).endswith("\n"):
            return text.splitlines()[0]
        time.sleep(0.05)
    raise TimeoutError(f"it logged nothing to {log}")


def _verdict(db: Path, verdict: str) -> str:
    """'verdict passed (8 of 8 steps passed)', from the run the replay stored."""
    from deskreel.storage import open_store

    if verdict == "error" or not db.exists():
        return "no verdict: the attempt could not run (see its replay.log and app.log)"
    with open_store(db, readonly=True) as store:
        runs = store.runs()
        if not runs:
            return "no verdict: the replay stored no run (see its replay.log)"
        run = runs[-1]
        total = sum(not step.disabled for step in store.steps(run.recording_id))
    failed = f", {run.steps_failed} failed" if run.steps_failed else ""
    return f"verdict {run.status} ({run.steps_passed} of {total} steps passed{failed})"


if __name__ == "__main__":
    sys.exit(main())

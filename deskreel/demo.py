"""`make demo`: replay the committed sample recording with --verify against the sample app on a
private Xvfb, the app moved on the screen and its widgets pushed down by a banner, and write the
HTML report, the JUnit XML and the run's database to a folder.

The recording is samples/demo.db, made by `make samples` (samples/make_sample.py). The demo
replays a private copy of it, so the committed file never changes. Run from a source checkout:
`python -m deskreel.demo --out out/demo`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from xsession.xvfb import VirtualDisplay

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_APP = ROOT / "samples" / "app.py"
SAMPLE = ROOT / "samples" / "demo.db"


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
        print(
            f"deskreel demo: {SAMPLE_APP} is missing: run it from a source checkout",
            file=sys.stderr,
        )
        return 2
    if not args.sample.is_file():
        print(
            f"deskreel demo: the sample recording {args.sample} is missing: "
            f"`make samples` records it",
            file=sys.stderr,
        )
        return 2
    if out.exists():
        # Only a folder an earlier demo wrote (or an empty one) is cleared: --out ~ is not.
        if any(out.iterdir()) and not (out / "demo.db").exists():
            print(
                f"deskreel demo: {out} holds other files: give --out a new or an "
                f"earlier demo's folder",
                file=sys.stderr,
            )
            return 2
        shutil.rmtree(out)
    out.mkdir(parents=True, mode=0o700)
    try:
        code = _replay(args.sample, out)
    except KeyboardInterrupt:
        print("deskreel demo: interrupted", file=sys.stderr)
        return 130
    page = out / "report" / "index.html"
    print(
        f"deskreel demo: {_verdict(out / 'demo.db', code)}"
        + (f"; report: {page}" if page.exists() else "")
    )
    return code


def _replay(sample: Path, out: Path) -> int:
    """Replay a copy of `sample` with --verify into `out`; replay's exit code."""
    # the replay writes its run into the database: give it a private copy to write into
    db = out / "demo.db"
    _private_copy(sample, db)
    with VirtualDisplay() as display:
        # the app the sample was recorded against, moved and with a banner pushing it down
        app = SampleApp(display, out / "app.jsonl", "--geometry", "+180+120", "--banner")
        try:
            return subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "deskreel",
                    "replay",
                    str(db),
                    "--verify",
                    "--max-idle",
                    "1",
                    "--report",
                    str(out / "report"),
                    "--junit",
                    str(out / "junit.xml"),
                ],
                env=display.env(),
            ).returncode
        finally:
            app.stop()


class SampleApp:
    """samples/app.py on a display, logging to `log`; `widgets` come from its ready line."""

    def __init__(self, display: VirtualDisplay, log: Path, *args: str):
        self.proc = subprocess.Popen(
            [sys.executable, str(SAMPLE_APP), "--log", str(log), *args], env=display.env()
        )
        deadline = time.monotonic() + 20
        while not (log.exists() and log.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                print(f"deskreel: the sample app did not start (its log: {log})", file=sys.stderr)
                raise SystemExit(2)
            time.sleep(0.05)
        self.widgets = json.loads(log.read_text().splitlines()[0])["widgets"]

    def center(self, name: str) -> tuple[int, int]:
        x, y, w, h = self.widgets[name]
        return x + w // 2, y + h // 2

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def _private_copy(source: Path, target: Path) -> None:
    """Copy a database into a new file that is 0600 from the start, like every database."""
    with (
        source.open("rb") as src,
        open(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as dst,
    ):
        shutil.copyfileobj(src, dst)


def _verdict(db: Path, code: int) -> str:
    """'verdict passed (8 of 8 steps passed)', from the run the replay stored."""
    from storage import open_store

    if code not in (0, 1):
        return f"no verdict: replay --verify ended with exit code {code}"
    with open_store(db, readonly=True) as store:
        run = store.runs()[-1]
        total = sum(not step.disabled for step in store.steps(run.recording_id))
    failed = f", {run.steps_failed} failed" if run.steps_failed else ""
    return f"verdict {run.status} ({run.steps_passed} of {total} steps passed{failed})"


if __name__ == "__main__":
    sys.exit(main())

"""`make samples`: record samples/demo.db, the recording `make demo` replays. A scripted person
(samples/person.py) uses the sample app on a private Xvfb while `deskreel record` records.

The file is committed: remake it with this script, never edit it by hand. Run from the
repository root: `python -m samples.make_sample [--out samples/demo.db]`.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from deskreel.demo import SAMPLE, SampleApp
from deskreel.xsession.xvfb import VirtualDisplay
from samples.person import Person

# what the recorder should make of the session below, step by step
EXPECTED = (
    "left_click",
    "left_click",
    "type",
    "left_click",
    "double_click",
    "scroll",
    "left_click_drag",
    "left_click",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SAMPLE)
    out: Path = parser.parse_args(argv).out
    # record next to the target and rename it into place: a failed run leaves the old file
    with tempfile.TemporaryDirectory(dir=out.parent) as folder, VirtualDisplay() as display:
        db = Path(folder) / out.name
        app = SampleApp(display, Path(folder) / "app.jsonl")
        try:
            code = _record(display, db, app)
        finally:
            app.stop()
        kinds = _kinds(db) if code == 0 else ()
        if kinds != EXPECTED:
            print(
                f"make_sample: the recording came out as {list(kinds)} (recorder exit code "
                f"{code}), not {list(EXPECTED)}; {out} is left as it was",
                file=sys.stderr,
            )
            return 1
        db.chmod(0o644)  # a published sample, as git checks it out; the demo copies it 0600
        for stale in (f"{out}-wal", f"{out}-shm"):  # an old file's journal is not the new one's
            Path(stale).unlink(missing_ok=True)
        os.replace(db, out)
    print(
        f"make_sample: recorded {len(kinds)} steps into {out} ({out.stat().st_size / 1024:.0f} KB)"
    )
    return 0


def _session(person: Person, app: SampleApp) -> None:
    """The driven session: one of most kinds of step, on widgets whose effect shows."""
    person.click(*app.center("button:Open"))
    person.click(*app.center("entry"))
    person.type("Hello from deskreel")
    person.click(*app.center("button:OK"))
    person.click(*app.center("label:double"), count=2)
    person.wheel(*app.center("listbox"), 3)
    rect = app.center("canvas:rect")
    person.drag(rect, (rect[0] + 160, rect[1] + 40))
    person.click(*app.center("button:Save"))


def _record(display: VirtualDisplay, db: Path, app: SampleApp) -> int:
    """Record the session into `db`; the recorder's exit code."""
    recorder = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "record", str(db), "--name", "demo"],
        env=display.env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    assert recorder.stderr is not None  # stderr=PIPE
    print(recorder.stderr.readline().rstrip(), file=sys.stderr)  # it records from here on
    # A button under the pointer is drawn lighter: resting on each target longer than a frame
    # (10 fps) before pressing, and after a step longer than the recorder waits for the screen
    # to settle (0.4 s), puts the same screens in every rerun's before- and after-frames.
    person = Person(display.display, aim_delay=0.3, step_delay=0.8)
    try:
        _session(person, app)
    finally:
        person.close()
        time.sleep(0.5)  # the last frames settle
        recorder.send_signal(signal.SIGINT)
        recorder.wait(60)
    print(recorder.stderr.read().rstrip(), file=sys.stderr)
    return recorder.returncode


def _kinds(db: Path) -> tuple[str, ...]:
    from deskreel.storage import open_store

    with open_store(db) as store:
        return tuple(step.action.action for step in store.steps(store.recording().id))


if __name__ == "__main__":
    sys.exit(main())

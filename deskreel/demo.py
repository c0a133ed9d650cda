"""`make demo`: record a scripted person using the sample app on a private Xvfb, then replay
the recording with --verify against the app moved and shifted inside its window, and write
the HTML report, the JUnit XML and the database to a folder.

Run from a source checkout: `python -m deskreel.demo --out out/demo`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from .xvfb import VirtualDisplay

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_APP = ROOT / "samples" / "app.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out/demo"))
    out: Path = parser.parse_args(argv).out
    if not SAMPLE_APP.exists():
        print(f"deskreel demo: {SAMPLE_APP} is missing: run it from a source checkout",
              file=sys.stderr)
        return 2
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True, mode=0o700)
    db = out / "demo.db"
    with VirtualDisplay() as display:
        app = _App(display, out / "app-recorded.jsonl")
        _record(display, db, app)
        app.stop()
        print("deskreel demo: the recording, step by step:", file=sys.stderr)
        _deskreel(display, "show", db)
        # the same app, moved on the screen and with a banner pushing its widgets down
        replayed = _App(display, out / "app-replayed.jsonl", "--geometry", "+180+120",
                        "--banner")
        code = _deskreel(display, "replay", db, "--verify", "--max-idle", "1",
                         "--report", out / "report", "--junit", out / "junit.xml")
        replayed.stop()
    same = app.clicks() == replayed.clicks()
    print(f"deskreel demo: replay --verify exit code {code}; the app saw the same clicks: "
          f"{same}; report: {out / 'report' / 'index.html'}", file=sys.stderr)
    return code if same else 1


class _App:
    """samples/app.py on the demo's display, logging to `log`."""

    def __init__(self, display: VirtualDisplay, log: Path, *args: str):
        self.log = log
        self.proc = subprocess.Popen([sys.executable, str(SAMPLE_APP), "--log", str(log),
                                      *args], env=display.env())
        deadline = time.monotonic() + 20
        while not (log.exists() and log.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise SystemExit("deskreel demo: the sample app did not start")
            time.sleep(0.05)
        self.widgets = json.loads(log.read_text().splitlines()[0])["widgets"]

    def center(self, name: str) -> tuple[int, int]:
        x, y, w, h = self.widgets[name]
        return x + w // 2, y + h // 2

    def clicks(self) -> list[str]:
        events = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [e["widget"] for e in events if e["event"] in ("click", "double_click")]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def _record(display: VirtualDisplay, db: Path, app: _App) -> None:
    from samples.person import Person

    recorder = subprocess.Popen([sys.executable, "-m", "deskreel", "record", str(db),
                                 "--name", "demo"], env=display.env(),
                                stderr=subprocess.PIPE, text=True)
    print(recorder.stderr.readline().rstrip(), file=sys.stderr)
    person = Person(display.display)
    try:
        person.click(*app.center("button:Open"))
        person.click(*app.center("entry"))
        person.type("Hello from deskreel")
        person.click(*app.center("button:OK"))
        person.click(*app.center("label:double"), count=2)
        person.wheel(*app.center("listbox"), 3)
        rect = app.center("canvas:rect")
        person.drag(rect, (rect[0] + 160, rect[1] + 40))
        person.click(*app.center("button:Save"))
    finally:
        person.close()
    time.sleep(0.5)
    recorder.send_signal(signal.SIGINT)
    recorder.wait(60)
    print(recorder.stderr.read().rstrip(), file=sys.stderr)


def _deskreel(display: VirtualDisplay, *args: object) -> int:
    return subprocess.run([sys.executable, "-m", "deskreel", *map(str, args)],
                          env=display.env()).returncode


if __name__ == "__main__":
    sys.exit(main())

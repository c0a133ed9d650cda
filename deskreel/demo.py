"""`make demo`: replay the sample script against the sample app on a private Xvfb, and write
what happened (the run's verdict per step, the app's own event log, screenshots) to a folder.

Run from a source checkout: `python -m deskreel.demo --out out/demo`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .cli import run as deskreel
from .grab import Grabber
from .xvfb import VirtualDisplay

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_APP = ROOT / "samples" / "app.py"
SAMPLE_SCRIPT = ROOT / "samples" / "scripts" / "sample-app-tour.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out/demo"))
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o700)
    db = out / "demo.db"
    for stale in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        stale.unlink(missing_ok=True)
    if not SAMPLE_APP.exists():
        print(f"deskreel demo: {SAMPLE_APP} is missing: run the demo from a source checkout",
              file=sys.stderr)
        return 2
    with VirtualDisplay() as display:
        app_log = out / "app-events.jsonl"
        app_log.unlink(missing_ok=True)
        app = subprocess.Popen([sys.executable, str(SAMPLE_APP), "--log", str(app_log)],
                               env=display.env())
        try:
            _wait_ready(app_log)
            _screenshot(display.display, out / "before.png")
            code = deskreel(["import", str(SAMPLE_SCRIPT), str(db), "--name", "tour"])
            if code:
                return code
            deskreel(["show", str(db)])
            os.environ["DISPLAY"] = display.display
            code = deskreel(["replay", str(db), "--display", display.display])
            time.sleep(0.3)
            _screenshot(display.display, out / "after.png")
        finally:
            app.terminate()
            app.wait()
    _write_report(db, app_log, out)
    print(f"deskreel demo: replay exit code {code}; report in {out / 'report.md'}",
          file=sys.stderr)
    return code


def _wait_ready(log: Path, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not (log.exists() and log.read_text().strip()):
        if time.monotonic() > deadline:
            raise SystemExit("deskreel demo: the sample app did not start")
        time.sleep(0.05)


def _screenshot(display: str, path: Path) -> None:
    with Grabber(display) as grabber:
        grabber.save_png(str(path))


def _write_report(db: Path, app_log: Path, out: Path) -> None:
    from storage import open_store

    with open_store(db, create=False) as store:
        rec = store.recording("tour")
        steps = {s.step: s for s in store.steps(rec.id)}
        run = store.runs(rec.id)[-1]
        results = store.step_results(run.id)
    events = [json.loads(line) for line in app_log.read_text().splitlines()]
    lines = [f"# deskreel demo: replay of {rec.name!r}", "",
             f"Verdict: **{run.status}**, {run.steps_passed} steps passed, "
             f"{run.steps_failed} failed.", "",
             "| step | action | result | started (s) | late (ms) | note |",
             "|---|---|---|---|---|---|"]
    for r in results:
        action = steps[r.step].action
        late = r.details.get("late_ms", "")
        lines.append(f"| {r.step} | `{json.dumps(action.to_json(), ensure_ascii=False)}` | "
                     f"{r.status} | {r.t_start:.3f} | {late} | {r.message} |")
    kinds: dict[str, int] = {}
    for e in events:
        kinds[e["event"]] = kinds.get(e["event"], 0) + 1
    lines += ["", "What the sample app saw (its own event log, app-events.jsonl):", ""]
    lines += [f"- {k}: {v}" for k, v in sorted(kinds.items())]
    lines += ["", "Screens: before.png, after.png."]
    (out / "report.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())

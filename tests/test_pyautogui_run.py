"""The pyautogui export does on a screen what the person did.

samples/scripts/every-action.json is imported, exported as pyautogui code, and the code
is run by the real pyautogui on a private Xvfb (after the card's prelude) while `deskreel
record` records. The recorded actions equal the script's, but for the steps the export
reports as inexpressible.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


from deskreel.cli import run
from deskreel.export.pyautogui import PRELUDE
from deskreel.storage import Action, open_store
from deskreel.storage.grouping import DEFAULT_THRESHOLDS
from tests.roundtrip import canonical, mismatches
from deskreel.xsession.xvfb import VirtualDisplay

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "samples" / "scripts" / "every-action.json"
# s between two lines: a rest long enough to be a hover (the script's mouse_move), short of
# the gap that is a wait
STEP_GAP = (DEFAULT_THRESHOLDS.hover_time + DEFAULT_THRESHOLDS.idle) / 2
# The runner reaches the display as deskreel does, without a cookie file when there is none.
RUNNER = f"""
import json, sys, time
from deskreel.xsession.display import connect
connect().close()
{PRELUDE}
for line in json.load(sys.stdin):
    exec(line)
    time.sleep({STEP_GAP})
"""


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


def as_input(actions: list[Action]) -> list[Action]:
    """A button pressed at one place and released at another is a drag, whichever way it
    was said: the same events (left_mouse_down and left_mouse_up far apart)."""
    out: list[Action] = []
    for action in actions:
        last = out[-1] if out else None
        if (
            action.action == "left_mouse_up"
            and last is not None
            and last.action == "left_mouse_down"
            and last.coordinate is not None
            and action.coordinate is not None
            and math.dist(last.coordinate, action.coordinate) > DEFAULT_THRESHOLDS.drag_distance
        ):
            out[-1] = Action(
                "left_click_drag", start_coordinate=last.coordinate, coordinate=action.coordinate
            )
            continue
        out.append(action)
    return out


def without_waits(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [a for a in actions if a["action"] != "wait"]


def test_the_pyautogui_export_replays_what_was_recorded(tmp_path, capsys):
    db, out = tmp_path / "script.db", tmp_path / "dataset"
    assert deskreel("import", SCRIPT, db, "--screen", "1280x800") == 0
    assert deskreel("export", db, "--format", "pyautogui", "--out", out) == 0
    lines = [json.loads(x) for x in (out / "metadata.jsonl").read_text().splitlines()]
    card = (out / "README.md").read_text()
    assert PRELUDE in card
    unexpressed = {line["step"] for line in lines if line["action"] is None}
    for line in lines:
        if line["action"] is None:  # each inexpressible step is listed in the card
            assert line["unexpressed"] and line["unexpressed"] in card
    code = [line["action"] for line in lines if line["action"] is not None]

    with VirtualDisplay(width=1280, height=800) as xvfb:
        env = {**xvfb.env(), "PYTHONPATH": str(ROOT)}
        recorder = subprocess.Popen(
            [sys.executable, "-m", "deskreel", "record", tmp_path / "rec.db", "--name", "run"]
            + ["--instruction", "Every action, by pyautogui", "--no-frames"],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert recorder.stderr is not None
            started = recorder.stderr.readline()
            assert "recording into" in started, started + recorder.stderr.read()
            ran = subprocess.run(
                [sys.executable, "-c", RUNNER],
                input=json.dumps(code),
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert ran.returncode == 0, ran.stderr
            time.sleep(0.5)  # the last events reach the recorder
        finally:
            recorder.send_signal(signal.SIGINT)
            _, err = recorder.communicate(timeout=60)
        assert recorder.returncode == 0, err

    script = json.loads(SCRIPT.read_text())
    expected = [
        Action.from_json(obj)
        for n, obj in enumerate(script, start=1)
        if n not in unexpressed and obj["action"] != "wait"
    ]
    assert {script[n - 1]["action"] for n in unexpressed} == {"screenshot", "cursor_position"}
    with open_store(tmp_path / "rec.db") as store:
        rec = store.recording("run")
        recorded = [st.action for st in store.steps(rec.id)]
        settings = rec.input_settings
    assert rec.instruction == "Every action, by pyautogui"
    want = without_waits(canonical(as_input(expected), settings=settings))
    got = without_waits(canonical(recorded, settings=settings))
    assert not mismatches(want, got), f"\nexpected {want}\nrecorded {got}"

"""Re-anchoring on a real Xvfb: recordings made on the sample app's default layout replay on
a moved window, a shifted layout and a scaled UI; gone, ambiguous and late targets."""

import os
import signal
import time
from pathlib import Path

from storage import open_store
from samples.person import Person
from tests.test_record import record_session
from tests.commands import deskreel

COORDINATES = ("x", "y", "item_pos")



def without_coordinates(events):
    return [{k: v for k, v in e.items() if k not in COORDINATES} for e in events]


def record_clicks(app, run_deskreel, xvfb, db, *widgets, name="clicks"):
    """A short real recording: the person clicks each widget in turn."""
    recorder = run_deskreel("record", db, "--name", name)
    recorder.wait_for_output("recording into")
    person = Person(xvfb.display)
    try:
        for widget in widgets:
            person.click(*app.center(widget))
    finally:
        person.close()
    time.sleep(0.5)
    recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr


def test_replays_on_moved_shifted_and_scaled_layouts(launch_app, run_deskreel, xvfb, tmp_path):
    original = launch_app()
    db = tmp_path / "rec.db"
    record_session(original, run_deskreel, xvfb, db)
    original.stop()
    expected = original.comparable_events()
    for options, exact in (({"geometry": "+230+140"}, True), ({"banner": True}, True),
                           ({"scale": 1.25}, False)):
        app = launch_app(**options)
        done = deskreel("replay", db, "--max-idle", "0.5", env=xvfb.env())
        app.stop()
        assert done.returncode == 0, (options, done.stderr)
        got = app.comparable_events()
        if exact:
            assert got == expected, options
        else:
            assert without_coordinates(got) == without_coordinates(expected), options
    with open_store(db, create=False) as store:
        runs = store.runs()
        scaled = store.step_results(runs[-1].id)
        moved = store.step_results(runs[0].id)
    assert any(r.shift == (230, 140) for r in moved)
    assert any(r.scale and abs(r.scale - 1.25) < 0.05 for r in scaled)


def test_gone_or_renamed_target_fails_and_nothing_is_clicked(launch_app, run_deskreel, xvfb,
                                                            tmp_path):
    original = launch_app()
    db = tmp_path / "rec.db"
    record_clicks(original, run_deskreel, xvfb, db, "entry", "button:Save")
    original.stop()
    for layout in ("removed", "renamed"):
        app = launch_app(layout=layout)
        done = deskreel("replay", db, "--timeout", "1", env=xvfb.env())
        app.stop()
        assert done.returncode == 1, done.stderr
        assert "step 2 (left_click): target not found: best score" in done.stderr
        assert "threshold 0.85" in done.stderr
        clicks = [e for e in app.events() if e["event"] in ("click", "button_press")]
        assert [c.get("widget") for c in clicks] == ["entry"], clicks


def test_identical_buttons_are_never_confused(launch_app, run_deskreel, xvfb, tmp_path):
    for layout in ("duplicate", "duplicate-context"):
        original = launch_app(layout=layout)
        db = tmp_path / f"{layout}.db"
        record_clicks(original, run_deskreel, xvfb, db, "button:OK#2", name=layout)
        original.stop()
        app = launch_app(layout=layout, geometry="+40+30")
        done = deskreel("replay", db, "--timeout", "1", env=xvfb.env())
        app.stop()
        clicked = [e["widget"] for e in app.events("click")]
        assert "button:OK" not in clicked, (layout, done.stderr)
        if layout == "duplicate-context":
            assert done.returncode == 0, done.stderr
            assert clicked == ["button:OK#2"]
        elif done.returncode != 0:
            assert "target not found" in done.stderr and clicked == []


def test_late_target_is_waited_for(launch_app, run_deskreel, xvfb, tmp_path):
    original = launch_app()
    db = tmp_path / "rec.db"
    record_clicks(original, run_deskreel, xvfb, db, "button:Save")
    original.stop()
    # The replay starts first: started after the app, its own start-up (3-5 s of imports on
    # a busy machine) could outlast the 2 s, and it would find Save at its first look.
    replay = run_deskreel("replay", db, "--timeout", "30")
    _wait_until_open(replay.proc, db)
    app = launch_app(late=2.0)
    assert replay.finish() == 0, replay.stderr
    appeared = app.wait_for({"event": "appeared", "widget": "button:Save"})
    click = app.wait_for({"event": "click", "widget": "button:Save"})
    assert appeared["t"] - app.ready["t"] >= 1.5 and click["t"] >= appeared["t"]
    with open_store(db, create=False) as store:
        [result] = store.step_results(store.runs()[-1].id)
    assert result.details["attempts"] > 1 and result.status == "passed"


def _wait_until_open(proc, path, timeout=30.0):
    """Until process `proc` has `path` open: its imports are done, its first look is near.
    (Linux /proc, not the database: a reader closing it while the replay writes is unsafe.)"""
    target = os.path.realpath(path)
    deadline = time.monotonic() + timeout
    while True:
        try:
            links = [os.readlink(fd) for fd in Path(f"/proc/{proc.pid}/fd").iterdir()]
        except OSError:  # a descriptor closed while we looked: look again
            links = []
        if target in links:
            return
        assert proc.poll() is None, f"the replay exited with {proc.returncode}"
        assert time.monotonic() < deadline, f"the replay never opened {path}"
        time.sleep(0.02)


def test_no_anchor_replays_raw_coordinates(launch_app, run_deskreel, xvfb, tmp_path):
    original = launch_app()
    db = tmp_path / "rec.db"
    record_clicks(original, run_deskreel, xvfb, db, "button:Save")
    original.stop()
    app = launch_app(geometry="+300+200")
    done = deskreel("replay", db, "--no-anchor", env=xvfb.env())
    app.stop()
    assert done.returncode == 0
    assert not [e for e in app.events("click") if e["widget"] == "button:Save"]

"""The recorder end to end: a scripted person drives the sample app through XTest while
`deskreel record` runs in a subprocess on a real Xvfb with real XRecord."""

import signal


from storage import open_store
from samples.person import Person


def perform_session(person, app):
    """The session of issue 3: every gesture a recording must turn into an action."""
    c = app.center
    person.click(*c("button:Save"))
    person.click(*c("button:Open"), mods="shift")
    person.click(*c("entry"))
    person.type("Hello, World 42!")
    person.press("ctrl+a")
    person.press("Return")
    person.click(*c("label:triple"), count=3)
    person.click(*c("label:double"), count=2)
    person.wheel(*c("listbox"), 5)
    person.drag(c("canvas:rect"), (c("canvas:rect")[0] + 190, c("canvas:rect")[1] + 50))
    person.click(*c("label:context"), button=3)
    person.press("Escape")
    import time

    time.sleep(2.6)  # an idle pause
    person.click(*c("button:OK"))


def expected_actions(app):
    c = app.center
    rect = c("canvas:rect")
    return [
        {"action": "left_click", "coordinate": list(c("button:Save"))},
        {"action": "left_click", "coordinate": list(c("button:Open")), "with_key": "shift"},
        {"action": "left_click", "coordinate": list(c("entry"))},
        {"action": "type", "text": "Hello, World 42!"},
        {"action": "key", "text": "ctrl+a"},
        {"action": "key", "text": "Return"},
        {"action": "triple_click", "coordinate": list(c("label:triple"))},
        {"action": "double_click", "coordinate": list(c("label:double"))},
        {"action": "scroll", "coordinate": list(c("listbox")), "scroll_direction": "down",
         "scroll_amount": 5},
        {"action": "left_click_drag", "start_coordinate": list(rect),
         "coordinate": [rect[0] + 190, rect[1] + 50]},
        {"action": "right_click", "coordinate": list(c("label:context"))},
        {"action": "key", "text": "Escape"},
        {"action": "wait"},
        {"action": "left_click", "coordinate": list(c("button:OK"))},
    ]


def record_session(app, run_deskreel, xvfb, db, *extra):
    recorder = run_deskreel("record", db, "--name", "session", *extra)
    recorder.wait_for_output("recording into")
    person = Person(xvfb.display)
    try:
        perform_session(person, app)
    finally:
        person.close()
    recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr
    assert "Recorded 'session'" in recorder.stderr
    return recorder


def test_record_session_gives_exact_actions(launch_app, run_deskreel, xvfb, tmp_path):
    app = launch_app()
    db = tmp_path / "rec.db"
    record_session(app, run_deskreel, xvfb, db)
    assert (db.stat().st_mode & 0o777) == 0o600
    with open_store(db, create=False) as store:
        rec = store.recording("session")
        steps = store.steps(rec.id)
        events = store.events(rec.id)
    got = [s.action.to_json() for s in steps]
    waits = [g.pop("duration") for g in got if g["action"] == "wait"]
    assert got == expected_actions(app)
    assert len(waits) == 1 and 2.5 <= waits[0] <= 3.5
    assert rec.screen == (1280, 800)
    assert rec.keyboard_layout and rec.keyboard_layout.startswith("us")
    for step in steps:
        assert step.window_title == "deskreel sample", step
        if step.action.action == "wait":
            continue
        assert step.before_frame is not None and step.after_frame is not None, step
        if step.action.is_pointer:
            anchor = step.anchor
            assert anchor is not None, step
            x, y, w, h = anchor.box
            tx, ty = step.action.target
            assert (x + anchor.offset[0], y + anchor.offset[1]) == (tx, ty)
        if step.events is not None:
            first, last = step.events
            assert 0 <= first <= last < len(events)
    # every key and button press was stored, none twice
    presses = [e for e in events if e.kind in ("key_down", "button_down")]
    releases = [e for e in events if e.kind in ("key_up", "button_up")]
    assert len(presses) == len(releases)
    # the frames are real, decodable, full-screen images
    import cv2
    import numpy as np

    with open_store(db, create=False) as store:
        data, fmt = store.frame(steps[0].before_frame)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert fmt == "webp" and image.shape == (800, 1280, 3)


def test_stop_and_pause_chords_never_appear(launch_app, run_deskreel, xvfb, tmp_path):
    app = launch_app()
    db = tmp_path / "rec.db"
    recorder = run_deskreel("record", db, "--name", "chords", "--no-frames")
    recorder.wait_for_output("recording into")
    person = Person(xvfb.display)
    try:
        person.click(*app.center("entry"))
        person.type("ab")
        person.press("ctrl+alt+Home")  # pause
        recorder.wait_for_output("paused")
        person.type("secret")
        person.click(*app.center("button:Save"))
        person.press("ctrl+alt+Home")  # resume
        recorder.wait_for_output("recording again")
        person.type("cd")
        person.press("ctrl+alt+End")  # stop
    finally:
        person.close()
    assert recorder.finish() == 0, recorder.stderr
    assert "Ended by stop key" in recorder.stderr
    with open_store(db, create=False) as store:
        rec = store.recording("chords")
        actions = [s.action.to_json() for s in store.steps(rec.id)]
        events = store.events(rec.id)
    assert actions == [
        {"action": "left_click", "coordinate": list(app.center("entry"))},
        {"action": "type", "text": "ab"},
        {"action": "type", "text": "cd"},
    ]
    assert max(e.t for e in events) < 3.0  # the paused time is cut out of the timeline
    typed = "".join(e.char or "" for e in events if e.kind == "key_down")
    assert "secret" not in typed and typed == "abcd"
    assert not any(e.keysym in ("Home", "End", "Control_L", "Alt_L") for e in events)


def test_record_refuses_without_display(tmp_path):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = subprocess.run([sys.executable, "-m", "deskreel", "record", tmp_path / "r.db"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == ("deskreel: $DISPLAY is not set: run deskreel inside an X "
                                   "session, or set DISPLAY (for a virtual one: Xvfb :99 & "
                                   "DISPLAY=:99 deskreel ...)")


def test_record_refuses_server_without_record(tmp_path):
    import subprocess
    import sys

    from deskreel.xvfb import VirtualDisplay

    with VirtualDisplay(extensions=["-extension", "RECORD"]) as bare:
        done = subprocess.run([sys.executable, "-m", "deskreel", "record", tmp_path / "r.db"],
                              env=bare.env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "lacks the RECORD extension" in done.stderr and "Traceback" not in done.stderr

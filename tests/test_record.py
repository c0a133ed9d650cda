"""The recorder end to end: a scripted person drives the sample app through XTest while
`deskreel record` runs in a subprocess on a real Xvfb with real XRecord."""

import signal
import time
from collections import Counter
from contextlib import closing

import pytest

from deskreel.storage import open_store
from samples.person import Person


def count_sent(person):
    """Count the presses and releases `person` sends through XTest, by X event type."""
    from Xlib import X

    sent = Counter()
    fake = person.inj._fake

    def counting(event_type, **fields):
        sent[
            {
                X.KeyPress: "key_down",
                X.KeyRelease: "key_up",
                X.ButtonPress: "button_down",
                X.ButtonRelease: "button_up",
            }.get(event_type, "motion")
        ] += 1
        fake(event_type, **fields)

    person.inj._fake = counting
    return sent


def start_recording(run_deskreel, db, *args):
    """`deskreel record DB ARGS`, once it says it is recording."""
    recorder = run_deskreel("record", db, *args)
    recorder.wait_for_output("recording into")
    return recorder


def record(run_deskreel, xvfb, db, drive, *args, stop=signal.SIGINT):
    """`deskreel record DB ARGS` while `drive(person)` acts, then stopped by the signal
    `stop`: it must exit 0; `stop_took` on the recorder returned is how long that took."""
    recorder = start_recording(run_deskreel, db, *args)
    with closing(Person(xvfb.display)) as person:
        drive(person)
    sent = time.monotonic()
    recorder.proc.send_signal(stop)
    assert recorder.finish() == 0, recorder.stderr
    recorder.stop_took = time.monotonic() - sent
    return recorder


def perform_session(person, app):
    """The session of issue 3: every gesture a recording must turn into an action."""
    perform_gestures(person, app)
    time.sleep(2.6)  # an idle pause
    person.click(*app.center("button:OK"))


def perform_gestures(person, app):
    """The session's gestures up to its idle pause."""
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
        {
            "action": "scroll",
            "coordinate": list(c("listbox")),
            "scroll_direction": "down",
            "scroll_amount": 5,
        },
        {
            "action": "left_click_drag",
            "start_coordinate": list(rect),
            "coordinate": [rect[0] + 190, rect[1] + 50],
        },
        {"action": "right_click", "coordinate": list(c("label:context"))},
        {"action": "key", "text": "Escape"},
        {"action": "wait"},
        {"action": "left_click", "coordinate": list(c("button:OK"))},
    ]


def record_session(app, run_deskreel, xvfb, db, *extra):
    sent = []

    def drive(person):
        sent.append(count_sent(person))
        perform_session(person, app)

    recorder = record(run_deskreel, xvfb, db, drive, "--name", "session", *extra)
    recorder.sent = sent[0]
    assert "Recorded 'session'" in recorder.stderr
    return recorder


def test_record_session_gives_exact_actions(launch_app, run_deskreel, xvfb, tmp_path):
    app = launch_app()
    db = tmp_path / "rec.db"
    recorder = record_session(app, run_deskreel, xvfb, db)
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
        assert (step.window_class, step.window_title) == ("Deskreelsample", "deskreel sample"), step
        if step.action.action == "wait":
            continue
        assert step.before_frame is not None and step.after_frame is not None, step
        if step.action.is_pointer:
            assert_anchor_is_on_its_before_frame(db, step)
        if step.events is not None:
            first, last = step.events
            assert 0 <= first <= last < len(events)
    # the typing shows: the screen after it is not the one before it
    typed = next(s for s in steps if s.action.action == "type")
    assert (
        frame_pixels(db, typed.before_frame).tolist()
        != frame_pixels(db, typed.after_frame).tolist()
    )
    # every key and button press and release the person sent was stored, none twice
    stored = Counter(e.kind for e in events if e.kind != "motion")
    sent = {kind: n for kind, n in recorder.sent.items() if kind != "motion"}
    assert stored == sent and sent["key_down"] > 16 and sent["button_down"] > 10
    assert all(a.t <= b.t for a, b in zip(events, events[1:]))
    # the frames are real, decodable, full-screen images
    import cv2
    import numpy as np

    with open_store(db, create=False) as store:
        data, fmt = store.frame(steps[0].before_frame)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert fmt == "webp" and image.shape == (800, 1280, 3)


def frame_pixels(db, key):
    from deskreel.xsession.images import decode_image

    with open_store(db, create=False) as store:
        return decode_image(store.frame(key)[0])


def assert_anchor_is_on_its_before_frame(db, step):
    """The anchor (its hovered look, where it has one) is the before-frame's pixels at its
    box, and the target lies inside it."""
    from deskreel.xsession.images import decode_image

    anchor = step.anchor
    assert anchor is not None, step
    x, y, w, h = anchor.box
    tx, ty = step.action.target
    assert x <= tx < x + w and y <= ty < y + h, step
    assert (x + anchor.offset[0], y + anchor.offset[1]) == (tx, ty)
    crop = frame_pixels(db, step.before_frame)[y : y + h, x : x + w]
    # the look just before the press: hovered where it looked otherwise at rest (then `png`
    # is the look at rest, the same box)
    shown = anchor.hover_png if anchor.hover_png is not None else anchor.png
    assert decode_image(shown).tolist() == crop.tolist(), step


def test_sigterm_stops_the_recording_cleanly(launch_app, run_deskreel, xvfb, tmp_path):
    app = launch_app()
    db = tmp_path / "rec.db"

    def drive(person):
        person.click(*app.center("button:Save"))
        person.type("ok")

    recorder = record(run_deskreel, xvfb, db, drive, "--name", "term", stop=signal.SIGTERM)
    assert recorder.stop_took < 10
    assert "Recorded 'term'" in recorder.stderr and "Ended by SIGTERM" in recorder.stderr
    with open_store(db, create=False) as store:
        steps = store.steps(store.recording("term").id)
    assert [s.action.to_json() for s in steps] == [
        {"action": "left_click", "coordinate": list(app.center("button:Save"))},
        {"action": "type", "text": "ok"},
    ]
    assert all(s.before_frame and s.after_frame for s in steps)


def test_stop_and_pause_chords_never_appear(launch_app, run_deskreel, xvfb, tmp_path):
    app = launch_app()
    db = tmp_path / "rec.db"
    recorder = start_recording(run_deskreel, db, "--name", "chords", "--no-frames")
    with closing(Person(xvfb.display)) as person:
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


def test_typing_right_after_resume_keeps_time_in_order(launch_app, run_deskreel, xvfb, tmp_path):
    """Regression: events typed within the hold-back after the resume chord kept the
    pre-pause clock, so times went backwards and a fake `wait` step appeared."""
    app = launch_app()
    db = tmp_path / "rec.db"
    recorder = start_recording(run_deskreel, db, "--name", "resume", "--no-frames")
    with closing(Person(xvfb.display, step_delay=0.0)) as person:
        person.click(*app.center("entry"))
        person.type("ab")
        person.press("ctrl+alt+Home")  # pause
        recorder.wait_for_output("paused")
        time.sleep(3.0)  # longer than the idle threshold: a wrong clock shows as a wait
        person.press("ctrl+alt+Home")  # resume, and type at once: within the hold-back
        person.type("cd")
        recorder.wait_for_output("recording again")
        person.press("ctrl+alt+End")
    assert recorder.finish() == 0, recorder.stderr
    with open_store(db, create=False) as store:
        rec = store.recording("resume")
        steps = store.steps(rec.id)
        events = store.events(rec.id)
    assert [s.action.to_json() for s in steps] == [
        {"action": "left_click", "coordinate": list(app.center("entry"))},
        {"action": "type", "text": "ab"},
        {"action": "type", "text": "cd"},  # the pause ended the chunk; and no wait between
    ]
    assert "".join(e.char or "" for e in events if e.kind == "key_down") == "abcd"
    assert all(a.t <= b.t for a, b in zip(events, events[1:])), [e.t for e in events]
    assert all(a.t_start <= b.t_start for a, b in zip(steps, steps[1:]))
    assert max(e.t for e in events) < 2.5  # the three paused seconds are cut out


def test_chord_filter_refuses_chords_that_cannot_work():
    from deskreel.recorder.chords import ChordError, ChordFilter

    with pytest.raises(ChordError, match="same keys"):
        ChordFilter({"stop": "alt+ctrl+End", "pause": "ctrl+alt+End"})
    with pytest.raises(ChordError, match="same keys"):
        ChordFilter({"stop": "ctrl+alt+End", "pause": "ctrl+Alt_R+End"})
    for text in ("ctrl+alt", "shift", "End+ctrl", "ctrl+End+alt"):
        with pytest.raises(ChordError, match="cannot be a chord"):
            ChordFilter({"stop": text})
    ChordFilter({"stop": "ctrl+alt+End", "pause": "ctrl+alt+Home"})  # the defaults are fine


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--stop-key", "alt+ctrl+End", "--pause-key", "ctrl+alt+End"],
            "deskreel: --stop-key and --pause-key: the pause chord 'ctrl+alt+End' is the same keys "
            "as the stop chord 'alt+ctrl+End': choose different keys",
        ),
        (
            ["--stop-key", "ctrl+alt"],
            "deskreel: --stop-key: 'ctrl+alt' cannot be a chord: it needs modifiers first and then "
            "one key that is not a modifier, like ctrl+alt+End",
        ),
    ],
)
def test_record_refuses_chords_that_cannot_fire(tmp_path, args, message):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "deskreel", "record", tmp_path / "r.db", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == message
    assert list(tmp_path.iterdir()) == []


def test_screen_capture_keeps_its_rate_with_late_wake_ups():
    """Regression: the next grab was timed from a late wake-up, so 10 fps gave 8.6."""
    import random
    import threading
    import types

    from Xlib import X

    from deskreel.recorder.screen import FrameTimeline, ScreenCapture

    rng = random.Random(7)

    def late_clock():  # every reading a little late, as after a real wake-up
        return time.monotonic() + rng.uniform(0.0, 0.02)

    class Grabber:
        def raw(self):
            return b"\0" * 16, 2, 2

    root = types.SimpleNamespace()
    conn = types.SimpleNamespace(
        get_input_focus=lambda: types.SimpleNamespace(focus=X.NONE),
        screen=lambda: types.SimpleNamespace(root=root),
    )
    timeline = FrameTimeline()
    capture = ScreenCapture(":0", timeline, fps=10.0, clock=late_clock)
    capture._thread = threading.Thread(
        target=capture._loop, args=(conn, Grabber(), None), daemon=True
    )
    capture.start()
    time.sleep(3.0)
    capture.stop()
    assert timeline.grabbed >= 28, timeline.grabbed  # 31 due in 3 s; 22 with the bug


def test_record_refuses_without_display(tmp_path):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = subprocess.run(
        [sys.executable, "-m", "deskreel", "record", tmp_path / "r.db"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "deskreel: $DISPLAY is not set: run deskreel inside an X "
        "session, or set DISPLAY (for a virtual one: Xvfb :99 & "
        "DISPLAY=:99 deskreel ...)"
    )
    assert list(tmp_path.iterdir()) == []  # no empty database left behind


def test_record_refuses_server_without_record(tmp_path):
    import subprocess
    import sys

    from deskreel.xsession.xvfb import VirtualDisplay

    with VirtualDisplay(extensions=["-extension", "RECORD"]) as bare:
        done = subprocess.run(
            [sys.executable, "-m", "deskreel", "record", tmp_path / "r.db"],
            env=bare.env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert "lacks the RECORD extension" in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # no empty database left behind


def test_default_name_taken_meanwhile_is_chosen_again(xvfb, tmp_path):
    """Regression: two recorders starting in the same second on hosts of one name chose
    the same default name, and the second one failed."""
    from deskreel.recorder import Recorder

    db = tmp_path / "rec.db"
    with open_store(db) as store, open_store(db) as other:
        recorder = Recorder(store, display=xvfb.display)
        chosen = []
        free_name = store.free_name

        def racing(base):  # the other recorder takes the name between choice and creation
            name = free_name(base)
            if not chosen:
                other.create_recording(name, source="recorder")
            chosen.append(name)
            return name

        store.free_name = racing
        try:
            name = recorder._create_recording(screen=(1280, 800))
        finally:
            recorder.capture._control.close()
        assert name == chosen[-1] == f"{chosen[0]}-2"
        assert store.recording(recorder.recording_id).name == name
        assert [r.name for r in store.recordings()] == [chosen[0], name]


def test_record_into_a_missing_directory_says_so(xvfb, tmp_path):
    """Regression: a database in a directory that does not exist was "permission denied"."""
    import subprocess
    import sys

    db = tmp_path / "nowhere" / "r.db"
    done = subprocess.run(
        [sys.executable, "-m", "deskreel", "record", db],
        env=xvfb.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"deskreel: cannot create {db}: directory {db.parent} does "
        f"not exist; create it or choose another place"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_screen_is_grabbed_as_soon_as_it_is_drawn(xvfb):
    # At 1 frame a second, a change drawn between two ticks would wait up to a second for
    # its frame; the X server reports the drawing (DAMAGE) and the frame follows at once.
    from Xlib import display

    from deskreel.recorder.screen import FrameTimeline, ScreenCapture

    timeline = FrameTimeline()
    conn = display.Display(xvfb.display)
    root = conn.screen().root
    with ScreenCapture(xvfb.display, timeline, fps=1.0):
        time.sleep(1.3)  # the first grabs of the grid are done
        late = []
        for shade in (0x202020, 0xA0A0A0, 0x606060):
            root.fill_rectangle(root.create_gc(foreground=shade), 0, 0, 120, 90)
            conn.sync()
            drawn = time.monotonic()
            time.sleep(0.4)
            frames = [f for f in timeline.shown_between(drawn, drawn + 0.4) if f.t_first >= drawn]
            late.append(round(frames[0].t_first - drawn, 3) if frames else None)
    conn.close()
    assert all(t is not None and t < 0.3 for t in late), late  # a grid grab: 30% each

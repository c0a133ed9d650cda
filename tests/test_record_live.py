"""The live recorder against whole-recording reduction, and its writer loop while the
finisher encodes frames: `deskreel record` in a subprocess on a real Xvfb, real SQLite."""

import signal
import sqlite3
import threading
import time
from contextlib import closing

from deskreel.recorder.reduce import reduce_events
from samples.person import Person
from deskreel.storage import open_store
from tests.test_record import perform_gestures, record, start_recording


def test_a_rest_longer_than_a_chunk_is_a_hover_as_reduce_says(
    launch_app, run_deskreel, xvfb, tmp_path
):
    """Regression: each chunk was reduced alone, so a rest at a chunk's end counted as
    nothing and the hover was lost; `deskreel reduce` found it in the same events."""
    app = launch_app()
    db = tmp_path / "rec.db"

    def drive(person):
        person.click(*app.center("button:Save"))
        person.move_to(400, 300)
        time.sleep(3.0)  # longer than the quiet that ends a chunk (2.1 s)
        person.click(*app.center("button:OK"))

    record(run_deskreel, xvfb, db, drive, "--name", "hover")
    with open_store(db, create=False) as store:
        rec = store.recording("hover")
        steps = store.steps(rec.id)
        events = store.events(rec.id)
    got = [s.action.to_json() for s in steps]
    assert [g.pop("duration", None) is not None for g in got] == [False, False, True, False]
    assert got == [
        {"action": "left_click", "coordinate": list(app.center("button:Save"))},
        {"action": "mouse_move", "coordinate": [400, 300]},
        {"action": "wait"},
        {"action": "left_click", "coordinate": list(app.center("button:OK"))},
    ]
    assert [s.action for s in steps] == [r.action for r in reduce_events(events)]
    hover = steps[1]
    assert hover.before_frame is not None and hover.anchor is not None
    assert events[hover.events[0]].kind == "motion"


def committed_events(db, stop, seen):
    """Poll the committed event rows of `db` every 20 ms into `seen` as (time, count)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        while not stop.is_set():
            try:
                count = con.execute("SELECT count(*) FROM events").fetchone()[0]
            except sqlite3.OperationalError:  # the schema is not there yet
                count = 0
            seen.append((time.monotonic(), count))
            time.sleep(0.02)
    finally:
        con.close()


def test_events_are_committed_while_a_chunk_is_finished(launch_app, run_deskreel, xvfb, tmp_path):
    """Regression: frames and anchors were made on the writer loop, so for seconds after a
    chunk ended no event was committed (and a stop was not heard)."""
    app = launch_app()
    db = tmp_path / "rec.db"
    recorder = start_recording(run_deskreel, db, "--name", "busy")
    stop, seen = threading.Event(), []
    poller = threading.Thread(target=committed_events, args=(db, stop, seen), daemon=True)
    poller.start()
    try:
        with closing(Person(xvfb.display)) as person:
            perform_gestures(person, app)  # a dozen steps, each with frames and an anchor
            time.sleep(2.3)  # the chunk ends: its steps are finished now, for a few seconds
            started = time.monotonic()
            for i in range(120):  # meanwhile the pointer keeps moving: rows keep coming
                person.inj.move(300 + 40 * (i % 2), 300 + i)
                time.sleep(0.03)
            ended = time.monotonic()
            with open_store(db, readonly=True) as store:
                steps_meanwhile = len(store.steps(store.recording("busy").id))
    finally:
        stop.set()
        poller.join()
    recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr
    assert steps_meanwhile >= 12  # the chunk was finished while the pointer moved
    changes = [t for (t, n), (_, m) in zip(seen, seen[1:]) if m != n and t >= started + 0.3]
    stalls = [b - a for a, b in zip(changes, changes[1:])]
    assert changes and changes[0] < started + 0.8 and changes[-1] > ended - 0.8
    assert max(stalls) < 0.6, f"no commit for {max(stalls):.2f} s"


TAKE_UNDER_SIGNALS = """
import os, queue, signal, threading, time
from collections import deque
from deskreel.recorder.holdback import take
signal.signal(signal.SIGINT, lambda *_: None)  # as `deskreel record` does: stop, no traceback
captured, held_back = queue.SimpleQueue(), deque()
def storm():
    for i in range(3000):
        time.sleep(0.0005 + (i % 50) * 0.00002)
        os.kill(os.getpid(), signal.SIGINT)
    captured.put((0.0, "motion", 1, 1, None, None, None, None))
threading.Thread(target=storm, daemon=True).start()
longest = 0.0
while not held_back:
    t = time.monotonic()
    take(captured, held_back, timeout=0.002)
    longest = max(longest, time.monotonic() - t)
print(round(longest, 3))
"""


def test_the_writer_loop_keeps_turning_under_signals():
    """Regression: the loop waited in SimpleQueue.get(timeout), which on CPython 3.11 a
    signal near the deadline leaves blocked until the next event: a SIGINT after the
    person's last input then never stopped the recording."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", TAKE_UNDER_SIGNALS], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) < 0.5, f"one turn of the loop took {done.stdout.strip()} s"


def test_input_right_after_ready_is_recorded(xvfb):
    """`ready` (and with it "recording into ...") comes with the server's StartOfData reply:
    a key pressed the moment it is set is recorded, press and release. Set before the
    context was enabled, the press of a first keystroke was lost now and then."""
    import queue

    from Xlib import X
    from Xlib.ext import xtest

    from deskreel.xsession.display import connect
    from deskreel.recorder.capture import InputCapture

    conn = connect(xvfb.display, extensions=("XTEST",))
    keycode = conn.keysym_to_keycode(ord("t"))
    try:
        for _ in range(10):
            events: queue.SimpleQueue = queue.SimpleQueue()
            capture = InputCapture(xvfb.display, events)
            capture.start()
            assert capture.ready.wait(5)
            xtest.fake_input(conn, X.KeyPress, detail=keycode)
            xtest.fake_input(conn, X.KeyRelease, detail=keycode)
            conn.sync()
            time.sleep(0.1)
            capture.stop()
            capture.join()
            kinds = []
            while not events.empty():
                kinds.append(events.get()[1])
            assert kinds == ["key_down", "key_up"], kinds
    finally:
        conn.close()


def test_steps_are_stored_while_the_pointer_never_rests(launch_app, run_deskreel, xvfb, tmp_path):
    """Regression (issue 39): a person who moves the pointer while thinking gave no quiet
    moment, so no step was stored, and every frame was held, until the stop."""
    app = launch_app()
    db = tmp_path / "rec.db"
    recorder = start_recording(run_deskreel, db, "--name", "gliding")
    began = time.monotonic()
    with closing(Person(xvfb.display)) as person:
        for round_ in range(3):
            person.click(*app.center("button:Save"))
            for i in range(130):  # 3.9 s of gliding: never still for a hover, never quiet
                person.inj.move(300 + (i * 7) % 200, 300 + (i * 3 + round_ * 40) % 150)
                time.sleep(0.03)
        with open_store(db, readonly=True) as store:
            stored_meanwhile = [s.action.action for s in store.steps(store.recording("gliding").id)]
    stopped = time.monotonic()
    recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr
    assert [a for a in stored_meanwhile if a != "wait"] == ["left_click"] * 3, stored_meanwhile
    with open_store(db, create=False) as store:
        rec = store.recording("gliding")
        steps, events = store.steps(rec.id), store.events(rec.id)
    assert [s.action for s in steps] == [r.action for r in reduce_events(events)]
    said = recorder.stderr.splitlines()[-1]
    over = said.split(" over ")[1].split(",")[0]  # the person's time, as `record` says it
    assert abs(float(over.removesuffix("s")) - (stopped - began)) < 1.5, said

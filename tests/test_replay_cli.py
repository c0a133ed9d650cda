"""`deskreel replay` as a person runs it on a real display: --from, --to and --speed, and
the progress it prints, a line per step or one updating line on a terminal."""

import os
import pty
import signal
import sqlite3
import subprocess
import sys
import time

from deskreel.storage import open_store
from tests.commands import deskreel, imported


def test_from_to_and_speed(sample_app, xvfb, tmp_path):
    entry = list(sample_app.center("entry"))
    db = imported(
        tmp_path,
        "range",
        [
            {"action": "type", "text": "x", "t": 0},
            {"action": "left_click", "coordinate": entry, "t": 1},
            {"action": "type", "text": "a", "t": 2},
            {"action": "type", "text": "b", "t": 3.5},
            {"action": "type", "text": "c", "t": 5},
            {"action": "type", "text": "z", "t": 6},
        ],
    )
    done = deskreel("replay", db, "--from", "2", "--to", "5", "--speed", "4", env=xvfb.env())
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"step 1/4 (#2) left_click {entry}: ok",
        "step 2/4 (#3) type 'a': ok",
        "step 3/4 (#4) type 'b': ok",
        "step 4/4 (#5) type 'c': ok",
        "replay passed",
    ]
    sample_app.wait_for({"event": "key_release", "keysym": "c"})
    typed = [e["value"] for e in sample_app.events("text_changed") if e["widget"] == "entry"]
    assert typed[-1] == "abc"
    with open_store(db, create=False) as store:
        [run] = store.runs()
        results = store.step_results(run.id)
    assert [r.step for r in results] == [2, 3, 4, 5]
    # recorded 1, 2.5 and 4 s after step 2; a quarter of that at --speed 4
    offsets = [r.t_start - results[0].t_start for r in results[1:]]
    assert all(abs(got - want) < 0.1 for got, want in zip(offsets, [0.25, 0.625, 1.0])), offsets


def test_progress_on_a_terminal_is_one_updating_line(xvfb, tmp_path):
    db = imported(
        tmp_path,
        "tty",
        [
            {"action": "mouse_move", "coordinate": [100, 100], "t": 0},
            {"action": "mouse_move", "coordinate": [200, 150], "t": 0.05},
        ],
    )
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "replay", db],
        env=xvfb.env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
    )
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the replay closed the terminal: everything has been read
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert proc.wait(30) == 0
    line, verdict, rest = out.decode().split("\r\n")  # the terminal turns \n into \r\n
    assert (verdict, rest) == ("replay passed", "")
    assert line.split("\r\033[K") == [
        "",
        "step 1/2 (#1) mouse_move [100, 100]: running",
        "step 1/2 (#1) mouse_move [100, 100]: ok",
        "step 2/2 (#2) mouse_move [200, 150]: running",
        "step 2/2 (#2) mouse_move [200, 150]: ok",
    ]


def test_a_step_pressed_at_its_recorded_place_is_refused_off_todays_screen(
    launch_app, run_deskreel, xvfb, tmp_path
):
    # its object an X window and no anchor (as where the frame was lost): on a smaller
    # screen without the application, the object leaves it to the pixels, and the recorded
    # place lies off the screen, where X would press the screen's edge
    from deskreel.xsession.xvfb import VirtualDisplay
    from samples.person import Person

    app = launch_app(geometry="+440+330")
    db = tmp_path / "far.db"
    recorder = run_deskreel("record", db)
    recorder.wait_for_output("recording into")
    person = Person(xvfb.display)
    try:
        person.move_to(*app.center("button:Save"))
        time.sleep(0.6)  # at rest on it: the recorder asks what the pointer is on
        person.click(*app.center("button:Save"))
    finally:
        person.close()
    app.wait_for({"event": "click"})
    time.sleep(1.0)  # the step's after-frame and object, taken once the screen settled
    recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET anchor_id = NULL")
    conn.close()
    with open_store(db, create=False) as store:
        [step] = store.steps(store.recording(None).id)
    assert step.widget is not None and step.anchor is None, step
    with VirtualDisplay(width=480, height=320) as small:
        done = deskreel("replay", db, env=small.env())
    assert done.returncode == 1, done.stderr
    assert "its recorded place lies off today's screen by, in px," in done.stderr, done.stderr

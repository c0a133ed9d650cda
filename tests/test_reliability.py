"""Faults: recorders killed at random moments, a vanished X server, a full disk, two
recorders on one file, an application that crashes under a replay, and bad input."""

import json
import random
import resource
import signal
import sqlite3
import subprocess
import sys
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from deskreel.xvfb import VirtualDisplay
from recorder.reduce import reduce_events
from storage import ScriptError, open_store, parse_script
from samples.person import Person
from tests.test_replay import held_state, long_script
from tests.commands import deskreel



def wait_for_stored_keys(db, ref, text, timeout=15.0):
    """Wait until the recording `ref` (None: the latest) has stored the releases of `text`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open_store(db, readonly=True) as store:
                events = store.events(store.recording(ref).id)
            typed = [e.keysym for e in events if e.kind == "key_up"]
            if typed[-len(text):] == list(text):
                return
        except Exception:  # the recording is not there yet, or the file is being created
            pass
        assert time.monotonic() < deadline, f"{text!r} never reached {db}"
        time.sleep(0.05)


def drive_a_little(person, app, rng):
    gestures = [lambda: person.click(*app.center("button:OK")),
                lambda: person.click(*app.center("entry")),
                lambda: person.type("abc"),
                lambda: person.press("ctrl+a"),
                lambda: person.wheel(*app.center("listbox"), 2)]
    for _ in range(rng.randint(1, 4)):
        rng.choice(gestures)()


def test_sigkill_at_random_moments_loses_nothing_committed(sample_app, run_deskreel, xvfb,
                                                           tmp_path):
    rng = random.Random(1234)
    person = Person(xvfb.display, step_delay=0.05)
    db = tmp_path / "rec.db"
    try:
        for round_ in range(20):
            recorder = run_deskreel("record", db, "--name", f"r{round_}")
            recorder.wait_for_output("recording into")
            drive_a_little(person, sample_app, rng)
            time.sleep(rng.uniform(0.0, 2.5))  # sometimes after a chunk was reduced
            recorder.proc.send_signal(signal.SIGKILL)
            recorder.proc.wait()
            con = sqlite3.connect(db)
            assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            con.close()
    finally:
        person.close()
    repaired = deskreel("doctor", db, "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    with open_store(db, create=False) as store:
        recordings = store.recordings()
        assert len(recordings) == 20
        for rec in recordings:
            events = store.events(rec.id)
            stored = [s.action for s in store.steps(rec.id) if s.action.action != "wait"]
            derived = [r.action for r in reduce_events(events) if r.action.action != "wait"]
            assert stored == derived, rec.name


def test_x_server_going_away_ends_the_recording_cleanly(tmp_path):
    db = tmp_path / "rec.db"
    with VirtualDisplay() as display:
        proc = subprocess.Popen([sys.executable, "-m", "deskreel", "record", db],
                                env=display.env(), stderr=subprocess.PIPE, text=True)
        assert "recording into" in proc.stderr.readline()
        person = Person(display.display)
        person.click(100, 100)
        person.type("kept")
        person.close()
        wait_for_stored_keys(db, None, "kept")  # captured: now the server may go
    code = proc.wait(30)
    err = proc.stderr.read()
    assert code == 0, err
    assert "the X server went away" in err and "Traceback" not in err
    with open_store(db, create=False) as store:
        actions = [s.action.to_json() for s in store.steps(store.recording(None).id)]
    assert {"action": "type", "text": "kept"} in actions


def test_full_disk_stops_with_a_message_and_keeps_what_was_written(sample_app, xvfb,
                                                                   tmp_path):
    db = tmp_path / "rec.db"
    assert deskreel("import", "samples/scripts/every-action.json", db).returncode == 0
    limit = db.stat().st_size + 64 * 1024

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    # --no-frames: the X shared-memory segment for frames is a file under the same limit
    proc = subprocess.Popen([sys.executable, "-m", "deskreel", "record", db, "--no-frames"],
                            env=xvfb.env(), stderr=subprocess.PIPE, text=True,
                            preexec_fn=small_files)
    assert "recording into" in proc.stderr.readline()
    person = Person(xvfb.display, step_delay=0.05)
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            person.move_to(700, 500, seconds=0.2, steps=200)  # a thousand motions a second
            person.move_to(100, 100, seconds=0.2, steps=200)
            person.click(*sample_app.center("button:OK"))
    finally:
        person.close()
    code = proc.wait(30)
    err = proc.stderr.read()
    assert code == 2, err
    assert "cannot write to" in err and "recording stopped" in err and "Traceback" not in err
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    con.close()
    with open_store(db, create=False) as store:
        assert store.recording("every-action").steps == 20
        assert store.events(store.recordings()[-1].id)


def test_two_recorders_on_one_file_both_succeed(sample_app, run_deskreel, xvfb, tmp_path):
    db = tmp_path / "rec.db"
    first = run_deskreel("record", db, "--name", "one")
    first.wait_for_output("recording into")
    second = run_deskreel("record", db, "--name", "two")
    second.wait_for_output("recording into")
    person = Person(xvfb.display)
    try:
        person.click(*sample_app.center("entry"))
        person.type("both")
    finally:
        person.close()
    wait_for_stored_keys(db, "one", "both")
    wait_for_stored_keys(db, "two", "both")
    for recorder in (first, second):
        recorder.proc.send_signal(signal.SIGINT)
    assert first.finish() == 0 and second.finish() == 0, first.stderr + second.stderr
    with open_store(db, create=False) as store:
        for name in ("one", "two"):
            steps = store.steps(store.recording(name).id)
            assert [s.action.to_json() for s in steps][-1] == {"action": "type",
                                                               "text": "both"}


def test_application_crash_mid_replay_fails_the_step(launch_app, run_deskreel, xvfb, tmp_path):
    from tests.test_anchoring import record_clicks

    original = launch_app()
    db = tmp_path / "rec.db"
    record_clicks(original, run_deskreel, xvfb, db, "button:Open", "button:OK")
    original.stop()
    app = launch_app()
    proc = subprocess.Popen([sys.executable, "-m", "deskreel", "replay", db, "--timeout", "2"],
                            env=xvfb.env(), stderr=subprocess.PIPE, text=True)
    app.wait_for({"event": "click", "widget": "button:Open"}, timeout=20)
    app.proc.kill()
    assert proc.wait(60) == 1
    err = proc.stderr.read()
    assert "step 2 (left_click): target not found" in err
    assert held_state(xvfb.display) == ([], 0)
    with open_store(db, create=False) as store:
        assert store.runs()[-1].status == "failed"


def test_next_replay_releases_what_a_killed_one_held(xvfb, tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "deskreel", "replay",
                             long_script(tmp_path, "killed")], env=xvfb.env())
    deadline = time.monotonic() + 15
    while not all(held_state(xvfb.display)):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    assert all(held_state(xvfb.display))
    script = tmp_path / "wait.json"
    script.write_text(json.dumps([{"action": "wait", "duration": 0.1}]))
    db = tmp_path / "wait.db"
    assert deskreel("import", script, db).returncode == 0
    assert deskreel("replay", db, env=xvfb.env()).returncode == 0
    assert held_state(xvfb.display) == ([], 0)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from(["action", "text", "coordinate", "t",
                                                       "duration", "with_key", "x"]), inner,
                                      max_size=4), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON, max_size=5))
def test_importer_fuzz_only_raises_script_errors(objects):
    try:
        steps = parse_script(json.dumps(objects))
    except ScriptError as err:
        assert str(err) and "\n" not in str(err)
        return
    assert steps


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_importer_fuzz_on_raw_bytes(data):
    try:
        parse_script(data.decode("utf-8", "replace"))
    except ScriptError:
        pass

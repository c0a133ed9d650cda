"""Faults: recorders killed at random moments, a vanished X server, a full disk, two
recorders on one file, an application that crashes under a replay, and bad input."""

import contextlib
import io
import json
import random
import resource
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from deskreel.cli import run
from deskreel.xsession.xvfb import VirtualDisplay
from deskreel.recorder.reduce import reduce_events
from deskreel.storage import Action, ScriptError, open_store, parse_script
from deskreel.storage.vocabulary import ACTIONS, SCROLL_DIRECTIONS
from samples.person import Person
from tests.test_record import start_recording
from tests.test_replay import held_state, long_script
from tests.commands import deskreel, imported


def wait_for_stored_keys(db, ref, text, timeout=15.0):
    """Wait until the recording `ref` (None: the latest) has stored the releases of `text`."""

    def typed(events):
        return [e.keysym for e in events if e.kind == "key_up"][-len(text) :] == list(text)

    wait_for_stored(db, ref, typed, f"the keys of {text!r}", timeout)


def wait_for_stored(db, ref, done, what, timeout=15.0):
    """Wait until `done(events)` holds for the recording `ref`'s stored events (None: the
    latest recording's); `what` names them in the failure."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open_store(db, readonly=True) as store:
                if done(store.events(store.recording(ref).id)):
                    return
        except Exception:  # the recording is not there yet, or the file is being created
            pass
        assert time.monotonic() < deadline, f"{what} never reached {db}"
        time.sleep(0.05)


LOST_AT_MOST = 0.3  # s: what was driven longer than this before a kill must be stored


class Driving:
    """Random gestures in a thread, each logged once done: (monotonic time, what, how many).
    What: a typed letter, "click" (left), "scroll" (wheel ticks down) or "Home" (a key).
    `gestures`: how many, or None to go on until stopped."""

    def __init__(self, person, app, rng, gestures):
        self.person, self.app, self.gestures = person, app, gestures
        self.rng = random.Random(rng.random())  # its own: the test's goes on meanwhile
        self.log: list[tuple[float, str, int]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._drive)

    def _drive(self):
        p, app = self.person, self.app
        gestures = [
            ("click", 1, lambda: p.click(*app.center("entry"))),
            ("click", 1, lambda: p.click(*app.center("button:OK"))),
            ("scroll", 2, lambda: p.wheel(*app.center("listbox"), 2)),
            ("Home", 1, lambda: p.press("Home")),
        ]
        done = 0
        while not self.stop.is_set() and done != self.gestures:
            done += 1
            if self.rng.random() < 0.4:
                for char in self.rng.sample("qwertyuiop", 3):
                    p.type(char)
                    self.log.append((time.monotonic(), char, 1))
            else:
                what, count, act = self.rng.choice(gestures)
                act()
                self.log.append((time.monotonic(), what, count))

    def before(self, t):
        """What was done before monotonic time t: the letters typed, and counts of the rest."""
        done = [(what, count) for at, what, count in self.log if at < t]
        letters = "".join(what for what, _ in done if len(what) == 1)
        return letters, {k: sum(c for w, c in done if w == k) for k in ("click", "scroll", "Home")}


def stored_input(events):
    """The raw events as `Driving.before` counts them."""
    ups = [e for e in events if e.kind in ("key_up", "button_up")]
    return (
        "".join(e.keysym for e in ups if e.keysym and len(e.keysym) == 1),
        {
            "click": sum(e.button == 1 for e in ups),
            "scroll": sum(e.button == 5 for e in ups),
            "Home": sum(e.keysym == "Home" for e in ups),
        },
    )


def recorded_input(actions):
    """The actions as `Driving.before` counts them."""
    clicks = {"left_click": 1, "double_click": 2, "triple_click": 3}
    return (
        "".join(a.text for a in actions if a.action == "type"),
        {
            "click": sum(clicks.get(a.action, 0) for a in actions),
            "scroll": sum(a.scroll_amount for a in actions if a.action == "scroll"),
            "Home": sum(a.action == "key" and a.text == "Home" for a in actions),
        },
    )


def holds(stored, driven):
    """Whether the stored input holds all the driven input (and perhaps more after it)."""
    return stored[0].startswith(driven[0]) and all(stored[1][k] >= n for k, n in driven[1].items())


def test_sigkill_at_random_moments_loses_nothing_committed(
    sample_app, run_deskreel, xvfb, tmp_path
):
    """Each round kills the recorder at a random moment, often while the person is still
    typing or clicking: everything driven LOST_AT_MOST before the kill is in the raw events,
    and after `doctor --repair` in the actions."""
    rng = random.Random(1234)
    person = Person(xvfb.display, step_delay=0.05)
    db = tmp_path / "rec.db"
    driven, during_input = {}, 0
    try:
        for round_ in range(20):
            recorder = run_deskreel("record", db, "--name", f"r{round_}")
            recorder.wait_for_output("recording into")
            # even rounds: killed while input goes on; odd: after a few gestures, or later
            driving = Driving(person, sample_app, rng, None if round_ % 2 == 0 else 3)
            driving.thread.start()
            time.sleep(rng.uniform(0.3, 3.5))
            recorder.proc.send_signal(signal.SIGKILL)
            killed = time.monotonic()
            during_input += driving.thread.is_alive()
            driving.stop.set()
            driving.thread.join()
            recorder.proc.wait()
            driven[f"r{round_}"] = driving.before(killed - LOST_AT_MOST)
            con = sqlite3.connect(db)
            assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            con.close()
            with open_store(db, readonly=True) as store:
                stored = stored_input(store.events(store.recording(f"r{round_}").id))
            assert holds(stored, driven[f"r{round_}"]), (round_, stored, driving.log, killed)
    finally:
        person.close()
    assert during_input >= 10, during_input  # the kills did land during input
    assert sum(bool(d[0]) for d in driven.values()) >= 5  # and there was typing to lose
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
            assert holds(recorded_input(stored), driven[rec.name]), (rec.name, stored)


def test_x_server_going_away_ends_the_recording_cleanly(tmp_path):
    db = tmp_path / "rec.db"
    with VirtualDisplay() as display:
        proc = subprocess.Popen(
            [sys.executable, "-m", "deskreel", "record", db],
            env=display.env(),
            stderr=subprocess.PIPE,
            text=True,
        )
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


def test_full_disk_stops_with_a_message_and_keeps_what_was_written(sample_app, xvfb, tmp_path):
    db = tmp_path / "rec.db"
    assert deskreel("import", "samples/scripts/every-action.json", db).returncode == 0
    limit = db.stat().st_size + 64 * 1024

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    # --no-frames: the X shared-memory segment for frames is a file under the same limit
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "record", db, "--no-frames"],
        env=xvfb.env(),
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=small_files,
    )
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
    first = start_recording(run_deskreel, db, "--name", "one")
    second = start_recording(run_deskreel, db, "--name", "two")
    with contextlib.closing(Person(xvfb.display)) as person:
        person.click(*sample_app.center("entry"))
        person.type("both")
    wait_for_stored_keys(db, "one", "both")
    wait_for_stored_keys(db, "two", "both")
    for recorder in (first, second):
        recorder.proc.send_signal(signal.SIGINT)
    assert first.finish() == 0 and second.finish() == 0, first.stderr + second.stderr
    with open_store(db, create=False) as store:
        for name in ("one", "two"):
            steps = store.steps(store.recording(name).id)
            assert [s.action.to_json() for s in steps][-1] == {"action": "type", "text": "both"}


def test_application_crash_mid_replay_fails_the_step_and_lets_go(
    launch_app, run_deskreel, xvfb, tmp_path
):
    """The app dies while the replay holds shift (a `key` with a duration) and the left
    button (pressed on Open, to be released on OK): the release step cannot find OK and
    fails, and nothing stays held."""
    from dataclasses import replace

    from deskreel.storage import Action
    from tests.test_anchoring import record_clicks

    original = launch_app()
    db = tmp_path / "rec.db"
    record_clicks(original, run_deskreel, xvfb, db, "button:Open", "button:OK")
    original.stop()
    with open_store(db) as store:
        rec = store.recording(None).id
        open_, ok = store.steps(rec)
        held = Action(action="key", text="shift", duration=2.0)
        store.replace_steps(
            rec,
            [
                replace(
                    open_,
                    action=Action(action="left_mouse_down", coordinate=open_.action.coordinate),
                ),
                replace(ok, step=2, action=held, anchor=None, before_frame=None),
                replace(
                    ok,
                    step=3,
                    action=Action(action="left_mouse_up", coordinate=ok.action.coordinate),
                ),
            ],
        )
    app = launch_app()
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "replay", db, "--timeout", "2"],
        env=xvfb.env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while not all(held_state(xvfb.display)):  # shift and the button are down
        assert time.monotonic() < deadline and proc.poll() is None, "nothing was held"
        time.sleep(0.05)
    app.proc.kill()
    assert proc.wait(60) == 1
    err = proc.stderr.read()
    assert "step 3 (left_mouse_up): target not found" in err and "Traceback" not in err
    assert held_state(xvfb.display) == ([], 0)
    with open_store(db, create=False) as store:
        assert store.runs()[-1].status == "failed"


def test_next_replay_releases_what_a_killed_one_held(xvfb, tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "replay", long_script(tmp_path, "killed")],
        env=xvfb.env(),
    )
    deadline = time.monotonic() + 15
    while not all(held_state(xvfb.display)):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    assert all(held_state(xvfb.display))
    db = imported(tmp_path, "wait", [{"action": "wait", "duration": 0.1}])
    assert deskreel("replay", db, env=xvfb.env()).returncode == 0
    assert held_state(xvfb.display) == ([], 0)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["action", "text", "coordinate", "t", "duration", "with_key", "x"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


def mostly(valid, invalid):
    """Values that are usually right, so that the checks after them are reached too."""
    return st.sampled_from([True] * 9 + [False]).flatmap(lambda ok: valid if ok else invalid)


POINT = st.lists(st.integers(0, 2000), min_size=2, max_size=2)
FIELDS = {  # each field of the vocabulary: good values, and the bad ones people write
    "key": mostly(
        st.sampled_from(["a", "Return", "ctrl+s", "alt+Tab", "shift", "KP_0", "ctrl+shift+Left"]),
        st.text(max_size=12) | st.sampled_from(["Retrun", "ctrl+", "hello world"]),
    ),
    "type": mostly(st.text(min_size=1, max_size=12), st.just("") | JSON),
    "coordinate": mostly(POINT, JSON | st.lists(st.integers(-5, 70000), max_size=3)),
    "start_coordinate": mostly(POINT, JSON),
    "with_key": mostly(
        st.sampled_from(["shift", "ctrl", "alt+shift", "super"]),
        st.sampled_from(["a", "ctrl+a", "Hyper_Q", ""]) | JSON,
    ),
    "scroll_direction": mostly(
        st.sampled_from(SCROLL_DIRECTIONS), st.sampled_from(["diagonal", "UP"]) | JSON
    ),
    "scroll_amount": mostly(st.integers(1, 10), st.integers(-3, 2000) | JSON),
    "duration": mostly(st.floats(0, 5), st.floats(allow_nan=True) | st.integers(-9, 10**6) | JSON),
    "region": mostly(st.lists(st.integers(0, 500), min_size=4, max_size=4), JSON),
}


@st.composite
def action_objects(draw):
    """An action object of a real action: its required fields nearly always, its optional
    ones half the time, and now and then a field it does not take."""
    name = draw(mostly(st.sampled_from(sorted(ACTIONS)), st.sampled_from(["click", ""])))
    required, optional = ACTIONS.get(name, ((), ()))
    names = [f for f in required if draw(mostly(st.just(True), st.just(False)))]
    names += [f for f in optional if draw(st.booleans())]
    names += draw(mostly(st.just([]), st.sampled_from([*FIELDS, "t", "x"]).map(lambda f: [f])))
    obj = {"action": name}
    for field in names:
        kind = name if field == "text" and name in ("key", "type") else field
        obj[field] = draw(FIELDS.get(kind, JSON))
    return obj


@st.composite
def scripts(draw):
    """Script text as people write it: a JSON array, JSON lines, or dataset lines."""
    objects = draw(st.lists(action_objects(), min_size=1, max_size=3))
    form = draw(st.sampled_from(["array", "lines", "dataset"]))
    if form == "array":
        return json.dumps(objects)
    if form == "dataset":
        objects = [
            {"recording": "r", "file_name": "frames/1.png", "action": json.dumps([obj])}
            for obj in objects
        ]
    return "\n".join(json.dumps(obj) for obj in objects)


def one_line(err):
    message = str(err)
    assert message and "\n" not in message and "Traceback" not in message, message
    return message


def test_importer_fuzz_reaches_the_field_checks():
    """Scripts of real actions and fields: each is imported or refused with one line, a
    good share are imported, and the refusals come from the checks on the fields."""
    outcomes = []

    @settings(max_examples=600, deadline=None, derandomize=True)  # the same scripts each run:
    @given(scripts())  # the counts below hold
    def check(text):
        try:
            steps = parse_script(text)
        except ScriptError as err:
            outcomes.append(one_line(err))
            return
        assert steps and all(Action.from_json(s.action.to_json()) == s.action for s in steps)
        outcomes.append(None)

    check()
    refused = [m for m in outcomes if m is not None]
    assert len(refused) < 0.75 * len(outcomes), len(refused)  # a good share imported
    for field in ("coordinate", "with_key", "scroll_", "text", "duration", "region"):
        assert any(f": {field}" in m for m in refused), field


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON, max_size=5))
def test_importer_fuzz_only_raises_script_errors(objects):
    try:
        steps = parse_script(json.dumps(objects))
    except ScriptError as err:
        one_line(err)
        return
    assert steps


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_importer_fuzz_on_raw_bytes(data):
    try:
        parse_script(data.decode("utf-8", "replace"))
    except ScriptError as err:
        one_line(err)


@settings(max_examples=60, deadline=None)
@given(
    text=scripts() | st.binary(max_size=120).map(lambda b: b.decode("latin-1")),
    name=st.none() | st.text(max_size=12),
)
def test_import_command_fuzz(text, name):
    """`deskreel import` on fuzzed scripts: exit 0 with every step stored, or exit 2 with one
    line and nothing stored; never an exception."""
    with tempfile.TemporaryDirectory() as folder:
        script, db = Path(folder) / "fuzz.json", Path(folder) / "rec.db"
        script.write_text(text, encoding="utf-8", errors="surrogateescape")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = run(
                ["import", str(script), str(db)] + (["--name", name] if name is not None else [])
            )
        message = err.getvalue()
        assert code in (0, 2), message
        assert message.count("\n") == 1 and "Traceback" not in message, message
        if code == 2:
            assert message.startswith("deskreel: "), message
            if db.exists():
                with open_store(db, create=False) as store:
                    assert store.recordings() == []
            return
        with open_store(db, create=False) as store:
            rec = store.recording(None)
            stored = [s.action for s in store.steps(rec.id)]
    assert stored == [s.action for s in parse_script(text)]

"""The replayer on a real Xvfb: record-then-replay equality, every action, typing under two
layouts, and aborts that leave nothing held."""

import importlib
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deskreel.xsession.display import connect
from deskreel.xsession.xvfb import VirtualDisplay, set_keyboard_layout
from deskreel.storage import open_store
from samples.person import Person
from tests.test_record import record_session
from tests.commands import deskreel, imported

SCRIPTS = Path(__file__).resolve().parent.parent / "samples" / "scripts"


def held_state(display_name):
    """Keycodes the server reports down, and the pointer's button mask."""
    conn = connect(display_name)
    try:
        keymap = conn.query_keymap()
        keys = [i * 8 + b for i, byte in enumerate(keymap) for b in range(8) if byte & (1 << b)]
        mask = conn.screen().root.query_pointer().mask
        return keys, mask & 0x1F00  # Button1Mask..Button5Mask
    finally:
        conn.close()


def test_record_then_replay_gives_the_same_app_log(launch_app, run_deskreel, xvfb, tmp_path):
    recorded_app = launch_app()
    db = tmp_path / "rec.db"
    record_session(recorded_app, run_deskreel, xvfb, db)
    recorded_app.stop()
    expected = recorded_app.comparable_events()

    replayed_app = launch_app()
    done = deskreel("replay", db, "--max-idle", "1", env=xvfb.env())
    assert done.returncode == 0, done.stderr
    time.sleep(0.5)
    assert replayed_app.comparable_events() == expected
    assert held_state(xvfb.display) == ([], 0)
    with open_store(db, create=False) as store:
        [run] = store.runs()
        assert run.status == "passed" and run.steps_passed == len(store.steps(run.recording_id))


def test_imported_script_with_every_action(sample_app, xvfb, tmp_path):
    db = tmp_path / "script.db"
    script = SCRIPTS / "sample-app-tour.json"
    assert deskreel("import", script, db).returncode == 0
    done = deskreel("replay", db, env=xvfb.env())
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "replay passed"
    with open_store(db, create=False) as store:
        [run] = store.runs()
        actions = {s.step: s.action.action for s in store.steps(run.recording_id)}
        reports = [
            r.message for r in store.step_results(run.id) if actions[r.step] == "cursor_position"
        ]
    assert reports and all(re.fullmatch(r"pointer at \[\d+, \d+\]", m) for m in reports), reports
    used = {json.loads(line)["action"] for line in deskreel("export", db).stdout.splitlines()}
    from deskreel.storage import ACTIONS

    assert used == set(ACTIONS)
    app = sample_app
    app.wait_for({"event": "click", "widget": "button:OK"})
    changes = [e["value"] for e in app.events("text_changed") if e["widget"] == "entry"]
    assert changes[-1] == "Grüße, 東京! ~@#Hello, World 42!"
    assert app.events("double_click") and app.events("triple_click")
    assert app.events("right_click")[0]["modifiers"] == ["shift"]
    scrolls = app.events("scroll")
    assert [s["delta"] for s in scrolls] == [1] * 5 + [-1] * 2
    ends = app.events("drag_end")
    assert [e["item_pos"] for e in ends] == [[230, 90], [280, 110]]
    text = [e["value"] for e in app.events("text_changed") if e["widget"] == "text"]
    assert text[-1] == "line one\nline two"
    assert app.events("shortcut")[-1]["name"] == "save"
    assert held_state(xvfb.display) == ([], 0)


@pytest.mark.parametrize("layout", ["us", "de"])
def test_typing_under_layouts(layout, tmp_path):
    text = "Grüße, 東京! ~@#"
    with VirtualDisplay() as display:
        set_keyboard_layout(display.display, layout)
        log = tmp_path / "app.jsonl"
        app = subprocess.Popen(
            [sys.executable, "samples/app.py", "--log", log],
            env=display.env(),
            cwd=Path(__file__).parent.parent,
        )
        try:
            deadline = time.monotonic() + 15
            while not log.exists() or not log.read_text():
                assert time.monotonic() < deadline, "sample app never got ready"
                time.sleep(0.05)
            ready = json.loads(log.read_text().splitlines()[0])
            x, y, w, h = ready["widgets"]["entry"]
            conn = connect(display.display)
            before = conn.get_keyboard_mapping(8, 248)
            script = tmp_path / "typing.json"
            script.write_text(
                json.dumps(
                    [
                        {"action": "left_click", "coordinate": [x + w // 2, y + h // 2]},
                        {"action": "type", "text": text},
                    ]
                )
            )
            db = tmp_path / "typing.db"
            assert deskreel("import", script, db).returncode == 0
            done = deskreel("replay", db, env=display.env())
            assert done.returncode == 0, done.stderr
            time.sleep(0.3)
            values = [json.loads(line).get("value") for line in log.read_text().splitlines()]
            assert [v for v in values if v][-1] == text
            assert [list(r) for r in conn.get_keyboard_mapping(8, 248)] == [
                list(r) for r in before
            ], "the keymap was not restored"
            conn.close()
        finally:
            app.terminate()
            app.wait()


def long_script(tmp_path, name):
    script = tmp_path / f"{name}.json"
    script.write_text(
        json.dumps(
            [
                {"action": "left_mouse_down", "coordinate": [600, 500]},
                {"action": "key", "text": "shift", "duration": 30},
                {"action": "left_mouse_up", "coordinate": [600, 500]},
            ]
        )
    )
    db = tmp_path / f"{name}.db"
    assert deskreel("import", script, db).returncode == 0
    return db


def start_replay(xvfb, db):
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "replay", db],
        env=xvfb.env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 15
    while held_state(xvfb.display)[1] == 0 or not held_state(xvfb.display)[0]:
        assert time.monotonic() < deadline and proc.poll() is None, "replay never held keys"
        time.sleep(0.05)
    return proc


def test_abort_by_sigint_releases_everything(xvfb, tmp_path):
    proc = start_replay(xvfb, long_script(tmp_path, "sigint"))
    proc.send_signal(signal.SIGINT)
    assert proc.wait(10) == 130
    assert "aborted: SIGINT" in proc.stderr.read()
    assert held_state(xvfb.display) == ([], 0)


def test_abort_by_sigterm_releases_everything(xvfb, tmp_path):
    proc = start_replay(xvfb, long_script(tmp_path, "sigterm"))
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 130
    assert held_state(xvfb.display) == ([], 0)


@pytest.mark.parametrize(
    "name, gesture, said",
    [
        (
            "chord",
            lambda person: person.press("ctrl+alt+Escape"),
            "abort key ctrl+alt+Escape pressed",
        ),
        (
            "corner",
            lambda person: person.move_to(0, 0, seconds=0.1),
            "pointer thrown into the corner",
        ),
    ],
)
def test_abort_by_person_releases_everything(name, gesture, said, xvfb, tmp_path):
    proc = start_replay(xvfb, long_script(tmp_path, name))
    person = Person(xvfb.display)
    try:
        gesture(person)
    finally:
        person.close()
    assert proc.wait(10) == 130
    assert said in proc.stderr.read()
    assert held_state(xvfb.display) == ([], 0)


def test_release_all_after_a_killed_replay(xvfb, tmp_path):
    proc = start_replay(xvfb, long_script(tmp_path, "killed"))
    proc.kill()
    proc.wait()
    keys, buttons = held_state(xvfb.display)
    assert keys and buttons, "SIGKILL should leave the shift key and button 1 held"
    done = deskreel("release-all", env=xvfb.env())
    assert done.returncode == 0 and "released" in done.stderr
    assert held_state(xvfb.display) == ([], 0)


def test_dry_run_needs_no_display(tmp_path):
    import os

    db = tmp_path / "dry.db"
    assert deskreel("import", SCRIPTS / "every-action.json", db).returncode == 0
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = deskreel("replay", db, "--dry-run", "--speed", "2", env=env)
    assert done.returncode == 0, done.stderr
    assert "would run at" in done.stderr


def one_wait_step(tmp_path, name="wait"):
    """A recording of one harmless step: a wait."""
    return imported(tmp_path, name, [{"action": "wait", "duration": 0.1}])


def runs_in(db):
    with open_store(db, create=False) as store:
        return store.runs()


@pytest.mark.parametrize(
    "option, where",
    [
        ("--junit", "nowhere/junit.xml"),
        ("--report", "a-file/report"),
        ("--junit", "/proc/deskreel-junit.xml"),  # root passes os.access() checks here
        ("--report", "/proc/deskreel-report"),
        ("--report", "other"),  # a folder that holds something else than a report
    ],
)
def test_unwritable_outputs_are_refused_before_any_input(option, where, xvfb, tmp_path):
    db = one_wait_step(tmp_path)
    (tmp_path / "a-file").write_text("not a directory")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    done = deskreel("replay", db, option, tmp_path / where, env=xvfb.env())
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert option in done.stderr
    assert runs_in(db) == [], "the replay ran before its outputs were checked"


def test_mask_without_verify_is_refused(xvfb, tmp_path):
    db = one_wait_step(tmp_path)
    done = deskreel("replay", db, "--mask", "0,0,10,10", env=xvfb.env())
    assert done.returncode == 2 and "--mask only applies with --verify" in done.stderr
    assert runs_in(db) == []


def test_damaged_frame_fails_the_run_in_one_line(xvfb, tmp_path):
    import sqlite3

    db = one_wait_step(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO frames (hash, width, height, format, data) "
            "VALUES ('ab' || hex(randomblob(31)), 10, 10, 'webp', x'00ff00')"
        )
        conn.execute(
            "UPDATE actions SET before_frame = (SELECT hash FROM frames), "
            "after_frame = (SELECT hash FROM frames)"
        )
    done = deskreel("replay", db, "--verify", env=xvfb.env())
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "is damaged" in done.stderr
    [run] = runs_in(db)
    assert run.status == "failed"


class _Writer:
    def __init__(self):
        self.frames = {}

    def put_frame(self, data, *, width, height, fmt, pixel_hash):
        self.frames[pixel_hash] = self.frames.get(pixel_hash, 0) + 1
        return pixel_hash


class _Reader:
    label = "rec.db"

    def __init__(self, frames):
        self.data, self.reads = frames, 0

    def frame(self, key):
        self.reads += 1
        return self.data[key], "webp"


def test_frames_are_encoded_once_and_decoded_frames_are_bounded(monkeypatch):
    import numpy as np

    from deskreel.xsession.images import encode_webp

    frames_module = importlib.import_module("deskreel.replayer.frames")
    from deskreel.storage import StorageError

    encoded = []
    monkeypatch.setattr(
        frames_module, "encode_webp", lambda rgb: encoded.append(1) or encode_webp(rgb)
    )
    screens = [np.full((20, 30, 3), v, np.uint8) for v in range(8)]
    reader = _Reader({f"k{i}": encode_webp(s) for i, s in enumerate(screens)})
    reader.data["bad"] = b"\x00not an image"
    writer = _Writer()
    frames = frames_module.Frames(reader, writer, ":0")  # grabs nothing: no X needed
    first = frames.save(screens[0])
    assert frames.save(screens[0].copy()) == first and frames.save(screens[1]) != first
    assert len(encoded) == 2 and sum(writer.frames.values()) == 2
    for i in range(8):
        assert np.array_equal(frames.recorded(f"k{i}"), screens[i])
    assert len(frames._decoded) <= frames.DECODED
    reads = reader.reads
    frames.recorded("k7")
    assert reader.reads == reads  # the latest ones stay decoded
    frames.recorded("k0")
    assert reader.reads == reads + 1  # the oldest were dropped
    with pytest.raises(StorageError, match="is damaged"):
        frames.recorded("bad")


def test_ask_wakes_up_on_the_abort_switch():
    import io
    import os
    import threading

    from deskreel.replayer.errors import Interrupted
    from deskreel.replayer.ask import ask
    from deskreel.replayer.safety import AbortSwitch

    class Terminal:
        def __init__(self, fd):
            self.fd = fd

        def isatty(self):
            return True

        def fileno(self):
            return self.fd

    read, write = os.pipe()
    switch = AbortSwitch()
    threading.Timer(0.2, switch.trip, args=("SIGINT",)).start()
    started = time.monotonic()
    try:
        with pytest.raises(Interrupted, match="SIGINT"):
            ask(
                "go on?",
                ["skip", "abort"],
                recommended="abort",
                headless="abort",
                timeout=30,
                stdin=Terminal(read),
                stderr=io.StringIO(),
                switch=switch,
            )
    finally:
        os.close(read)
        os.close(write)
    assert time.monotonic() - started < 2

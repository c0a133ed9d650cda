"""Privacy on a real Xvfb: deny-listed windows, --redact-typing, `deskreel redact`, and
private files. Secrets are checked in the bytes of every file written."""

import os
import signal
import sqlite3
import stat
import time
from contextlib import closing

import numpy as np

from deskreel.storage import open_store
from samples.person import Person
from tests import test_record
from tests.commands import deskreel
from tests.test_record import start_recording

SECRET = "hunter2-Zebra"


def all_bytes(folder):
    """Every byte deskreel wrote under `folder` (the sample app's own log is not ours)."""
    return b"".join(
        p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and not p.name.startswith(("app", "deskreel"))
    )


def record(run_deskreel, xvfb, db, drive, *extra):
    """A recording named "private" (see test_record.record)."""
    return test_record.record(run_deskreel, xvfb, db, drive, "--name", "private", *extra)


def typing_the_secret(app):
    """The person clicks the entry, types the secret and clicks Save."""

    def drive(person):
        person.click(*app.center("entry"))
        person.type(SECRET)
        person.click(*app.center("button:Save"))

    return drive


def test_deny_listed_window_is_not_recorded(launch_app, run_deskreel, xvfb, tmp_path):
    app = launch_app(title="Enter your password")
    db = tmp_path / "rec.db"

    def drive(person):
        person.click(*app.center("entry"))
        person.type(SECRET)

    recorder = record(run_deskreel, xvfb, db, drive)
    assert "paused while a private window is active (title 'Enter your password'" in recorder.stderr
    with open_store(db, create=False) as store:
        rec = store.recording("private")
        assert store.events(rec.id) == [] and store.steps(rec.id) == []
    assert SECRET.encode() not in all_bytes(tmp_path)
    assert app.events("text_changed")[-1]["value"] == SECRET  # the app did get the input


def test_deny_listed_window_focused_through_pointer_root_is_not_recorded(
    launch_app, run_deskreel, xvfb, tmp_path
):
    """Regression: with the focus on PointerRoot the keys go to the window under the
    pointer, but the recorder saw no window and kept what was typed."""
    from Xlib import X

    from deskreel.xsession.display import connect

    app = launch_app(title="Enter your password")
    db = tmp_path / "rec.db"
    conn = connect(xvfb.display)

    def drive(person):
        person.move_to(*app.center("entry"))
        conn.set_input_focus(X.PointerRoot, X.RevertToPointerRoot, X.CurrentTime)
        conn.sync()
        time.sleep(0.3)
        assert conn.get_input_focus().focus == X.PointerRoot
        person.type(SECRET)

    try:
        recorder = record(run_deskreel, xvfb, db, drive)
    finally:
        conn.close()
    assert "paused while a private window is active (title 'Enter your password'" in recorder.stderr
    with open_store(db, create=False) as store:
        rec = store.recording("private")
        events = store.events(rec.id)
        assert not [e for e in events if e.kind.startswith("key")]
        assert store.steps(rec.id) == []
    assert SECRET.encode() not in all_bytes(tmp_path)


class DenyFilter:
    """The recorder's deny-list filter alone (the writer loop's keep_allowed with its
    PrivateWindows), with `windows` as (t, class, title) and events timed from 100 s."""

    def __init__(self, windows):
        from deskreel.recorder.chunk import Chunk
        from deskreel.recorder.private_windows import PrivateWindows
        from deskreel.recorder.privacy import DenyList
        from deskreel.recorder.screen import FrameTimeline, WindowInfo

        timeline = FrameTimeline()
        for t, window_class, title in windows:
            timeline.note_window(WindowInfo(t, window_class, title))
        self.private = PrivateWindows(
            DenyList(("title:*password*",)), timeline, lambda message: None
        )
        self._chunk, self._batch = Chunk(), []

    def _pass(self, events):
        from deskreel.recorder.loop import keep_allowed

        keep_allowed(events, private=self.private, t0=100.0, batch=self._batch, into=self)

    @property
    def held(self):
        return self._chunk.held

    def add(self, event, *, t0):
        self._chunk.add(event)


def deny_filter(windows):
    return DenyFilter(windows)


def test_deny_list_looks_at_the_event_and_keeps_presses_and_releases_paired():
    from deskreel.storage import RawEvent

    recorder = deny_filter(
        [(100.0, "app", "editor"), (101.0, "pinentry", "Enter password"), (102.0, "app", "editor")]
    )
    recorder._pass(
        [
            RawEvent(100.5, "key_down", keycode=38, keysym="a", char="a"),  # kept
            RawEvent(100.6, "button_down", button=1),  # kept
            RawEvent(101.2, "key_down", keycode=39, keysym="s", char="s"),  # denied
            RawEvent(101.3, "key_up", keycode=38, keysym="a", char=""),  # its press was kept
            RawEvent(101.4, "button_up", button=1),  # its press was kept
            RawEvent(101.5, "motion", x=1, y=1),  # denied
            RawEvent(102.5, "key_up", keycode=39, keysym="s", char=""),  # its press was dropped
            RawEvent(102.6, "key_down", keycode=40, keysym="d", char="d"),  # kept
            RawEvent(102.7, "key_up", keycode=40, keysym="d", char=""),  # kept
        ]
    )
    assert [(e.kind, e.keysym or e.button) for e in recorder._chunk.events] == [
        ("key_down", "a"),
        ("button_down", 1),
        ("key_up", "a"),
        ("button_up", 1),
        ("key_down", "d"),
        ("key_up", "d"),
    ]
    assert [round(e.t, 3) for e in recorder._chunk.events] == [0.5, 0.6, 1.3, 1.4, 2.6, 2.7]
    assert recorder._chunk.held == set()  # the chunk can end


def test_deny_list_counts_the_window_at_the_event_too():
    from deskreel.storage import RawEvent

    # the prompt is active at the key press and gone one poll later
    recorder = deny_filter(
        [(100.0, "app", "editor"), (101.0, "pinentry", "Enter password"), (101.03, "app", "editor")]
    )
    recorder._pass(
        [
            RawEvent(101.01, "key_down", keycode=39, keysym="s", char="s"),
            RawEvent(101.02, "key_up", keycode=39, keysym="s", char=""),
        ]
    )
    assert recorder._chunk.events == []
    # and a key pressed just before the prompt appears is dropped as well
    recorder = deny_filter([(100.0, "app", "editor"), (101.0, "pinentry", "Enter password")])
    recorder._pass([RawEvent(100.97, "key_down", keycode=39, keysym="s", char="s")])
    assert recorder._chunk.events == []


def test_redact_typing_keeps_no_trace_and_replays_from_env(
    launch_app, run_deskreel, xvfb, tmp_path
):
    app = launch_app()
    db = tmp_path / "rec.db"

    record(run_deskreel, xvfb, db, typing_the_secret(app), "--redact-typing")
    with open_store(db, create=False) as store:
        rec = store.recording("private")
        steps = store.steps(rec.id)
        events = store.events(rec.id)
    assert [s.action.to_json() for s in steps][1] == {"action": "type", "text": "{{secret:1}}"}
    assert steps[1].before_frame is None and steps[1].after_frame is None
    assert steps[2].action.action == "left_click"
    assert steps[0].before_frame is not None  # frames were recorded: the checks above bite
    assert not any(
        e.char or e.keysym
        for e in events
        if e.kind.startswith("key") and e.keysym not in ("Shift_L", "Shift_R")
    )
    assert SECRET.encode() not in all_bytes(tmp_path)
    app.stop()

    replayed = launch_app()
    env = {k: v for k, v in xvfb.env().items() if k != "DESKREEL_SECRET_1"}
    missing = deskreel("replay", db, env=env)
    assert missing.returncode == 2
    assert "$DESKREEL_SECRET_1 is not set" in missing.stderr
    assert replayed.events("click") == []  # refused before any input
    done = deskreel("replay", db, env={**env, "DESKREEL_SECRET_1": SECRET})
    assert done.returncode == 0, done.stderr
    assert replayed.events("text_changed")[-1]["value"] == SECRET
    assert SECRET.encode() not in all_bytes(tmp_path)  # nor after the replay's run results


def test_redact_command_removes_text_frames_and_keys(launch_app, run_deskreel, xvfb, tmp_path):
    app = launch_app()
    db = tmp_path / "rec.db"

    record(run_deskreel, xvfb, db, typing_the_secret(app))
    assert SECRET.encode() in all_bytes(tmp_path)  # raw events hold what was typed
    assert deskreel("redact", db, "-r", "private", "--step", "2").returncode == 0
    assert SECRET.encode() not in all_bytes(tmp_path)
    with open_store(db, create=False) as store:
        steps = store.steps(store.recording("private").id)
        assert steps[1].action.text == "{{secret:1}}" and steps[1].before_frame is None
        frames = {s.before_frame for s in steps} | {s.after_frame for s in steps}
        assert steps[1].after_frame is None
    assert deskreel("doctor", db).returncode == 0
    assert frames - {None}  # the frames before the typing are kept


def typing_then_clicking_on(app):
    """As `typing_the_secret`, then two more clicks while the entry still shows it."""

    def drive(person):
        typing_the_secret(app)(person)
        person.click(*app.center("button:OK"))
        person.click(*app.center("button:Open"))

    return drive


def entry_crops(db, app):
    """{(step, "before"/"after"): the entry as that stored frame shows it (bytes)}, and
    the steps, whose anchors must be crops of their before-frames."""
    from deskreel.xsession.images import decode_image

    x, y, w, h = app.widgets["entry"]
    with open_store(db, create=False) as store:
        steps = store.steps(store.recording("private").id)
        frames = {
            key: decode_image(store.frame(key)[0])
            for st in steps
            for key in (st.before_frame, st.after_frame)
            if key
        }
    crops = {
        (st.step, side): frames[key][y : y + h, x : x + w].tobytes()
        for st in steps
        for side, key in (("before", st.before_frame), ("after", st.after_frame))
        if key
    }
    for st in steps:
        if st.anchor is not None:
            bx, by, bw, bh = st.anchor.box
            shown = frames[st.before_frame][by : by + bh, bx : bx + bw]
            hovered = st.anchor.hover_png or st.anchor.png
            assert decode_image(hovered).tolist() == shown.tolist(), st.step
            if st.anchor.hover_png is not None:
                # the look at rest differs from the stored frame only where the target's
                # hover is drawn, never in the entry that showed the secret
                ys, xs = np.nonzero(np.any(decode_image(st.anchor.png) != shown, axis=2))
                inside = (xs + bx >= x) & (xs + bx < x + w) & (ys + by >= y) & (ys + by < y + h)
                assert not inside.any(), st.step
    return crops, steps


def test_redact_hides_the_typed_text_in_later_frames(launch_app, run_deskreel, xvfb, tmp_path):
    """Regression: the clicks after the typing kept frames whose entry read the secret."""
    from deskreel.xsession.hiding import hide_in_stored_frames
    from deskreel.storage.redaction import redact_steps

    app = launch_app()
    db = tmp_path / "rec.db"
    record(run_deskreel, xvfb, db, typing_then_clicking_on(app))
    crops, steps = entry_crops(db, app)
    empty = {crops[1, "before"], crops[1, "after"]}  # before and after clicking into it
    assert [s.action.action for s in steps][1:3] == ["type", "left_click"]
    assert crops[3, "before"] not in empty and crops[4, "after"] not in empty  # it shows

    with open_store(db, create=False) as store:
        redact_steps(store, store.recording("private").id, [2], hide=hide_in_stored_frames)
    crops, steps = entry_crops(db, app)
    assert len(steps) == 5 and not {(2, "before"), (2, "after")} & set(crops)
    assert [k for k, c in crops.items() if c not in empty] == []
    assert {step for step, _ in crops} == {1, 3, 4, 5}  # later frames hidden, not dropped
    assert deskreel("doctor", db).returncode == 0


def test_redact_typing_hides_the_typed_text_in_later_frames(
    launch_app, run_deskreel, xvfb, tmp_path
):
    """Regression: the click after the typing kept an after-frame whose entry read it."""
    app = launch_app()
    db = tmp_path / "rec.db"

    def drive(person):
        typing_then_clicking_on(app)(person)
        person.click(*app.center("entry"))  # its anchor is a crop of the entry

    record(run_deskreel, xvfb, db, drive, "--redact-typing")
    crops, steps = entry_crops(db, app)  # and the anchors those of the frames stored
    empty = {crops[1, "before"], crops[1, "after"]}
    assert [s.action.to_json() for s in steps][1] == {"action": "type", "text": "{{secret:1}}"}
    assert [k for k, c in crops.items() if c not in empty] == []
    assert {(3, "after"), (4, "before"), (4, "after"), (5, "before"), (6, "before")} <= set(crops)
    assert steps[5].action.target == app.center("entry") and steps[5].anchor is not None


def test_repair_keeps_the_typing_a_killed_redacting_recorder_left(
    launch_app, run_deskreel, xvfb, tmp_path
):
    """Regression: `doctor --repair` made nothing of the typing a killed --redact-typing
    recorder had not reduced yet: its key events have no keys left."""
    from tests.test_reliability import wait_for_stored

    app = launch_app()
    db = tmp_path / "rec.db"
    recorder = start_recording(run_deskreel, db, "--redact-typing", "--name", "private")
    with closing(Person(xvfb.display)) as person:
        typing_the_secret(app)(person)
    wait_for_stored(
        db,
        "private",
        lambda events: [e.kind for e in events].count("button_up") == 2,
        "the click on Save",
    )
    recorder.proc.send_signal(signal.SIGKILL)
    recorder.proc.wait()
    with open_store(db, readonly=True) as store:
        assert store.steps(store.recording("private").id) == []  # all left to the repair
    repaired = deskreel("doctor", db, "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    with open_store(db, create=False) as store:
        steps = store.steps(store.recording("private").id)
    assert [s.action.to_json() for s in steps] == [
        {"action": "left_click", "coordinate": list(app.center("entry"))},
        {"action": "type", "text": "{{secret:1}}"},
        {"action": "left_click", "coordinate": list(app.center("button:Save"))},
    ]
    assert SECRET.encode() not in all_bytes(tmp_path)


def test_typing_left_on_screen_is_painted_out_until_it_shows_no_more():
    """The recorder's part of --redact-typing on synthetic screens: two typings into one
    entry are painted out of later frames (as hide_typed_text does on whole screens) until
    a frame no longer shows them; then they are forgotten."""
    import numpy as np

    from deskreel.xsession.hiding import hide_typed_text
    from deskreel.recorder.privacy import TypedOnScreen
    from tests.test_privacy_hiding import ENTRY, STATUS, crop, screen

    typed = TypedOnScreen()
    typed.add(typed.hide(screen()), typed.hide(screen("hunter2")))
    later = screen("hunter2", status="Saved")
    assert np.array_equal(typed.hide(later), hide_typed_text(screen(), screen("hunter2"), later))
    typed.add(typed.hide(screen("hunter2")), typed.hide(screen("hunter2-Zebra")))
    later = screen("hunter2-Zebra", status="Saved")
    hidden = typed.hide(later)
    assert np.array_equal(crop(hidden, ENTRY), crop(screen(), ENTRY))
    assert np.array_equal(crop(hidden, STATUS), crop(later, STATUS))
    assert not np.array_equal(crop(later, ENTRY), crop(screen(), ENTRY))  # input untouched
    cleared = screen(status="Cleared")
    assert typed.hide(cleared) is cleared
    shown_again = screen("hunter2-Zebra")  # typed anew, not redacted: nothing to hide
    assert typed.hide(shown_again) is shown_again


def test_files_and_folders_are_private(sample_app, run_deskreel, xvfb, tmp_path):
    db = tmp_path / "rec.db"
    record(run_deskreel, xvfb, db, lambda p: p.click(*sample_app.center("button:Save")))
    for path in tmp_path.iterdir():
        if path.name.startswith("rec.db"):
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
    out = tmp_path / "export"
    assert deskreel("export", db, "--format", "anthropic", "--out", out).returncode == 0
    report = tmp_path / "report"
    assert deskreel("report", db, "--out", report).returncode == 0
    for folder in (out, report):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
        for path in folder.rglob("*"):
            mode = stat.S_IMODE(os.stat(path).st_mode)
            assert mode == (0o700 if path.is_dir() else 0o600), path
    assert sqlite3.connect(db).execute("PRAGMA quick_check").fetchone()[0] == "ok"


def test_wal_and_shm_files_are_private_while_recording(sample_app, run_deskreel, xvfb, tmp_path):
    """SQLite deletes -wal and -shm when the last connection closes: look while it is open."""
    from tests.test_reliability import wait_for_stored_keys

    db = tmp_path / "rec.db"
    recorder = start_recording(run_deskreel, db)
    try:
        with closing(Person(xvfb.display)) as person:
            person.click(*sample_app.center("entry"))
            person.type("wal")
        wait_for_stored_keys(db, None, "wal")
        modes = {
            p.name: stat.S_IMODE(os.stat(p).st_mode)
            for p in tmp_path.iterdir()
            if p.name.startswith("rec.db")
        }
    finally:
        recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr
    assert modes == {"rec.db": 0o600, "rec.db-wal": 0o600, "rec.db-shm": 0o600}


def test_redact_also_forgets_what_replays_of_the_step_stored(tmp_path):
    import numpy as np

    from deskreel.xsession.images import encode_webp, pixel_hash
    from deskreel.storage import StepResult
    from deskreel.storage.redaction import redact_steps
    from tests.fixture_recording import build_recording

    fixture = build_recording(tmp_path / "rec.db")
    typed = next(st.step for st in fixture.steps if st.action.action == "type")
    with open_store(fixture.db) as store:
        shots = []
        for shade in (17, 34, 51):  # screens no recording step uses
            rgb = np.full((20, 30, 3), shade, np.uint8)
            shots.append(
                store.put_frame(
                    encode_webp(rgb), width=30, height=20, fmt="webp", pixel_hash=pixel_hash(rgb)
                )
            )
        run = store.start_run(fixture.recording_id, mode="verify", options={})
        store.add_step_results(
            run,
            [
                StepResult(
                    typed,
                    "passed",
                    details={"replay_before": shots[0], "replay_after": shots[1], "checks": []},
                ),
                StepResult(typed + 1, "passed", details={"replay_after": shots[2]}),
            ],
        )
        store.finish_run(run, "passed")

        redact_steps(store, fixture.recording_id, [typed])

        results = {r.step: r.details for r in store.step_results(run)}
        assert results[typed] == {"checks": []}
        assert results[typed + 1] == {"replay_after": shots[2]}  # another step's: kept
        with store.engine.connect() as conn:
            kept = {row[0] for row in conn.exec_driver_sql("select hash from frames")}
    assert shots[2] in kept and not kept & {shots[0], shots[1]}


def test_redact_forgets_every_object_named_from_the_redacted_step_on(tmp_path):
    """A field, a list item or a label after the typing may be named by what was typed: the
    toolkit's names of every step from the redacted one on go; those before it stay."""
    from dataclasses import replace

    from deskreel.storage.redaction import redact_steps
    from tests.fixture_recording import build_recording
    from tests.test_store import WIDGET

    from deskreel.storage.told import StepTold, Told, ToldObject

    # an entry that reads what was typed, as its window told it
    entry = Told(
        (0, 0, 300, 200),
        (ToldObject((0, 1), "text", "", (9, 9, 99, 20), text="hunter2", length=7),),
    )
    told = StepTold(entry, entry)
    fixture = build_recording(tmp_path / "rec.db")
    typed = next(st.step for st in fixture.steps if st.action.action == "type")
    with open_store(fixture.db) as store:
        steps = [replace(st, widget=WIDGET, told=told) for st in store.steps(fixture.recording_id)]
        store.replace_steps(fixture.recording_id, steps)
        redact_steps(store, fixture.recording_id, [typed])
        kept = {st.step: (st.widget, st.told) for st in store.steps(fixture.recording_id)}
    assert all(w == (WIDGET, told) for n, w in kept.items() if n < typed)
    assert all(w == (None, None) for n, w in kept.items() if n >= typed)
    assert any(n < typed for n in kept) and any(n > typed for n in kept)

"""`deskreel doctor`: healthy after ordinary edits, repairs what a killed recorder left
after an edit, and reports a damaged file as a failed check (exit 1), not a crash.

The tests that are not about SQLite's file format run on an SQLite file and on a real
PostgreSQL database (`store_url`, see tests/pg.py)."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import text

from deskreel.cli import run
from deskreel.storage import RawEvent, StepResult, open_store
from tests.fixture_recording import build_recording
from tests.pg import raw_engine


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


@pytest.fixture
def fixture(store_url):
    return build_recording(store_url)


@pytest.fixture
def sqlite_fixture(tmp_path):
    return build_recording(tmp_path / "rec.db")


def test_an_edit_leaves_a_healthy_database(fixture, capsys):
    assert deskreel("doctor", fixture.db) == 0
    assert deskreel("edit", fixture.db, "-r", "1", "--drop", "1-3,20-27") == 0
    assert deskreel("edit", fixture.db, "-r", "1", "--copy-to", "copy", "--drop", "1") == 0
    capsys.readouterr()
    assert deskreel("doctor", fixture.db) == 0, capsys.readouterr().out
    assert "healthy" in capsys.readouterr().out


def test_deleting_a_recording_takes_the_frames_only_it_used(fixture, capsys):
    assert deskreel("edit", fixture.db, "-r", "1", "--copy-to", "copy", "--drop", "1-20") == 0
    with open_store(fixture.db) as store:
        store.delete_recording(fixture.recording_id)
        copy = store.recording("copy")
        used = {k for st in store.steps(copy.id) for k in (st.before_frame, st.after_frame) if k}
        assert 0 < len(used) < len(fixture.frames)
    capsys.readouterr()
    assert deskreel("doctor", fixture.db) == 0, capsys.readouterr().out


def test_repair_after_an_edit_recovers_a_killed_recorders_tail(fixture, capsys):
    # The edit deletes the raw events of steps 2-4, so sequence numbers have a gap.
    assert deskreel("edit", fixture.db, "-r", "1", "--drop", "2-4") == 0
    with open_store(fixture.db) as store:
        last = store.steps(fixture.recording_id)[-1]
        events = store.events(fixture.recording_id)
        seq = max(st.events[1] for st in store.steps(fixture.recording_id) if st.events) + 2
        t = events[-1].t + 1
        store.add_events(
            fixture.recording_id,
            [
                RawEvent(t, "motion", x=40, y=50),
                RawEvent(t + 0.1, "button_down", x=40, y=50, button=1),
                RawEvent(t + 0.2, "button_up", x=40, y=50, button=1),
            ],
            first_seq=seq,
        )
    capsys.readouterr()
    assert deskreel("doctor", fixture.db) == 1
    assert "has 1 key or button presses after its last step" in capsys.readouterr().out
    assert deskreel("doctor", fixture.db, "--repair") == 0
    err = capsys.readouterr().err
    with open_store(fixture.db) as store:
        steps = store.steps(fixture.recording_id)
    added = steps[steps.index(last) + 1 :]
    assert f"{len(added)} steps recovered from its raw events" in err
    assert [st.step for st in added] == list(range(last.step + 1, last.step + 1 + len(added)))
    click = added[-1]  # after the wait the idle gap makes
    assert click.action.to_json() == {"action": "left_click", "coordinate": [40, 50]}
    assert click.events == (seq + 1, seq + 2)  # real sequence numbers, not list indices
    assert deskreel("doctor", fixture.db) == 0


def test_a_damaged_file_fails_the_check_in_one_line(sqlite_fixture, capsys):
    fixture = sqlite_fixture
    with sqlite3.connect(fixture.db) as conn:  # everything into the main file, then break it
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'actions'").fetchone()[
            0
        ]
    conn.close()
    with open(fixture.db, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xff" * 64)
    for args in ((), ("--repair",)):
        assert deskreel("doctor", fixture.db, *args) == 1
        out, err = capsys.readouterr()
        assert "integrity check failed: database disk image is malformed" in out
        assert "1 problem(s)" in out and "restore a backup" in out
        assert "Traceback" not in out + err and "database error" not in err


def _damaged_result(fixture, details: str) -> int:
    """A run whose step 1 result's details are `details`, written past the store; its id."""
    with open_store(fixture.db) as store:
        run = store.start_run(fixture.recording_id, mode="verify", options={})
        store.add_step_results(run, [StepResult(1, "failed")])
        store.finish_run(run, "failed")
    engine = raw_engine(str(fixture.db))
    try:
        with engine.begin() as conn:
            conn.execute(
                text("UPDATE step_results SET details = :details WHERE run_id = :run"),
                {"details": details, "run": run},
            )
    finally:
        engine.dispose()
    return run


def test_unreadable_result_details_are_a_problem_not_a_crash(fixture, capsys):
    run_id = _damaged_result(fixture, "{not json")
    capsys.readouterr()
    for args in ((), ("--repair",)):  # nothing repairs it: still a problem, exit 1
        assert deskreel("doctor", fixture.db, *args) == 1
        out, err = capsys.readouterr()
        assert f"  - run {run_id} step 1: its result details are unreadable\n" in out
        assert "1 problem(s)" in out
        assert "Traceback" not in out + err


def test_a_frame_named_in_unreadable_details_is_not_an_orphan(fixture, capsys):
    with open_store(fixture.db) as store:  # a screen no step uses, as a replay stores
        key = store.put_frame(b"replay screen", width=1, height=1, fmt="webp")
    _damaged_result(fixture, f'{{not json "replay_after": "{key}"')
    capsys.readouterr()
    assert deskreel("doctor", fixture.db, "--repair") == 1
    out, err = capsys.readouterr()
    assert "unreadable" in out and "1 problem(s)" in out
    assert "frames belong to no step or run" not in out and "deleted" not in err
    with open_store(fixture.db) as store:
        assert store.frame(key)[0] == b"replay screen"


def test_deleting_a_recording_with_unreadable_result_details(fixture, capsys):
    _damaged_result(fixture, f'{{not json "replay_after": "{fixture.frames[0]}"')
    with open_store(fixture.db) as store:
        store.delete_recording(fixture.recording_id)
    capsys.readouterr()
    assert deskreel("doctor", fixture.db) == 0, capsys.readouterr().out  # nothing left behind


def test_repair_types_a_secret_for_each_run_of_redacted_keys(fixture, capsys):
    """Regression: the repair lost a killed --redact-typing recorder's typing: its key
    events have no keys left, and the reducer made nothing of them."""
    from deskreel.recorder.privacy import Redactor
    from deskreel.storage import Action, Step

    def tap(t, keysym, keycode=38):
        return [
            RawEvent(t, "key_down", keycode=keycode, keysym=keysym, char=keysym),
            RawEvent(t + 0.05, "key_up", keycode=keycode, keysym=keysym, char=""),
        ]

    def press(t, kind, keysym, keycode):
        return RawEvent(t, kind, keycode=keycode, keysym=keysym, char="")

    events = [
        *tap(0.5, "p"),
        *tap(0.7, "w"),  # step 1 types {{secret:1}}
        RawEvent(3.0, "button_down", x=40, y=50, button=1),  # seq 4: the tail
        RawEvent(3.1, "button_up", x=40, y=50, button=1),
        press(3.5, "key_down", "Shift_L", 50),
        *tap(3.6, "A"),
        press(3.7, "key_up", "Shift_L", 50),
        press(3.9, "key_down", "b", 56),
        press(3.95, "key_down", "c", 54),  # rolled
        press(4.0, "key_up", "b", 56),
        press(4.05, "key_up", "c", 54),  # seq 13
        press(4.5, "key_down", "Control_L", 37),
        *tap(4.6, "s"),  # a shortcut
        press(4.7, "key_up", "Control_L", 37),
        *tap(7.0, "x"),
        *tap(7.2, "y"),
    ]  # seq 18-21, after a pause
    with open_store(fixture.db) as store:
        store.add_steps(
            fixture.recording_id,
            [
                Step(  # another recording's secrets
                    step=len(fixture.steps) + 1,
                    action=Action("type", text="{{secret:7}}"),
                    t_start=99.0,
                    t_end=99.5,
                )
            ],
        )
        rec = store.create_recording("private", source="recorder")
        store.add_events(rec, Redactor(enabled=True).events(events), first_seq=0)
        store.add_steps(
            rec,
            [
                Step(
                    step=1,
                    action=Action("type", text="{{secret:1}}"),
                    t_start=0.5,
                    t_end=0.75,
                    events=(0, 3),
                )
            ],
        )
    capsys.readouterr()
    assert deskreel("doctor", fixture.db, "--repair") == 0
    assert "'private': 4 steps recovered" in capsys.readouterr().err
    with open_store(fixture.db) as store:
        steps = store.steps(rec)
        assert not any(
            e.keysym or e.char
            for e in store.events(rec)
            if e.kind.startswith("key") and e.keycode is None
        )
    assert [st.action.to_json() for st in steps if st.action.action != "wait"] == [
        {"action": "type", "text": "{{secret:1}}"},
        {"action": "left_click", "coordinate": [40, 50]},
        {"action": "type", "text": "{{secret:2}}"},  # the ctrl+s is gone with its key
        {"action": "type", "text": "{{secret:3}}"},
    ]
    assert [st.events for st in steps if st.action.action == "type"] == [(0, 3), (7, 13), (18, 21)]
    assert deskreel("doctor", fixture.db) == 0

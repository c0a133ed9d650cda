"""The store on real SQLite files: round trips, file mode, schema versions, bad files."""

import os
import sqlite3
import stat

import pytest

from storage import (Action, Anchor, NotFoundError, RawEvent, Step, StepResult, StorageError,
                     open_store)
from storage.schema import SCHEMA_VERSION


@pytest.fixture
def db(tmp_path):
    return tmp_path / "rec.db"


def make_steps():
    anchor = Anchor(png=b"\x89PNG fake crop", box=(90, 190, 40, 30), offset=(10, 10), score=1.0,
                    margin=0.4)
    return [
        Step(step=1, action=Action(action="left_click", coordinate=(100, 200)), t_start=0.5,
             t_end=0.6, events=(0, 1), before_frame=None, anchor=anchor, window_class="Tk",
             window_title="deskreel sample"),
        Step(step=2, action=Action(action="type", text="Grüße"), t_start=1.0, t_end=1.8,
             events=(2, 11)),
        Step(step=3, action=Action(action="wait", duration=2.0), t_start=1.8, t_end=3.8,
             disabled=True),
    ]


def test_new_file_is_private_and_in_wal_mode(db):
    with open_store(db):
        pass
    assert stat.S_IMODE(os.stat(db).st_mode) == 0o600
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    version = con.execute("select value from deskreel_meta where key='schema_version'")
    assert int(version.fetchone()[0]) == SCHEMA_VERSION
    assert con.execute("select version_num from alembic_version").fetchone()[0] == "0002"


def test_round_trip(db):
    events = [RawEvent(t=0.5, kind="button_down", x=100, y=200, button=1),
              RawEvent(t=0.6, kind="button_up", x=100, y=200, button=1),
              RawEvent(t=1.0, kind="key_down", x=100, y=200, keycode=42, keysym="G", char="G")]
    with open_store(db) as store:
        rec = store.create_recording("login", source="recorder", screen=(1280, 800), dpi=96.0,
                                     keyboard_layout="us")
        store.add_events(rec, events, first_seq=0)
        key = store.put_frame(b"frame-bytes", width=1280, height=800, fmt="png", pixel_hash="ab")
        assert store.put_frame(b"frame-bytes", width=1280, height=800, fmt="png",
                               pixel_hash="ab") == key
        steps = make_steps()
        steps[0] = Step(**{**{f: getattr(steps[0], f) for f in steps[0].__slots__},
                           "before_frame": key, "after_frame": key})
        store.add_steps(rec, steps)
    with open_store(db, create=False) as store:
        assert store.events(rec) == events
        assert store.steps(rec) == steps
        assert store.frame(key) == (b"frame-bytes", "png")
        summary = store.recording("login")
        assert summary.id == rec and summary.steps == 3 and summary.duration == 3.8
        assert summary.screen == (1280, 800) and summary.keyboard_layout == "us"
        assert summary.size > len(b"frame-bytes")
        assert store.recording(None).id == rec and store.recording(str(rec)).name == "login"
        store.set_disabled(rec, 3, False)
        assert not store.steps(rec)[2].disabled


def test_frames_are_stored_once(db):
    with open_store(db) as store:
        a = store.put_frame(b"same", width=1, height=1, fmt="png")
        b = store.put_frame(b"same", width=1, height=1, fmt="png")
        assert a == b
    assert sqlite3.connect(db).execute("select count(*) from frames").fetchone()[0] == 1


def test_runs_and_step_results(db):
    with open_store(db) as store:
        rec = store.create_recording("r", source="script")
        store.add_steps(rec, make_steps())
        run = store.start_run(rec, mode="replay", options={"speed": 2.0})
        store.add_step_results(run, [
            StepResult(step=1, status="passed", t_start=0, t_end=0.1, score=0.98, margin=0.3,
                       scale=1.0, shift=(5, -3)),
            StepResult(step=2, status="failed", message="boom", t_start=0.1, t_end=0.2)])
        store.finish_run(run, "failed")
        [summary] = store.runs(rec)
        assert (summary.status, summary.steps_passed, summary.steps_failed) == ("failed", 1, 1)
        results = store.step_results(run)
        assert results[0].shift == (5, -3) and results[1].message == "boom"


def test_names_are_unique(db):
    with open_store(db) as store:
        store.create_recording("demo", source="script")
        with pytest.raises(StorageError, match="already holds a recording named 'demo'"):
            store.create_recording("demo", source="script")
        assert store.free_name("demo") == "demo-2"


def test_missing_recording_names_what_exists(db):
    with open_store(db) as store:
        with pytest.raises(NotFoundError, match="holds no recordings yet"):
            store.recording(None)
        store.create_recording("alpha", source="script")
        with pytest.raises(NotFoundError, match=r"no recording 'beta' \(latest: alpha\)"):
            store.recording("beta")


def test_newer_schema_is_refused(db):
    open_store(db).close()
    con = sqlite3.connect(db)
    con.execute("update deskreel_meta set value='99' where key='schema_version'")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match=r"schema version 99, newer than this deskreel "
                                           r"understands \(2\): upgrade deskreel"):
        open_store(db)


def test_not_a_database(db):
    db.write_text("hello, I am a text file\n" * 10)
    with pytest.raises(StorageError, match="not a deskreel database"):
        open_store(db)


def test_foreign_sqlite_database(db):
    con = sqlite3.connect(db)
    con.execute("create table notes (x)")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="not a deskreel database"):
        open_store(db)


def test_truncated_database(db):
    with open_store(db) as store:
        store.create_recording("r", source="script")
    data = db.read_bytes()
    db.write_bytes(data[:len(data) // 3])
    for extra in ("-wal", "-shm"):
        (db.parent / (db.name + extra)).unlink(missing_ok=True)
    with pytest.raises(StorageError), open_store(db) as store:
        store.recordings()


def test_missing_file_without_create(db):
    with pytest.raises(StorageError, match="does not exist"):
        open_store(db, create=False)
    assert not db.exists()


def test_directory_missing(tmp_path):
    with pytest.raises(StorageError, match="directory .* does not exist"):
        open_store(tmp_path / "nope" / "rec.db")


def test_version_1_file_is_migrated(db):
    with open_store(db) as store:
        rec = store.create_recording("old", source="script")
        store.add_steps(rec, make_steps())
    con = sqlite3.connect(db)
    con.executescript("""
        drop table masks;
        update deskreel_meta set value = '1' where key = 'schema_version';
        update alembic_version set version_num = '0001';
    """)
    con.close()
    with open_store(db) as store:
        assert store.schema_version() == SCHEMA_VERSION == 2
        assert store.steps(rec) == make_steps()
        store.add_mask(rec, (1, 2, 3, 4), step=2)
        store.add_mask(rec, (0, 0, 10, 10))
        assert store.masks(rec) == {2: [(1, 2, 3, 4)], None: [(0, 0, 10, 10)]}
    con = sqlite3.connect(db)
    assert con.execute("select version_num from alembic_version").fetchone()[0] == "0002"

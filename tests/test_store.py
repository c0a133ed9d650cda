"""The store on real SQLite files and real PostgreSQL databases (`store_url` runs a test on
both; see tests/pg.py): round trips, schema versions; file mode and bad files on SQLite."""

import os
import sqlite3
import stat
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import inspect
from sqlalchemy.exc import OperationalError

from deskreel.cli import database_failure
from deskreel.storage import (
    Action,
    Widget,
    Anchor,
    NotFoundError,
    RawEvent,
    Step,
    StepResult,
    StorageError,
    open_store,
)
from deskreel.storage.edit import RecordingEdit, edit_recording
from deskreel.storage.schema import SCHEMA_VERSION
from deskreel.storage.schema_gate import alembic_config, schema_version
from deskreel.storage.transfer import copy_recording
from tests.pg import run_sql


@pytest.fixture
def db(tmp_path):
    return tmp_path / "rec.db"


def sql(target, statements, *, scalar=False):
    """Run SQL on a store's database behind its back (to fake old or broken databases)."""
    results = run_sql(target, statements)
    return results[-1] if scalar else None


def make_steps():
    anchor = Anchor(
        png=b"\x89PNG fake crop", box=(90, 190, 40, 30), offset=(10, 10), score=1.0, margin=0.4
    )
    return [
        Step(
            step=1,
            action=Action(action="left_click", coordinate=(100, 200)),
            t_start=0.5,
            t_end=0.6,
            events=(0, 1),
            before_frame=None,
            anchor=anchor,
            window_class="Tk",
            window_title="deskreel sample",
        ),
        Step(
            step=2,
            action=Action(action="type", text="Grüße"),
            t_start=1.0,
            t_end=1.8,
            events=(2, 11),
        ),
        Step(
            step=3,
            action=Action(action="wait", duration=2.0),
            t_start=1.8,
            t_end=3.8,
            disabled=True,
        ),
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
    assert (
        con.execute("select version_num from alembic_version").fetchone()[0]
        == f"{SCHEMA_VERSION:04d}"
    )


def test_sqlite_connections_are_wal_normal_with_foreign_keys(db):
    with open_store(db) as store, store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_new_store_is_at_the_current_version(store_url):
    with open_store(store_url) as store:
        assert store.schema_version() == SCHEMA_VERSION == 8
    assert (
        sql(store_url, "select version_num from alembic_version", scalar=True)
        == f"{SCHEMA_VERSION:04d}"
    )


def test_round_trip(store_url):
    db = store_url
    events = [
        RawEvent(t=0.5, kind="button_down", x=100, y=200, button=1),
        RawEvent(t=0.6, kind="button_up", x=100, y=200, button=1),
        RawEvent(t=1.0, kind="key_down", x=100, y=200, keycode=42, keysym="G", char="G"),
    ]
    with open_store(db) as store:
        rec = store.create_recording(
            "login", source="recorder", screen=(1280, 800), dpi=96.0, keyboard_layout="us"
        )
        store.add_events(rec, events, first_seq=0)
        key = store.put_frame(b"frame-bytes", width=1280, height=800, fmt="png", pixel_hash="ab")
        assert (
            store.put_frame(b"frame-bytes", width=1280, height=800, fmt="png", pixel_hash="ab")
            == key
        )
        steps = make_steps()
        steps[0] = Step(
            **{
                **{f: getattr(steps[0], f) for f in steps[0].__slots__},
                "before_frame": key,
                "after_frame": key,
            }
        )
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


def test_event_batches_keep_any_text(store_url):
    """Batches of 10 rows or more go through COPY on PostgreSQL: tabs, newlines, backslashes
    and NULLs must come back as they went in."""
    chars = ["\t", "\n", "\\", "\\N", "é", "✓", "", None, "a,b", '"', "\r"]
    events = [
        RawEvent(t=i / 7, kind="key_down", keycode=30 + i, keysym=f"k{i}\t", char=c)
        for i, c in enumerate(chars)
    ]
    with open_store(store_url) as store:
        rec = store.create_recording("text", source="recorder")
        store.add_events(rec, events, first_seq=0)
        store.add_events(rec, events[:3], first_seq=len(events))  # INSERTs, below 10 rows
        assert store.events(rec) == events + events[:3]


def test_frames_are_stored_once(store_url):
    with open_store(store_url) as store:
        a = store.put_frame(b"same", width=1, height=1, fmt="png")
        b = store.put_frame(b"same", width=1, height=1, fmt="png")
        assert a == b
        assert store.frame(a) == (b"same", "png")
    assert sql(store_url, "select count(*) from frames", scalar=True) == 1


def test_recordings_get_distinct_uids(store_url):
    with open_store(store_url) as store:
        ids = [store.create_recording(f"r{i}", source="script") for i in range(3)]
        uids = [store.recording(i).uid for i in ids]
        assert len(set(uids)) == 3 and all(len(u) == 32 for u in uids)
        assert store.ensure_uid(ids[0]) == uids[0]


def test_runs_and_step_results(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("r", source="script")
        store.add_steps(rec, make_steps())
        run = store.start_run(rec, mode="replay", options={"speed": 2.0})
        store.add_step_results(
            run,
            [
                StepResult(
                    step=1,
                    status="passed",
                    t_start=0,
                    t_end=0.1,
                    score=0.98,
                    margin=0.3,
                    scale=1.0,
                    shift=(5, -3),
                ),
                StepResult(step=2, status="failed", message="boom", t_start=0.1, t_end=0.2),
            ],
        )
        store.finish_run(run, "failed")
        [summary] = store.runs(rec)
        assert (summary.status, summary.steps_passed, summary.steps_failed) == ("failed", 1, 1)
        results = store.step_results(run)
        assert results[0].shift == (5, -3) and results[1].message == "boom"
        assert results[0].score == 0.98 and results[1].score is None


def test_names_are_unique(store_url):
    with open_store(store_url) as store:
        store.create_recording("demo", source="script")
        with pytest.raises(StorageError, match="already holds a recording named 'demo'"):
            store.create_recording("demo", source="script")
        assert store.free_name("demo") == "demo-2"


def test_deleting_a_recording_deletes_its_rows(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("gone", source="script")
        store.add_events(rec, [RawEvent(t=0.1, kind="motion", x=1, y=2)], first_seq=0)
        store.add_steps(rec, make_steps())
        store.add_mask(rec, (0, 0, 5, 5))
        run = store.start_run(rec, mode="replay", options={})
        store.add_step_results(run, [StepResult(step=1, status="passed")])
        store.delete_recording(rec)
    for table in ("recordings", "events", "actions", "anchors", "masks", "runs", "step_results"):
        assert sql(store_url, f"select count(*) from {table}", scalar=True) == 0, table


def test_missing_recording_names_what_exists(store_url):
    with open_store(store_url) as store:
        with pytest.raises(NotFoundError, match="holds no recordings yet"):
            store.recording(None)
        store.create_recording("alpha", source="script")
        with pytest.raises(NotFoundError, match=r"no recording 'beta' \(latest: alpha\)"):
            store.recording("beta")


def test_newer_schema_is_refused(store_url):
    open_store(store_url).close()
    sql(store_url, "update deskreel_meta set value='99' where key='schema_version'")
    with pytest.raises(
        StorageError,
        match=r"schema version 99, newer than this deskreel "
        r"understands \(8\): upgrade deskreel",
    ):
        open_store(store_url)


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
    db.write_bytes(data[: len(data) // 3])
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


def rewind_to_version_7(target):
    """Make a current store look as schema 7 left it: steps that keep nothing of what their
    window's objects told."""
    sql(
        target,
        """
        alter table actions drop column told;
        update deskreel_meta set value = '7' where key = 'schema_version';
        update alembic_version set version_num = '0007'
    """,
    )


def rewind_to_version_6(target):
    """Make a current store look as schema 6 left it: steps that do not say whether their
    after-frame settled."""
    rewind_to_version_7(target)
    sql(
        target,
        """
        alter table actions drop column after_settled;
        update deskreel_meta set value = '6' where key = 'schema_version';
        update alembic_version set version_num = '0006'
    """,
    )


def rewind_to_version_5(target):
    """Make a current store look as schema 5 left it: no instruction, no notes."""
    rewind_to_version_6(target)
    sql(
        target,
        """
        alter table actions drop column note;
        alter table recordings drop column instruction;
        update deskreel_meta set value = '5' where key = 'schema_version';
        update alembic_version set version_num = '0005'
    """,
    )


def rewind_to_version_4(target):
    """Make a current store look as schema 4 left it: steps with no widget."""
    rewind_to_version_5(target)
    sql(
        target,
        """
        alter table actions drop column widget;
        update deskreel_meta set value = '4' where key = 'schema_version';
        update alembic_version set version_num = '0004'
    """,
    )


def rewind_to_version_3(target):
    """Make a current store look as schema 3 left it: anchors with no hovered look."""
    rewind_to_version_4(target)
    sql(
        target,
        """
        alter table anchors drop column twins;
        alter table anchors drop column hover_png;
        update deskreel_meta set value = '3' where key = 'schema_version';
        update alembic_version set version_num = '0003'
    """,
    )


def rewind_to_version_2(target):
    """Make a current store look as schema 2 left it: no recording uids."""
    rewind_to_version_3(target)
    sql(
        target,
        """
        drop index ix_recordings_uid;
        alter table recordings drop column uid;
        update deskreel_meta set value = '2' where key = 'schema_version';
        update alembic_version set version_num = '0002'
    """,
    )


def test_version_1_store_is_migrated(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("old", source="script")
        store.add_steps(rec, make_steps())
    rewind_to_version_2(store_url)
    sql(
        store_url,
        """
        drop table masks;
        update deskreel_meta set value = '1' where key = 'schema_version';
        update alembic_version set version_num = '0001'
    """,
    )
    with open_store(store_url) as store:
        assert store.schema_version() == SCHEMA_VERSION == 8
        assert store.steps(rec) == make_steps()
        assert len(store.recording(rec).uid) == 32
        store.add_mask(rec, (1, 2, 3, 4), step=2)
        store.add_mask(rec, (0, 0, 10, 10))
        assert store.masks(rec) == {2: [(1, 2, 3, 4)], None: [(0, 0, 10, 10)]}
    assert (
        sql(store_url, "select version_num from alembic_version", scalar=True)
        == f"{SCHEMA_VERSION:04d}"
    )


def test_version_2_store_gets_a_uid_for_every_recording(store_url):
    with open_store(store_url) as store:
        ids = [store.create_recording(f"old{i}", source="script") for i in range(3)]
    rewind_to_version_2(store_url)
    with open_store(store_url) as store:
        uids = {store.recording(i).uid for i in ids}
        assert len(uids) == 3 and None not in uids
        new = store.create_recording("new", source="script")
        assert store.recording(new).uid not in uids


def test_readonly_store_cannot_write(tmp_path):
    db = tmp_path / "ro.db"
    with open_store(db) as store:
        store.create_recording("kept", source="script")
    with open_store(db, readonly=True) as store:
        assert [r.name for r in store.recordings()] == ["kept"]
        with pytest.raises(OperationalError) as caught:
            store.create_recording("new", source="script")
    assert database_failure(caught.value) == (
        "database error: attempt to write a readonly database: this store was opened "
        "read-only, or the file or its directory is not writable: check their permissions"
    )
    with pytest.raises(StorageError, match="does not exist"):
        open_store(tmp_path / "missing.db", readonly=True)


def test_stored_times_come_back_aware_and_in_utc(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("when", source="script")
        run_id = store.start_run(rec, mode="verify", options={})
        store.finish_run(run_id, "passed")
        [run] = store.runs(rec)
        created = store.recording(rec).created
    for moment in (created, run.started, run.ended):
        assert moment.tzinfo is UTC, moment
    assert abs((datetime.now(UTC) - created).total_seconds()) < 60


def test_events_since_a_sequence_number_follow_the_numbers_not_the_positions(store_url):
    events = [RawEvent(float(i), "motion", x=i, y=i) for i in range(6)]
    with open_store(store_url) as store:
        rec = store.create_recording("gaps", source="script")
        store.add_events(rec, events[:3], first_seq=0)
        store.add_events(rec, events[3:], first_seq=10)  # 0 1 2 10 11 12
        assert store.events(rec, since_seq=2) == events[2:]
        assert store.events(rec, since_seq=11) == events[4:]
        assert store.events(rec, since_seq=3) == events[3:]


def test_a_database_error_gives_advice_that_fits_its_cause():
    broken = OperationalError(
        "SELECT 1", {}, sqlite3.DatabaseError("database disk image is malformed")
    )
    assert database_failure(broken) == (
        "database error: database disk image is malformed: run 'deskreel doctor' on the file"
    )
    locked = OperationalError("SELECT 1", {}, sqlite3.OperationalError("database is locked"))
    assert "doctor" not in database_failure(locked)
    assert "another program is writing" in database_failure(locked)


def hovered_steps():
    """make_steps with the click's anchor given its hovered look too."""
    steps = make_steps()
    anchor = replace(steps[0].anchor, hover_png=b"\x89PNG fake crop, hovered")
    return [replace(steps[0], anchor=anchor), *steps[1:]]


def test_an_anchors_hovered_look_is_stored(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("hover", source="recorder")
        store.add_steps(rec, hovered_steps())
    with open_store(store_url, create=False) as store:
        steps = store.steps(rec)
    assert steps == hovered_steps()
    assert steps[0].anchor.hover_png == b"\x89PNG fake crop, hovered"
    assert make_steps()[0].anchor.hover_png is None  # unknown unless given


def test_version_3_store_is_migrated_and_its_anchors_have_no_hovered_look(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("old", source="recorder")
        store.add_steps(rec, make_steps())
    rewind_to_version_3(store_url)
    with open_store(store_url) as store:
        assert store.schema_version() == SCHEMA_VERSION == 8
        steps = store.steps(rec)
        assert steps == make_steps() and steps[0].anchor.hover_png is None
        new = store.create_recording("new", source="recorder")
        store.add_steps(new, hovered_steps())
        assert store.steps(new) == hovered_steps()
    assert (
        sql(store_url, "select version_num from alembic_version", scalar=True)
        == f"{SCHEMA_VERSION:04d}"
    )
    assert sql(store_url, "select count(*) from anchors where hover_png is null", scalar=True) == 1


def test_schema_4_downgrades_to_3_and_back(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("hover", source="recorder")
        store.add_steps(rec, hovered_steps())
        with store.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0003")
            assert "hover_png" not in {c["name"] for c in inspect(conn).get_columns("anchors")}
            assert schema_version(conn) == 3
    assert sql(store_url, "select version_num from alembic_version", scalar=True) == "0003"
    with open_store(store_url) as store:  # upgraded again on open
        assert store.schema_version() == SCHEMA_VERSION
        assert store.steps(rec) == make_steps()  # the hovered look went with the column


def test_copies_keep_an_anchors_hovered_look(store_url, tmp_path):
    with open_store(tmp_path / "local.db") as local:
        rec = local.create_recording("hover", source="recorder")
        local.add_steps(rec, hovered_steps())
        copy = edit_recording(local, rec, RecordingEdit(), copy_to="hover copy").recording_id
        assert local.steps(copy) == hovered_steps()
        with open_store(store_url) as target:
            pushed = copy_recording(local, target, rec)
            assert target.steps(pushed.target_id) == hovered_steps()
            again = copy_recording(local, target, rec)  # the same content: nothing to do
            assert not again.copied and not again.differs


WIDGET = Widget(
    source="atspi",
    app="form",
    role="push button",
    name="Apply",
    box=(300, 200, 80, 30),
    point=(40, 15),
    path=(("frame", 0), ("panel", 1), ("push button", 1)),
    parent="Row 2",
    siblings=(("label", "Row 2"), ("push button", "Apply")),
    rank=1,
    states=("enabled", "showing"),
)


def widget_steps():
    """make_steps with the click aimed at WIDGET."""
    steps = make_steps()
    return [replace(steps[0], widget=WIDGET), *steps[1:]]


def test_a_steps_widget_is_stored_and_copied(store_url, tmp_path):
    with open_store(store_url) as store:
        rec = store.create_recording("aimed", source="recorder")
        store.add_steps(rec, widget_steps())
    with open_store(store_url, create=False) as store:
        assert store.steps(rec) == widget_steps()
        with open_store(tmp_path / "copy.db") as target:
            pushed = copy_recording(store, target, rec)
            assert target.steps(pushed.target_id)[0].widget == WIDGET


def test_a_damaged_widget_reads_as_none(db):
    with open_store(db) as store:
        rec = store.create_recording("aimed", source="recorder")
        store.add_steps(rec, widget_steps())
    for damage in ('{"source": "atspi"}', "[1, 2", '{"box": "abc"}', "null"):
        sql(f"sqlite:///{db}", f"update actions set widget = '{damage}' where step = 1")
        with open_store(db, create=False) as store:
            assert store.steps(rec)[0].widget is None, damage


def test_version_4_store_is_migrated_and_its_steps_have_no_widget(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("old", source="recorder")
        store.add_steps(rec, make_steps())
    rewind_to_version_4(store_url)
    with open_store(store_url) as store:
        assert store.schema_version() == SCHEMA_VERSION == 8
        assert store.steps(rec) == make_steps()
        new = store.create_recording("new", source="recorder")
        store.add_steps(new, widget_steps())
        assert store.steps(new) == widget_steps()
    assert (
        sql(store_url, "select version_num from alembic_version", scalar=True)
        == f"{SCHEMA_VERSION:04d}"
    )


def test_version_5_store_is_migrated_and_takes_instructions_and_notes(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("old", source="recorder")
        store.add_steps(rec, make_steps())
    rewind_to_version_5(store_url)
    with open_store(store_url) as store:
        assert store.schema_version() == SCHEMA_VERSION == 8
        assert store.recording(rec).instruction is None
        assert store.steps(rec) == make_steps()
        noted = [replace(st, note=f"why {st.step}") for st in make_steps()]
        new = store.create_recording("new", source="recorder", instruction="Save the file")
        store.add_steps(new, noted)
        assert store.recording(new).instruction == "Save the file"
        assert store.steps(new) == noted


def test_version_6_store_is_migrated_and_its_steps_do_not_know_if_they_settled(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("old", source="recorder")
        store.add_steps(rec, [replace(st, after_settled=True) for st in make_steps()])
    rewind_to_version_6(store_url)
    with open_store(store_url) as store:
        assert store.schema_version() == SCHEMA_VERSION == 8
        assert store.steps(rec) == make_steps()  # after_settled None: not known
        told = [replace(st, after_settled=st.step % 2 == 0) for st in make_steps()]
        new = store.create_recording("new", source="recorder")
        store.add_steps(new, told)
        assert store.steps(new) == told


def test_version_7_store_is_migrated_and_its_steps_told_nothing(store_url):
    from deskreel.storage.told import StepTold, Told, ToldObject

    label = ToldObject(
        (0, 3), "label", "", (52, 161, 211, 17), text="Mail server applied", length=19
    )
    said = StepTold(
        Told((40, 40, 235, 150), (replace(label, text="", length=0),)),
        Told((40, 40, 235, 150), (label,)),
    )
    with open_store(store_url) as store:
        rec = store.create_recording("old", source="recorder")
        store.add_steps(rec, [replace(st, told=said) for st in make_steps()])
        assert store.steps(rec) == [replace(st, told=said) for st in make_steps()]
    rewind_to_version_7(store_url)
    with open_store(store_url) as store:
        assert store.schema_version() == SCHEMA_VERSION == 8
        assert store.steps(rec) == make_steps()  # told None: not known
        new = store.create_recording("new", source="recorder")
        store.add_steps(new, [replace(st, told=said) for st in make_steps()])
        assert store.steps(new) == [replace(st, told=said) for st in make_steps()]


def test_an_older_store_is_read_unchanged_and_upgraded_only_to_write(store_url):
    with open_store(store_url) as store:
        rec = store.create_recording("old", source="recorder")
        store.add_steps(rec, make_steps())
    rewind_to_version_5(store_url)
    if store_url.startswith("postgresql"):  # no private copy of a server: refused, unchanged
        with pytest.raises(StorageError, match=r"schema version 5, older than this deskreel's"):
            open_store(store_url, readonly=True)
    else:
        with open_store(store_url, readonly=True) as store:
            assert (store.older_schema, store.upgrade) == (5, None)
            assert store.steps(rec) == make_steps()
    version = "select value from deskreel_meta where key = 'schema_version'"
    assert sql(store_url, version, scalar=True) == "5"
    with open_store(store_url) as store:
        upgrade = store.upgrade
        assert upgrade is not None and (upgrade.old, upgrade.new) == (5, SCHEMA_VERSION)
        assert store.steps(rec) == make_steps()
    if store_url.startswith("postgresql"):
        assert upgrade.backup is None  # deskreel keeps no copy of a server's database
    else:
        assert upgrade.backup is not None and upgrade.backup.name.endswith(".schema5.bak")
    assert sql(store_url, version, scalar=True) == str(SCHEMA_VERSION)

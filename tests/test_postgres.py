"""PostgreSQL as the shared store: connection failures, credentials kept out of sight,
an interrupted push, eight writers at once, and a real `deskreel record` into a server.

The tests that need a server take it from $DESKREEL_TEST_PG (see tests/pg.py) and are
skipped, with the reason, without it.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from deskreel.storage.schema import SCHEMA_VERSION
from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from deskreel.cli import database_failure, run
from deskreel.storage import Action, Step, open_store
from deskreel.storage import schema as s
from deskreel.storage.engine import connect_failure
from tests.fleet_writer import schema_version_of, write_like_a_recorder
from samples.person import Person
from tests.pg import pg_label

SECRET = "s3cr3t-Pw"
PUSH = [sys.executable, "-c", "from deskreel.cli import main; main()", "push"]


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nobody listens there once the socket is closed


def with_password(url: str, password: str) -> str:
    return make_url(url).set(password=password).render_as_string(hide_password=False)


def assert_one_clean_line(err: str, *expected: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert SECRET not in err, err
    for part in expected:
        assert part in err, err


# -- no server needed ----------------------------------------------------------------------


@pytest.mark.parametrize("command", ["list", "show", "push-to", "pull-from"])
def test_a_refused_connection_is_one_line_without_the_password(command, tmp_path, capsys):
    port = closed_port()
    url = f"postgresql://deskreel:{SECRET}@127.0.0.1:{port}/deskreel"
    args = {
        "list": ["list", url],
        "show": ["show", url],
        "push-to": ["push", tmp_path / "local.db", url],
        "pull-from": ["pull", url, tmp_path / "local.db", "-r", "1"],
    }[command]
    if command == "push-to":
        deskreel("import", "samples/scripts/every-action.json", tmp_path / "local.db")
        capsys.readouterr()
    assert deskreel(*args) == 2
    assert_one_clean_line(
        capsys.readouterr().err,
        f"cannot connect to PostgreSQL at 127.0.0.1:{port}/deskreel: "
        f"connection refused: check that the server runs and the URL is right",
    )


def test_record_into_an_unreachable_server_fails_in_one_line(xvfb, capsys):
    # The display is checked first (a missing one must not leave an empty database behind);
    # on a good display the server's failure is what the person reads.
    port = closed_port()
    url = f"postgresql://deskreel:{SECRET}@127.0.0.1:{port}/fleet"
    assert deskreel("record", url, "--display", xvfb.display) == 2
    assert_one_clean_line(capsys.readouterr().err, f"127.0.0.1:{port}/fleet: connection refused")


def test_unusable_urls_say_how_to_write_one(capsys):
    assert deskreel("list", f"postgresql://deskreel:{SECRET}@127.0.0.1:port/db") == 2
    assert_one_clean_line(
        capsys.readouterr().err, "cannot be parsed", "postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
    )
    assert deskreel("list", f"mysql://deskreel:{SECRET}@127.0.0.1/db") == 2
    assert_one_clean_line(
        capsys.readouterr().err,
        "mysql://deskreel:***@127.0.0.1/db",
        "SQLite files and in PostgreSQL",
    )
    assert (
        deskreel(
            "list",
            f"mysql://deskreel@127.0.0.1/db?sslpassword={SECRET}&password={SECRET}&sslmode=require",
        )
        == 2
    )
    assert_one_clean_line(
        capsys.readouterr().err,
        "mysql://deskreel@127.0.0.1/db?",
        "?password=***&",
        "&sslpassword=***",
        "sslmode=require",
    )


def test_a_server_message_never_repeats_a_password_from_the_query():
    url = make_url(f"postgresql://deskreel:pw-1@db.example:5433/fleet?password={SECRET}")
    err = DBAPIError("connect", {}, Exception(f"connection failed: odd reply to {SECRET} and pw-1"))
    assert connect_failure(url, err) == (
        "cannot connect to PostgreSQL at db.example:5433/"
        "fleet: odd reply to *** and ***: check that the "
        "server runs and the URL is right"
    )


# -- a real server -------------------------------------------------------------------------


def test_a_wrong_password_names_the_user_not_the_password(pg_url, capsys):
    assert deskreel("list", with_password(pg_url, SECRET)) == 2
    user = make_url(pg_url).username
    assert_one_clean_line(
        capsys.readouterr().err,
        f"cannot connect to PostgreSQL at {pg_label(pg_url)}: authentication "
        f"failed for user {user!r}: check the user and the password",
    )


def test_a_missing_database_says_how_to_create_it(pg_url, capsys):
    url = make_url(pg_url).set(database="deskreel_nowhere")
    assert deskreel("list", url.render_as_string(hide_password=False)) == 2
    assert_one_clean_line(
        capsys.readouterr().err,
        "database 'deskreel_nowhere' does not exist",
        "createdb deskreel_nowhere",
    )


def test_a_foreign_database_is_refused(pg_url, capsys):
    with open_store(pg_url) as store, store.engine.begin() as conn:
        conn.execute(text("drop table deskreel_meta"))
    assert deskreel("list", pg_url) == 2
    assert_one_clean_line(
        capsys.readouterr().err, "not a deskreel database", "empty database (createdb deskreel)"
    )


def test_the_password_stays_out_of_messages_and_the_database(pg_url, tmp_path, capsys):
    password = make_url(pg_url).password
    local = tmp_path / "local.db"
    assert deskreel("import", "samples/scripts/every-action.json", local) == 0
    assert deskreel("push", local, pg_url) == 0
    assert deskreel("list", pg_url) == 0
    assert deskreel("pull", pg_url, tmp_path / "back.db", "-r", "1") == 0
    out = capsys.readouterr()
    assert f"to {make_url(pg_url).render_as_string()} as recording 1" in out.err
    with open_store(pg_url) as store, store.engine.connect() as conn:
        stored = repr([conn.execute(select(t)).all() for t in s.metadata.sorted_tables])
    assert "postgresql" not in stored
    if password:  # a server that trusts loopback has none to leak
        assert ":***@" in out.err
        assert f":{password}@" not in out.out + out.err + stored


def test_a_password_given_as_a_query_parameter_is_hidden_too(pg_url, tmp_path, capsys):
    url = make_url(pg_url)
    password = url.password or SECRET  # a server that trusts loopback takes any
    in_query = url.set(password=None).update_query_dict({"password": password})
    given = in_query.render_as_string(hide_password=False)
    shown = f"{url.set(password=None).render_as_string()}?password=***"
    local = tmp_path / "local.db"
    assert deskreel("import", "samples/scripts/every-action.json", local) == 0
    assert deskreel("push", local, given) == 0
    assert deskreel("doctor", given) == 0
    out = capsys.readouterr()
    assert f"to {shown} as recording 1" in out.err
    assert f"{shown}: healthy" in out.out
    assert f"password={password}" not in out.out + out.err
    if url.password:
        wrong = in_query.update_query_dict({"password": SECRET})
        assert deskreel("list", wrong.render_as_string(hide_password=False)) == 2
        assert_one_clean_line(capsys.readouterr().err, "authentication failed")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_readonly_store_opened_by_url_cannot_write(backend, tmp_path, request):
    url = (
        f"sqlite:///{tmp_path / 'ro.db'}"
        if backend == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    with open_store(url) as store:
        kept = store.create_recording("kept", source="script")
    with open_store(url, readonly=True) as store:
        assert store.readonly and [r.name for r in store.recordings()] == ["kept"]
        with pytest.raises(DBAPIError) as caught:
            store.create_recording("new", source="script")
        with pytest.raises(DBAPIError), store.engine.begin() as conn:
            conn.execute(s.recordings.delete())
    message = database_failure(caught.value)
    assert message.startswith("database error: ") and "\n" not in message
    assert ("read-only transaction" if backend == "postgresql" else "readonly") in message
    with open_store(url) as store:
        assert store.recording_ids() == [kept]


def test_many_stores_open_a_new_database_at_once(pg_url):
    """Schema set-up happens once, under an advisory lock, however many open it together."""
    ctx = multiprocessing.get_context("spawn")
    start = time.time() + 2.0  # after the spawned interpreters have imported everything
    with ctx.Pool(4) as pool:
        versions = pool.starmap(schema_version_of, [(pg_url, start)] * 4)
    assert versions == [SCHEMA_VERSION] * 4


def test_eight_recorders_write_into_one_database_at_once(pg_url):
    ctx = multiprocessing.get_context("spawn")
    start = time.time() + 2.0  # after the spawned interpreters have imported everything
    jobs = [(pg_url, f"machine-{i}") for i in range(8)]
    write = functools.partial(write_like_a_recorder, seconds=3.0, start_at=start)
    with ctx.Pool(8) as pool:
        written = pool.starmap(write, jobs)
    with open_store(pg_url) as store:
        recs = store.recordings()
        assert sorted(r.name for r in recs) == sorted(name for _, name in jobs)
        assert len({r.uid for r in recs}) == len({r.id for r in recs}) == 8
        for w in written:
            assert w.events >= 500 and w.steps >= 5, w  # each writer got its share
            events = store.events(w.recording_id)
            steps = store.steps(w.recording_id)
            assert len(events) == w.events
            assert [st.step for st in steps] == list(range(1, w.steps + 1))
            assert all(st.anchor is not None for st in steps)
            assert steps[-1].events == (w.events - 100, w.events - 1)
            for st in steps[:: max(1, len(steps) // 10)]:
                assert len(store.frame(st.before_frame)[0]) == 20_000
        with store.engine.connect() as conn:
            frames = conn.scalar(select(func.count()).select_from(s.frames))
    own = sum(w.steps for w in written)
    assert frames == own + 4  # every writer's own frames, and the four shared ones once


def test_an_interrupted_push_leaves_nothing_and_the_next_one_copies_once(
    pg_url, pg_server, tmp_path
):
    local = tmp_path / "big.db"
    rec, keys = _big_recording(local)
    database = make_url(pg_url).database
    pusher = subprocess.Popen(
        [*PUSH, local, pg_url], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        _wait_for_frames_in_flight(pg_server.admin, database, pusher)
        pusher.send_signal(signal.SIGKILL)
    finally:
        pusher.wait()
    _wait_for_no_session(pg_server.admin, database)
    with open_store(pg_url) as store, store.engine.connect() as conn:
        assert [
            conn.scalar(select(func.count()).select_from(t))
            for t in (s.recordings, s.frames, s.actions)
        ] == [0, 0, 0]
    done = subprocess.run([*PUSH, local, pg_url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open_store(pg_url) as store, open_store(local) as source:
        [copy] = store.recordings()
        assert copy.name == "big" and copy.steps == 200
        assert store.steps(copy.id) == source.steps(rec)
        assert all(store.frame(k) == source.frame(k) for k in keys)
        with store.engine.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(s.frames)) == 200


def test_a_connection_lost_mid_push_names_the_server(pg_url, pg_server, tmp_path):
    local = tmp_path / "big.db"
    _big_recording(local)
    database = make_url(pg_url).database
    pusher = subprocess.Popen(
        [*PUSH, local, pg_url], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        _wait_for_frames_in_flight(pg_server.admin, database, pusher)
        with pg_server.admin.connect() as conn:  # what a server restart or an admin does
            assert conn.scalar(
                text(
                    "select count(pg_terminate_backend(pid)) from "
                    "pg_stat_activity where datname = :db and "
                    "application_name = 'deskreel'"
                ),
                {"db": database},
            )
        err = pusher.communicate(timeout=60)[1]
    finally:
        pusher.kill()
        pusher.wait()
    assert pusher.returncode == 2, err
    assert err.startswith("deskreel: database error: "), err  # the reason depends on timing
    assert_one_clean_line(
        err, f"the connection to PostgreSQL at {pg_label(pg_url)} failed", "run the command again"
    )
    assert "Traceback" not in err
    if make_url(pg_url).password:
        assert f":{make_url(pg_url).password}@" not in err


def _big_recording(path) -> tuple[int, list[str]]:
    """A local recording of 200 steps with 100 kB frames (20 MB): a push of some seconds."""
    with open_store(path) as store:
        rec = store.create_recording("big", source="recorder", screen=(1280, 800))
        keys = [
            store.put_frame(os.urandom(100_000), width=1280, height=800, fmt="webp")
            for _ in range(200)
        ]
        store.add_steps(
            rec,
            [
                Step(
                    step=i + 1,
                    action=Action(action="left_click", coordinate=(i, i)),
                    t_start=i,
                    t_end=i + 0.1,
                    before_frame=k,
                    after_frame=k,
                )
                for i, k in enumerate(keys)
            ],
        )
    return rec, keys


def test_two_machines_pushing_the_same_recording_at_once_make_one_copy(pg_url, tmp_path):
    local = tmp_path / "local.db"
    with open_store(local) as store:
        rec = store.create_recording("shared", source="recorder")
        keys = [
            store.put_frame(os.urandom(50_000), width=8, height=8, fmt="webp") for _ in range(40)
        ]
        store.add_steps(
            rec,
            [
                Step(
                    step=i + 1,
                    action=Action(action="left_click", coordinate=(i, i)),
                    before_frame=k,
                    after_frame=k,
                )
                for i, k in enumerate(keys)
            ],
        )
    open_store(pg_url).close()  # the schema exists: both pushes race on the recording only
    pushers = [
        subprocess.Popen(
            [*PUSH, local, pg_url], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    errs = [p.communicate(timeout=120)[1] for p in pushers]
    assert [p.returncode for p in pushers] == [0, 0], errs
    assert sum("nothing to do" in err for err in errs) == 1, errs
    with open_store(pg_url) as store, store.engine.connect() as conn:
        assert [
            conn.scalar(select(func.count()).select_from(t))
            for t in (s.recordings, s.frames, s.actions)
        ] == [1, 40, 40]


def _wait_for_frames_in_flight(admin, database: str, pusher: subprocess.Popen) -> None:
    """Until the pusher's transaction is sending frames (it has written, and not committed)."""
    query = text(
        "select count(*) from pg_stat_activity where datname = :db and "
        "application_name = 'deskreel' and backend_xid is not null and "
        "query ilike 'insert into frames%'"
    )
    deadline = time.monotonic() + 60
    with admin.connect() as conn:
        while not conn.scalar(query, {"db": database}):
            if pusher.poll() is not None:
                pytest.fail(
                    f"the push ended ({pusher.returncode}) before it could be "
                    f"interrupted: {pusher.stderr.read().decode() if pusher.stderr else ''}"
                )
            assert time.monotonic() < deadline, "the push never started sending frames"
            time.sleep(0.005)


def _wait_for_no_session(admin, database: str) -> None:
    query = text(
        "select count(*) from pg_stat_activity where datname = :db and "
        "application_name = 'deskreel'"
    )
    deadline = time.monotonic() + 30
    with admin.connect() as conn:
        while conn.scalar(query, {"db": database}):
            assert time.monotonic() < deadline, "the killed push's session never ended"
            time.sleep(0.05)


def test_record_straight_into_postgresql(pg_url, launch_app, run_deskreel, xvfb):
    app = launch_app()
    recorder = run_deskreel("record", pg_url, "--name", "fleet")
    recorder.wait_for_output("recording into")
    person = Person(xvfb.display)
    try:
        person.click(*app.center("button:Save"))
        person.click(*app.center("entry"))
        person.type("fleet")
    finally:
        person.close()
    recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr
    password = make_url(pg_url).password
    if password:  # a server that trusts loopback has none to leak
        assert f":{password}@" not in recorder.stderr
    assert f"Recorded 'fleet' (recording 1) into {make_url(pg_url).render_as_string()}" in (
        recorder.stderr
    )
    with open_store(pg_url) as store:
        rec = store.recording("fleet")
        steps = store.steps(rec.id)
        assert [st.action.to_json() for st in steps] == [
            {"action": "left_click", "coordinate": list(app.center("button:Save"))},
            {"action": "left_click", "coordinate": list(app.center("entry"))},
            {"action": "type", "text": "fleet"},
        ]
        assert steps[0].anchor is not None and rec.screen == (1280, 800)
        data, fmt = store.frame(steps[0].before_frame)
        assert fmt == "webp" and len(data) > 1000
        events = store.events(rec.id)
        assert sum(e.kind == "button_down" for e in events) == 2


def test_a_dropped_connection_says_run_again_not_doctor(pg_url, pg_server):
    with open_store(pg_url) as store, store.engine.connect() as conn:
        pid = conn.scalar(text("select pg_backend_pid()"))
        with pg_server.admin.connect() as admin:
            assert admin.scalar(text(f"select pg_terminate_backend({int(pid)})"))
        with pytest.raises(DBAPIError) as caught:
            conn.execute(text("select 1"))
    message = database_failure(caught.value)
    assert message.startswith("database error: ") and "\n" not in message
    assert f"the connection to PostgreSQL at {pg_label(pg_url)} failed" in message
    assert "run the command again" in message
    assert "doctor" not in message

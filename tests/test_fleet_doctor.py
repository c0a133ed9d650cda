"""`deskreel doctor --repair` next to a recorder that is still writing, on an SQLite file
and on a shared PostgreSQL store: its newest raw events and the frame it has just stored
are left alone (they are not a killed recorder's), unless forced.

The recorder is a real second process that makes the recorder's Store calls: a reduced
chunk, then the raw events of the next chunk and its before-frame, and (when told) the step
that uses them.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from deskreel.cli import run
from deskreel.storage import open_store
from deskreel.storage import schema as s
from tests.pg import raw_engine

RECORDER = """
import sys
from deskreel.storage import Action, RawEvent, Step, open_store

def click(t, x, seq):
    return [RawEvent(t, "button_down", x=x, y=x, button=1),
            RawEvent(t + 0.1, "button_up", x=x, y=x, button=1)]

def step(n, t, x, seq, frame=None):
    return Step(step=n, action=Action(action="left_click", coordinate=(x, x)), t_start=t,
                t_end=t + 0.1, events=(seq, seq + 1), before_frame=frame)

with open_store(sys.argv[1]) as store:
    rec = store.create_recording("live", source="recorder")
    store.add_events(rec, click(0.1, 10, 0), first_seq=0)
    store.add_steps(rec, [step(1, 0.1, 10, 0)])
    store.add_events(rec, click(1.1, 20, 2), first_seq=2)
    key = store.put_frame(b"the screen before step 2", width=1, height=1, fmt="webp")
    print("ready", flush=True)
    sys.stdin.readline()
    store.add_steps(rec, [step(2, 1.1, 20, 2, key)])
    print("done", flush=True)
"""


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


@pytest.fixture
def recorder(store_url):
    """A recorder in the middle of its second step, holding the store open until told."""
    open_store(store_url).close()  # the schema first: the recorder does not race with us
    proc = subprocess.Popen(
        [sys.executable, "-c", RECORDER, store_url],
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout.readline() == "ready\n", proc.stderr.read()
        yield proc
    finally:
        proc.kill()
        proc.wait()


def finish(proc: subprocess.Popen) -> subprocess.CompletedProcess:
    """Let the recorder store its second step and stop; what it said."""
    out, err = proc.communicate("\n", timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def the_frame(store_url: str) -> bytes:
    with open_store(store_url) as store:
        key = store.steps(store.recording("live").id)[-1].before_frame
        assert key is not None
        return store.frame(key)[0]


def test_repair_leaves_a_live_recording_alone(store_url, recorder, capsys):
    assert deskreel("doctor", store_url) == 0
    out = capsys.readouterr().out
    assert "note: recording 1 'live' is still being written (last write" in out
    assert "its 1 key or button presses after its last step may not be reduced yet" in out
    assert (
        "note: 1 frames belong to no step or run yet: not counted while recording 1 "
        "may still be being written" in out
    )
    assert f": healthy (schema {s.SCHEMA_VERSION}, 1 recordings, 1 frames)" in out

    assert deskreel("doctor", store_url, "--repair") == 0
    err = capsys.readouterr().err
    assert "recording 1 'live': left alone: it was written" in err
    assert "so its recorder may still be running; add --force if that recorder was killed" in err
    assert (
        "kept 1 frames that no step or run uses yet, as recording 1 may still be being "
        "written: add --force to delete them anyway" in err
    )
    assert "recovered" not in err and "deleted" not in err

    done = finish(recorder)
    assert done.returncode == 0 and done.stdout == "done\n", done.stderr
    assert the_frame(store_url) == b"the screen before step 2"
    assert deskreel("doctor", store_url) == 0
    out = capsys.readouterr().out
    assert "note:" not in out and "healthy" in out


def test_force_repairs_what_may_still_be_written(store_url, recorder, capsys):
    assert deskreel("doctor", store_url, "--repair", "--force") == 0
    err = capsys.readouterr().err
    assert "recording 1 'live': 1 steps recovered from its raw events" in err
    assert "deleted 1 orphaned frames and 0 orphaned anchors" in err
    with open_store(store_url) as store:
        steps = store.steps(store.recording("live").id)
    assert [(st.step, st.events, st.before_frame) for st in steps] == [
        (1, (0, 1), None),
        (2, (2, 3), None),
    ]
    assert finish(recorder).returncode != 0  # that recorder's step 2 is taken now


def test_an_old_recording_is_repaired_while_another_program_has_the_store_open(
    store_url, recorder, capsys
):
    engine = raw_engine(store_url)  # as if its recorder had been killed an hour ago
    try:
        with engine.begin() as conn:
            conn.execute(
                s.recordings.update().values(created=datetime.now(UTC) - timedelta(hours=1))
            )
    finally:
        engine.dispose()
    assert deskreel("doctor", store_url) == 1
    out = capsys.readouterr().out
    assert "recording 1 'live' has 1 key or button presses after its last step" in out
    assert "1 frames belong to no step or run\n" in out and "note:" not in out
    assert deskreel("doctor", store_url, "--repair") == 0
    err = capsys.readouterr().err
    assert "1 steps recovered" in err and "deleted 1 orphaned frames" in err


def test_force_goes_with_repair(tmp_path, capsys):
    assert deskreel("doctor", tmp_path / "rec.db", "--force") == 2
    assert "--force only changes what --repair does: give both" in capsys.readouterr().err

"""Issue 21: a Wayland session's Xwayland shows deskreel only X clients' windows, so record,
replay and doctor refuse it in one line, and `record --force` says so in the recording. The
Xwayland here is real: a headless Weston compositor's."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.commands import deskreel, imported
from tests.wayland import wayland_session


@pytest.fixture
def xwayland(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of a headless Wayland session whose Xwayland is $DISPLAY."""
    yield from wayland_session(tmp_path)


def test_record_replay_and_doctor_refuse_xwayland(xwayland: dict[str, str], tmp_path: Path):
    db = tmp_path / "r.db"
    script = imported(tmp_path, "script", [{"action": "left_click", "coordinate": [5, 5]}])
    for args in (("doctor",), ("record", db), ("replay", script)):
        done = deskreel(*args, env=xwayland, timeout=60)
        assert done.returncode == 2, (args, done.stderr)
        assert "is Xwayland" in done.stderr and "--nested -- COMMAND" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert not db.exists()


def test_record_force_records_and_says_so(xwayland: dict[str, str], tmp_path: Path):
    db = tmp_path / "r.db"
    recorder = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "record", db, "--force", "--no-frames"],
        env=xwayland,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert recorder.stderr is not None
    said = recorder.stderr.readline()
    assert "recording into" in said, said + recorder.stderr.read()
    recorder.send_signal(signal.SIGINT)
    assert recorder.wait(30) == 0, recorder.stderr.read()
    with sqlite3.connect(db) as conn:
        (extra,) = conn.execute("SELECT extra FROM recordings").fetchone()
    conn.close()
    assert "Xwayland" in json.loads(extra)["xwayland"]


def test_a_plain_x_server_is_not_xwayland(xvfb) -> None:
    from deskreel.xsession.display import connect, xwayland

    conn = connect(xvfb.display)
    try:
        assert not xwayland(conn)
    finally:
        conn.close()

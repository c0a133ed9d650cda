"""Issue 34: a Wayland user records and replays in a nested X server. `record --nested` and
`replay --nested` start Xephyr as a window of a real Wayland session's Xwayland (a headless
Weston), run the application inside it, and record or replay there.

The person's input is given to the Xephyr display by XTEST. That is what Xephyr itself does
with the input its window gets from the desktop; here there is no seat to give it (and a
headless Weston's Xwayland dies on XTEST)."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.commands import deskreel, imported
from tests.conftest import SAMPLE_APP
from tests.wayland import wayland_session

pytestmark = pytest.mark.skipif(
    shutil.which("Xephyr") is None, reason="no Xephyr: make deps installs it"
)

SIZE = (800, 600)
CLICK = [{"action": "left_click", "coordinate": [5, 5]}]
# The application, behind a shell that tells the test what the nested display gives it
# (its display, its cookie file, the pid), as the application itself would see them.
TELL = 'printf "%s\\n%s\\n%s\\n" "$$" "$DISPLAY" "$XAUTHORITY" > "$0"; exec "$@"'


@pytest.fixture
def wayland(tmp_path: Path) -> Iterator[dict[str, str]]:
    yield from wayland_session(tmp_path)


def _command(told: Path, log: Path) -> list[str]:
    return ["sh", "-c", TELL, str(told), sys.executable, str(SAMPLE_APP), "--log", str(log)]


def _told(path: Path, timeout: float = 30.0) -> tuple[int, dict[str, str]]:
    """The application's pid and the environment that reaches the nested display."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and len(path.read_text().splitlines()) == 3):
        assert time.monotonic() < deadline, "the application never started"
        time.sleep(0.05)
    pid, display, xauthority = path.read_text().splitlines()
    return int(pid), {"DISPLAY": display, "XAUTHORITY": xauthority}


def _events(log: Path, timeout: float = 30.0) -> list[dict]:
    """The sample app's events after "ready" (waiting for it), without their times."""
    deadline = time.monotonic() + timeout
    while not (log.exists() and log.read_text().endswith("\n")):
        assert time.monotonic() < deadline, "the sample app never got ready"
        time.sleep(0.05)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    return [{k: v for k, v in e.items() if k != "t"} for e in events]


def _wait_for(log: Path, kind: str, count: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while sum(e["event"] == kind for e in _events(log)) < count:
        assert time.monotonic() < deadline, (kind, _events(log))
        time.sleep(0.05)


def _center(box: list[int]) -> list[int]:
    x, y, w, h = box
    return [x + w // 2, y + h // 2]


def test_record_and_replay_nested_in_a_wayland_session(wayland, tmp_path: Path):
    db, told, log = tmp_path / "n.db", tmp_path / "told", tmp_path / "app.jsonl"
    size = f"{SIZE[0]}x{SIZE[1]}"
    recorder = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "record", db, "--nested", "--size", size, "--",
         *_command(told, log)],
        env=wayland, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert recorder.stderr is not None
    try:
        said = [recorder.stderr.readline() for _ in range(2)]
        # the application shows its window first, then the recording starts
        assert "runs in Xephyr" in said[0] and "recording into" in said[1], said
        pid, nested = _told(told)
        widgets = _events(log)[0]["widgets"]
        # a window of the Wayland session's Xwayland, named after the program
        tree = subprocess.run(
            ["xwininfo", "-root", "-tree"], env=wayland, capture_output=True, text=True
        ).stdout
        assert '"deskreel: sh"' in tree and f"{size}+" in tree, tree

        def person(*args: str) -> None:
            subprocess.run(["xdotool", *args], env={**wayland, **nested}, check=True)

        person("mousemove", *map(str, _center(widgets["button:Save"])), "click", "1")
        _wait_for(log, "click", 1)
        person("mousemove", *map(str, _center(widgets["entry"])), "click", "1")
        _wait_for(log, "button_release", 2)
        person("type", "--delay", "80", "hello")
        _wait_for(log, "text_changed", 5)
        time.sleep(1.5)  # the person looks at what was typed (the step's after-frame)
        subprocess.run(["kill", "-TERM", str(pid)], check=True)  # the person closes it
        err = "".join(said) + recorder.communicate(timeout=60)[1]
    finally:
        if recorder.poll() is None:
            recorder.kill()
    assert recorder.returncode == 0, err
    assert re.search(r"runs in Xephyr :\d+ \(800x600\), a window of the display :\d+", err), err
    assert "Ended by sh exited (code" in err, err
    with sqlite3.connect(db) as conn:
        extra, width, height = conn.execute(
            "SELECT extra, screen_width, screen_height FROM recordings"
        ).fetchone()
        actions = [json.loads(body) for (body,) in conn.execute("SELECT body FROM actions")]
    conn.close()
    assert json.loads(extra)["nested"] == {"server": "Xephyr", "size": list(SIZE), "program": "sh"}
    assert (width, height) == SIZE
    shown = deskreel("show", db)
    assert "nested: Xephyr 800x600, running sh" in shown.stdout, shown.stdout
    assert actions == [
        {"action": "left_click", "coordinate": _center(widgets["button:Save"])},
        {"action": "left_click", "coordinate": _center(widgets["entry"])},
        {"action": "type", "text": "hello"},
    ]

    # replayed nested, with a fresh application: the same events reach it, verified
    again, log2 = tmp_path / "told2", tmp_path / "app2.jsonl"
    done = deskreel("replay", db, "--verify", "--nested", "--", *_command(again, log2), env=wayland)
    assert done.returncode == 0, done.stderr
    assert "replay passed" in done.stderr
    assert _events(log2)[1:] == _events(log)[1:]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--", "ls"), "a command after -- only applies with --nested"),
        (("--size", "800x600"), "--size only applies with --nested"),
        (("--nested",), "--nested needs the application to run in it"),
        (("--nested", "--", "no-such-program-of-deskreel"), "no such program on $PATH"),
    ],
)
def test_nested_usage_is_refused_before_anything(tmp_path: Path, args, said):
    db = tmp_path / "r.db"
    for command in (("record", db), ("replay", db)):
        done = deskreel(*command, *args, env={"PATH": "/usr/bin:/bin"})
        assert done.returncode == 2, done.stderr
        assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not db.exists()


# What a nested session must leave behind when it ends badly: nothing.


def _xephyrs() -> set[int]:
    found = subprocess.run(["pgrep", "-x", "Xephyr"], capture_output=True, text=True).stdout
    return {int(pid) for pid in found.split()}


def _folders() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("deskreel-nested-*")) | set(
        Path(tempfile.gettempdir()).glob("deskreel-xauth-*")
    )


@pytest.fixture
def leaves_nothing() -> Iterator[None]:
    servers, folders = _xephyrs(), _folders()
    yield
    assert _xephyrs() <= servers and _folders() <= folders


def test_an_application_that_ends_before_its_window_is_refused(
    xvfb, tmp_path: Path, leaves_nothing
):
    db = tmp_path / "r.db"
    for args in (("record", db), ("replay", imported(tmp_path, "s", CLICK))):
        done = deskreel(*args, "--nested", "--", "false", env=xvfb.env(), timeout=60)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert lines == [
            "deskreel: false exited (code 1) before it showed a window in Xephyr: check "
            "that false runs on its own"
        ], lines
    assert not db.exists()


def test_a_file_that_is_no_database_is_refused_before_xephyr_starts(
    xvfb, tmp_path: Path, leaves_nothing
):
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    told = tmp_path / "told"
    done = deskreel(
        "record", text, "--nested", "--", *_command(told, tmp_path / "a.jsonl"), env=xvfb.env()
    )
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "notes.txt" in done.stderr
    assert not told.exists()  # the application never ran
    assert text.read_text() == "not a database\n"


def test_closing_xephyr_during_a_replay_ends_it_in_one_line(xvfb, tmp_path: Path, leaves_nothing):
    script = imported(tmp_path, "s", [*CLICK, {"action": "wait", "duration": 5}, *CLICK])
    told = tmp_path / "told"
    replay = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "replay", script, "--no-runs", "--nested", "--",
         *_command(told, tmp_path / "app.jsonl")],
        env=xvfb.env(), stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert replay.stderr is not None
    said = replay.stderr.readline()
    shown = re.search(r"runs in Xephyr (:\d+)", said)
    assert shown, said + replay.stderr.read()
    time.sleep(1.0)  # the first click done, the wait under way
    subprocess.run(["pkill", "-f", f"Xephyr {shown.group(1)} "], check=True)
    err = said + replay.communicate(timeout=60)[1]
    assert replay.returncode == 130, err
    assert f"replay aborted: the X display {shown.group(1)} went away" in err
    assert "Traceback" not in err and "Exception" not in err, err


@pytest.mark.parametrize("command", ["record", "replay"])
def test_sigterm_while_the_nested_session_starts_stops_it(
    xvfb, tmp_path: Path, leaves_nothing, command
):
    target = tmp_path / "r.db" if command == "record" else imported(tmp_path, "s", CLICK)
    started = subprocess.Popen(
        [sys.executable, "-m", "deskreel", command, target, "--nested", "--", "sleep", "60"],
        env=xvfb.env(), stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not subprocess.run(["pgrep", "-f", "^sleep 60$"], capture_output=True).stdout:
        assert started.poll() is None and time.monotonic() < deadline  # waits for a window
        time.sleep(0.1)
    started.terminate()
    _, err = started.communicate(timeout=60)
    assert started.returncode == 130, err
    assert "Traceback" not in err, err
    assert not subprocess.run(["pgrep", "-f", "^sleep 60$"], capture_output=True).stdout

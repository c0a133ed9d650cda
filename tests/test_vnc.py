"""Issue 34: the computer-use agents' sandboxes are Xvfb with a VNC server (x11vnc, noVNC). A
person driving such a desktop through VNC is recorded like one at the machine: the same
gestures, given once through xdotool and once through x11vnc by vncdotool's `vncdo` (a VNC
client from PyPI), make the same actions."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from deskreel.xsession.xvfb import VirtualDisplay
from tests.conftest import SampleApp

VNCDO = Path(sys.executable).with_name("vncdo")
pytestmark = pytest.mark.skipif(
    shutil.which("x11vnc") is None or not VNCDO.exists(),
    reason="no x11vnc or vncdo: make deps installs x11vnc, the test extras vncdotool",
)

PAUSE = 0.4  # s between two gestures: below the recorder's idle wait, above a double click
TEXT = "Hi there, World!"

# One demonstration as gestures: (what, *arguments), the points being widget names.
GESTURES: list[tuple[str, ...]] = [
    ("move", "button:Save"), ("click",),
    ("move", "entry"), ("click",), ("type", TEXT), ("key", "ctrl+a"), ("key", "BackSpace"),
    ("move", "listbox"), ("wheel", "5", "2"),
    ("move", "canvas:rect"), ("down",), ("move", "canvas"), ("up",),
]  # fmt: skip


def _xdotool(gesture: tuple[str, ...], place: Callable[[str], list[str]]) -> list[str]:
    what, *args = gesture
    return {
        "move": lambda: ["mousemove", *place(args[0])],
        "click": lambda: ["click", "1"],
        "wheel": lambda: ["click", "--repeat", args[1], "--delay", "100", args[0]],
        "down": lambda: ["mousedown", "1"],
        "up": lambda: ["mouseup", "1"],
        "type": lambda: ["type", "--delay", "40", args[0]],
        "key": lambda: ["key", args[0]],
    }[what]()


def _vncdo(gesture: tuple[str, ...], place: Callable[[str], list[str]]) -> list[str]:
    what, *args = gesture
    keys = {"ctrl+a": "ctrl-a", "BackSpace": "bsp"}  # vncdo's own key names
    return {
        "move": lambda: ["move", *place(args[0])],
        "click": lambda: ["click", "1"],
        "wheel": lambda: ["pause", "0.1", "click", args[0]] * int(args[1]),
        "down": lambda: ["mousedown", "1"],
        "up": lambda: ["mouseup", "1"],
        "type": lambda: ["type", args[0]],
        "key": lambda: ["key", keys[args[0]]],
    }[what]() + ["pause", str(PAUSE)]


@pytest.fixture
def vnc_port(xvfb: VirtualDisplay, tmp_path: Path) -> Iterator[int]:
    """x11vnc serving the test display on a free local port, without a password (a
    sandbox's own set-up)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "x11vnc.log"
    server = subprocess.Popen(
        ["x11vnc", "-display", xvfb.display, "-rfbport", str(port), "-localhost", "-nopw",
         "-forever", "-shared", "-o", str(log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while True:
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(10)


def _recorded(xvfb: VirtualDisplay, db: Path, drive: Callable[[], object]) -> list[dict]:
    """The actions `deskreel record` makes of what `drive` does."""
    recorder = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "record", db, "--no-frames"],
        env=xvfb.env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    assert recorder.stderr is not None
    said = recorder.stderr.readline()
    assert "recording into" in said, said + recorder.stderr.read()
    try:
        drive()
    finally:
        recorder.send_signal(signal.SIGINT)
        _, err = recorder.communicate(timeout=60)
    assert recorder.returncode == 0, err
    with sqlite3.connect(db) as conn:
        bodies = conn.execute("SELECT body FROM actions ORDER BY step").fetchall()
    conn.close()
    return [json.loads(body) for (body,) in bodies]


def test_a_person_through_vnc_is_recorded_like_one_at_the_machine(
    xvfb: VirtualDisplay, launch_app: Callable[..., SampleApp], vnc_port: int, tmp_path: Path
):
    def place_on(app: SampleApp) -> Callable[[str], list[str]]:
        return lambda widget: [str(v) for v in app.center(widget)]

    local_app = launch_app(title="local")
    local_place = place_on(local_app)

    def by_xdotool() -> None:  # one call per gesture: `type` takes every word after it
        for gesture in GESTURES:
            subprocess.run(["xdotool", *_xdotool(gesture, local_place)], env=xvfb.env(), check=True)
            time.sleep(PAUSE)

    local = _recorded(xvfb, tmp_path / "local.db", by_xdotool)
    local_app.stop()

    vnc_app = launch_app(title="through VNC")
    vnc_place = place_on(vnc_app)
    through_vnc = _recorded(
        xvfb,
        tmp_path / "vnc.db",
        lambda: subprocess.run(
            [
                str(VNCDO),
                "-s",
                f"127.0.0.1::{vnc_port}",
                *[a for g in GESTURES for a in _vncdo(g, vnc_place)],
            ],
            check=True,
            timeout=120,
        ),  # fmt: skip
    )
    kinds = [a["action"] for a in local]
    assert kinds == [
        "left_click", "left_click", "type", "key", "key", "scroll", "left_click_drag"
    ], local  # fmt: skip
    assert {"action": "type", "text": TEXT} in local
    assert local[5]["scroll_amount"] == 2
    assert through_vnc == local

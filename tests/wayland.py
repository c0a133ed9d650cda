"""A headless Wayland session for the tests: Weston with its Xwayland, the way a GNOME or KDE
Wayland desktop runs X applications."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

HAS_WESTON = bool(shutil.which("weston") and shutil.which("Xwayland"))
START_TIMEOUT = 20.0  # s for Weston to start and its Xwayland to listen


def wayland_session(folder: Path) -> Iterator[dict[str, str]]:
    """The environment of a headless Wayland session whose Xwayland is $DISPLAY (skips the
    test where Weston is missing); Weston and its Xwayland end afterwards."""
    if not HAS_WESTON:
        pytest.skip("no weston and Xwayland: make deps installs them")
    runtime = folder / "xdg"
    runtime.mkdir(mode=0o700)
    log = folder / "weston.log"
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    socket = f"deskreel-test-{os.getpid()}"
    with log.open("wb") as out:
        weston = subprocess.Popen(
            ["weston", "--backend=headless-backend.so", f"--socket={socket}", "--xwayland"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not (found := re.search(rb"xserver listening on display (:\d+)", log.read_bytes())):
            assert weston.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield {**env, "DISPLAY": found.group(1).decode(), "WAYLAND_DISPLAY": socket}
    finally:
        os.killpg(weston.pid, signal.SIGTERM)
        weston.wait(10)

"""A private X session for real applications: Xvfb, a D-Bus session bus and the AT-SPI
registry on it, so that GTK, Qt, LibreOffice and Chromium publish their accessibility trees;
applications started in it, in their own process groups, and stopped with everything they
started."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from xsession.grab import Grabber
from xsession.xvfb import VirtualDisplay

__all__ = ["SCREEN", "Desktop", "settled"]

SCREEN = (1920, 1080)
BUS_LAUNCHER = "/usr/libexec/at-spi-bus-launcher"


class Desktop:
    """Xvfb at SCREEN with D-Bus and AT-SPI; `env` is what applications started in it get."""

    def __init__(self, *, logs: Path) -> None:
        self.logs = logs
        self.display = VirtualDisplay(width=SCREEN[0], height=SCREEN[1])
        self._bus: subprocess.Popen[bytes] | None = None
        self._launcher: subprocess.Popen[bytes] | None = None
        self._apps: list[subprocess.Popen[bytes]] = []
        self.env: dict[str, str] = {}

    def __enter__(self) -> Self:
        self.display.start()
        self.logs.mkdir(parents=True, exist_ok=True)
        self._bus = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert self._bus.stdout is not None
        address = self._bus.stdout.readline().decode().strip()
        self.env = {
            **os.environ,
            "DISPLAY": self.display.display,
            "DBUS_SESSION_BUS_ADDRESS": address,
            "NO_AT_BRIDGE": "0",
            "GTK_A11Y": "atspi",
            "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
            "QT_ACCESSIBILITY": "1",
            "LANG": "C.UTF-8",
            "HOME": str(self.logs / "home"),
            "XDG_CONFIG_HOME": str(self.logs / "home" / ".config"),
            "XDG_RUNTIME_DIR": str(self.logs / "run"),
        }
        for folder in ("home/.config", "run"):
            (self.logs / folder).mkdir(parents=True, exist_ok=True, mode=0o700)
        self._launcher = subprocess.Popen(
            [BUS_LAUNCHER, "--launch-immediately"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(0.5)  # the a11y bus registers on the session bus
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop_apps()
        for proc in (self._launcher, self._bus):
            if proc is not None:
                _stop(proc)
        self.display.stop()

    def launch(
        self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, name: str = "app"
    ) -> subprocess.Popen[bytes]:
        """Start an application in its own process group; its output goes to the logs."""
        log: IO[bytes] = (self.logs / f"{name}.log").open("ab")
        proc = subprocess.Popen(
            list(argv),
            env={**self.env, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd=self.logs,
        )
        self._apps.append(proc)
        return proc

    def stop_apps(self) -> None:
        """Stop every application started, and whatever each started."""
        for proc in self._apps:
            _stop(proc)
        self._apps.clear()

    def xdotool(self, *args: str) -> str:
        """Run xdotool in this session; its output."""
        done = subprocess.run(
            ["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=30
        )
        return done.stdout

    def grabber(self) -> Grabber:
        return Grabber(self.display.display)


def settled(grabber: Grabber, *, pause: float = 0.15, tries: int = 60) -> Any:
    """The screen once two grabs `pause` apart are the same (or after `tries` grabs)."""
    import numpy as np

    last = grabber.rgb()
    for _ in range(tries):
        time.sleep(pause)
        now = grabber.rgb()
        if np.array_equal(now, last):
            return now
        last = now
    return last


def _stop(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()

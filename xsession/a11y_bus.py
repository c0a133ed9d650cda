"""A private D-Bus session and accessibility bus for a display (an Xvfb of tests, the
benchmark or a CI run): dbus-daemon, then at-spi2-core's bus launcher, which names its bus
on the display's root window. Applications started with `env` publish their accessibility
trees there (GTK, Qt, Chromium)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Self

from .groups import stop_group

__all__ = ["BUS_LAUNCHER", "AccessibilityBus", "stop_group"]

BUS_LAUNCHER = "/usr/libexec/at-spi-bus-launcher"  # at-spi2-core's, on Debian


class AccessibilityBus:
    """A session bus and accessibility bus for `display`; `env` is what applications started
    on it get, `home` their home folder (created 0700)."""

    def __init__(self, display: str, *, home: Path):
        self.display, self.home = display, home
        self._procs: list[subprocess.Popen[bytes]] = []
        self.env: dict[str, str] = {}

    @staticmethod
    def available() -> bool:
        return os.access(BUS_LAUNCHER, os.X_OK) and _on_path("dbus-daemon")

    def __enter__(self) -> Self:
        for folder in (self.home / ".config", self.home / "run"):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        bus = self._start(["dbus-daemon", "--session", "--nofork", "--print-address"], pipe=True)
        assert bus.stdout is not None
        address = bus.stdout.readline().decode().strip()  # it prints it at once, or dies
        if not address:
            self.__exit__()
            raise RuntimeError("dbus-daemon printed no address")
        self.env = {
            **os.environ,
            "DISPLAY": self.display,
            "DBUS_SESSION_BUS_ADDRESS": address,
            "NO_AT_BRIDGE": "0",
            "GTK_A11Y": "atspi",
            "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
            "QT_ACCESSIBILITY": "1",
            "LANG": "C.UTF-8",
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_RUNTIME_DIR": str(self.home / "run"),
        }
        try:
            self._start([BUS_LAUNCHER, "--launch-immediately"])
            self._wake_registry()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in reversed(self._procs):
            stop_group(proc)
        self._procs.clear()

    def _start(self, argv: list[str], *, pipe: bool = False) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            argv,
            env=self.env or None,
            stdout=subprocess.PIPE if pipe else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._procs.append(proc)
        return proc

    def _wake_registry(self, timeout: float = 5.0) -> None:
        """Wait for the launcher to name its bus, and start the registry on it: an
        application started before the registry runs never joins it."""
        from .atspi import Accessibility
        from .display import connect

        conn = connect(self.display)
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                tree = Accessibility.open(conn)
                if tree is not None:
                    tree.close()
                    return
                time.sleep(0.1)
            raise RuntimeError(f"no accessibility bus on {self.display} after {timeout:g} s")
        finally:
            conn.close()


def _on_path(name: str) -> bool:
    return any(os.access(Path(p) / name, os.X_OK) for p in os.environ.get("PATH", "").split(":"))

"""A private X session for real applications: Xvfb, a D-Bus session bus and the AT-SPI
registry on it, so that GTK, Qt, LibreOffice and Chromium publish their accessibility trees;
applications started in it, in their own process groups, and stopped with everything they
started."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from deskreel.xsession.a11y_bus import AccessibilityBus, stop_group
from deskreel.xsession.atspi import Accessibility
from deskreel.xsession.grab import Grabber
from deskreel.xsession.xvfb import VirtualDisplay

__all__ = ["SCREEN", "Desktop", "settled"]

SCREEN = (1920, 1080)


class Desktop:
    """Xvfb at SCREEN with D-Bus and AT-SPI; `env` is what applications started in it get."""

    def __init__(self, *, logs: Path) -> None:
        self.logs = logs
        self.display = VirtualDisplay(width=SCREEN[0], height=SCREEN[1])
        self._buses: AccessibilityBus | None = None
        self._apps: list[subprocess.Popen[bytes]] = []
        self.env: dict[str, str] = {}

    def __enter__(self) -> Self:
        self.display.start()
        self.logs.mkdir(parents=True, exist_ok=True)
        buses = AccessibilityBus(self.display.display, home=self.logs / "home")
        try:
            self.env = buses.__enter__().env
        except BaseException:
            self.display.stop()
            raise
        self._buses = buses
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop_apps()
        if self._buses is not None:
            self._buses.__exit__(exc_type, exc, tb)
        self.display.stop()

    def accessibility(self) -> Accessibility | None:
        """A connection to this session's accessibility bus (None: it has none)."""
        from deskreel.xsession.display import connect

        conn = connect(self.display.display)
        try:
            return Accessibility.open(conn)
        finally:
            conn.close()

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
            stop_group(proc)
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

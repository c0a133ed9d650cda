"""A private X session for real applications: Xvfb, a D-Bus session bus and the AT-SPI
registry on it, so that GTK, Qt, LibreOffice and Chromium publish their accessibility trees
(or, as many desktops are for Qt, a session bus alone); applications started in it, in their
own process groups, and stopped with everything they started."""

from __future__ import annotations

import os
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
# What turns a toolkit's accessibility on: Qt 5 turns its bridge on when the first is set at
# all, even to "0".
ACCESSIBILITY_VARIABLES = ("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "QT_ACCESSIBILITY", "GTK_A11Y")


class Desktop:
    """Xvfb at SCREEN with D-Bus and AT-SPI; `env` is what applications started in it get.

    Without `accessibility`, a session bus alone: no AT-SPI bus is launched, so none is named
    on the root window (Qt 5 turns its bridge on when one is) and no toolkit publishes a tree.
    deskreel then sees pixels and the X window tree only. `twin` is another Desktop, with the
    bus, where the same application runs for its truth (bench/realapps/twin.py)."""

    def __init__(
        self, *, logs: Path, accessibility: bool = True, twin: Desktop | None = None
    ) -> None:
        self.logs = logs
        self.has_accessibility_bus = accessibility
        self.twin = twin
        self.display = VirtualDisplay(width=SCREEN[0], height=SCREEN[1])
        self._buses: AccessibilityBus | None = None
        self._session_bus: subprocess.Popen[bytes] | None = None
        self._apps: list[subprocess.Popen[bytes]] = []
        self.env: dict[str, str] = {}

    def __enter__(self) -> Self:
        self.display.start()
        self.logs.mkdir(parents=True, exist_ok=True)
        try:
            if self.has_accessibility_bus:
                buses = AccessibilityBus(self.display.display, home=self.logs / "home")
                self.env = buses.__enter__().env
                self._buses = buses
            else:
                self.env = self._session_bus_alone()
        except BaseException:
            self.__exit__(None, None, None)
            raise
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
        if self._session_bus is not None:
            stop_group(self._session_bus)
        self.display.stop()

    def _session_bus_alone(self) -> dict[str, str]:
        """Start a D-Bus session bus without the accessibility bus; the applications' env."""
        home = self.logs / "home"
        for folder in (home / ".config", home / "run"):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._session_bus = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert self._session_bus.stdout is not None
        address = self._session_bus.stdout.readline().decode().strip()  # at once, or it died
        if not address:
            raise RuntimeError("dbus-daemon printed no address")
        inherited = {k: v for k, v in os.environ.items() if k not in ACCESSIBILITY_VARIABLES}
        return {
            **inherited,
            "DISPLAY": self.display.display,
            "DBUS_SESSION_BUS_ADDRESS": address,
            "NO_AT_BRIDGE": "1",
            "LANG": "C.UTF-8",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_RUNTIME_DIR": str(home / "run"),
        }

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

    def primary_selection(self, timeout: float = 3.0) -> str:
        """The PRIMARY selection as a string, asked through a window of our own (gone after);
        "" when nobody owns it."""
        from Xlib import X, Xatom
        from Xlib.display import Display

        conn = Display(self.display.display)
        try:
            window = conn.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
            prop = conn.intern_atom("DESKREEL_SELECTION")
            window.convert_selection(Xatom.PRIMARY, Xatom.STRING, prop, X.CurrentTime)
            conn.flush()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                while conn.pending_events():
                    event = conn.next_event()
                    if event.type != X.SelectionNotify:
                        continue
                    if event.property == X.NONE:
                        return ""
                    data = window.get_full_property(prop, X.AnyPropertyType)
                    value = data.value if data is not None else b""
                    return value.decode(errors="replace") if isinstance(value, bytes) else ""
                time.sleep(0.02)
            return ""
        finally:
            conn.close()


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

"""What a suite run sets up around its tests: the cookies of its X servers, what each
server runs besides the applications, and Ctrl-C handled as a request to stop."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from deskreel.xsession.groups import stop_group
from deskreel.xsession.xvfb import VirtualDisplay

from .config import ScreenSpec

__all__ = ["Cookies", "Session", "stopped_by_signals"]


class Cookies:
    """A private Xauthority file for the run: each worker's X server adds its own cookie,
    and accepts only clients that show it. This process reads it too (XAUTHORITY, while
    the run lasts): it asks the servers for windows and releases keys on them."""

    def __enter__(self) -> str:
        self.folder = tempfile.mkdtemp(prefix="deskreel-test-")  # mode 0700
        self.path = os.path.join(self.folder, "Xauthority")
        os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        self.previous = os.environ.get("XAUTHORITY")
        os.environ["XAUTHORITY"] = self.path
        return self.path

    def __exit__(self, *exc: object) -> None:
        if self.previous is None:
            os.environ.pop("XAUTHORITY", None)
        else:
            os.environ["XAUTHORITY"] = self.previous
        shutil.rmtree(self.folder, ignore_errors=True)


class Session:
    """What a worker's server runs besides the applications, where the suite asks: a
    window manager, and a private session and accessibility bus. `env` is what the
    applications get."""

    def __init__(self, display: VirtualDisplay, screen: ScreenSpec) -> None:
        from deskreel.xsession.a11y_bus import AccessibilityBus

        self.env = display.env()
        self.bus: AccessibilityBus | None = None
        self.manager: subprocess.Popen[bytes] | None = None
        self.home: str | None = None
        try:
            if screen.accessibility:
                self.home = tempfile.mkdtemp(prefix="deskreel-home-")
                self.bus = AccessibilityBus(display.display, home=Path(self.home)).__enter__()
                server = {k: v for k, v in self.env.items() if k in ("DISPLAY", "XAUTHORITY")}
                self.env = {**self.bus.env, **server}
            if screen.window_manager is not None:
                self.manager = subprocess.Popen(
                    screen.window_manager,
                    env=self.env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        if self.manager is not None:
            stop_group(self.manager)
            self.manager = None
        if self.bus is not None:
            self.bus.__exit__()
            self.bus = None
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
            self.home = None


class stopped_by_signals:
    """SIGINT and SIGTERM set `stop` (the workers then end their tests) instead of raising."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop
        self.previous: dict[int, object] = {}

    def __enter__(self) -> None:
        def heard(number: int, frame: object) -> None:
            self.stop.set()

        for sig in (signal.SIGINT, signal.SIGTERM):
            self.previous[sig] = signal.signal(sig, heard)

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]

"""A nested X session: Xephyr shown as a window of another display (a Wayland desktop's
Xwayland, or any X display), and one application running inside it. deskreel records and
replays the nested display, which is a whole X server of its own: its RECORD sees every
event the person gives the Xephyr window, and its XTEST reaches every window in it."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

from .display import DisplayError, connect, display_name
from .xserver import XServer

__all__ = ["Nested", "Xephyr"]

_APP_STOP_TIMEOUT = 5.0  # s an application gets to end on SIGTERM before SIGKILL
_WINDOW_POLL = 0.05  # s between two looks for the application's first window


class Xephyr(XServer):
    """Xephyr at `width`x`height` on the X display `host`, with RECORD and XTEST."""

    program = "Xephyr"
    package = "xserver-xephyr"

    def __init__(self, *, width: int, height: int, host: str, title: str, cookies: str) -> None:
        super().__init__(
            width=width, height=height, cookies=cookies, host_env={**os.environ, "DISPLAY": host}
        )
        self.host, self.title = host, title

    def _arguments(self) -> list[str]:
        size = f"{self.width}x{self.height}"
        return ["-screen", size, "-title", self.title, "+extension", "RECORD"]


class Nested:
    """Xephyr on the display `host` (default $DISPLAY) and `command` running in it; entered,
    `display` is the nested display. Only clients with its cookie may connect: the cookie
    file is private, and os.environ's XAUTHORITY points at it while the session lasts (the
    host display is reached by Xephyr alone, with the caller's own XAUTHORITY)."""

    def __init__(
        self, command: Sequence[str], *, size: tuple[int, int], host: str | None = None
    ) -> None:
        if not command:
            raise ValueError("a nested session needs a command to run")
        self.command, self.size = list(command), size
        self.host = host
        self.host_display = ""  # the display Xephyr shows on, once entered
        self.app: subprocess.Popen[bytes] | None = None
        self._folder: str | None = None
        self._server: Xephyr | None = None
        self._xauthority: str | None = None

    @property
    def display(self) -> str:
        if self._server is None:
            raise RuntimeError("the nested session is not started")
        return self._server.display

    def __enter__(self) -> Self:
        self.host_display = host = display_name(self.host)
        self._folder = tempfile.mkdtemp(prefix="deskreel-nested-")  # 0700
        cookies = os.path.join(self._folder, "Xauthority")
        title = f"deskreel: {_program(self.command)}"
        server = Xephyr(
            width=self.size[0], height=self.size[1], host=host, title=title, cookies=cookies
        )
        try:
            self._server = server.start()
        except RuntimeError as err:
            self._cleanup()
            raise DisplayError(
                f"cannot start Xephyr on X display {host}: {err}",
                details={"display": host, "nested": True},
            ) from None
        self._xauthority = os.environ.get("XAUTHORITY")
        os.environ["XAUTHORITY"] = cookies
        return self

    def note(self) -> dict[str, Any]:
        """What a recording made in this session stores of it (storage's `NESTED`): the server,
        its size and the program (never its arguments, which may hold anything)."""
        size = list(self.size)
        return {"server": Xephyr.program, "size": size, "program": _program(self.command)}

    def launch(self) -> None:
        """Start the application in the nested display (in a session of its own)."""
        assert self._server is not None
        try:
            self.app = subprocess.Popen(
                self.command,
                env=self._server.env(),
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as err:
            raise DisplayError(
                f"cannot run {shlex.join(self.command)}: {err.strerror or err}; give a "
                f"program on $PATH after --",
                details={"command": self.command},
            ) from None

    def ended(self) -> str | None:
        """How the session ended by itself (the application exited, Xephyr closed), or None
        while both run."""
        if self._server is not None and not self._server.running():
            return "Xephyr closed"
        if self.app is not None and self.app.poll() is not None:
            return f"{_program(self.command)} exited (code {self.app.returncode})"
        return None

    def wait_for_window(self, timeout: float) -> bool:
        """Wait until the application shows a window (a viewable child of the root window),
        the X server's own word that it is up; whether it did within `timeout` s."""
        conn = connect(self.display)
        try:
            root = conn.screen().root
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.ended() is None:
                if any(_viewable(child) for child in root.query_tree().children):
                    return True
                time.sleep(_WINDOW_POLL)
            return False
        finally:
            conn.close()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._cleanup()

    def _cleanup(self) -> None:
        if self.app is not None:
            _end_group(self.app)
            self.app = None
        if self._server is not None:
            self._server.stop()
            self._server = None
            if self._xauthority is None:
                os.environ.pop("XAUTHORITY", None)
            else:
                os.environ["XAUTHORITY"] = self._xauthority
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def _viewable(window: Any) -> bool:
    from Xlib import X
    from Xlib import error as xerror

    try:
        attributes = window.get_attributes()
    except xerror.XError:  # gone since the tree was read
        return False
    return attributes.map_state == X.IsViewable and not attributes.override_redirect


def _end_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the application's process group, SIGKILL if it outlives the timeout."""
    for sig, wait in ((signal.SIGTERM, _APP_STOP_TIMEOUT), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue
    proc.wait()


def _program(command: Sequence[str]) -> str:
    return os.path.basename(command[0]) if command else ""

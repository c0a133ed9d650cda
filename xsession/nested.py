"""A nested X session: Xephyr shown as a window of another display (a Wayland desktop's
Xwayland, or any X display), and one application running inside it. deskreel records and
replays the nested display, which is a whole X server of its own: its RECORD sees every
event the person gives the Xephyr window, and its XTEST reaches every window in it."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

from .display import DisplayError, connect, display_name
from .groups import group_alive, stop_group
from .xserver import XServer, local_server_listens

__all__ = ["Nested", "Xephyr"]

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
    """Xephyr on the display `host` (default $DISPLAY) and `command` running in it. Entered,
    the application has shown a window (or `timeout` s went by: `shown` says which), and
    `display` is the nested display. Only clients with its cookie may connect: the cookie
    file is private, and os.environ's XAUTHORITY points at it while the session lasts (the
    host display is reached by Xephyr alone, with the caller's own XAUTHORITY)."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        size: tuple[int, int],
        host: str | None = None,
        timeout: float = 10.0,
    ) -> None:
        if not command:
            raise ValueError("a nested session needs a command to run")
        self.command, self.size, self.host, self.timeout = list(command), size, host, timeout
        self.host_display = ""  # the display Xephyr shows on, once entered
        self.shown = False  # whether the application showed a window within the timeout
        self.app: subprocess.Popen[bytes] | None = None
        self._folder: str | None = None
        self._server: Xephyr | None = None
        self._xauthority: tuple[str | None] | None = None  # the caller's, while ours is set

    @property
    def display(self) -> str:
        if self._server is None:
            raise RuntimeError("the nested session is not started")
        return self._server.display

    def __enter__(self) -> Self:
        try:
            self._start_server()
            self._launch()
            self.shown = self._wait_for_window()
        except BaseException:
            self._cleanup()
            raise
        return self

    def note(self) -> dict[str, Any]:
        """What a recording made in this session stores of it (storage's `NESTED`): the server,
        its size and the program (never its arguments, which may hold anything)."""
        size = list(self.size)
        return {"server": Xephyr.program, "size": size, "program": _program(self.command)}

    def ended(self) -> str | None:
        """How the session ended by itself (Xephyr closed; the application exited, with
        all it started), or None while it runs."""
        if self._server is not None and not self._server.running():
            return "Xephyr closed"
        app = self.app
        if app is not None and app.poll() is not None and not group_alive(app.pid):
            return f"{_program(self.command)} exited (code {app.returncode})"
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._cleanup()

    def _start_server(self) -> None:
        self.host_display = host = display_name(self.host)
        # (asked of its socket: python-xlib's connections share one table of extension
        # events, and two servers with different extensions in one process break it)
        if local_server_listens(host) is False:
            raise DisplayError(
                f"cannot open X display {host}: no X server listens there; run deskreel "
                f"in your desktop session, or set DISPLAY",
                details={"display": host, "nested": True},
            )
        self._folder = tempfile.mkdtemp(prefix="deskreel-nested-")  # 0700
        cookies = os.path.join(self._folder, "Xauthority")
        title = f"deskreel: {_program(self.command)}"
        server = Xephyr(
            width=self.size[0], height=self.size[1], host=host, title=title, cookies=cookies
        )
        self._server = server  # stopped by _cleanup, whatever the start came to
        try:
            server.start()
        except RuntimeError as err:
            raise DisplayError(
                f"cannot start Xephyr on X display {host}: {err}",
                details={"display": host, "nested": True},
            ) from None
        self._xauthority = (os.environ.get("XAUTHORITY"),)
        os.environ["XAUTHORITY"] = cookies

    def _launch(self) -> None:
        """Start the application in the nested display, in a process group of its own."""
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
                f"cannot run {shlex.join(self.command)}: {err.strerror or err}; give an "
                f"installed program after --",
                details={"command": self.command},
            ) from None

    def _wait_for_window(self) -> bool:
        """Wait until the application shows a window (a viewable child of the root window),
        the X server's own word that it is up; whether it did within the timeout. One that
        ended first is refused."""
        conn = connect(self.display)
        try:
            root = conn.screen().root
            deadline = time.monotonic() + self.timeout
            while time.monotonic() < deadline:
                if any(_viewable(child) for child in root.query_tree().children):
                    return True
                if (why := self.ended()) is not None:
                    raise DisplayError(
                        f"{why} before it showed a window in Xephyr: check that "
                        f"{shlex.join(self.command)} runs on its own",
                        details={"command": self.command},
                    )
                time.sleep(_WINDOW_POLL)
            return False
        finally:
            conn.close()

    def _cleanup(self) -> None:
        if self.app is not None:
            stop_group(self.app)
            self.app = None
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._xauthority is not None:  # ours was set: the caller's comes back
            (before,), self._xauthority = self._xauthority, None
            if before is None:
                os.environ.pop("XAUTHORITY", None)
            else:
                os.environ["XAUTHORITY"] = before
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


def _program(command: Sequence[str]) -> str:
    return os.path.basename(command[0]) if command else ""

"""An application under test: started in a process group of its own on a display, waited
for until it is ready, and stopped with everything it started, even when it hangs."""

from __future__ import annotations

import fnmatch
import os
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from deskreel.xsession.groups import stop_group

from .config import AppSpec, Ready

__all__ = ["AppFailure", "RunningApp", "run_command"]

_POLL = 0.05  # s between looks at a window list


class AppFailure(Exception):
    """The application did not start, or not in time: `stage` says which step failed."""

    def __init__(self, stage: str, message: str) -> None:
        super().__init__(message)
        self.stage = stage


@dataclass
class RunningApp:
    """`spec.command` running on `display` (its env), its output going to `log`."""

    spec: AppSpec
    env: Mapping[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    _stop: threading.Event | None = None

    def start(self, stop: threading.Event | None = None) -> None:
        """Start it and wait until it is ready; AppFailure when it is not."""
        assert self.spec.command is not None
        fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "wb") as out:  # the application writes through its own copy
            try:
                self.proc = subprocess.Popen(
                    self.spec.command,
                    cwd=self.spec.cwd,
                    env=dict(self.env),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own group: stopped with all it starts
                )
            except OSError as err:
                raise AppFailure(
                    "start", f"cannot start {self.spec.command[0]}: {err.strerror or err}"
                ) from None
        self._stop = stop
        self._wait_ready(self.spec.ready, stop)

    def stop(self) -> None:
        """Stop it and every process in its group; idempotent."""
        if self.proc is not None:
            stop_group(self.proc)
            self.proc = None

    def _wait_ready(self, ready: Ready, stop: threading.Event | None) -> None:
        deadline = time.monotonic() + ready.timeout
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AppFailure(
                    "start",
                    f"the application exited with code {self.proc.returncode} before it was "
                    f"ready (its output: {self.log})",
                )
            if self._is_ready(ready):
                return
            if time.monotonic() > deadline or (stop is not None and stop.is_set()):
                raise AppFailure(
                    "ready",
                    f"the application was not ready after {ready.timeout:g} s "
                    f"({_waited_for(ready)}; its output: {self.log})",
                )
            time.sleep(_POLL)

    def _is_ready(self, ready: Ready) -> bool:
        if ready.command is not None:
            done = run_command(
                ready.command,
                self.env,
                self.spec.cwd,
                timeout=ready.timeout,
                log=self.log.with_name("ready.log"),
                stop=self._stop,
            )
            if done != 0:
                return False
        if ready.window_class is None and ready.window_title is None:
            return True
        return any(
            (ready.window_class is None or fnmatch.fnmatchcase(wm_class or "", ready.window_class))
            and (ready.window_title is None or fnmatch.fnmatchcase(title or "", ready.window_title))
            for wm_class, title in _mapped_windows(self.env["DISPLAY"])
        )


def _waited_for(ready: Ready) -> str:
    parts = []
    if ready.window_class is not None:
        parts.append(f"a window of class {ready.window_class!r}")
    if ready.window_title is not None:
        parts.append(f"a window titled {ready.window_title!r}")
    if ready.command is not None:
        parts.append(f"`{' '.join(ready.command)}` to exit 0")
    return "waiting for " + " and ".join(parts)


def _mapped_windows(display: str) -> list[tuple[str | None, str | None]]:
    """(class, title) of each mapped top-level window on `display`."""
    from Xlib import X

    from deskreel.xsession.display import connect
    from deskreel.xsession.toplevel import toplevel_of

    conn = connect(display)
    try:
        out = []
        for child in conn.screen().root.query_tree().children:
            try:
                if child.get_attributes().map_state != X.IsViewable:
                    continue
            except Exception:
                continue
            top = toplevel_of(conn, child)
            if top is not None:
                out.append((top.window_class, top.title))
        return out
    finally:
        conn.close()


def run_command(
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: Path | None,
    *,
    timeout: float,
    log: Path | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Run a setup, teardown or readiness command in a group of its own, its output
    appended to `log`: its exit code, or -1 when it could not start, ran past `timeout`
    or `stop` was set (it is stopped then)."""
    fd = os.open(log or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with open(fd, "wb") as out:
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as err:
            out.write(f"cannot start {argv[0]}: {err.strerror or err}\n".encode())
            return -1
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        if time.monotonic() > deadline or (stop is not None and stop.is_set()):
            stop_group(proc)
            return -1
        time.sleep(_POLL)
    return proc.returncode

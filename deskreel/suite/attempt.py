"""One attempt of a test: a private copy of its recording, the setup command, the
application until it is ready, `deskreel replay --verify` on the worker's display; then
always the application's process group stopped, the teardown command, and every key and
button released. The verdict is read from the run the replay stored."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from deskreel.xsession.groups import stop_group
from deskreel.xsession.xvfb import VirtualDisplay

from .app import AppFailure, RunningApp, run_command
from .config import AppSpec, TestSpec

__all__ = ["ATTEMPT_DIR", "ATTEMPT_ENV", "AttemptRun", "placed"]

SETUP_TIMEOUT = 120.0  # s a setup or teardown command may take
ATTEMPT_DIR = "{attempt_dir}"  # in a command's words: the attempt's own folder
ATTEMPT_ENV = "DESKREEL_ATTEMPT_DIR"  # and in the environment of every command
T = TypeVar("T")


@dataclass
class AttemptRun:
    test: TestSpec
    path: Path
    display: VirtualDisplay
    session_env: dict[str, str]
    stop: threading.Event
    phases: dict[str, float]
    keep_going: bool = False

    def run(self) -> tuple[str, int | None, str]:
        """(verdict, failed step, what failed) of one attempt."""
        spec = placed(self.test.app, self.path)
        env = {**self.session_env, **dict(spec.env), ATTEMPT_ENV: str(self.path.resolve())}
        app = RunningApp(spec, env, self.path / "app.log")
        try:
            db = self._timed("copy", lambda: _private_copy(self.test.database, self.path))
            setup = spec.setup
            log = self.path / "setup.log"
            if setup and self._timed("setup", lambda: _command(setup, env, spec, log, self.stop)):
                return "error", None, f"the setup command `{' '.join(setup)}` failed (setup.log)"
            if spec.command is not None:
                self._timed("app", lambda: app.start(self.stop))
            code = self._timed("replay", lambda: self._replay(db))
        except AppFailure as failure:
            return "error", None, str(failure)
        finally:
            self._timed("teardown", lambda: self._teardown(app, env))
        return _verdict(db, code)

    def _replay(self, db: Path) -> int:
        argv = [
            sys.executable,
            "-m",
            "deskreel",
            "replay",
            str(db),
            "-r",
            self.test.recording,
            "--verify",
            "--report",
            str(self.path / "report"),
            "--junit",
            str(self.path / "junit.xml"),
            "--display",
            self.display.display,
            "--quiet",
            *(["--keep-going"] if self.keep_going else []),
            *self.test.verify.replay_args(),
        ]
        out = os.open(self.path / "replay.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(out, "wb") as log:
            proc = subprocess.Popen(
                argv,
                env=self.display.env(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            while proc.poll() is None:
                if self.stop.is_set():
                    stop_group(proc)
                    break
                time.sleep(0.05)
        return proc.returncode

    def _teardown(self, app: RunningApp, env: dict[str, str]) -> None:
        app.stop()
        spec = placed(self.test.app, self.path)
        if spec.teardown:  # run in full even when stopping: it cleans up
            _command(spec.teardown, env, spec, self.path / "teardown.log", threading.Event())
        _release_all(self.display.display)

    def _timed(self, phase: str, work: Callable[[], T]) -> T:
        began = time.monotonic()
        try:
            return work()
        finally:
            self.phases[phase] = round(time.monotonic() - began, 3)


def placed(spec: AppSpec, folder: Path) -> AppSpec:
    """The application's commands with {attempt_dir} replaced by the attempt's folder, where
    an application writes what must not collide with another worker's (its log)."""
    where = str(folder.resolve())

    def fill(argv: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if argv is None else tuple(w.replace(ATTEMPT_DIR, where) for w in argv)

    ready = replace(spec.ready, command=fill(spec.ready.command))
    return replace(
        spec,
        command=fill(spec.command),
        setup=fill(spec.setup),
        teardown=fill(spec.teardown),
        ready=ready,
    )


def _command(
    argv: Sequence[str], env: dict[str, str], spec: AppSpec, log: Path, stop: threading.Event
) -> bool:
    """Run a setup or teardown command, its output into `log`; True when it failed."""
    return run_command(argv, env, spec.cwd, timeout=SETUP_TIMEOUT, log=log, stop=stop) != 0


def _private_copy(database: Path, folder: Path) -> Path:
    """A consistent copy of the suite's database (its WAL included) that the replay may
    write its run into: the suite's own file never changes."""
    target = folder / "run.db"
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    source = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
    return target


def _release_all(display: str) -> None:
    from deskreel.replayer import release_held

    from deskreel.xsession.display import DisplayError, connect

    try:
        conn = connect(display, extensions=("XTEST",))
    except DisplayError:
        return  # the server is gone: nothing is held on it
    try:
        release_held(conn)
    finally:
        conn.close()


def _last_line(log: Path) -> str:
    """What a log said last (the replay's one-line error), or where to look."""
    try:
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        lines = []
    return lines[-1].strip()[:300] if lines else f"see {log.name}"


def _verdict(db: Path, code: int) -> tuple[str, int | None, str]:
    """The attempt's verdict from the run the replay stored: its first failed step and
    what failed there."""
    from deskreel.storage import open_store

    from ..report.outcome import check_line, checks_of

    if code not in (0, 1):
        said = _last_line(db.with_name("replay.log"))
        return "error", None, f"replay --verify ended with exit code {code}: {said}"
    with open_store(db, create=False, readonly=True) as store:
        runs = store.runs()
        if not runs:
            return "error", None, "the replay stored no run (see replay.log)"
        run = runs[-1]
        results = store.step_results(run.id)
    if code == 0:
        return "passed", None, ""
    failed = next((r for r in results if r.status == "failed"), None)
    if failed is None:
        return "failed", None, f"the run {run.status} (see replay.log)"
    checks = [c for c in checks_of(failed) if not c.get("passed", True)]
    what = check_line(checks[0]) if checks else failed.message
    return "failed", failed.step, what

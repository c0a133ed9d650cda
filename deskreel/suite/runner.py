"""Running a suite: workers, each with its own X server, take the tests one at a time.

For each attempt of a test, in order: a private copy of its recording, the setup command,
the application (until it is ready), `deskreel replay --verify` on the worker's display,
then always: the application stopped with its whole process group, the teardown command,
and every key and button released. A failed test is tried again on a fresh application;
one that passes only then is flaky. Each attempt keeps its own folder of evidence.
"""

from __future__ import annotations

import hashlib
import os
import queue
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from xsession.xvfb import VirtualDisplay

from xsession.groups import stop_group

from .app import AppFailure, RunningApp, run_command
from .config import AppSpec, ScreenSpec, TestSpec

__all__ = [
    "Attempt",
    "Options",
    "Outcome",
    "run_tests",
    "shard",
    "stopped_by_signals",
    "test_folder",
]

SETUP_TIMEOUT = 120.0  # s a setup or teardown command may take
ATTEMPT_DIR = "{attempt_dir}"  # in a command's words: the attempt's own folder
ATTEMPT_ENV = "DESKREEL_ATTEMPT_DIR"  # and in the environment of every command
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Attempt:
    """One try of a test: its verdict, and where its evidence is (relative to the report)."""

    number: int
    verdict: str  # passed, failed, error
    seconds: float
    folder: str  # tests/<name>/attempt-<n>
    display: str
    started: float  # wall-clock seconds (time.time())
    ended: float
    step: int | None = None  # the first step that failed
    check: str = ""  # what failed there, or why the attempt could not run
    phases: dict[str, float] = field(default_factory=dict)  # seconds of each stage


@dataclass(frozen=True, slots=True)
class Outcome:
    """A test and its attempts; the verdict follows from them."""

    name: str
    attempts: tuple[Attempt, ...]

    @property
    def verdict(self) -> str:
        """passed (first try), flaky (passed on a retry) or failed."""
        if self.attempts[-1].verdict != "passed":
            return "failed"
        return "passed" if len(self.attempts) == 1 else "flaky"

    @property
    def seconds(self) -> float:
        return sum(a.seconds for a in self.attempts)


@dataclass(frozen=True, slots=True)
class Options:
    workers: int = 1
    retries: int = 0
    out: Path = Path("deskreel-report")
    keep_going: bool = False  # every step is replayed, failed or not (--update-masks)


def shard(tests: Sequence[TestSpec], index: int, total: int) -> list[TestSpec]:
    """Shard `index` of `total` (from 1): every total-th test by name, from the index-th, so
    that the shards of one suite together run each test exactly once."""
    ordered = sorted(tests, key=lambda t: t.name)
    return [t for n, t in enumerate(ordered) if n % total == index - 1]


def test_folder(name: str) -> str:
    """A test's folder under tests/: its name, with anything but word characters replaced
    and, when that changed it, a digest of the name (`a b` and `a_b` stay apart)."""
    safe = re.sub(r"[^\w.-]+", "_", name).strip("._")[:120] or "test"
    if safe == name:
        return safe
    return f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def run_tests(
    tests: Sequence[TestSpec],
    options: Options,
    *,
    done: Callable[[Outcome], None],
    stop: threading.Event,
) -> list[Outcome]:
    """Run `tests` on `options.workers` workers; `done` is told of each as it finishes
    (from the worker's thread, one at a time). `stop` ends every worker early: their
    applications and X servers are stopped before this returns."""
    todo: queue.SimpleQueue[TestSpec] = queue.SimpleQueue()
    for test in tests:
        todo.put(test)
    results: list[Outcome] = []
    lock = threading.Lock()

    def tell(outcome: Outcome) -> None:
        with lock:
            results.append(outcome)
            done(outcome)

    with _Cookies() as cookies:
        workers = [
            threading.Thread(
                target=_Worker(options, stop, tell, cookies).run, args=(todo,), daemon=True
            )
            for _ in range(min(options.workers, len(tests)))
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            while worker.is_alive():
                worker.join(0.2)  # a short join: Ctrl-C reaches the main thread between them
    order = {t.name: n for n, t in enumerate(tests)}
    return sorted(results, key=lambda o: order[o.name])


class _Cookies:
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


@dataclass
class _Worker:
    options: Options
    stop: threading.Event
    tell: Callable[[Outcome], None]
    cookies: str
    display: VirtualDisplay | None = None
    screen: ScreenSpec | None = None
    session: _Session | None = None

    def run(self, todo: queue.SimpleQueue[TestSpec]) -> None:
        try:
            while not self.stop.is_set():
                try:
                    test = todo.get_nowait()
                except queue.Empty:
                    return
                attempts: list[Attempt] = []
                for number in range(1, self.options.retries + 2):
                    try:
                        attempt = self._attempt(test, number)
                    except Exception as err:  # any failure is the attempt's
                        attempt = self._broken(test, number, err)
                    if self.stop.is_set():
                        return  # an interrupted attempt has no verdict
                    attempts.append(attempt)
                    if attempt.verdict == "passed":
                        break
                self.tell(Outcome(test.name, tuple(attempts)))
        finally:
            self._stop_screen()

    def _broken(self, test: TestSpec, number: int, err: Exception) -> Attempt:
        """An attempt that could not even run (no X server, no folder): an error with the
        reason, the test's result still; the worker starts a fresh server next time."""
        self._stop_screen()
        why = f"the attempt could not run: {type(err).__name__}: {err}"
        folder = f"tests/{test_folder(test.name)}/attempt-{number}"
        now = time.time()
        return Attempt(number, "error", 0.0, folder, "", now, now, None, why.splitlines()[0])

    def _screen(self, screen: ScreenSpec) -> tuple[VirtualDisplay, dict[str, str], float]:
        """The worker's X server for this screen (a new one when it differs), the
        environment its applications get, and the seconds starting them took."""
        if self.display is not None and self.session is not None and self.screen == screen:
            return self.display, self.session.env, 0.0
        self._stop_screen()
        began = time.monotonic()
        width, height = screen.size
        self.display = VirtualDisplay(
            width=width, height=height, depth=screen.depth, cookies=self.cookies
        ).start()
        self.screen = screen
        self.session = _Session(self.display, screen)
        return self.display, self.session.env, round(time.monotonic() - began, 3)

    def _stop_screen(self) -> None:
        if self.session is not None:
            self.session.stop()
            self.session = None
        if self.display is not None:
            self.display.stop()
            self.display = None

    def _attempt(self, test: TestSpec, number: int) -> Attempt:
        folder = Path(test_folder(test.name)) / f"attempt-{number}"
        path = self.options.out / "tests" / folder
        path.mkdir(parents=True, mode=0o700)
        display, env, xvfb = self._screen(test.screen)
        began, wall = time.monotonic(), time.time()
        phases = {"xvfb": xvfb}
        attempt = _Attempt(test, path, display, env, self.stop, phases, self.options.keep_going)
        verdict, step, check = attempt.run()
        return Attempt(
            number,
            verdict,
            round(time.monotonic() - began, 3),
            f"tests/{folder}",
            display.display,
            wall,
            time.time(),
            step,
            check,
            phases,
        )


class _Session:
    """What a worker's server runs besides the applications, where the suite asks: a
    window manager, and a private session and accessibility bus. `env` is what the
    applications get."""

    def __init__(self, display: VirtualDisplay, screen: ScreenSpec) -> None:
        from xsession.a11y_bus import AccessibilityBus

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


@dataclass
class _Attempt:
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
    from replayer import release_held

    from xsession.display import DisplayError, connect

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
    from storage import open_store

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

"""Running a suite: workers, each with its own X server, take the tests one at a time.

Each attempt of a test runs as `attempt.py` says. A failed test is tried again on a fresh
application; one that passes only then is flaky. Each attempt keeps its own folder of
evidence.
"""

from __future__ import annotations

import hashlib
import queue
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from deskreel.xsession.xvfb import VirtualDisplay

from .attempt import AttemptRun
from .config import ScreenSpec, TestSpec
from .results import Attempt, Outcome
from .session import Cookies, Session

__all__ = ["Options", "run_tests", "shard", "test_folder"]


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

    with Cookies() as cookies:
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


@dataclass
class _Worker:
    options: Options
    stop: threading.Event
    tell: Callable[[Outcome], None]
    cookies: str
    display: VirtualDisplay | None = None
    screen: ScreenSpec | None = None
    session: Session | None = None

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
        self.session = Session(self.display, screen)
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
        attempt = AttemptRun(test, path, display, env, self.stop, phases, self.options.keep_going)
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

"""Fixtures: a private Xvfb per session and samples/app.py running on it; PostgreSQL
databases from tests/pg.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from deskreel.xsession.xvfb import VirtualDisplay
from tests.pg import pg_server, pg_url, store_url  # noqa: F401  (PostgreSQL fixtures)

if TYPE_CHECKING:
    from Xlib.display import Display

SAMPLE_APP = Path(__file__).resolve().parent.parent / "samples" / "app.py"
READY_TIMEOUT = 15.0

Event = dict[str, Any]
Predicate = Callable[[Event], bool] | Mapping[str, Any]


class SampleApp:
    """A running samples/app.py and the JSON-lines log it writes."""

    def __init__(self, proc: subprocess.Popen[bytes], log_path: Path, stderr_path: Path) -> None:
        self.proc = proc
        self.log_path = log_path
        self.stderr_path = stderr_path
        self.ready: Event = {}

    @property
    def widgets(self) -> dict[str, list[int]]:
        """Widget name -> [x, y, width, height] in screen coordinates, from the ready event."""
        return self.ready["widgets"]

    def center(self, name: str) -> tuple[int, int]:
        """Screen coordinates of the middle of widget `name`."""
        x, y, width, height = self.widgets[name]
        return x + width // 2, y + height // 2

    def events(self, kind: str | None = None) -> list[Event]:
        """Every complete event logged so far, optionally only those of one kind."""
        if not self.log_path.exists():
            return []
        text = self.log_path.read_text(encoding="utf-8")
        # The app may be half-way through writing the last line; only take whole lines.
        lines = text.splitlines(keepends=True)
        events = [json.loads(line) for line in lines if line.endswith("\n")]
        return [e for e in events if kind is None or e["event"] == kind]

    def comparable_events(self) -> list[Event]:
        """Events after "ready", without timestamps, to compare two runs event for event."""
        return [{k: v for k, v in e.items() if k != "t"} for e in self.events()[1:]]

    def wait_for(self, predicate: Predicate, timeout: float = 5.0) -> Event:
        """The first logged event matching `predicate` (a function or a dict of fields)."""
        match = _matcher(predicate)
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events():
                if match(event):
                    return event
            if self.proc.poll() is not None:
                pytest.fail(
                    f"sample app exited with code {self.proc.returncode} while "
                    f"waiting for {predicate!r}\n{self.describe()}"
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"no event matching {predicate!r} within {timeout:g}s\n{self.describe()}"
                )
            time.sleep(0.02)

    def describe(self) -> str:
        """The log and stderr, for failure messages."""
        log = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        stderr = self.stderr_path.read_text(errors="replace") if self.stderr_path.exists() else ""
        return f"--- {self.log_path} ---\n{log}--- stderr ---\n{stderr}"

    def stop(self, timeout: float = 5.0) -> None:
        """Terminate the app, killing it if it hangs."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait()


@pytest.fixture(scope="session")
def xvfb() -> Iterator[VirtualDisplay]:
    """A private Xvfb (RECORD and XTEST enabled) shared by the whole session."""
    if shutil.which("Xvfb") is None:
        # CI (.ci/run) sets DESKREEL_REQUIRE_X: there a missing Xvfb fails, never skips
        # every real-X test quietly.
        if os.environ.get("DESKREEL_REQUIRE_X"):
            pytest.fail(
                "Xvfb is not installed and DESKREEL_REQUIRE_X is set (apt-get install "
                "xvfb, or make test, which installs it)"
            )
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    with VirtualDisplay() as display:
        yield display


@pytest.fixture
def xdisplay(xvfb: VirtualDisplay) -> Iterator[Display]:
    """A python-xlib connection to the test server, never to the developer's $DISPLAY (made
    as deskreel makes its own: without a cookie file where there is none)."""
    from deskreel.xsession.display import connect

    connection = connect(xvfb.display)
    yield connection
    connection.close()


@pytest.fixture
def launch_app(xvfb: VirtualDisplay, tmp_path: Path) -> Iterator[Callable[..., SampleApp]]:
    """Factory: launch_app(geometry=, layout=, title=, clock=, banner=, scale=, late=, effect=,
    log_status=, blink=) starts the app and waits for its "ready" line; see samples/README.md."""
    apps: list[SampleApp] = []

    def launch(
        *,
        geometry: str = "+0+0",
        layout: str = "normal",
        title: str | None = None,
        clock: bool = False,
        banner: bool = False,
        scale: float | None = None,
        late: float | None = None,
        effect: str | None = None,
        log_status: bool = False,
        blink: int | None = None,
        timeout: float = READY_TIMEOUT,
    ) -> SampleApp:
        log_path = tmp_path / f"app{len(apps)}.jsonl"
        stderr_path = tmp_path / f"app{len(apps)}.stderr"
        argv = [
            sys.executable,
            str(SAMPLE_APP),
            "--log",
            str(log_path),
            "--geometry",
            geometry,
            "--layout",
            layout,
        ]
        if title is not None:
            argv += ["--title", title]
        if clock:
            argv.append("--clock")
        if banner:
            argv.append("--banner")
        if scale is not None:
            argv += ["--scale", str(scale)]
        if late is not None:
            argv += ["--late", str(late)]
        if effect is not None:
            argv += ["--effect", effect]
        if log_status:
            argv.append("--log-status")
        if blink is not None:
            argv += ["--blink", str(blink)]
        with stderr_path.open("wb") as stderr:
            proc = subprocess.Popen(
                argv,
                env=xvfb.env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        app = SampleApp(proc, log_path, stderr_path)
        apps.append(app)
        app.ready = app.wait_for({"event": "ready"}, timeout=timeout)
        return app

    yield launch
    for app in apps:
        app.stop()


@pytest.fixture
def sample_app(launch_app: Callable[..., SampleApp]) -> SampleApp:
    """samples/app.py in its normal layout at +0+0, ready for input."""
    return launch_app()


def _matcher(predicate: Predicate) -> Callable[[Event], bool]:
    if callable(predicate):
        return predicate
    fields = dict(predicate)
    return lambda event: all(event.get(k) == v for k, v in fields.items())


class Deskreel:
    """A `deskreel` command running in the background against the test display."""

    def __init__(self, proc: subprocess.Popen[bytes], stderr_path: Path) -> None:
        self.proc, self.stderr_path = proc, stderr_path

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def wait_for_output(self, text: str, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.stderr:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"deskreel never printed {text!r}:\n{self.stderr}")
            time.sleep(0.02)

    def finish(self, timeout: float = 30.0) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            pytest.fail(f"deskreel did not finish within {timeout}s:\n{self.stderr}")


@pytest.fixture
def run_deskreel(xvfb: VirtualDisplay, tmp_path: Path) -> Iterator[Callable[..., Deskreel]]:
    """Factory: run_deskreel("record", db, ...) starts `python -m deskreel` on the test display."""
    procs: list[Deskreel] = []

    def start(*args: object) -> Deskreel:
        stderr_path = tmp_path / f"deskreel{len(procs)}.stderr"
        with stderr_path.open("wb") as stderr:
            proc = subprocess.Popen(
                [sys.executable, "-m", "deskreel", *map(str, args)],
                env=xvfb.env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        procs.append(Deskreel(proc, stderr_path))
        return procs[-1]

    yield start
    for d in procs:
        if d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait()

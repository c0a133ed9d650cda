"""The suite file (`deskreel.toml`): which recordings to run, against which application.

TOML, read with the standard library. Every key is checked against the schema below: a
missing key, a wrong type, an unknown key or a recording that does not exist is one
`SuiteError` naming the key and its line. Paths are relative to the suite file's folder.

    [suite]
    recordings = ["recordings.db", "more/*.db:login-*"]  # DB, DB:NAME, globs in both
    workers = 2
    retries = 1

    [app]                       # what each test starts, and when it is ready
    command = ["python3", "app.py"]
    cwd = "."
    env = { LANG = "C.UTF-8" }
    setup = "cp fixtures/clean.db data.db"  # before the app starts, and after it stops:
    teardown = "rm -f data.db"
    ready = { window_class = "MyApp", timeout = 20 }  # or window_title, or command

    [screen]
    size = "1280x800"
    depth = 24
    window_manager = "openbox"  # started on each worker's server (default: none)
    accessibility = true        # a private accessibility bus (GTK, Qt, Chromium publish)

    [verify]
    tolerance = 0.02
    masks = ["0,0,200,30"]
    timeout = 5
    speed = 1
    max_idle = 2

    [[test]]                     # per recording: its own app, screen or verify keys
    recordings = ["recordings.db:checkout"]
    app = { command = ["python3", "app.py", "--cart"] }
"""

from __future__ import annotations

import fnmatch
import glob
import shlex
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from .schema import (
    APP,
    READY,
    REQUIRED,
    SCREEN,
    SUITE,
    TEST,
    TOP,
    VERIFY,
    Check,
    line_of,
    parse_size,
)

__all__ = [
    "AppSpec",
    "Ready",
    "ScreenSpec",
    "Suite",
    "SuiteError",
    "TestSpec",
    "VerifySpec",
    "load_suite",
]

DEFAULT_SUITE = "deskreel.toml"
DEFAULT_READY_TIMEOUT = 20.0  # s an application has to show its window


class SuiteError(ValueError):
    """A suite file that cannot run; the message names the file, the line and the key."""


@dataclass(frozen=True, slots=True)
class Ready:
    """When an application is ready: a window of this class or title (globs) is mapped,
    or a command exits 0; none of them: as soon as it started."""

    window_class: str | None = None
    window_title: str | None = None
    command: tuple[str, ...] | None = None
    timeout: float = DEFAULT_READY_TIMEOUT


@dataclass(frozen=True, slots=True)
class AppSpec:
    command: tuple[str, ...] | None = None  # None: the recordings need no application
    cwd: Path | None = None
    env: tuple[tuple[str, str], ...] = ()
    setup: tuple[str, ...] | None = None
    teardown: tuple[str, ...] | None = None
    ready: Ready = field(default_factory=Ready)


@dataclass(frozen=True, slots=True)
class ScreenSpec:
    size: tuple[int, int] = (1280, 800)
    depth: int = 24
    window_manager: tuple[str, ...] | None = None  # started on the worker's server, if given
    accessibility: bool = False  # a private session and accessibility bus for the apps


@dataclass(frozen=True, slots=True)
class VerifySpec:
    tolerance: float | None = None
    masks: tuple[str, ...] = ()
    timeout: float | None = None
    speed: float | None = None
    max_idle: float | None = None

    def replay_args(self) -> list[str]:
        """The options of `deskreel replay --verify` these stand for."""
        args = []
        for name in ("tolerance", "timeout", "speed", "max_idle"):
            value = getattr(self, name)
            if value is not None:
                args += [f"--{name.replace('_', '-')}", f"{value:g}"]
        for mask in self.masks:
            args += ["--mask", mask]
        return args


@dataclass(frozen=True, slots=True)
class TestSpec:
    """One recording to run: its name in reports, where it is, and how."""

    name: str
    database: Path
    recording: str
    app: AppSpec
    screen: ScreenSpec
    verify: VerifySpec


@dataclass(frozen=True, slots=True)
class Suite:
    path: Path
    tests: tuple[TestSpec, ...]
    workers: int = 1
    retries: int = 0


# -- loading ---------------------------------------------------------------------------------


def load_suite(path: Path) -> Suite:
    """The suite in `path`, checked whole; SuiteError says what is wrong, and where."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError(
            f"{path} does not exist: write a suite file (see `deskreel test --help`) or name one"
        ) from None
    except (OSError, UnicodeDecodeError) as err:
        raise SuiteError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise SuiteError(f"{path}: not valid TOML: {err}") from None
    return _Loader(path, text).suite(data)


@dataclass
class _Loader:
    path: Path
    text: str

    def suite(self, data: dict[str, Any]) -> Suite:
        self._table(data, TOP, ())
        suite = data.get("suite")
        if suite is None:
            self._fail((), "suite", "is missing: add a [suite] table with recordings")
        self._table(suite, SUITE, ("suite",))
        app = self._app(data.get("app", {}), ("app",), AppSpec(cwd=self.path.parent.resolve()))
        screen = self._screen(data.get("screen", {}), ("screen",), ScreenSpec())
        verify = self._verify(data.get("verify", {}), ("verify",), VerifySpec())
        tests: dict[tuple[Path, str], TestSpec] = {}  # by database and recording
        for db, rec in self._recordings(suite["recordings"], ("suite", "recordings")):
            tests[(db, rec)] = TestSpec(rec, db, rec, app, screen, verify)
        for n, entry in enumerate(data.get("test", [])):
            where = ("test", n)
            if not isinstance(entry, dict):
                self._fail(("test",), str(n), "must be a table")
            self._table(entry, TEST, where)
            for db, rec in self._recordings(entry["recordings"], (*where, "recordings")):
                base = tests.get((db, rec)) or TestSpec(rec, db, rec, app, screen, verify)
                tests[(db, rec)] = replace(
                    base,
                    app=self._app(entry.get("app", {}), (*where, "app"), base.app),
                    screen=self._screen(entry.get("screen", {}), (*where, "screen"), base.screen),
                    verify=self._verify(entry.get("verify", {}), (*where, "verify"), base.verify),
                )
        if not tests:
            self._fail(("suite",), "recordings", "names no recording")
        return Suite(
            self.path,
            tuple(self._named(list(tests.values()))),
            workers=suite.get("workers", 1),
            retries=suite.get("retries", 0),
        )

    # -- tables ------------------------------------------------------------------------

    def _app(self, data: dict[str, Any], where: tuple[Any, ...], base: AppSpec) -> AppSpec:
        self._table(data, APP, where)
        ready = base.ready
        if "ready" in data:
            self._table(data["ready"], READY, (*where, "ready"))
            given = data["ready"]  # over the suite's: a [[test]] may change one key
            ready = Ready(
                given.get("window_class", ready.window_class),
                given.get("window_title", ready.window_title),
                _argv(given["command"]) if "command" in given else ready.command,
                float(given.get("timeout", ready.timeout)),
            )
        cwd = base.cwd
        if "cwd" in data:
            cwd = (self.path.parent / data["cwd"]).resolve()
            if not cwd.is_dir():
                self._fail(where, "cwd", f"names {cwd}, which is not a folder")
        return AppSpec(
            command=_argv(data["command"]) if "command" in data else base.command,
            cwd=cwd,
            env=tuple(data["env"].items()) if "env" in data else base.env,
            setup=_argv(data["setup"]) if "setup" in data else base.setup,
            teardown=_argv(data["teardown"]) if "teardown" in data else base.teardown,
            ready=ready,
        )

    def _screen(self, data: dict[str, Any], where: tuple[Any, ...], base: ScreenSpec) -> ScreenSpec:
        self._table(data, SCREEN, where)
        size = parse_size(data["size"]) if "size" in data else base.size
        manager = data.get("window_manager")
        return ScreenSpec(
            size or base.size,
            data.get("depth", base.depth),
            _argv(manager) if manager is not None else base.window_manager,
            data.get("accessibility", base.accessibility),
        )

    def _verify(self, data: dict[str, Any], where: tuple[Any, ...], base: VerifySpec) -> VerifySpec:
        self._table(data, VERIFY, where)
        changes: dict[str, Any] = {
            k: (tuple(v) if k == "masks" else float(v)) for k, v in data.items()
        }
        return replace(base, **changes)

    def _table(self, data: Any, schema: dict[str, Check], where: tuple[Any, ...]) -> None:
        if not isinstance(data, dict):
            self._fail(where[:-1], str(where[-1]), "must be a table")
        for key, value in data.items():
            if key not in schema:
                known = ", ".join(schema)
                self._fail(where, key, f"is not a key here (known: {known})")
            if (need := schema[key](value)) is not None:
                self._fail(where, key, f"must be {need}")
        table = where[0] if where else None
        if len(where) <= 2:
            for key in REQUIRED.get(str(table), ()):
                if key not in data and (table != "suite" or where == ("suite",)):
                    self._fail(where, key, "is missing")

    # -- recordings --------------------------------------------------------------------

    def _named(self, tests: list[TestSpec]) -> list[TestSpec]:
        """Tests named by their recording, or by DB:NAME (the database's path from the
        suite's folder) where databases share a recording name."""
        counts: dict[str, int] = {}
        for test in tests:
            counts[test.recording] = counts.get(test.recording, 0) + 1
        out = []
        for test in tests:
            name = test.recording
            if counts[name] > 1:
                try:
                    where = test.database.relative_to(self.path.parent.resolve())
                except ValueError:
                    where = test.database
                name = f"{where}:{name}"
            out.append(replace(test, name=name))
        return out

    def _recordings(self, patterns: list[str], where: tuple[Any, ...]) -> list[tuple[Path, str]]:
        """(database, recording name) for each recording the patterns name."""
        from deskreel.storage import StorageError
        from deskreel.storage.peek import recording_names

        found: list[tuple[Path, str]] = []
        for pattern in patterns:
            db_part, _, name_part = pattern.partition(".db:")
            db_glob = db_part + ".db" if name_part or pattern.endswith(".db:") else pattern
            name_glob = name_part or "*"
            databases = sorted(Path(p) for p in glob.glob(str(self.path.parent / db_glob)))
            if not databases:
                self._fail(where[:-1], where[-1], f"names {db_glob}, and no such database exists")
            matched = False
            for db in databases:
                try:
                    names = recording_names(db)
                except StorageError as err:
                    self._fail(where[:-1], where[-1], f"names {db}, which cannot be read: {err}")
                for name in names:
                    if fnmatch.fnmatchcase(name, name_glob):
                        found.append((db.resolve(), name))
                        matched = True
            if not matched:
                self._fail(where[:-1], where[-1], f"has {pattern!r}, which names no recording")
        return found

    def _fail(self, where: tuple[Any, ...], key: str, what: str) -> NoReturn:
        shown = ""
        for part in (*where, key):  # test[2].app.command: arrays of tables count from 1
            shown += f"[{part + 1}]" if isinstance(part, int) else f"{'.' * bool(shown)}{part}"
        line = line_of(self.text, where, key)
        at = f" line {line}" if line else ""
        raise SuiteError(f"{self.path}{at}: {shown} {what}")


def _argv(value: str | list[str]) -> tuple[str, ...]:
    return tuple(shlex.split(value)) if isinstance(value, str) else tuple(value)

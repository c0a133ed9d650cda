"""The `deskreel` command line: one click group, every command returns an exit code.

Errors a user can hit end in one line on stderr and a documented exit code (see
`deskreel.errors`); only bugs print tracebacks.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import click
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from deskreel.storage.monitors import MONITORS, Layout
from deskreel.storage.values import NESTED, SHED
from deskreel.storage.widgets import ATSPI, Widget
from deskreel.storage import (
    Step,
    ActionError,
    KeyNameError,
    Script,
    ScriptError,
    StorageError,
    Store,
    open_store,
    parse_script,
)

from . import __version__
from deskreel.recorder.errors import RecordError
from deskreel.replayer.errors import ReplayError
from deskreel.xsession.display import DisplayError

from .errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UserError, exit_code
from .nested_cmd import nested_line
from .paths import FilePath
from .sizes import screen_size
from .table import format_bytes, format_duration, printable, render_table

# Each layer's own errors a user can hit (recorder and replayer: only their light modules)
USER_ERRORS: tuple[type[Exception], ...] = (
    UserError,
    StorageError,
    ScriptError,
    ActionError,
    KeyNameError,
    DisplayError,
    RecordError,
    ReplayError,
)

DB_HELP = "a deskreel database file (created if missing) or an SQLAlchemy URL"


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the group, turn user errors into one line and an exit code."""
    sys.exit(run(argv))


def run(argv: list[str] | None = None) -> int:
    try:
        code = cli.main(args=argv, prog_name="deskreel", standalone_mode=False)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as err:
        err.show()
        return EXIT_USAGE
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("deskreel: interrupted", err=True)
        return EXIT_INTERRUPTED
    except USER_ERRORS as err:
        click.echo(f"deskreel: {printable(str(err), lines=True)}", err=True)
        return exit_code(err)
    except SQLAlchemyError as err:  # a database that broke after it opened
        click.echo(f"deskreel: {printable(database_failure(err), lines=True)}", err=True)
        return EXIT_USAGE
    return code if isinstance(code, int) else EXIT_OK


def database_failure(err: SQLAlchemyError) -> str:
    """One line for a database error after opening, with the advice that fits its cause."""
    orig = getattr(err, "orig", None) if isinstance(err, DBAPIError) else None
    reason = " ".join(str(orig or err).split()) or type(err).__name__
    if isinstance(orig, sqlite3.Error):
        if "locked" in reason or "busy" in reason:
            return (
                f"database error: {reason}: another program is writing to the file; "
                f"try again when it is done"
            )
        if "readonly" in reason:
            return (
                f"database error: {reason}: this store was opened read-only, or the file "
                f"or its directory is not writable: check their permissions"
            )
        if isinstance(orig, sqlite3.DatabaseError) and not isinstance(
            orig, (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError)
        ):
            return f"database error: {reason}: run 'deskreel doctor' on the file"
        return f"database error: {reason}"
    if isinstance(err, DBAPIError) and (
        err.connection_invalidated
        or isinstance(orig, (ConnectionError, OSError))
        or type(orig).__name__ in ("OperationalError", "InterfaceError")
    ):
        server = getattr(err, "server", None)  # host:port/database, set by storage
        where = f"PostgreSQL at {server}" if server else "the database"
        return (
            f"database error: {reason}: the connection to {where} failed; "
            f"nothing of the interrupted transaction was stored: check the server and "
            f"run the command again"
        )
    return f"database error: {reason}"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="deskreel")
def cli() -> None:
    """Record and replay desktop automation on Linux/X11.

    Recordings are actions in the computer-use agents' vocabulary (key, type, left_click,
    left_click_drag, scroll, wait, screenshot...), with the screens around them.

    Exit codes: 0 success, 1 a step or verification failed, 2 bad input or usage,
    130 interrupted.
    """


def open_db(db: str, *, create: bool = False, readonly: bool = False, backup: bool = True) -> Store:
    """The store of a command: `readonly` for one that only reads, which never changes the
    database (an older file is read through an upgraded private copy); otherwise an older
    database is upgraded first, with one line saying so (see `tell_upgrade`)."""
    store = open_store(db, create=create, readonly=readonly, backup=backup)
    tell_upgrade(store)
    if store.read_only_medium and not readonly:
        click.echo(f"deskreel: {store.label} is on a read-only file system: read only", err=True)
    return store


def tell_upgrade(store: Store) -> None:
    """The one line a command that upgraded its database gives: from which schema to which,
    that older releases cannot read it now, and where the previous file is."""
    done = store.upgrade
    if done is None:
        return
    if done.backup is not None:
        kept = f"the schema-{done.old} file is kept as {done.backup}"
    elif store.path is not None:
        kept = "no backup was kept (--no-backup)"
    else:
        kept = "a server's database is not backed up by deskreel"
    click.echo(
        f"deskreel: upgraded {done.label} from schema {done.old} to {done.new}, which older "
        f"deskreel releases cannot read; {kept}",
        err=True,
    )


def no_backup_option(command: Callable[..., int]) -> Callable[..., int]:
    """`--no-backup`, for a command that writes to DB (and so upgrades an older one)."""
    return click.option(
        "--no-backup",
        is_flag=True,
        help="when DB is of an older schema and must be upgraded first, keep no copy of "
        "the previous file beside it (DB.schemaN.bak)",
    )(command)


@cli.command("list")
@click.argument("db")
def list_recordings(db: str) -> int:
    """List the recordings in DB."""
    with open_db(db, readonly=True) as store:
        recs = store.recordings()
    if not recs:
        click.echo(f"{store.label} holds no recordings yet", err=True)
        return EXIT_OK
    rows = [
        [
            str(r.id),
            r.name,
            r.created.strftime("%Y-%m-%d %H:%M"),
            r.source,
            str(r.steps),
            format_duration(r.duration),
            format_bytes(r.size),
        ]
        for r in recs
    ]
    click.echo(render_table(["id", "name", "created", "source", "steps", "duration", "size"], rows))
    return EXIT_OK


@cli.command("show")
@click.argument("db")
@click.option("-r", "--recording", "ref", help="recording id or name (default: the latest)")
def show(db: str, ref: str | None) -> int:
    """Show the steps of one recording as a table."""
    with open_db(db, readonly=True) as store:
        rec = store.recording(ref)
        steps = store.steps(rec.id)
        masks = store.masks(rec.id)
    screen = f"{rec.screen[0]}x{rec.screen[1]}" if rec.screen else "unknown screen"
    click.echo(
        f"recording {rec.id} {rec.name!r}: {rec.steps} steps, "
        f"{format_duration(rec.duration)}, {screen}, {rec.source}"
    )
    if rec.instruction is not None:
        click.echo(f"instruction: {printable(rec.instruction)}")
    layout = Layout.from_json(rec.extra.get(MONITORS)) if isinstance(rec.extra, dict) else None
    if layout is not None:
        click.echo(printable(layout.describe()))
    nested = nested_line(rec.extra.get(NESTED)) if isinstance(rec.extra, dict) else None
    if nested is not None:
        click.echo(printable(nested))
    shed = rec.extra.get(SHED) if isinstance(rec.extra, dict) else None
    counts = (
        {str(k): v for k, v in shed.items() if isinstance(v, int)} if isinstance(shed, dict) else {}
    )
    if counts:
        from .record_cmd import shed_line

        click.echo(printable(shed_line(counts)))
    rows = []
    for st in steps:
        body = st.action.to_json()
        body.pop("action")
        detail = " ".join(f"{k}={_short(v)}" for k, v in body.items())
        if st.note is not None:
            detail += f" note={_short(st.note)}"
        flags = "disabled" if st.disabled else ""
        rows.append(
            [
                str(st.step),
                f"{st.t_start:.2f}",
                st.action.action,
                detail,
                _short(st.window_title or ""),
                _object_cell(st.widget),
                flags,
            ]
        )
    click.echo(render_table(["step", "t", "action", "fields", "window", "object", ""], rows))
    for line in _told_lines(steps):
        click.echo(printable(line))
    for step in sorted(masks, key=lambda n: -1 if n is None else n):
        where = "every step" if step is None else f"step {step}"
        boxes = " ".join(",".join(map(str, box)) for box in masks[step])
        click.echo(f"masked for {where}: {boxes}")
    return EXIT_OK


@cli.command("import")
@click.argument("script", type=FilePath(dir_okay=False, path_type=Path))
@click.argument("db")
@click.option(
    "--name",
    help="name of the new recording (default: the name a dataset's lines give, else the "
    "script's file name)",
)
@click.option(
    "--screen",
    callback=screen_size,
    metavar="WxH",
    help="the screen the script was written for, such as 1280x800 (default: what its "
    "lines say, as an actions export's do)",
)
@no_backup_option
def import_script(
    script: Path, db: str, name: str | None, screen: tuple[int, int] | None, no_backup: bool
) -> int:
    """Import a hand-written SCRIPT (JSON array or JSON lines of actions) into DB."""
    text = _read_script(script)
    try:
        parsed = parse_script(text)
    except ScriptError as err:
        raise UserError(f"{script}: {err}") from None
    from deskreel.storage import Step, store_to_fill
    from deskreel.storage.recordings import checked_name

    name = checked_name(name or parsed.recording or script.stem)  # before anything is created
    screen = _script_screen(script, parsed, screen)
    with store_to_fill(db, backup=not no_backup) as store:  # a new file goes when it fails
        tell_upgrade(store)
        rec_id = store.create_recording(
            name, source="script", screen=screen, instruction=parsed.instruction
        )
        try:
            store.add_steps(
                rec_id,
                [
                    Step(step=i, action=s.action, t_start=s.t, t_end=s.t, note=s.note)
                    for i, s in enumerate(parsed, start=1)
                ],
            )
        except BaseException:
            store.delete_recording(rec_id)  # nothing half-written
            raise
    click.echo(
        f"imported {len(parsed)} steps from {script} into {store.label} as recording "
        f"{rec_id} {name!r}" + (f" ({screen[0]}x{screen[1]})" if screen else ""),
        err=True,
    )
    return EXIT_OK


def _script_screen(
    script: Path, parsed: Script, given: tuple[int, int] | None
) -> tuple[int, int] | None:
    """The screen a script is for: --screen, or what its lines say (both: the same); every
    coordinate must lie on it."""
    from deskreel.storage.edit import off_screen

    said = parsed.screen
    if given is not None and said is not None and given != said:
        raise UserError(
            f"{script} says its screen is {said[0]}x{said[1]}, --screen says "
            f"{given[0]}x{given[1]}: leave out --screen, or fix the script"
        )
    screen = given or said
    for number, st in enumerate(parsed, start=1):
        if why := off_screen(st.action, screen):
            raise UserError(f"{script}: step {number}: its {why}: fix the step or the screen size")
    return screen


def _read_script(script: Path) -> str:
    """A script's text (UTF-8, a byte-order mark allowed): a regular file of at most
    MAX_SCRIPT_BYTES (parsing one takes about nine times its size in memory). A FIFO or a
    device is refused before it is opened: reading one may never end."""
    from deskreel.storage.script import MAX_SCRIPT_BYTES

    try:  # opened without waiting for a writer, then asked what it is: no race with a FIFO
        fd = os.open(script, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise UserError(f"{script} is not a regular file: give a script file")
            data = f.read(MAX_SCRIPT_BYTES + 1)
    except OSError as err:
        raise UserError(f"cannot read script {script}: {err.strerror or err}") from None
    if len(data) > MAX_SCRIPT_BYTES:
        raise UserError(
            f"{script} is over {MAX_SCRIPT_BYTES >> 20} MB: split it into scripts of that "
            f"size at most"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UserError(
            f"cannot read script {script}: byte {err.start} is not UTF-8: save it as UTF-8"
        ) from None


def _told_lines(steps: Sequence[Step]) -> Iterator[str]:
    """For each step that changed what its window's objects tell, what it changed."""
    for st in steps:
        if changed := st.told.changes() if st.told is not None else []:
            said = "; ".join(f"{b.label}: {b.says()} -> {a.says()}" for b, a in changed)
            yield f"step {st.step} changed what its window's objects tell: {_short(said, 200)}"


def _object_cell(widget: Widget | None) -> str:
    """What a step was aimed at, as its source told it: the source, the object and its box,
    how it was tied to the press where not at rest on its point, and what it said of
    itself after the step where that is known."""
    if widget is None:
        return ""
    x, y, w, h = widget.box
    what = widget.label if widget.source == ATSPI else "/".join(str(i) for _, i in widget.path)
    how = f" ({widget.asked})" if widget.asked else ""
    after = f", after: {_short(widget.after.describe(), 32)}" if widget.after else ""
    return (
        f"{widget.source} {_short(what, 32)} of {_short(widget.app, 16)} {x},{y} {w}x{h}{how}"
        f"{after}"
    )


def _short(value: object, width: int = 40) -> str:
    text = (
        value if isinstance(value, str) else str(list(value) if isinstance(value, tuple) else value)
    )
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


from . import (  # noqa: E402,F401  (each module registers its commands)
    doctor_cmd,
    edit_cmd,
    export_cmd,
    fleet_cmd,
    record_cmd,
    reduce_cmd,
    replay_cmd,
    report_cmd,
    test_cmd,
)

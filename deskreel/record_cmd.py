"""`deskreel record`."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from .cli import cli, no_backup_option, open_db
from .errors import EXIT_OK, UserError
from .nested_cmd import DEFAULT_SIZE, NestedPlan, nested_options, nested_session

from deskreel.replayer.defaults import DEFAULT_TIMEOUT
from .table import format_bytes, format_duration, printable

from deskreel.storage.script import checked_text

if TYPE_CHECKING:
    from collections.abc import Callable

    from deskreel.recorder import Recorder, RecordOptions, RecordSummary
    from deskreel.recorder.privacy import DenyList
    from deskreel.xsession.nested import Nested


@cli.command("record")
@click.argument("db")
@click.option("--name", help="name of the recording (default: rec-DATE-TIME-HOST)")
@click.option(
    "--instruction",
    metavar="TEXT",
    help="the task being demonstrated, as exports carry it (deskreel edit changes it)",
)
@click.option(
    "--fps",
    type=click.FloatRange(0.5, 60),
    default=10.0,
    show_default=True,
    help="screen grabs per second (only changed frames are kept)",
)
@click.option("--no-frames", is_flag=True, help="record input only: no screen, no anchors")
@click.option(
    "--stop-key",
    default="ctrl+alt+End",
    show_default=True,
    help="chord that stops recording (SIGINT and SIGTERM stop it too)",
)
@click.option(
    "--pause-key",
    default="ctrl+alt+Home",
    show_default=True,
    help="chord that pauses and resumes recording; nothing is stored while paused",
)
@click.option(
    "--deny",
    multiple=True,
    metavar="class:GLOB|title:GLOB",
    help="also pause while a window matching this is active (repeatable); the "
    "defaults cover password prompts, keyrings and password managers",
)
@click.option("--no-default-deny", is_flag=True, help="do not use the default deny-list")
@click.option(
    "--redact-typing",
    is_flag=True,
    help="store typed text as {{secret:N}} placeholders, and no frames of typing; "
    "replay takes the values from $DESKREEL_SECRET_N",
)
@click.option("--display", help="X display (default: $DISPLAY)")
@click.option(
    "--force",
    is_flag=True,
    help="record on Xwayland anyway: what happens in Wayland windows is missed (the "
    "recording says so)",
)
@nested_options
@no_backup_option
def record(
    db: str,
    name: str | None,
    instruction: str | None,
    fps: float,
    no_frames: bool,
    stop_key: str,
    pause_key: str,
    deny: tuple[str, ...],
    no_default_deny: bool,
    redact_typing: bool,
    display: str | None,
    force: bool,
    nested: bool,
    size: tuple[int, int] | None,
    command: tuple[str, ...],
    no_backup: bool,
) -> int:
    """Record mouse, keyboard and screen into DB as vocabulary actions.

    The chords' own keystrokes are never recorded. Nothing is recorded while paused or
    while a deny-listed window is active. The database file is created private (0600).

    With --nested -- COMMAND (the way in from a Wayland desktop): Xephyr opens as a window
    of the display, COMMAND runs inside it, and what is done there is recorded; the
    recording ends with the stop chord, or when the application or Xephyr closes.
    """
    from deskreel.recorder import RecordOptions

    deny_list = _deny_list(deny, no_default_deny)
    options = RecordOptions(
        name=name,
        fps=fps,
        frames=not no_frames,
        stop_key=stop_key,
        pause_key=pause_key,
        deny=deny_list,
        redact_typing=redact_typing,
        instruction=checked_text(instruction, "--instruction"),
    )
    _check_chords(stop_key, pause_key)
    _check_writable(db)
    plan = NestedPlan.given(nested, size, command)
    if plan is None:
        # the display first: a missing one must not leave an empty database behind
        on_xwayland = _checked_display(display, force=force)
        _record(db, replace(options, xwayland=on_xwayland), display, no_backup)
    else:
        if force:
            raise UserError("--force does not apply with --nested: Xephyr is no Xwayland")
        if "://" in db or os.path.exists(db):
            with open_db(db, readonly=True):  # one it cannot record into: refused before
                pass  # any window opens
        with nested_session(
            plan, display, DEFAULT_SIZE, timeout=DEFAULT_TIMEOUT, quiet=False
        ) as session:
            _checked_display(session.display, force=False)
            options = replace(options, nested=session.note())
            _record(db, options, session.display, no_backup, session=session)
    return EXIT_OK


def _checked_display(display: str | None, *, force: bool) -> bool:
    """Whether `display` is Xwayland; refused unless `force`, and a display without
    RECORD and XTEST always."""
    from deskreel.xsession.display import connect, refuse_xwayland

    conn = connect(display, extensions=("RECORD", "XTEST"))
    try:
        return refuse_xwayland(conn, force=force)
    finally:
        conn.close()


def _record(
    db: str,
    options: RecordOptions,
    display: str | None,
    no_backup: bool,
    *,
    session: Nested | None = None,
) -> None:
    """Record into `db` until stopped (or, nested, until the application ends), and say
    what was recorded."""
    from deskreel.recorder import Recorder

    with open_db(db, create=True, backup=not no_backup) as store:
        where = store.label  # a URL's password stays out of every message
        is_file = store.path is not None
        recorder = Recorder(
            store,
            options=options,
            display=display,
            say=lambda message: click.echo(f"deskreel: {printable(message)}", err=True),
        )

        def started(name: str) -> None:
            click.echo(
                f"deskreel: recording into {where} as {name!r}; stop with {options.stop_key} "
                f"or Ctrl-C, pause and resume with {options.pause_key}",
                err=True,
            )

        ended = session.ended if session is not None else lambda: None
        summary, heard = _run_until_stopped(recorder, on_start=started, ended=ended)
    ended_by = heard[0] if summary.ended_by == "interrupt" and heard else summary.ended_by
    _summarize(replace(summary, ended_by=ended_by), recorder, where, db if is_file else None)


def _summarize(summary: RecordSummary, recorder: Recorder, where: str, file: str | None) -> None:
    """What was recorded, in a line or three."""
    size = f"; the database is now {format_bytes(_size(file))}" if file is not None else ""
    click.echo(
        f"Recorded {summary.name!r} (recording {summary.recording_id}) into {where}: "
        f"{summary.steps} steps from {summary.events} input events over "
        f"{format_duration(summary.duration)}, {summary.frames} frames "
        f"({format_bytes(summary.frame_bytes)}){size}. Ended by {summary.ended_by}.",
        err=True,
    )
    if summary.shed:
        click.echo(f"deskreel: {shed_line(summary.shed)}", err=True)
    aim = recorder.aim
    if aim.asked:
        click.echo(
            f"deskreel: the accessibility tree was asked {aim.asked} times what the pointer "
            f"was on, {1000 * aim.seconds / aim.asked:.0f} ms each on average",
            err=True,
        )
    told = recorder.told
    if told.asked:
        click.echo(
            f"deskreel: what the objects of the window under the pointer tell was read "
            f"{told.asked} times, {1000 * told.seconds / told.asked:.0f} ms each on average",
            err=True,
        )


def shed_line(shed: Mapping[str, int]) -> str:
    """What the recorder left out to keep up, in one line (record's summary, show)."""
    what = ", ".join(f"{kind} of {n} step{'s' * (n != 1)}" for kind, n in sorted(shed.items()))
    return f"left out to keep up: {what} (the steps and their frames are all there)"


def _deny_list(deny: tuple[str, ...], no_default_deny: bool) -> DenyList:
    """The defaults (unless refused) and the --deny patterns; a bad one ends here."""
    from deskreel.recorder.privacy import DEFAULT_DENY, DenyList

    try:
        return DenyList((DEFAULT_DENY if not no_default_deny else ()) + deny)
    except ValueError as err:
        raise UserError(f"--deny: {err}") from None


def _run_until_stopped(
    recorder: Recorder, *, on_start: Callable[[str], None], ended: Callable[[], str | None]
) -> tuple[RecordSummary, list[str]]:
    """Run the recorder until it ends, SIGINT or SIGTERM stops it, or `ended()` says why
    it must: its summary, and what stopped it ("interrupt", "SIGTERM", the application's
    exit). A signal while it finishes makes it hurry."""
    stop = threading.Event()
    heard: list[str] = []

    def on_signal(number: int, _frame: object) -> None:
        if recorder.finishing:  # stopped already: store what is left at once
            recorder.hurry()
            return
        heard.append("interrupt" if number == signal.SIGINT else "SIGTERM")
        stop.set()

    def should_stop() -> bool:
        if not stop.is_set() and (why := ended()) is not None:
            heard.append(why)
            stop.set()
        return stop.is_set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return recorder.run(should_stop, on_start=on_start), heard
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _check_chords(stop_key: str, pause_key: str) -> None:
    """Chords that could never fire, or that are one chord twice, end here with one line."""
    from deskreel.recorder.chords import ChordFilter

    for option, name, text in (
        ("--stop-key", "stop", stop_key),
        ("--pause-key", "pause", pause_key),
    ):
        try:
            ChordFilter({name: text})
        except ValueError as err:
            raise UserError(f"{option}: {err}") from None
    try:
        ChordFilter({"stop": stop_key, "pause": pause_key})
    except ValueError as err:
        raise UserError(f"--stop-key and --pause-key: {err}") from None


def _check_writable(db: str) -> None:
    if "://" in db:
        return
    path = os.path.abspath(db)
    target = path if os.path.exists(path) else os.path.dirname(path)
    if not os.path.isdir(target) and target != path:
        raise UserError(
            f"cannot create {db}: directory {target} does not exist; create it "
            f"or choose another place"
        )
    if not os.access(target, os.W_OK):
        raise UserError(f"cannot write {db}: permission denied; choose a writable place")


def _size(db: str) -> int:
    return sum(os.path.getsize(db + extra) for extra in ("", "-wal") if os.path.exists(db + extra))

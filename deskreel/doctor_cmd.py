"""`deskreel doctor` and `deskreel redact`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .cli import cli, no_backup_option, open_db
from .errors import EXIT_FAILED, EXIT_OK, UserError
from .table import printable

if TYPE_CHECKING:
    from deskreel.storage import Store
    from deskreel.storage.health import Health


@cli.command("doctor")
@click.argument("db", required=False)
@click.option(
    "--repair",
    is_flag=True,
    help="reduce raw events a killed recorder left behind into steps, and delete "
    "frames and anchors that nothing refers to",
)
@click.option(
    "--force",
    is_flag=True,
    help="with --repair: also repair recordings and runs that another program "
    "may still be writing (when you know their recorder or replay was killed)",
)
@click.option(
    "--upgrade",
    is_flag=True,
    help="bring DB to this deskreel's schema now (any command that writes to DB does so "
    "first; older deskreel releases then cannot read it)",
)
@no_backup_option
def doctor(db: str | None, repair: bool, force: bool, upgrade: bool, no_backup: bool) -> int:
    """Check a database: integrity, schema version, orphaned frames and anchors, and
    recordings whose last events never became steps. Exit 0 when healthy, 1 when not.

    Without DB, check this display instead: the X extensions recording and replay need,
    and whether its applications publish their widgets (AT-SPI).

    While another program has DB open, recordings written in the last 10 minutes and
    unfinished runs may still be being written: they are noted, not counted as problems,
    and --repair leaves them (and frames that nothing uses yet) alone.

    Without --repair or --upgrade, DB is only read: one of an older schema is checked
    through an upgraded private copy, and stays as it is.
    """
    from deskreel.storage.health import examine

    if db is None:
        if repair or force or upgrade or no_backup:
            raise UserError(
                "--repair, --force, --upgrade and --no-backup change a database: give its path"
            )
        return _display()
    if force and not repair:
        raise UserError("--force only changes what --repair does: give both")
    if no_backup and not (repair or upgrade):
        raise UserError("--no-backup only applies with --repair or --upgrade: add one or drop it")
    with open_db(db, readonly=not (repair or upgrade), backup=not no_backup) as store:
        health = examine(store)
        if repair and health.integrity == "ok":
            _repair(store, health, force=force)
            health = examine(store)
    problems = health.problems
    schema = store.older_schema or health.schema_version
    summary = (
        f"schema {schema}, {health.recordings} recordings, {health.frames} frames"
        if health.integrity == "ok"
        else "not read further: restore a backup, or try the sqlite3 shell's .recover"
    )
    notes = health.notes
    if store.older_schema is not None:
        notes.insert(0, _older_note(store.label, store.older_schema, health.schema_version))
    for note in notes:
        click.echo(f"  note: {printable(note)}")
    if not problems:
        click.echo(f"{store.label}: healthy ({summary})")
        return EXIT_OK
    for problem in problems:
        click.echo(f"  - {printable(problem)}")
    hint = (
        ""
        if repair or health.integrity != "ok"
        else "; 'deskreel doctor --repair' fixes what it can"
    )
    click.echo(f"{store.label}: {len(problems)} problem(s) ({summary}){hint}")
    return EXIT_FAILED


def _older_note(label: str, old: int, new: int) -> str:
    return (
        f"schema {old} is older than this deskreel's ({new}): checked through an upgraded "
        f"copy, the file unchanged; the first command that writes to it upgrades it (or "
        f"'deskreel doctor --upgrade {label}'), and older releases cannot read it then"
    )


def _display() -> int:
    """`deskreel doctor` with no database: what this display offers."""
    from deskreel.xsession.display import connect, refuse_xwayland
    from deskreel.xsession.sources import accessibility_line

    conn = connect(None, extensions=("RECORD", "XTEST"))
    try:
        refuse_xwayland(conn, force=False)
        click.echo(f"display {conn.get_display_name()}: RECORD and XTEST present")
        _, line = accessibility_line(conn)
        click.echo(line)
    finally:
        conn.close()
    return EXIT_OK


def _repair(store: Store, health: Health, *, force: bool) -> None:
    """Recover tails and delete orphans; what may still be being written only if forced."""
    from deskreel.recorder.privacy import reduce_redacted
    from deskreel.storage.health import recover_tail, remove_orphans

    for tail in health.tails:
        if tail.live and not force:
            click.echo(
                f"recording {tail.recording_id} {tail.name!r}: left alone: it was "
                f"written {health.writing[tail.recording_id]:.0f} s ago and another "
                f"program has {store.label} open, so its recorder may still be "
                f"running; add --force if that recorder was killed",
                err=True,
            )
            continue
        added = recover_tail(store, tail, reduce=reduce_redacted)
        click.echo(
            f"recording {tail.recording_id} {tail.name!r}: {added} steps "
            f"recovered from its raw events",
            err=True,
        )
    keep_frames = health.busy and not force
    frames, anchors = remove_orphans(store, health, keep_frames=keep_frames)
    if keep_frames and health.orphan_frames:
        click.echo(
            f"kept {len(health.orphan_frames)} frames that no step or run uses yet, "
            f"as {health.busy_names} may still be being written: add --force to "
            f"delete them anyway",
            err=True,
        )
    if frames or anchors:
        click.echo(f"deleted {frames} orphaned frames and {anchors} orphaned anchors", err=True)


@cli.command("redact")
@click.argument("db")
@click.option("-r", "--recording", "ref", required=True, help="recording id or name")
@click.option(
    "--step",
    "steps",
    type=int,
    multiple=True,
    required=True,
    help="step whose typed text, raw key events and frames are removed (repeatable)",
)
@no_backup_option
def redact(db: str, ref: str, steps: tuple[int, ...], no_backup: bool) -> int:
    """Remove what a step typed: its text becomes {{secret:N}}, its frames and key events go."""
    from deskreel.storage.redaction import redact_steps

    from deskreel.xsession.hiding import hide_in_stored_frames

    with open_db(db, backup=not no_backup) as store:
        rec = store.recording(ref)
        known = {s.step for s in store.steps(rec.id)}
        unknown = [n for n in steps if n not in known]
        if unknown:
            raise UserError(
                f"recording {rec.name!r} has no step {unknown[0]}: see "
                f"'deskreel show {store.label} -r {rec.id}'"
            )
        redacted = redact_steps(store, rec.id, list(steps), hide=hide_in_stored_frames)
    click.echo(f"redacted {redacted} step(s) of {rec.name!r}", err=True)
    return EXIT_OK

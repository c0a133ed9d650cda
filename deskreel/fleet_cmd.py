"""`deskreel push` and `deskreel pull`: recordings between a machine's file and a shared store."""

from __future__ import annotations

import time

import click

from deskreel.storage import Copied, Store, copy_recording, store_to_fill

from .cli import cli, no_backup_option, open_db, tell_upgrade
from .errors import EXIT_OK, EXIT_USAGE, UserError
from .table import format_bytes, format_duration

REF_HELP = "recording id or name; repeat for more"


@cli.command("push")
@click.argument("db")
@click.argument("url")
@click.option("-r", "--recording", "refs", multiple=True, help=f"{REF_HELP} (default: the latest)")
@click.option("--all", "every", is_flag=True, help="every recording in DB")
@no_backup_option
def push(db: str, url: str, refs: tuple[str, ...], every: bool, no_backup: bool) -> int:
    """Copy recordings from DB to the shared store URL (postgresql://USER@HOST/DATABASE).

    Each recording travels whole, in one transaction: raw events, steps, frames, anchors,
    masks, runs and step results. One that URL holds already is left as it is, so pushing
    again is safe; one whose name another recording there has gets a free name (NAME-2).
    One edited or redacted since it was pushed is not pushed over its shared copy: the
    command says what to do instead and exits 2.
    Give the password in $PGPASSWORD or ~/.pgpass rather than in the URL.
    """
    if refs and every:
        raise UserError("give -r or --all, not both")
    # DB is opened to write: a recording from before schema 3 is given its uid for good
    with open_db(db, backup=not no_backup) as source, open_db(url, create=True) as target:
        chosen: list[str | int | None] = (
            list(source.recording_ids()) if every else list(refs) or [None]
        )
        if not chosen:
            click.echo(f"{source.label} holds no recordings to push", err=True)
            return EXIT_OK
        return _copy_all(source, target, chosen, verb="pushed")


@cli.command("pull")
@click.argument("url")
@click.argument("db")
@click.option("-r", "--recording", "refs", multiple=True, required=True, help=REF_HELP)
@no_backup_option
def pull(url: str, db: str, refs: tuple[str, ...], no_backup: bool) -> int:
    """Copy recordings from the shared store URL into DB (created if missing), to replay
    them offline. Pulling what DB holds already changes nothing."""
    with open_db(url) as source, store_to_fill(db, backup=not no_backup) as target:
        tell_upgrade(target)
        return _copy_all(source, target, list(refs), verb="pulled")


def _copy_all(source: Store, target: Store, refs: list[str | int | None], *, verb: str) -> int:
    """Copy each recording in its own transaction; one line per recording, then a total."""
    started = time.monotonic()
    done: list[Copied] = []
    for ref in refs:  # a database error ends the command (see cli.run); those done stay done
        copied = copy_recording(source, target, ref)
        done.append(copied)
        click.echo(_line(copied, verb, source, target), err=True)
    differ = sum(c.differs for c in done)
    if len(done) > 1:
        sent = sum(c.bytes for c in done)
        new = sum(c.copied for c in done)
        changed = f", {differ} of them changed since" if differ else ""
        click.echo(
            f"{verb} {new} of {len(done)} recordings ({len(done) - new} were there "
            f"already{changed}): {format_bytes(sent)} in "
            f"{format_duration(time.monotonic() - started)}",
            err=True,
        )
    return EXIT_USAGE if differ else EXIT_OK


def _line(c: Copied, verb: str, source: Store, target: Store) -> str:
    what = f"recording {c.source_id} {c.name!r}"
    there = f"recording {c.target_id} {c.target_name!r}"
    if c.differs:
        return _changed_line(c, verb, source, target)
    if not c.copied:
        return f"{target.label} holds {what} already (as {there}): nothing to do"
    line = (
        f"{verb} {what} from {source.label} to {target.label} as {there}: "
        f"{c.frames} new frames, {format_bytes(c.bytes)}"
    )
    if c.renamed:
        line += f"; renamed because {target.label} holds another recording named {c.name!r}"
    return line


def _changed_line(c: Copied, verb: str, source: Store, target: Store) -> str:
    """A recording whose copy in the target has other steps or events than the source's."""
    what = f"recording {c.source_id} {c.name!r}"
    there = f"recording {c.target_id} {c.target_name!r}"
    line = (
        f"deskreel: {target.label} holds {what} from an earlier {verb[:-2]} (as {there}), "
        f"but one of the two was edited or redacted since: nothing was {verb}"
    )
    if c.redacted:
        steps = " ".join(f"--step {n}" for n in c.redacted)
        return (
            f"{line}; its copy there still holds what steps "
            f"{', '.join(map(str, c.redacted))} typed: redact them there too "
            f"(deskreel redact {target.label} -r {c.target_id} {steps})"
        )
    return (
        f"{line}; to share this version, make it a recording of its own (deskreel edit "
        f"{source.label} -r {c.source_id} --copy-to NEW-NAME) and {verb[:-2]} that"
    )

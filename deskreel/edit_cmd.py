"""`deskreel edit`: clean one recording before it becomes data or a regression script; and
`deskreel mask`: a region of it that verification never compares."""

from __future__ import annotations

import json
import math
import re

import click

from deskreel.storage import Action, ActionError, EditSummary, RecordingEdit, edit_recording
from deskreel.storage.script import ScriptError, load_json

from .cli import cli, no_backup_option, open_db
from .errors import EXIT_OK, UserError
from .replay_cmd import parse_box

MAX_RANGE = 100_000  # steps in one range; more is a typo, not a recording


@cli.command("edit")
@click.argument("db")
@click.option("-r", "--recording", "ref", required=True, help="recording id or name")
@click.option("--drop", multiple=True, metavar="STEPS", help="remove steps: 3, 3,5 or 9-12")
@click.option(
    "--disable",
    multiple=True,
    metavar="STEPS",
    help="keep steps but skip them in replay and export",
)
@click.option("--enable", multiple=True, metavar="STEPS", help="undo --disable")
@click.option(
    "--insert-after",
    nargs=2,
    multiple=True,
    metavar="STEP JSON",
    help="insert an action object after STEP (0: before the first), at that "
    "step's end time; its coordinates must be on the recording's screen",
)
@click.option(
    "--trim-start",
    type=float,
    metavar="SECONDS",
    help="drop steps starting before SECONDS; the first left then starts at 0",
)
@click.option(
    "--trim-end",
    type=float,
    metavar="SECONDS",
    help="drop steps starting in the last SECONDS of the recording",
)
@click.option("--rename", metavar="NAME", help="give the recording a new name")
@click.option(
    "--instruction",
    metavar="TEXT",
    help="the task the recording demonstrates, as exports carry it ('' removes it)",
)
@click.option(
    "--note",
    nargs=2,
    multiple=True,
    metavar="STEP TEXT",
    help="a note on STEP, such as the person's reasoning ('' removes it)",
)
@click.option(
    "--copy-to",
    metavar="NAME",
    help="leave the recording as it is: copy it as NAME and edit the copy",
)
@no_backup_option
def edit(
    db: str,
    ref: str,
    drop: tuple[str, ...],
    disable: tuple[str, ...],
    enable: tuple[str, ...],
    insert_after: tuple[tuple[str, str], ...],
    trim_start: float | None,
    trim_end: float | None,
    rename: str | None,
    instruction: str | None,
    note: tuple[tuple[str, str], ...],
    copy_to: str | None,
    no_backup: bool,
) -> int:
    """Change one recording in one transaction; steps are then renumbered 1..n.

    STEPS are the numbers 'deskreel show' lists, before the edit. Frames, anchors and the
    results of past runs stay with their steps. Nothing changes when any part of the edit
    is wrong. DB is a deskreel database file or an SQLAlchemy URL.
    """
    if rename is not None and copy_to is not None:
        raise UserError("give --rename or --copy-to, not both: --copy-to names the copy")
    changes = RecordingEdit(
        drop=_steps("--drop", drop),
        disable=_steps("--disable", disable),
        enable=_steps("--enable", enable),
        insert_after=_inserts(insert_after),
        trim_start=_seconds("--trim-start", trim_start),
        trim_end=_seconds("--trim-end", trim_end),
        rename=rename,
        instruction=instruction,
        notes=_notes(note),
    )
    if changes == RecordingEdit() and copy_to is None:
        raise UserError(
            "nothing to do: give --drop, --disable, --enable, --insert-after, "
            "--trim-start, --trim-end, --rename, --instruction, --note or --copy-to"
        )
    with open_db(db, backup=not no_backup) as store:
        source = store.recording(ref)
        summary = edit_recording(store, source.id, changes, copy_to=copy_to)
    what = (
        f"copied recording {source.id} {source.name!r} to {summary.recording_id} {summary.name!r}"
        if copy_to is not None
        else f"edited recording {summary.recording_id} {summary.name!r}"
    )
    click.echo(f"{what}: {_done(summary)}; it now has {summary.steps} steps", err=True)
    return EXIT_OK


@cli.command("mask")
@click.argument("db")
@click.argument("region", metavar="X,Y,W,H")
@click.option("-r", "--recording", "ref", help="recording id or name (default: the latest)")
@click.option("--step", type=int, help="mask for this step only (default: every step)")
@no_backup_option
def mask(db: str, region: str, ref: str | None, step: int | None, no_backup: bool) -> int:
    """Store a region that `replay --verify` never compares (a clock, a blinking cursor).

    X,Y,W,H are in the recording's screen coordinates (those of `deskreel show`).
    """
    box = parse_box(region)
    with open_db(db, backup=not no_backup) as store:
        rec = store.recording(ref)
        if step is not None and step not in {s.step for s in store.steps(rec.id)}:
            raise UserError(
                f"recording {rec.name!r} has no step {step}: see "
                f"'deskreel show {store.label} -r {rec.id}'"
            )
        store.add_mask(rec.id, box, step=step)
    where = f"step {step}" if step is not None else "every step"
    click.echo(f"masked {list(box)} for {where} of {rec.name!r}", err=True)
    return EXIT_OK


def parse_steps(text: str) -> frozenset[int]:
    """`3`, `3,5,9-12` as step numbers; ValueError says what is wrong."""
    steps: set[int] = set()
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if match is None:
            raise ValueError(f"{part.strip()!r} is not a step or a range (write 3, 3,5 or 9-12)")
        first, last = int(match[1]), int(match[2] or match[1])
        if first < 1:
            raise ValueError("steps are numbered from 1")
        if last < first:
            raise ValueError(f"the range {first}-{last} runs backwards (write {last}-{first})")
        if last - first >= MAX_RANGE:
            raise ValueError(f"the range {first}-{last} is longer than {MAX_RANGE} steps")
        steps.update(range(first, last + 1))
    return frozenset(steps)


def _steps(option: str, values: tuple[str, ...]) -> frozenset[int]:
    steps: frozenset[int] = frozenset()
    for value in values:
        try:
            steps |= parse_steps(value)
        except ValueError as err:
            raise UserError(f"{option} {value!r}: {err}") from None
    return steps


def _notes(values: tuple[tuple[str, str], ...]) -> tuple[tuple[int, str], ...]:
    out = []
    for step, text in values:
        if not _number(step) or int(step) < 1:
            raise UserError(f"--note {step!r}: not a step number (steps are numbered from 1)")
        out.append((int(step), text))
    return tuple(out)


def _inserts(values: tuple[tuple[str, str], ...]) -> tuple[tuple[int, Action], ...]:
    out = []
    for step, text in values:
        where = f"--insert-after {step}"
        if not _number(step):
            raise UserError(
                f"{where}: {step!r} is not a step number (0 inserts before the first step)"
            )
        try:
            action = Action.from_json(load_json(text))
        except ScriptError as err:
            raise UserError(f"{where}: {err}") from None
        except RecursionError:
            raise UserError(
                f"{where}: the JSON is nested too deeply: give one action object"
            ) from None
        except json.JSONDecodeError as err:
            raise UserError(
                f"{where}: not valid JSON ({err.msg}, column {err.colno}): write "
                f'one action object such as \'{{"action": "wait", '
                f'"duration": 1}}\''
            ) from None
        except ActionError as err:
            raise UserError(f"{where}: {err}") from None
        out.append((int(step), action))
    return tuple(out)


def _number(text: str) -> bool:
    return re.fullmatch(r"\s*\d+\s*", text, re.ASCII) is not None


def _seconds(option: str, value: float | None) -> float | None:
    if value is not None and (not math.isfinite(value) or value < 0):
        raise UserError(f"{option} must be zero or more seconds, got {value:g}")
    return value


def _done(summary: EditSummary) -> str:
    parts = [
        f"{n} {verb}"
        for n, verb in (
            (summary.dropped, "dropped"),
            (summary.disabled, "disabled"),
            (summary.enabled, "enabled"),
            (summary.inserted, "inserted"),
            (summary.noted, "noted"),
        )
        if n
    ]
    if summary.shift:
        parts.append(f"moved {summary.shift:.3g}s earlier")
    if summary.instruction is not None:
        parts.append("instruction " + ("set" if summary.instruction else "removed"))
    return ", ".join(parts) or "no step changed"

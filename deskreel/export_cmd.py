"""`deskreel export`: a recording as JSON lines, or recordings as a dataset directory."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from deskreel.storage import Recording, Script, ScriptStep, Store, script_lines

from .cli import cli, open_db
from .errors import EXIT_OK, UserError
from .export import (
    COORDS,
    FORMATS,
    TOOL_VERSIONS,
    Dialect,
    ExportOptions,
    Summary,
    dialect_for,
    enabled_actions,
    off_screen_step,
    write_dataset,
)
from .paths import FilePath
from .sizes import screen_size
from .report.writable import LINES_MARK, check_replaceable
from .table import json_shown, printable
from deskreel.xsession.files import write_private


@cli.command("export")
@click.argument("db")
@click.option("-r", "--recording", "ref", help="recording id or name (default: the latest)")
@click.option("--all", "every", is_flag=True, help="export every recording in DB")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="actions",
    show_default=True,
    help="the dialect of the actions",
)
@click.option(
    "--tool-version",
    type=click.Choice(TOOL_VERSIONS),
    help="with --format anthropic: the computer tool version (default: computer_20250124)",
)
@click.option(
    "--coords",
    type=click.Choice(COORDS),
    help="with --format pyautogui: pixels (default), or fractions of the screen as "
    "OpenCUA writes them",
)
@click.option(
    "--out",
    type=FilePath(path_type=Path),
    help="dataset directory; with --format actions, a .jsonl file or nothing "
    "(standard output) writes the plain JSON lines",
)
@click.option(
    "--scale-to",
    callback=screen_size,
    metavar="WxH",
    help="resize frames and scale coordinates to this screen, such as 1280x800",
)
@click.option("--with-after", is_flag=True, help="add each step's after-frame (image_after)")
@click.option(
    "--force", is_flag=True, help="replace a previous export, or a file deskreel did not write"
)
def export(
    db: str,
    ref: str | None,
    every: bool,
    fmt: str,
    tool_version: str | None,
    coords: str | None,
    out: Path | None,
    scale_to: tuple[int, int] | None,
    with_after: bool,
    force: bool,
) -> int:
    """Export recordings for agents: trajectories in a dialect, paired with the screens.

    A dataset directory holds metadata.jsonl (every recording's lines), frames/<hash>.png
    and a README.md dataset card; Hugging Face datasets loads it as is, with the frames as
    images. Each line pairs the screen before a step with its action.
    Actions a dialect cannot express are reported here and in the card, and their
    line's action is null. DB is a deskreel database file or an SQLAlchemy URL.
    """
    if ref is not None and every:
        raise UserError("give -r/--recording or --all, not both")
    try:
        dialect = dialect_for(fmt, tool_version=tool_version, coords=coords)
    except ValueError as err:
        raise UserError(str(err)) from None
    if out is None or out.suffix.lower() == ".jsonl":
        if fmt != "actions":
            raise UserError(
                f"--format {fmt} writes a dataset directory (trajectories, "
                f"frames, README.md): give it with --out DIR"
            )
        return _plain_lines(db, ref, every, out, scale_to, with_after, force)
    options = ExportOptions(scale_to=scale_to, with_after=with_after, force=force)
    with open_db(db, readonly=True) as store:
        recordings = store.recordings() if every else [store.recording(ref)]
        if every and not recordings:
            raise UserError(f"{store.label} holds no recordings to export")
        summary = _write(store, recordings, out, dialect, options, progress=every)
    _tell(summary, out)
    return EXIT_OK


def _write(
    store: Store,
    recordings: list[Recording],
    out: Path,
    dialect: Dialect,
    options: ExportOptions,
    *,
    progress: bool,
) -> Summary:
    if not progress:
        return write_dataset(store, recordings, out, dialect, options=options)
    with click.progressbar(
        length=len(recordings), label="exporting", file=sys.stderr, item_show_func=lambda r: r
    ) as bar:

        def done(rec: Recording) -> None:
            bar.update(1, rec.name)

        return write_dataset(store, recordings, out, dialect, options=options, each=done)


def _tell(summary: Summary, out: Path) -> None:
    steps = sum(e.lines for e in summary.recordings)
    n = len(summary.recordings)
    click.echo(
        f"wrote {n} recording{'s' * (n != 1)} ({steps} lines, {summary.frames} frames) "
        f"as {summary.dialect.name} to {out}/",
        err=True,
    )
    for line in summary.report.lines(summary.dialect.name):
        click.echo(f"deskreel: {printable(line)}", err=True)


def _plain_lines(
    db: str,
    ref: str | None,
    every: bool,
    out: Path | None,
    scale_to: tuple[int, int] | None,
    with_after: bool,
    force: bool,
) -> int:
    """The actions as `deskreel import` reads them back: one object per step, with step and t."""
    if every:
        raise UserError(
            "--all writes a dataset directory: give --out DIR (one metadata.jsonl for all)"
        )
    if with_after:
        raise UserError("--with-after pairs frames: give --out DIR for a dataset directory")
    if out is not None:
        check_replaceable(out, mark=LINES_MARK, what="actions export of deskreel's", force=force)
    with open_db(db, readonly=True) as store:
        rec = store.recording(ref)
        every_step = store.steps(rec.id)
        steps, actions = enabled_actions(rec, every_step, scale_to=scale_to)
    if scale_to is not None:
        for st in steps:
            if off := off_screen_step(rec, st):
                raise UserError(
                    f"step {st.step} cannot be scaled: {off}; fix it with "
                    f"'deskreel edit' or export without --scale-to"
                )
    script = Script(
        tuple(
            ScriptStep(action, st.t_start, st.note)
            for st, action in zip(steps, actions, strict=True)
        ),
        screen=scale_to or rec.screen,
        instruction=rec.instruction,
    )
    text = script_lines(script)
    if out is None:
        click.echo(json_shown(text), nl=False)
    else:
        try:
            write_private(out, text.encode("utf-8"))
        except OSError as err:
            raise UserError(
                f"cannot write {out} ({err.strerror}): choose a writable place"
            ) from None
        click.echo(f"wrote {len(steps)} steps to {out}", err=True)
    if left_out := len(every_step) - len(steps):
        click.echo(
            f"deskreel: {left_out} disabled step{'s' * (left_out != 1)} left out "
            f"(deskreel edit --enable puts them back)",
            err=True,
        )
    return EXIT_OK

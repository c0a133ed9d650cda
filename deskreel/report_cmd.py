"""`deskreel report` (a static HTML page, and JUnit XML) and `deskreel runs`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from deskreel.storage import Evidence, Recording, Run, StepResult, Store

from .cli import cli, open_db
from .errors import EXIT_OK, UserError
from .paths import FilePath
from .table import format_duration, render_table


@cli.command("report")
@click.argument("sources", nargs=-1, required=True, metavar="DB | --merge DIR...")
@click.option(
    "--merge",
    is_flag=True,
    help="merge the report folders of `deskreel test` runs (the shards of a suite) into OUT",
)
@click.option(
    "-r", "--recording", "ref", help="recording id or name (default: the latest, or the run's)"
)
@click.option("--run", "run_id", type=int, help="show this run's results (see 'deskreel runs')")
@click.option("--last-run", is_flag=True, help="show the recording's latest run")
@click.option(
    "--out",
    required=True,
    type=FilePath(file_okay=False, path_type=Path),
    help="directory for index.html and img/ (created private, mode 0700)",
)
@click.option(
    "--junit",
    type=FilePath(dir_okay=False, path_type=Path),
    help="also write the run's JUnit XML to this file (mode 0600)",
)
@click.option(
    "--force", is_flag=True, help="let --junit replace a file that deskreel did not write"
)
def report(
    sources: tuple[str, ...],
    merge: bool,
    ref: str | None,
    run_id: int | None,
    last_run: bool,
    out: Path,
    junit: Path | None,
    force: bool,
) -> int:
    """Write a static HTML report of a recording, or of one of its runs, into OUT.

    The page needs no network and runs no scripts: open OUT/index.html in a browser or
    keep the directory as a CI artifact. Without --run or --last-run it shows the
    recording alone: its steps, frames, anchors and windows. With --merge, SOURCES are
    the report folders of `deskreel test` runs (a suite's shards), merged into OUT.
    """
    from .report import write_junit, write_report
    from .report.writable import JUNIT_MARK, check_replaceable, check_writable

    if merge:
        if ref is not None or run_id is not None or last_run:
            raise UserError("--merge takes report folders and --out (and --junit), nothing else")
        return _merge(sources, out, junit, force=force)
    if len(sources) != 1:
        raise UserError("give one DB (or --merge and the report folders of `deskreel test`)")
    (db,) = sources
    if run_id is not None and last_run:
        raise UserError("give --run ID or --last-run, not both")
    if junit is not None and run_id is None and not last_run:
        raise UserError("--junit needs a run: add --run ID or --last-run")
    if force and junit is None:
        raise UserError("--force only lets --junit replace a file: give --junit FILE")
    if junit is not None:  # before the HTML: a bad --junit leaves nothing behind
        check_replaceable(junit, mark=JUNIT_MARK, what="JUnit file of deskreel's", force=force)
        check_writable(junit)
    with open_db(db, readonly=True) as store:
        rec, run = _pick(store, ref, run_id, last_run)
        steps = store.steps(rec.id)
        results = store.step_results(run.id) if run is not None else []
        index = write_report(store, rec, out, run=run, steps=steps, results=results)
    if junit is not None and run is not None:
        try:
            write_junit(junit, rec, run, steps, results)
        except OSError as err:
            raise UserError(
                f"cannot write {junit} ({err.strerror}): choose a writable file"
            ) from None
    what = f"run {run.id} ({run.status})" if run else "the recording"
    click.echo(
        f"wrote the report of {rec.name!r}, {what}, to {index}"
        + (f" and JUnit XML to {junit}" if junit else ""),
        err=True,
    )
    return EXIT_OK


@cli.command("runs")
@click.argument("db")
@click.option("-r", "--recording", "ref", help="only this recording's runs (id or name)")
@click.option("--run", "run_id", type=int, help="this run's steps: verdict, rung and message")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="JSON lines instead of a table: a run each, or with --run a step each, with all its "
    "evidence (the ladder's trail, --verify's checks)",
)
def runs(db: str, ref: str | None, run_id: int | None, as_json: bool) -> int:
    """List the past replays and verifications in DB, with their verdicts; with --run, one
    run's steps."""
    with open_db(db, readonly=True) as store:
        if run_id is not None:
            _, run = _pick(store, ref, run_id, False)
            assert run is not None  # _pick names the run given by id, or refuses
            _echo_steps(store.step_results(run.id), as_json)
            return EXIT_OK
        if ref is not None:
            rec = store.recording(ref)
            found, names = store.runs(rec.id), {rec.id: rec.name}
        else:
            found = store.runs()
            names = {r.id: r.name for r in store.recordings()} if found else {}
    if as_json:
        for r in found:
            click.echo(json.dumps(_run_json(r, names.get(r.recording_id))))
        return EXIT_OK
    if not found:
        click.echo(
            f"{store.label} holds no runs yet: replay a recording with 'deskreel replay'", err=True
        )
        return EXIT_OK
    rows = [
        [
            str(r.id),
            names.get(r.recording_id, str(r.recording_id)),
            r.started.strftime("%Y-%m-%d %H:%M:%S"),
            r.mode,
            r.status,
            str(r.steps_passed),
            str(r.steps_failed),
            _duration(r),
        ]
        for r in found
    ]
    click.echo(
        render_table(
            ["run", "recording", "started", "mode", "status", "passed", "failed", "duration"], rows
        )
    )
    return EXIT_OK


def _run_json(run: Run, name: str | None) -> dict[str, Any]:
    return {
        "run": run.id,
        "recording": name,
        "recording_id": run.recording_id,
        "started": run.started.isoformat(),
        "ended": run.ended.isoformat() if run.ended is not None else None,
        "mode": run.mode,
        "status": run.status,
        "passed": run.steps_passed,
        "failed": run.steps_failed,
    }


def _echo_steps(results: list[StepResult], as_json: bool) -> None:
    """One run's steps: a JSON line each (every field, the evidence whole), or a table."""
    if as_json:
        for r in results:
            click.echo(json.dumps(asdict(r)))
        return
    rows = [
        [
            str(r.step),
            r.status,
            str(r.details.get(Evidence.RUNG, "")),
            "" if r.score is None else f"{r.score:.3f}",
            "" if r.scale is None else f"{r.scale:.2f}",
            r.message,
        ]
        for r in results
    ]
    click.echo(render_table(["step", "status", "rung", "score", "scale", "message"], rows))


def _merge(sources: tuple[str, ...], out: Path, junit: Path | None, *, force: bool) -> int:
    from .report.writable import JUNIT_MARK, check_replaceable
    from .suite.report import merge

    folders = [Path(s) for s in sources]
    if any(out.resolve() == f.resolve() for f in folders):
        raise UserError(f"--out {out} is one of the folders merged: give a new folder")
    if junit is not None:
        check_replaceable(junit, mark=JUNIT_MARK, what="JUnit file of deskreel's", force=force)
    results = merge(folders, out, allow_flaky=False, junit=junit)
    said = results.tally()
    click.echo(
        f"merged {len(folders)} reports: {len(results.outcomes)} tests ({said}) into "
        f"{out}/index.html",
        err=True,
    )
    return EXIT_OK


def _pick(
    store: Store, ref: str | None, run_id: int | None, last_run: bool
) -> tuple[Recording, Run | None]:
    """The recording and run the options name; a run given by id names its recording."""
    if run_id is None:
        rec = store.recording(ref)
        if not last_run:
            return rec, None
        past = store.runs(rec.id)
        if not past:
            raise UserError(
                f"recording {rec.name!r} has no runs yet: replay it with "
                f"'deskreel replay {store.label} -r {rec.id}'"
            )
        return rec, past[-1]
    run = next((r for r in store.runs() if r.id == run_id), None)
    if run is None:
        raise UserError(f"{store.label} has no run {run_id}: see 'deskreel runs {store.label}'")
    rec = store.recording(run.recording_id)
    if ref is not None and ref not in (str(rec.id), rec.name):
        raise UserError(
            f"run {run_id} replayed recording {rec.id} {rec.name!r}, not {ref!r}: "
            f"drop -r or give another run"
        )
    return rec, run


def _duration(run: Run) -> str:
    from .report.outcome import run_duration

    return "-" if run.ended is None else format_duration(run_duration(run, ()))

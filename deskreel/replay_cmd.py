"""`deskreel replay` (and --verify) and `deskreel release-all`."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

import click
from click.core import ParameterSource

from deskreel.storage import Store, copy_recording, open_store, store_to_fill

from .cli import DB_HELP, cli, no_backup_option, open_db, tell_upgrade
from .errors import EXIT_FOR_VERDICT, EXIT_OK, UserError
from .nested_cmd import DEFAULT_SIZE, NestedPlan, nested_options, nested_session
from .paths import FilePath
from deskreel.matching import PARAMS
from deskreel.replayer.defaults import DEFAULT_ABORT_KEY, DEFAULT_TIMEOUT, ON_MISSING
from deskreel.storage.vocabulary import MAX_COORDINATE


@cli.command("replay")
@click.argument("db", metavar="DB")
@click.option("-r", "--recording", "ref", help="recording id or name (default: the latest)")
@click.option(
    "--speed",
    type=float,
    default=1.0,
    show_default=True,
    help="time factor: 2 replays twice as fast (gestures keep their own timing)",
)
@click.option("--from", "first", type=int, help="first step to replay")
@click.option("--to", "last", type=int, help="last step to replay")
@click.option("--max-idle", type=float, help="cap every pause between steps at S seconds")
@click.option("--dry-run", is_flag=True, help="print the schedule; send no input")
@click.option("--no-anchor", is_flag=True, help="use recorded coordinates as they are")
@click.option(
    "--threshold",
    type=click.FloatRange(0.5, 1.0),
    default=PARAMS.threshold,
    show_default=True,
    help="least match score (normalized correlation) that counts as the target",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0, 3600),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="seconds to wait for a target to appear before giving up on it",
)
@click.option(
    "--on-missing",
    type=click.Choice(ON_MISSING),
    default=ON_MISSING[0],
    show_default=True,
    help="when a target is not found: abort the replay (exit 1), "
    "skip the step, or ask (abort without a terminal)",
)
@click.option(
    "--verify",
    is_flag=True,
    help="check every step: target found, and the screen after it matches the "
    "recording's (exit 1 when any step fails)",
)
@click.option(
    "--tolerance",
    type=click.FloatRange(0, 1),
    default=0.02,
    show_default=True,
    help="with --verify: fraction of a compared region's pixels that may differ; "
    "pixels differing by less than 40 grey levels never count (anti-aliasing) and "
    "no patch of more than 12 adjacent differing pixels is allowed",
)
@click.option(
    "--mask",
    "masks",
    multiple=True,
    metavar="X,Y,W,H",
    help="with --verify: a region never compared (a clock), in the recording's "
    "screen coordinates; repeatable",
)
@click.option(
    "--keep-going",
    is_flag=True,
    help="with --verify: go on after any failed step (a target not found "
    "included: that step sends no input) instead of stopping",
)
@click.option(
    "--junit",
    type=FilePath(dir_okay=False, path_type=Path),
    help="write JUnit XML: one testcase per step",
)
@click.option(
    "--force",
    is_flag=True,
    help="replay on Xwayland anyway (Wayland windows get no input), and let --junit "
    "replace a file that deskreel did not write",
)
@click.option(
    "--report",
    "report_dir",
    type=FilePath(file_okay=False, path_type=Path),
    help="write a static HTML report (and the crops of targets not found) here",
)
@click.option(
    "--abort-key",
    default=DEFAULT_ABORT_KEY,
    show_default=True,
    help="chord that aborts the replay (exit 130)",
)
@click.option(
    "--no-corner-abort",
    is_flag=True,
    help="do not abort when the pointer is thrown into a screen corner",
)
@click.option(
    "--runs-db",
    metavar="FILE",
    help="store the run in FILE (a deskreel database, created if missing, where the "
    "recording is copied once) and only read DB: for a recording kept in a repository",
)
@click.option(
    "--no-runs",
    is_flag=True,
    help="store the run nowhere and only read DB (--junit and --report still work)",
)
@no_backup_option
@click.option("--display", help="X display (default: $DISPLAY)")
@click.option("-q", "--quiet", is_flag=True, help="print only the verdict")
@nested_options
def replay(
    db: str,
    ref: str | None,
    speed: float,
    first: int | None,
    last: int | None,
    max_idle: float | None,
    dry_run: bool,
    no_anchor: bool,
    threshold: float,
    timeout: float,
    on_missing: str,
    verify: bool,
    tolerance: float,
    masks: tuple[str, ...],
    keep_going: bool,
    junit: Path | None,
    force: bool,
    report_dir: Path | None,
    abort_key: str,
    no_corner_abort: bool,
    runs_db: str | None,
    no_runs: bool,
    no_backup: bool,
    display: str | None,
    quiet: bool,
    nested: bool,
    size: tuple[int, int] | None,
    command: tuple[str, ...],
) -> int:
    """Replay a recording or an imported script on the X display.

    Before each pointer step, its target is found again on the screen by its image anchor
    (a moved window, reordered widgets, another scale); a weak or ambiguous match is never
    clicked. Stops on the abort key, when the pointer is thrown into a screen corner, on
    SIGINT and on SIGTERM (exit 130), always releasing every key and button it pressed.
    The run is stored in DB (an older DB is upgraded first), unless --runs-db or --no-runs
    says otherwise; --dry-run only reads DB. With --nested -- COMMAND, COMMAND runs in
    Xephyr (a window of the display) at the recording's screen size, and is replayed there.
    Exit codes: 0 all steps done, 1 a step failed, 2 bad input, 130 aborted.
    """
    from deskreel.replayer import AnchorOptions, Progress, ReplayOptions, select_steps
    from deskreel.replayer.replay import replay as run_replay
    from deskreel.matching import VerifyOptions

    _check_options(speed, max_idle, abort_key, verify=verify, masks=masks, keep_going=keep_going)
    if runs_db is not None and no_runs:
        raise UserError("give --runs-db FILE or --no-runs, not both")
    boxes = tuple(parse_box(m) for m in masks)
    plan = NestedPlan.given(nested, size, command)
    if dry_run:
        plan = None  # the schedule alone: nothing is started
    else:
        _check_outputs(junit, report_dir, force=force)
        if plan is None:
            _check_display(display, force=force)
    options = ReplayOptions(
        speed=speed,
        first=first,
        last=last,
        max_idle=max_idle,
        dry_run=dry_run,
        anchor=not no_anchor,
        anchoring=AnchorOptions(threshold=threshold, timeout=timeout),
        on_missing=on_missing,
        report_dir=report_dir,
        verify=VerifyOptions(tolerance=tolerance, masks=boxes, keep_going=keep_going)
        if verify
        else None,
        abort_key=abort_key,
        corners=not no_corner_abort,
    )
    with _stores(
        db, ref, runs_db, no_runs=no_runs, dry_run=dry_run, backup=not no_backup, quiet=quiet
    ) as (store, writer, ref_there):
        recording = store.recording(ref_there)
        steps = select_steps(store.steps(recording.id), options)
        if not steps:
            raise UserError(
                f"recording {recording.name!r} has no enabled steps between "
                f"--from and --to: see 'deskreel show {store.label} -r "
                f"{recording.id}'"
            )
        with _target(plan, display, recording.screen, timeout=timeout, quiet=quiet) as there:
            outcome = run_replay(
                store,
                recording,
                options=options,
                display=there,
                results=writer,
                progress=Progress(total=len(steps), quiet=quiet),
            )
        if outcome.run_id is not None and (junit or report_dir):
            _write_outputs(writer, recording, outcome.run_id, steps, junit, report_dir)
    return EXIT_FOR_VERDICT[outcome.status]


@contextlib.contextmanager
def _target(
    plan: NestedPlan | None,
    display: str | None,
    screen: tuple[int, int] | None,
    *,
    timeout: float,
    quiet: bool,
) -> Iterator[str | None]:
    """The display to replay on: `display`; or, nested, Xephyr at the recording's screen
    size on it, once the command in it shows a window (or `timeout` s went by)."""
    if plan is None:
        yield display
        return
    with nested_session(
        plan, display, screen or DEFAULT_SIZE, timeout=timeout, quiet=quiet
    ) as session:
        _check_display(session.display, force=False)
        yield session.display


@contextlib.contextmanager
def _stores(
    db: str,
    ref: str | None,
    runs_db: str | None,
    *,
    no_runs: bool,
    dry_run: bool,
    backup: bool,
    quiet: bool,
) -> Iterator[tuple[Store, Store, str | int | None]]:
    """(the store the recording is read from, the store its run goes to, the recording's
    reference there): DB itself; or DB only read, the recording copied into the file of
    --runs-db or, with --no-runs, a private one that goes afterwards. A dry run stores
    nothing: DB alone, only read."""
    if dry_run:
        with open_db(db, readonly=True) as store:
            yield store, store, ref
    elif runs_db is None and not no_runs:
        # results are written through their own connection; the recording is read through
        # a read-only one, so a replay can never change what it replays
        with open_db(db, backup=backup) as writer, open_store(db, readonly=True) as store:
            yield store, writer, ref
    else:
        with contextlib.ExitStack() as stack:
            if runs_db is None:
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="deskreel-run-"))
                runs_db = str(Path(folder) / "runs.db")
            yield stack.enter_context(
                _copied(db, ref, runs_db, backup=backup, quiet=quiet or no_runs)
            )


@contextlib.contextmanager
def _copied(
    db: str, ref: str | None, file: str, *, backup: bool, quiet: bool
) -> Iterator[tuple[Store, Store, int]]:
    """DB only read; its recording copied into `file` (once: a later replay finds it
    there), and replayed from there."""
    with open_db(db, readonly=True) as source, store_to_fill(file, backup=backup) as writer:
        tell_upgrade(writer)
        copied = copy_recording(source, writer, ref)
        if copied.differs:
            raise UserError(
                f"{writer.label} holds recording {copied.name!r} as it was before it was "
                f"edited in {source.label}: give another --runs-db, or make the edited one a "
                f"recording of its own (deskreel edit --copy-to)"
            )
        if copied.copied and not quiet:
            click.echo(
                f"deskreel: copied recording {copied.name!r} into {writer.label}, where its "
                f"runs are stored",
                err=True,
            )
        with open_store(file, readonly=True) as store:
            yield store, writer, copied.target_id


def _check_options(
    speed: float,
    max_idle: float | None,
    abort_key: str,
    *,
    verify: bool,
    masks: tuple[str, ...],
    keep_going: bool,
) -> None:
    """Options that cannot work, or work only with --verify, end here with one line."""
    from deskreel.storage import parse_chord

    if speed <= 0:
        raise UserError(f"--speed must be positive, got {speed}")
    if max_idle is not None and max_idle < 0:
        raise UserError(f"--max-idle must be zero or more seconds, got {max_idle}")
    try:
        parse_chord(abort_key)
    except ValueError as err:
        raise UserError(f"--abort-key: {err}") from None
    tolerance_given = (
        click.get_current_context().get_parameter_source("tolerance") is not ParameterSource.DEFAULT
    )
    for option, given in (
        ("--mask", bool(masks)),
        ("--keep-going", keep_going),
        ("--tolerance", tolerance_given),
    ):
        if given and not verify:
            raise UserError(f"{option} only applies with --verify: add --verify or drop {option}")


def _write_outputs(
    store, recording, run_id: int, steps, junit: Path | None, report_dir: Path | None
) -> None:
    from deskreel.report import write_junit, write_report

    run = next(r for r in store.runs(recording.id) if r.id == run_id)
    if junit is not None:
        try:
            write_junit(junit, recording, run, steps, store.step_results(run_id))
        except OSError as err:
            raise UserError(
                f"cannot write the JUnit XML {junit}: {err.strerror or err}; "
                f"the run is stored: 'deskreel report DB --last-run --out DIR "
                f"--junit FILE' writes it again"
            ) from None
        click.echo(f"deskreel: JUnit XML in {junit}", err=True)
    if report_dir is not None:
        try:
            page = write_report(store, recording, report_dir, run=run)
        except OSError as err:
            raise UserError(
                f"cannot write the report in {report_dir}: {err.strerror or err}"
            ) from None
        click.echo(f"deskreel: report in {page}", err=True)


def _check_display(display: str | None, *, force: bool) -> None:
    """Refuse Xwayland before anything is opened or sent, unless `force`."""
    from deskreel.xsession.display import connect, refuse_xwayland

    conn = connect(display, extensions=("XTEST",))
    try:
        refuse_xwayland(conn, force=force)
    finally:
        conn.close()


def _check_outputs(junit: Path | None, report_dir: Path | None, *, force: bool) -> None:
    """Refuse output paths that cannot be written before any input is sent: the checks that
    `deskreel report` makes, naming the option; and a --junit file that deskreel did not
    write, unless `force`."""
    from deskreel.report.html import check_report_dir
    from deskreel.report.writable import JUNIT_MARK, check_replaceable, check_writable

    if junit is not None:
        try:
            check_replaceable(junit, mark=JUNIT_MARK, what="JUnit file of deskreel's", force=force)
        except UserError as err:
            raise UserError(f"--junit {junit}: {err}") from None

    for option, path, check in (
        ("--junit", junit, check_writable),
        ("--report", report_dir, check_report_dir),
    ):
        if path is not None:
            try:
                check(path)
            except UserError as err:
                raise UserError(f"{option} {path}: {err}") from None


def parse_box(text: str) -> tuple[int, int, int, int]:
    """`x,y,w,h` as four integers with a positive width and height."""
    try:
        x, y, w, h = (int(v) for v in text.split(","))
    except ValueError:
        raise UserError(f"a region is x,y,w,h in pixels, got {text!r}") from None
    if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > MAX_COORDINATE or y + h > MAX_COORDINATE:
        raise UserError(
            f"a region needs x, y >= 0, a positive width and height, and to end within "
            f"{MAX_COORDINATE} px, got {text!r}"
        )
    return (x, y, w, h)


replay.__doc__ = (replay.__doc__ or "") + f"\n    DB is {DB_HELP}."


@cli.command("release-all")
@click.option("--display", help="X display (default: $DISPLAY)")
def release_all(display: str | None) -> int:
    """Release every key and mouse button the X server reports held down, and put back the
    keycodes a killed replay left re-bound."""
    from deskreel.xsession.display import connect
    from deskreel.replayer import release_held

    conn = connect(display, extensions=("XTEST",))
    try:
        released = release_held(conn)
    finally:
        conn.close()
    click.echo(f"released {', '.join(released)}" if released else "nothing was held", err=True)
    return EXIT_OK

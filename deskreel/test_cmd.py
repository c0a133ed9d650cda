"""`deskreel test`: a suite of recordings replayed with --verify against a launched
application, on private X servers, in parallel, with retries and one report."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .cli import cli
from .errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, UserError
from .paths import FilePath
from .suite.schema import MAX_RETRIES, MAX_WORKERS
from .table import printable

if TYPE_CHECKING:
    from .suite.config import TestSpec
    from .suite.report import Results
    from .suite.results import Outcome

# `deskreel test --help` in full: what a suite file holds
SUITE_HELP = """Run the recordings a suite file names, each against a freshly started
application on a private Xvfb, with --verify.

SUITE is a TOML file (default: deskreel.toml): [suite] recordings = ["DB", "DB:NAME",
globs], workers, retries; [app] command, cwd, env, setup, teardown, ready = {window_class
| window_title | command, timeout}; [screen] size, depth, window_manager, accessibility;
[verify] tolerance, masks, timeout, speed, max_idle; [[test]] recordings = [...] with its
own app, screen or verify. In commands, {attempt_dir} is the attempt's own folder.

A test that passes only on a retry is flaky, and fails the run unless --allow-flaky.
Exit 0 when every test passed, 1 when one failed, 2 for a bad suite, 130 when
interrupted (every application and X server it started is stopped first).
"""


def _shard(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int]:
    if value is None:
        return 1, 1
    found = re.fullmatch(r"(\d+)/(\d+)", value.strip(), re.ASCII)
    if found is None or not 1 <= int(found[1]) <= int(found[2]):
        raise click.BadParameter(f"write I/N with 1 <= I <= N, such as 1/2; got {value!r}")
    return int(found[1]), int(found[2])


@cli.command("test", help=SUITE_HELP)
@click.argument("suite", required=False, type=FilePath(dir_okay=False, path_type=Path))
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_WORKERS),
    help="tests run at once (default: the suite's)",
)
@click.option(
    "--retries",
    type=click.IntRange(0, MAX_RETRIES),
    help="tries again after a failure (default: the suite's)",
)
@click.option(
    "--shard", callback=_shard, metavar="I/N", help="run the I-th of N shares of the tests"
)
@click.option("--grep", metavar="PATTERN", help="run only the tests whose name matches (a regex)")
@click.option(
    "--report",
    "out",
    type=FilePath(file_okay=False, path_type=Path),
    default=Path("deskreel-report"),
    show_default=True,
    help="folder of the report: index.html, junit.xml, results.json, each attempt's evidence",
)
@click.option(
    "--junit", type=FilePath(dir_okay=False, path_type=Path), help="also write JUnit XML here"
)
@click.option(
    "--allow-flaky", is_flag=True, help="a test that passed on a retry does not fail the run"
)
@click.option(
    "--update-masks",
    is_flag=True,
    help="mask, in the suite's databases, the regions whose screens differed in failed "
    "tests (every step replayed, no retries); review them with deskreel show",
)
def test(
    suite: Path | None,
    workers: int | None,
    retries: int | None,
    shard: tuple[int, int],
    grep: str | None,
    out: Path,
    junit: Path | None,
    allow_flaky: bool,
    update_masks: bool,
) -> int:
    from .report.writable import SUITE_JUNIT_MARK, check_replaceable, check_writable
    from .suite.config import DEFAULT_SUITE, SuiteError, load_suite
    from .suite.report import Results, clear_report_folder, write_report
    from .suite.runner import Options, run_tests
    from .suite.session import stopped_by_signals

    try:
        loaded = load_suite(suite or Path(DEFAULT_SUITE))
    except SuiteError as err:
        raise UserError(str(err)) from None
    tests = _chosen(list(loaded.tests), grep, shard)
    if update_masks and retries:
        raise UserError("--update-masks runs each test once: leave out --retries")
    if junit is not None:  # before anything is run or cleared
        what = "JUnit file of deskreel test's"
        check_replaceable(junit, mark=SUITE_JUNIT_MARK, what=what, force=False)
        check_writable(junit)
    clear_report_folder(out)
    options = Options(
        workers=workers or loaded.workers,
        retries=0 if update_masks else loaded.retries if retries is None else retries,
        out=out,
        keep_going=update_masks,
    )
    stop = threading.Event()
    began = time.monotonic()
    with stopped_by_signals(stop):
        outcomes = run_tests(tests, options, done=_progress, stop=stop)
    if stop.is_set():
        click.echo(
            "deskreel test: interrupted; every application and X server is stopped", err=True
        )
        return EXIT_INTERRUPTED
    shards = "all" if shard == (1, 1) else f"{shard[0]}/{shard[1]}"
    results = Results(
        outcomes,
        seconds=time.monotonic() - began,
        workers=max(1, min(options.workers, len(tests))),
        shards=shards,
    )
    write_report(out, results, allow_flaky=allow_flaky, junit=junit)
    code = _summary(results, out, allow_flaky=allow_flaky)
    if update_masks:
        _update_masks(tests, outcomes, out)
    return code


def _chosen(tests: list[TestSpec], grep: str | None, shard: tuple[int, int]) -> list[TestSpec]:
    """The tests --grep names, then the --shard's share of them: N machines split what is
    run evenly; a share may be empty (more shards than tests), and its report merges."""
    from .suite.runner import shard as share

    if grep is not None:
        try:
            wanted = re.compile(grep)
        except re.error as err:
            raise UserError(f"--grep {grep!r} is not a regular expression: {err}") from None
        tests = [t for t in tests if wanted.search(t.name)]
        if not tests:
            raise UserError(f"no test's name matches --grep {grep!r}")
    return share(tests, *shard)


def _update_masks(tests: list[TestSpec], outcomes: list[Outcome], out: Path) -> None:
    from .suite.masks import update_masks

    for update in update_masks(tests, outcomes, out):
        for step, (x, y, w, h) in update.masked:
            click.echo(f"masked {update.test} step {step}: {x},{y},{w},{h}")
        for step, why in update.left:
            click.echo(printable(f"not masked: {update.test} step {step}: {why}"))
    click.echo("run the suite again to verify with the new masks", err=True)


def _progress(outcome: Outcome) -> None:
    from .suite.report import failure_line

    mark = {"passed": "passed", "flaky": "FLAKY ", "failed": "FAILED"}[outcome.verdict]
    line = f"  {mark}  {outcome.name}  ({outcome.seconds:.1f} s)"
    if outcome.verdict != "passed":
        line += f"  {failure_line(outcome)}"
    click.echo(printable(line))


def _summary(results: Results, out: Path, *, allow_flaky: bool) -> int:
    click.echo(
        f"{len(results.outcomes)} tests: {results.tally()} in {results.seconds:.1f} s on "
        f"{results.workers} worker{'s' * (results.workers != 1)}; report: {out}/index.html"
    )
    return EXIT_FAILED if results.failing(allow_flaky=allow_flaky) else EXIT_OK

"""Replay a recording: every step on its deadline, on its re-anchored target, safely.

Whatever ends a replay (the last step, a failed step, an exception, SIGINT, SIGTERM, the
abort chord, a pointer thrown into a corner), every key and button it pressed is released
and every keycode it re-bound is restored before it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass, replace
from typing import Any

from deskreel.storage import Recording, Step, StepResult, Store
from deskreel.storage.monitors import Layout
from deskreel.xsession.display import DisplayError, connect, display_gone, display_name
from deskreel.xsession.monitors import read_layout
from deskreel.xsession.settings import cursor_blink, read_input_settings

from .anchoring import Locator
from .defaults import ON_MISSING
from .errors import Interrupted, ReplayError
from .execute import missing_env
from .frames import Frames
from .desktop import desktop_change
from .layout import check_layout
from .options import DEFAULT_OPTIONS, ReplayOptions
from .progress import Progress
from .runner import Runner
from .safety import AbortWatcher, on_signals, prompt_switches
from .spacing import Spacing
from .timing import deadlines
from .xinput import Injector, release_held

__all__ = ["ON_MISSING", "ReplayOptions", "ReplayOutcome", "replay", "select_steps"]


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    """The verdict of a replay (the command line turns it into an exit code)."""

    run_id: int | None
    status: str  # passed, failed, aborted
    results: list[StepResult]
    message: str = ""


def select_steps(steps: list[Step], options: ReplayOptions) -> list[Step]:
    """The enabled steps between --from and --to (inclusive)."""
    return [
        s
        for s in steps
        if not s.disabled
        and (options.first is None or s.step >= options.first)
        and (options.last is None or s.step <= options.last)
    ]


def replay(
    store: Store,
    recording: Recording,
    *,
    options: ReplayOptions = DEFAULT_OPTIONS,
    display: str | None = None,
    progress: Progress | None = None,
    results: Store | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> ReplayOutcome:
    """Replay `recording` on `display` ($DISPLAY by default); the run's results go to
    `results` (by default `store`, which may then be opened read-only)."""
    writer = results or store
    steps = select_steps(store.steps(recording.id), options)
    _check_env(steps)
    progress = progress or Progress(total=len(steps))
    if options.dry_run:
        return _dry_run(steps, options, progress)
    if options.verify is not None:
        _warn_frameless(steps, progress)
    masks = store.masks(recording.id)  # read before the run starts: a failure leaves no run
    name = display_name(display)
    conn = connect(name, extensions=("XTEST",))
    options, spacing = _prepare(steps, recording, conn, options, progress)
    mode = "verify" if options.verify else "replay"
    run_id = writer.start_run(recording.id, mode=mode, options=_options_json(options))
    run = Runner(steps, options, progress, clock)
    run.spacing, run.frames, run.masks = spacing, Frames(store, writer, name), masks
    injector: Injector | None = None
    try:
        injector = Injector(conn, pause=run.switch.pause)
        _run_safely(run, injector, conn, name, clock)
    except Interrupted as err:
        run.status, run.message = "aborted", str(err)
    except KeyboardInterrupt:  # Ctrl-C before the switch took over SIGINT: still an abort
        run.switch.trip("SIGINT")
        run.status, run.message = "aborted", run.switch.message
        raise
    except Exception as err:
        if not display_gone(err, name):  # a damaged store, a full disk: the run did not pass
            run.status, run.message = "failed", str(err) or type(err).__name__
            raise
        # the X server exited, or the person closed the nested one: an end, not a failure
        run.switch.trip(f"the X display {name} went away")
        run.status, run.message = "aborted", run.switch.message
    finally:
        try:  # the injector first: it lets go of keys and puts the keymap back
            _close_all(name, injector, run.locator, run.frames, conn)
        finally:  # a failing close never keeps the run from being stored
            try:
                writer.add_step_results(run_id, run.results)
            finally:  # the run ends even when its results cannot be written (a full disk)
                writer.finish_run(run_id, run.status)
    progress.done(run.status, run.message)
    return ReplayOutcome(run_id, run.status, run.results, run.message)


def _run_safely(
    run: Runner, injector: Injector, conn: Any, name: str, clock: Callable[[], float]
) -> None:
    """The steps, with the safety switches on: the abort chord and the corners watched, and
    SIGINT and SIGTERM tripping the switch."""
    release_held(conn)  # keys or buttons a killed process left down
    options = run.options
    if options.anchor:
        run.locator = Locator(name, options=options.anchoring, pause=run.switch.pause, clock=clock)
    watcher = AbortWatcher(
        name,
        run.switch,
        chord=options.abort_key,
        corners=options.corners,
        injected=lambda: injector.last_move,
    )
    with on_signals(run.switch), prompt_switches(), watcher:
        if watcher.warning:
            run.progress.note(watcher.warning)
        run.steps_through(injector)


def _prepare(
    steps: list[Step], recording: Recording, conn: Any, options: ReplayOptions, progress: Progress
) -> tuple[ReplayOptions, Spacing]:
    """The run's options with what today's X server tells (its monitors and scale against
    the recording's, the caret's blink), and the spacing of its input; refused in one line
    (the connection closed) when the steps do not fit today's screen or the server went
    away meanwhile."""
    try:
        change = desktop_change(recording.extra, _check_layout(steps, recording, conn, options))
        if options.anchor and (change.scale is not None or change.moved):
            options = replace(options, anchoring=replace(options.anchoring, desktop=change))
            for line in change.said():
                progress.note(line)
        spacing = Spacing.of(recording.input_settings, read_input_settings(conn))
        if options.verify is not None and (blink := cursor_blink(conn)) is not None:
            options = replace(options, verify=replace(options.verify, blink=blink))
    except ReplayError:
        raise  # _check_layout closed the connection
    except Exception as err:
        name = conn.get_display_name()
        _close(conn, name)
        if not display_gone(err, name):
            raise
        raise DisplayError(
            f"the X display {name} went away before the replay began: start it again",
            details={"display": name},
        ) from None
    return options, spacing


def _close_all(name: str, *things: Any) -> None:
    """Close each of `things` in order (None is skipped), even when an earlier one fails."""
    with ExitStack() as stack:
        for thing in reversed(things):  # an ExitStack closes the last pushed first
            if thing is not None:
                stack.callback(_close, thing, name)


def _close(thing: Any, name: str) -> None:
    """Close `thing`; on an X server that went away there is nothing left to close."""
    try:
        thing.close()
    except Exception as err:
        if not display_gone(err, name):
            raise


def _check_env(steps: list[Step]) -> None:
    """Refuse before any input when a type step's placeholder has no value to type."""
    for step in steps:
        if step.action.action == "type":
            missing = missing_env(step.action.text or "")
            if missing:
                raise ReplayError(
                    f"step {step.step} (type) types {step.action.text!r} but "
                    f"${missing[0]} is not set: export it before replaying"
                )


def _check_layout(
    steps: list[Step], recording: Recording, conn: Any, options: ReplayOptions
) -> Layout:
    """Today's monitors and scale; refused before any input, a step replayed at its
    recorded place off today's screen (layout.py), the connection closed then."""
    screen = conn.screen()
    today = read_layout(conn)
    try:
        check_layout(
            steps,
            recording.extra,
            lambda: today,
            (screen.width_in_pixels, screen.height_in_pixels),
            anchored=options.anchor,
        )
    except ReplayError:
        conn.close()
        raise
    return today


def _warn_frameless(steps: list[Step], progress: Progress) -> None:
    """--verify has nothing to compare a step's screen with when the recording has no frame
    of it (an imported script, `record --no-frames`): say so rather than pass in silence."""
    blind = [s.step for s in steps if s.after_frame is None]
    if blind:
        listed = ", ".join(map(str, blind[:8])) + (", ..." if len(blind) > 8 else "")
        progress.note(
            f"warning: {len(blind)} of {len(steps)} steps have no recorded frames "
            f"(steps {listed}): --verify checks only that their targets are found, "
            f"not what the screen shows"
        )


def _dry_run(steps: list[Step], options: ReplayOptions, progress: Progress) -> ReplayOutcome:
    due = deadlines(
        [s.t_start for s in steps], start=0.0, speed=options.speed, max_idle=options.max_idle
    )
    results = []
    for index, (step, deadline) in enumerate(zip(steps, due)):
        progress.step(index + 1, step, f"would run at {deadline:.3f}s")
        results.append(
            StepResult(step=step.step, status="skipped", t_start=deadline, t_end=deadline)
        )
    progress.done("passed", "dry run: no input was sent")
    return ReplayOutcome(None, "passed", results, "dry run")


def _options_json(options: ReplayOptions) -> dict:
    data = asdict(options)
    data["report_dir"] = str(options.report_dir) if options.report_dir else None
    return data

"""Replay a recording: every step on its deadline, on its re-anchored target, safely.

Whatever ends a replay (the last step, a failed step, an exception, SIGINT, SIGTERM, the
abort chord, a pointer thrown into a corner), every key and button it pressed is released
and every keycode it re-bound is restored before it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from xsession.settings import read_input_settings
from xsession.display import connect, display_name
from storage import Evidence, Recording, StorageError, Step, StepResult, Store

from .anchoring import AnchorOptions, Finding, Locator
from .ask import ask
from .defaults import ON_MISSING
from .errors import Interrupted, ReplayError
from .execute import Gestures, execute, missing_env
from .frames import Frames
from .progress import Progress
from .verify import VerifyOptions, checks_for, diff_image, settled_screen
from .safety import DEFAULT_ABORT_KEY, AbortSwitch, AbortWatcher, on_signals, prompt_switches
from .spacing import Spacing
from .timing import deadlines
from .xinput import Injector, release_held

__all__ = ["ON_MISSING", "ReplayOptions", "ReplayOutcome", "replay", "select_steps"]


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    speed: float = 1.0
    first: int | None = None  # --from STEP
    last: int | None = None  # --to STEP
    max_idle: float | None = None  # cap on any gap between steps (s)
    dry_run: bool = False
    anchor: bool = True
    anchoring: AnchorOptions = field(default_factory=AnchorOptions)
    on_missing: str = "abort"  # abort, skip or ask when a target is not found
    report_dir: Path | None = None  # --report: crops of targets not found go in its crops/
    verify: VerifyOptions | None = None  # --verify: check each step's effect on the screen
    abort_key: str | None = DEFAULT_ABORT_KEY
    corners: bool = True
    gestures: Gestures = field(default_factory=Gestures)


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
    options: ReplayOptions = ReplayOptions(),
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
    mode = "verify" if options.verify else "replay"
    spacing = Spacing.of(recording.input_settings, read_input_settings(conn))
    run_id = writer.start_run(recording.id, mode=mode, options=_options_json(options))
    run = _Run(steps, options, progress, clock)
    run.spacing = spacing
    run.frames = Frames(store, writer, name)
    run.masks = masks
    injector: Injector | None = None
    try:
        release_held(conn)  # keys or buttons a killed process left down
        injector = Injector(conn, pause=run.switch.pause)
        run.locator = (
            Locator(name, options=options.anchoring, pause=run.switch.pause, clock=clock)
            if options.anchor
            else None
        )
        watcher = AbortWatcher(
            name,
            run.switch,
            chord=options.abort_key,
            corners=options.corners,
            injected=lambda: injector.last_move,
        )
        with on_signals(run.switch), prompt_switches(), watcher:
            if watcher.warning:
                progress.note(watcher.warning)
            run.steps_through(injector)
    except Interrupted as err:
        run.status, run.message = "aborted", str(err)
    except KeyboardInterrupt:  # Ctrl-C before the switch took over SIGINT: still an abort
        run.switch.trip("SIGINT")
        run.status, run.message = "aborted", run.switch.message
        raise
    except BaseException as err:  # a damaged store, a full disk: the run did not pass
        run.status, run.message = "failed", str(err) or type(err).__name__
        raise
    finally:
        try:  # the injector first: it lets go of keys and puts the keymap back
            _close_all(injector, run.locator, run.frames, conn)
        finally:  # a failing close never keeps the run from being stored
            try:
                writer.add_step_results(run_id, run.results)
            finally:  # the run ends even when its results cannot be written (a full disk)
                writer.finish_run(run_id, run.status)
    progress.done(run.status, run.message)
    return ReplayOutcome(run_id, run.status, run.results, run.message)


class _Run:
    """The state of one replay: its schedule, results and verdict."""

    def __init__(
        self,
        steps: list[Step],
        options: ReplayOptions,
        progress: Progress,
        clock: Callable[[], float],
    ):
        self.steps, self.options, self.progress, self.clock = steps, options, progress, clock
        self.switch = AbortSwitch()
        self.locator: Locator | None = None
        self.results: list[StepResult] = []
        self.status, self.message = "passed", ""
        self.delay = 0.0  # s the schedule moved because targets took time to appear
        self.frames: Frames
        self.spacing: Spacing
        self.masks: dict[int | None, list[tuple[int, int, int, int]]] = {}
        self.last_shift: tuple[tuple[int, int], float] = ((0, 0), 1.0)
        self.stopped = False  # a person answered "abort" (--on-missing ask)

    def steps_through(self, injector: Injector) -> None:
        self.injector = injector
        self.start = self.clock()
        due = deadlines(
            [s.t_start for s in self.steps],
            start=self.start,
            speed=self.options.speed,
            max_idle=self.options.max_idle,
        )
        for index, (step, deadline) in enumerate(zip(self.steps, due)):
            self.switch.pause_until(deadline + self.delay, self.clock)
            self._keep_apart(step)
            self.progress.step(index + 1, step, "running")
            result = self._one(step, deadline + self.delay)
            self.results.append(result)
            self.progress.step(
                index + 1, step, "ok" if result.status == "passed" else result.status
            )
            if result.status == "failed":
                first = self.status != "failed"
                self.status = "failed"
                self.message = result.message if first else self.message
                verify = self.options.verify
                if not (verify and verify.keep_going) or self.stopped:
                    return  # --keep-going goes on past any failure, unless a person aborted

    def _one(self, step: Step, deadline: float) -> StepResult:
        began = self.clock()
        finding = self._find(step)
        timing = {Evidence.LATE_MS: round((began - deadline) * 1000, 3)}
        if finding is not None and not finding.found:
            return self._missing(step, finding, began, timing)
        target = finding.located.point if finding else None
        scale = finding.located.scale if finding else 1.0
        verify = self.options.verify
        before = None
        if verify is not None:
            before = self.locator.last_screen if finding and self.locator else self.frames.grab()
        try:
            note = execute(
                step.action,
                self.injector,
                gestures=self.options.gestures,
                target=target,
                scale=scale,
            )
        except Interrupted:
            self.results.append(
                self._result(step, "aborted", self.switch.reason, began, finding, timing)
            )
            raise
        except Exception as err:  # an X error: this step failed (stop unless --keep-going)
            return self._result(
                step,
                "failed",
                f"step {step.step} ({step.action.action}) failed: {err}",
                began,
                finding,
                timing,
            )
        self.spacing.done(step.action, step.action.target, self.clock())
        if finding is not None and target is not None:
            # where the recorded screen's origin is now: a recorded place p is at it + p * scale
            origin = (
                round(target[0] - finding.recorded[0] * scale),
                round(target[1] - finding.recorded[1] * scale),
            )
            self.last_shift = (origin, scale)
        if verify is not None:
            return self._verified(step, verify, before, note, began, finding, timing)
        return self._result(step, "passed", note, began, finding, timing)

    def _keep_apart(self, step: Step) -> None:
        """Wait while starting `step` now would change what the steps before it meant (a
        click becoming a double click, a hover cut short); the schedule waits with it.
        Places are compared as recorded: re-anchoring moves two clicks on one place alike."""
        wait = self.spacing.not_before(step.action, step.action.target) - self.clock()
        if wait > 0:
            self.delay += wait
            self.switch.pause(wait)

    def _verified(
        self,
        step: Step,
        verify: VerifyOptions,
        before: Any,
        note: str,
        began: float,
        finding: Finding | None,
        timing: dict,
    ) -> StepResult:
        """Let the screen settle, then compare it with the recording's after-frame."""
        screen = settled_screen(
            self.frames.grab,
            settle=verify.settle,
            cap=verify.settle_cap,
            pause=self.switch.pause,
            clock=self.clock,
        )
        action = step.action
        shift, scale = self.last_shift  # for a target that was not looked for
        located = None
        if finding is not None and finding.located.point is not None:
            located, scale = finding.located.point, finding.located.scale
        masks = [*verify.masks, *self.masks.get(None, []), *self.masks.get(step.step, [])]
        checks = checks_for(
            action=action.action,
            before=self.frames.recorded(step.before_frame),
            after=self.frames.recorded(step.after_frame),
            screen=screen,
            target=action.target,
            located=located,
            scale=scale,
            shift=shift,
            region=action.region,
            masks=masks,
            options=verify,
            earlier=before,
        )
        details = {
            **timing,
            Evidence.CHECKS: [c.to_json() for c in checks],
            Evidence.BEFORE: self.frames.save(before),
            Evidence.AFTER: self.frames.save(screen),
        }
        failed = [c for c in checks if not c.passed]
        if not failed:
            why = (
                "the recording has no frames of this step"
                if step.after_frame is None
                else "the recording shows no change"
            )
            note = note or (
                f"{len(checks)} checks passed"
                if checks
                else f"passed without comparing the screen: {why}"
            )
            return self._result(step, "passed", note, began, finding, details)
        details[Evidence.DIFF] = self.frames.save(diff_image(screen, failed))
        message = (
            f"step {step.step} ({action.action}): the screen differs from the "
            f"recording: " + "; ".join(c.describe() for c in failed)
        )
        return self._result(step, "failed", message, began, finding, details)

    def _recorded_screen(self, step: Step) -> Any:
        try:
            return self.frames.recorded(step.before_frame)
        except StorageError:  # a damaged store: the anchor alone decides, as without frames
            return None

    def _find(self, step: Step) -> Finding | None:
        if self.locator is None:
            return None
        finding = self.locator.find(step, lambda: self._recorded_screen(step))
        if finding is not None and finding.attempts > 1:
            self.delay += finding.waited  # the rest of the schedule waits with this step
        return finding

    def _missing(self, step: Step, finding: Finding, began: float, timing: dict) -> StepResult:
        """No input for this step; then abort (exit 1), skip, or ask the person."""
        threshold = self.options.anchoring.threshold
        message = finding.message(step, threshold)
        details = {**timing, **self._evidence(step, finding)}
        if self.options.report_dir is not None:
            message += self._crops(step, finding, self.options.report_dir, details)
        choice = self.options.on_missing
        if choice == "ask":
            self.progress.note(message)
            try:
                choice = ask(
                    f"step {step.step}: target not found. Skip it or abort the replay?",
                    ["skip", "abort", "retry"],
                    recommended="abort",
                    headless="abort",
                    switch=self.switch,
                )
            except Interrupted:
                self.results.append(
                    self._result(step, "aborted", self.switch.reason, began, finding, timing)
                )
                raise
            if choice == "retry":
                return self._one(step, self.clock())
            self.stopped = choice == "abort"
        status = "skipped" if choice == "skip" else "failed"
        if status == "skipped":
            self.progress.note(message + ": skipped")
        return self._result(step, status, message, began, finding, details)

    def _evidence(self, step: Step, finding: Finding) -> dict:
        """For the report: the screen the target was last looked for on, with the box of the
        best match there (refused), when a report or a verdict will show them."""
        assert self.locator is not None  # a finding comes from the locator
        loc, anchor, screen = finding.located, step.anchor, self.locator.last_screen
        if (self.options.verify is None and self.options.report_dir is None) or screen is None:
            return {}
        details = {Evidence.BEFORE: self.frames.save(screen)}
        if loc.top_left is not None and anchor is not None:
            details[Evidence.BEST_MATCH] = [
                *loc.top_left,
                round(anchor.box[2] * loc.scale),
                round(anchor.box[3] * loc.scale),
            ]
        return details

    def _crops(self, step: Step, finding: Finding, report: Path, details: dict) -> str:
        """Save the step's crops in the report's crops/ (their paths, relative to the report,
        go in `details`); the words that say where, or why not."""
        assert self.locator is not None  # a finding comes from the locator
        try:
            saved = self.locator.save_crops(step, finding, report / "crops")
        except OSError as err:  # the report is a by-product: the verdict still stands
            return f" (crops not saved in {report / 'crops'}: {err.strerror or err})"
        details[Evidence.CROPS] = [p.relative_to(report).as_posix() for p in saved]
        return f" (crops in the report: {', '.join(details[Evidence.CROPS])})"

    def _result(
        self,
        step: Step,
        status: str,
        message: str,
        began: float,
        finding: Finding | None,
        details: dict,
    ) -> StepResult:
        loc = finding.located if finding else None
        extra = dict(details)
        if finding is not None:
            extra.update(
                {
                    Evidence.LOCATE_MS: round(finding.waited * 1000, 1),
                    Evidence.ATTEMPTS: finding.attempts,
                    Evidence.SEARCHED: finding.located.searched,
                }
            )
        return StepResult(
            step=step.step,
            status=status,
            message=message,
            t_start=began - self.start,
            t_end=self.clock() - self.start,
            score=loc.score if loc else None,
            margin=loc.margin if loc else None,
            scale=loc.scale if loc else None,
            shift=finding.shift if finding else None,
            details=extra,
        )


def _close_all(*things: Any) -> None:
    """Close each of `things` in order (None is skipped), even when an earlier one fails."""
    with ExitStack() as stack:
        for thing in reversed(things):  # an ExitStack closes the last pushed first
            if thing is not None:
                stack.callback(thing.close)


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

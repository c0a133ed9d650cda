"""The steps of one replay: on their deadlines, kept apart, found, sent and verified."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deskreel.storage import Evidence, StorageError, Step, StepResult
from deskreel.storage.told import StepTold, Told
from deskreel.xsession.display import display_gone

from .anchoring import Finding, Locator, aimed_at
from .ask import ask
from .errors import Interrupted
from .execute import execute
from .frames import Frames
from .options import ReplayOptions
from .progress import Progress
from .safety import AbortSwitch
from .spacing import Spacing
from .timing import deadlines
from deskreel.matching import (
    PARAMS, Aimed, Check, Said, StepWindows, VerifyOptions, by_told, checks_for, diff_image,
    named_by_text,
)  # fmt: skip

from .verify import Seen, caret_look, failure, later_frames, settled_screen
from .xinput import Injector

__all__ = ["Runner"]


class Runner:
    """One replay's steps on their deadlines: each kept apart from the one before, its
    target found, its input sent and its effect verified; the results and the verdict."""

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
        # the last steps verified, each with today's screen before it (restored.py), latest last
        self.befores: deque[tuple[Step, Any]] = deque(maxlen=PARAMS.restored_back)
        self.stopped = False  # a person answered "abort" (--on-missing ask)
        # each step's next input step's before-frame: the recorded screen just before it
        self.later = later_frames(steps)

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
        seen = self._before_step(step, finding) if verify is not None else None
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
            if display_gone(err):
                raise  # no X server to go on with: the replay ends (replay.py)
            return self._result(
                step,
                "failed",
                f"step {step.step} ({step.action.action}) failed: {err}",
                began,
                finding,
                timing,
            )
        self.spacing.done(step.action, step.action.target, self.clock())
        origin = finding.located.origin if finding is not None else None
        if origin is not None:  # a recorded place p is now at origin + p * scale
            self.last_shift = (origin, scale)
        if verify is not None and seen is not None:
            return self._verified(step, verify, seen, note, began, finding, timing)
        return self._result(step, "passed", note, began, finding, timing)

    def _keep_apart(self, step: Step) -> None:
        """Wait while starting `step` now would change what the steps before it meant (a
        click becoming a double click, a hover cut short); the schedule waits with it.
        Places are compared as recorded: re-anchoring moves two clicks on one place alike."""
        wait = self.spacing.not_before(step.action, step.action.target) - self.clock()
        if wait > 0:
            self.delay += wait
            self.switch.pause(wait)

    def _before_step(self, step: Step, finding: Finding | None) -> Seen:
        """What --verify keeps of today's screen as the step begins."""
        locator = self.locator
        screen = locator.last_screen if finding and locator else self.frames.grab()
        tops = locator.windows.tops() if locator is not None else None
        windows = locator.windows.since(tops) if locator is not None else lambda: None
        ask = self._told_asker(step, finding)
        return Seen(screen, windows, ask() if ask is not None else None, ask)

    def _verified(
        self,
        step: Step,
        verify: VerifyOptions,
        seen: Seen,
        note: str,
        began: float,
        finding: Finding | None,
        timing: dict,
    ) -> StepResult:
        """Let the screen settle, then compare it with the recording's after-frame, and say
        the verdict."""
        screen, checks, note = self._judged(step, verify, seen, finding, note)
        if step.before_frame is not None and step.action.action != "wait":
            self.befores.append((step, seen.screen))
        details = {
            **timing,
            Evidence.CHECKS: [c.to_json() for c in checks],
            Evidence.BEFORE: self.frames.save(seen.screen),
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
        return self._result(step, "failed", failure(step, checks), began, finding, details)

    def _judged(
        self, step: Step, verify: VerifyOptions, seen: Seen, finding: Finding | None, note: str
    ) -> tuple[Any, list[Check], str]:
        """Today's screen once it settled, the step's checks of it, and a note: the windows
        the step opened, what its object and its window's objects tell (asked once more
        the settle time later where they told otherwise: a toolkit may tell its tree after
        it paints), and a failed step's screen watched for its caret's other phase."""
        screen = settled_screen(
            self.frames.grab,
            settle=verify.settle,
            cap=verify.settle_cap,
            pause=self.switch.pause,
            clock=self.clock,
        )
        opened = seen.windows()
        told = None if seen.ask_told is None else StepTold(seen.told, seen.ask_told())
        said = None if self.locator is None else self.locator.said(step, finding, verify.settle)
        checks = self._checks(step, verify, seen.screen, screen, finding, said, opened, told)
        if seen.ask_told is not None and any(c.kind == "meaning" and not c.passed for c in checks):
            self.switch.pause(verify.settle)
            told = StepTold(seen.told, seen.ask_told())
            checks = self._checks(step, verify, seen.screen, screen, finding, said, opened, told)
        if not all(c.passed for c in checks):
            judge = lambda look: self._checks(  # noqa: E731
                step, verify, seen.screen, look, finding, said, opened, told
            )
            screen, checks, note = caret_look(
                judge, verify, screen, checks, note, self.frames.grab, self.switch.pause, self.clock
            )
            checks = self._read(step, verify, screen, checks)
        return screen, checks, note

    def _checks(
        self,
        step: Step,
        verify: VerifyOptions,
        before: Any,
        screen: Any,
        finding: Finding | None,
        said: Said | None = None,
        windows: StepWindows | None = None,
        told: StepTold | None = None,
    ) -> list[Check]:
        """--verify's checks of `screen` against the recording, around where the target was
        found (or where the last one found puts it, for a step not looked for); `told` is
        what the step's window told today, compared with what it told when recorded."""
        action = step.action
        shift, scale = self.last_shift  # for a target that was not looked for
        located = None
        if finding is not None and finding.located.point is not None:
            located, scale = finding.located.point, finding.located.scale
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
            masks=self._masks(step, verify),
            options=verify,
            earlier=before,
            aimed=None if finding is None else _aimed(step, finding),
            said=said,
            settled=step.after_settled is not False,
            later=self._recorded_frame(self.later.get(step.step)),
            windows=windows,
            restorable=[
                (self._recorded_frame(s.before_frame), then) for s, then in reversed(self.befores)
            ],
        )
        return by_told(checks, step.told, told, self._masks(step, verify), verify)

    def _told_asker(self, step: Step, finding: Finding | None) -> Callable[[], Told | None] | None:
        """What asks the window on top where the step's target was found what its objects
        tell; None where the recording kept nothing of them to compare with."""
        recorded = step.told
        point = finding.located.point if finding is not None and finding.found else None
        if self.locator is None or point is None or recorded is None or not recorded.changes():
            return None
        objects = self.locator.objects
        return lambda: objects.told(point)

    def _read(
        self, step: Step, verify: VerifyOptions, screen: Any, checks: list[Check]
    ) -> list[Check]:
        """A failed step's effects that read another text today than recorded, saying both."""
        after = self.frames.recorded(step.after_frame)
        if self.locator is None or after is None:
            return checks
        masks = self._masks(step, verify)
        return named_by_text(checks, after, masks, screen, self.locator.read)

    def _masks(self, step: Step, verify: VerifyOptions) -> list[tuple[int, int, int, int]]:
        """What --verify never compares for `step`: --mask's regions and the stored ones."""
        return [*verify.masks, *self._stored_masks(step)]

    def _stored_masks(self, step: Step) -> list[tuple[int, int, int, int]]:
        """The recording's masks (`deskreel test --update-masks`) and the step's own (where
        the recorder saw the screen keep changing)."""
        return [*self.masks.get(None, []), *self.masks.get(step.step, [])]

    def _recorded_frame(self, key: str | None) -> Any:
        try:
            return self.frames.recorded(key)
        except StorageError:  # a damaged store: the anchor alone decides, as without frames
            return None

    def _find(self, step: Step) -> Finding | None:
        if self.locator is None:
            return None
        moving = tuple(self._stored_masks(step))
        finding = self.locator.find(step, lambda: self._recorded_frame(step.before_frame), moving)
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
        details: dict[Evidence, Any] = {Evidence.BEFORE: self.frames.save(screen)}
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
                    Evidence.RUNG: finding.located.rung,
                    Evidence.TRAIL: [t.to_json() for t in finding.located.trail],
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


def _aimed(step: Step, finding: Finding) -> Aimed | None:
    anchor = step.anchor.box if step.anchor is not None else None
    return aimed_at(finding.located, step.widget, anchor)

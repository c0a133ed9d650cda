"""Replay a recording: every step on its deadline, through XTest, and safely.

Whatever ends a replay (the last step, a failed step, an exception, SIGINT, SIGTERM, the
abort chord, a pointer thrown into a corner), every key and button it pressed is released
and every keycode it re-bound is restored before it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from deskreel.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, Interrupted
from deskreel.x11 import connect
from storage import Recording, Step, StepResult, Store

from .execute import Gestures, execute
from .progress import Progress
from .safety import DEFAULT_ABORT_KEY, AbortSwitch, AbortWatcher, on_signals
from .timing import deadlines
from .xinput import Injector, release_held

__all__ = ["ReplayOptions", "ReplayOutcome", "replay", "select_steps"]


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    speed: float = 1.0
    first: int | None = None  # --from STEP
    last: int | None = None  # --to STEP
    max_idle: float | None = None  # cap on any gap between steps (s)
    dry_run: bool = False
    anchor: bool = True
    abort_key: str | None = DEFAULT_ABORT_KEY
    corners: bool = True
    gestures: Gestures = field(default_factory=Gestures)


@dataclass(frozen=True, slots=True)
class ReplayOutcome:
    run_id: int | None
    status: str  # passed, failed, aborted
    results: list[StepResult]
    exit_code: int
    message: str = ""


def select_steps(steps: list[Step], options: ReplayOptions) -> list[Step]:
    """The enabled steps between --from and --to (inclusive)."""
    return [s for s in steps if not s.disabled
            and (options.first is None or s.step >= options.first)
            and (options.last is None or s.step <= options.last)]


def replay(store: Store, recording: Recording, *, options: ReplayOptions = ReplayOptions(),
           display: str | None = None, progress: Progress | None = None,
           clock: Callable[[], float] = time.monotonic) -> ReplayOutcome:
    """Replay `recording` on `display` ($DISPLAY by default) and store the run's results."""
    steps = select_steps(store.steps(recording.id), options)
    progress = progress or Progress(total=len(steps))
    if options.dry_run:
        return _dry_run(steps, options, progress)
    switch = AbortSwitch()
    conn = connect(display, extensions=("XTEST",))
    run_id = store.start_run(recording.id, mode="replay", options=_options_json(options))
    results: list[StepResult] = []
    status, message = "passed", ""
    injector: Injector | None = None
    try:
        release_held(conn)  # keys or buttons a killed process left down
        injector = Injector(conn, pause=switch.pause)
        watcher = AbortWatcher(display, switch, chord=options.abort_key,
                               corners=options.corners, injected=lambda: injector.last_move)
        with on_signals(switch), watcher:
            if watcher.warning:
                progress.note(watcher.warning)
            status, message = _run_steps(steps, injector, switch, options, progress, results,
                                         clock)
    except Interrupted as err:
        status, message = "aborted", str(err)
    finally:
        if injector is not None:
            injector.close()
        conn.close()
        store.add_step_results(run_id, results)
        store.finish_run(run_id, status)
    progress.done(status, message)
    code = {"passed": EXIT_OK, "failed": EXIT_FAILED, "aborted": EXIT_INTERRUPTED}[status]
    return ReplayOutcome(run_id, status, results, code, message)


def _run_steps(steps: list[Step], injector: Injector, switch: AbortSwitch,
               options: ReplayOptions, progress: Progress, results: list[StepResult],
               clock: Callable[[], float]) -> tuple[str, str]:
    start = clock()
    due = deadlines([s.t_start for s in steps], start=start, speed=options.speed,
                    max_idle=options.max_idle)
    for index, (step, deadline) in enumerate(zip(steps, due)):
        switch.pause_until(deadline, clock)
        began = clock()
        progress.step(index + 1, step, "running")
        try:
            note = execute(step.action, injector, gestures=options.gestures)
        except Interrupted:
            results.append(StepResult(step=step.step, status="aborted", message=switch.reason,
                                      t_start=began - start, t_end=clock() - start))
            raise
        except Exception as err:  # an X error: this step failed, the replay stops
            message = f"step {step.step} ({step.action.action}) failed: {err}"
            results.append(StepResult(step=step.step, status="failed", message=message,
                                      t_start=began - start, t_end=clock() - start))
            progress.step(index + 1, step, "failed")
            return "failed", message
        results.append(StepResult(step=step.step, status="passed", message=note,
                                  t_start=began - start, t_end=clock() - start,
                                  details={"late_ms": round((began - deadline) * 1000, 3)}))
        progress.step(index + 1, step, "ok")
    return "passed", ""


def _dry_run(steps: list[Step], options: ReplayOptions, progress: Progress) -> ReplayOutcome:
    due = deadlines([s.t_start for s in steps], start=0.0, speed=options.speed,
                    max_idle=options.max_idle)
    results = []
    for index, (step, deadline) in enumerate(zip(steps, due)):
        progress.step(index + 1, step, f"would run at {deadline:.3f}s")
        results.append(StepResult(step=step.step, status="skipped", t_start=deadline,
                                  t_end=deadline))
    progress.done("passed", "dry run: no input was sent")
    return ReplayOutcome(None, "passed", results, EXIT_OK, "dry run")


def _options_json(options: ReplayOptions) -> dict:
    data = asdict(options)
    data["gestures"] = asdict(options.gestures)
    return data

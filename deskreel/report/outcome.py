"""Each step of a recording paired with what a run did to it: the facts both reports show."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from deskreel.storage import Evidence, Run, Step, StepResult, Widget, utc
from deskreel.storage.widgets import XWINDOW

__all__ = [
    "aimed_at",
    "Outcome",
    "anchoring_facts",
    "check_line",
    "checks_of",
    "counts",
    "outcomes",
    "run_duration",
    "step_label",
    "step_width",
    "timing_facts",
    "utc_text",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A step, its result in the run (None when the run never reached it) and its status."""

    step: Step
    result: StepResult | None
    status: str  # passed, failed, skipped, aborted, or "not run"
    message: str  # the result's message, or why the step did not run

    @property
    def seconds(self) -> float:
        return 0.0 if self.result is None else max(0.0, self.result.t_end - self.result.t_start)


def outcomes(steps: Sequence[Step], results: Sequence[StepResult], run: Run) -> list[Outcome]:
    """Every step in order; those without a result say why, in words a reader can act on."""
    by_step = {r.step: r for r in results}
    last = max(by_step, default=None)
    out = []
    for step in steps:
        result = by_step.get(step.step)
        if result is not None:
            out.append(Outcome(step, result, result.status, result.message))
        else:
            out.append(Outcome(step, None, "not run", _why_not_run(step, last, run)))
    return out


def _why_not_run(step: Step, last: int | None, run: Run) -> str:
    if step.disabled:
        return "not run: disabled in the recording"
    if run.status == "running":
        return "not run: the run has not finished (or its process was killed)"
    if last is None:
        return "not run: the run recorded no step results"
    if step.step > last and run.status in ("failed", "aborted", "error"):
        return f"not run: the replay stopped at step {last}"
    return "not run: outside the replayed range (--from/--to)"


def counts(items: Sequence[Outcome]) -> Counter[str]:
    """Steps by status; "skipped" includes aborted and never-run steps, as CI counts them."""
    tally: Counter[str] = Counter(o.status for o in items)
    tally["skipped"] += tally["aborted"] + tally["not run"]
    return tally


def run_duration(run: Run, results: Sequence[StepResult]) -> float:
    """Seconds from start to end of the run, or to its last step result when it never ended."""
    if run.ended is not None:
        return max(0.0, (utc(run.ended) - utc(run.started)).total_seconds())
    return max((r.t_end for r in results), default=0.0)


def step_label(step: Step, width: int = 3) -> str:
    """`step 007 left_click`: sorts and reads well as a CI test name."""
    return f"step {step.step:0{width}d} {step.action.action}"


def step_width(steps: Sequence[Step]) -> int:
    """The digits `step_label` gives every step number of a recording: at least 3."""
    return max(3, len(str(max((s.step for s in steps), default=0))))


def utc_text(moment: datetime) -> str:
    return utc(moment).strftime("%Y-%m-%d %H:%M:%S UTC")


def timing_facts(result: StepResult) -> list[tuple[str, str]]:
    """When the step ran, how long it took, how late it started, how long its target took."""
    d = result.details
    facts = [
        ("started", f"{result.t_start:.3f} s"),
        ("duration", f"{max(0.0, result.t_end - result.t_start):.3f} s"),
    ]
    timed = (("late", Evidence.LATE_MS), ("locate", Evidence.LOCATE_MS))
    facts += [(name, f"{_num(d[key], '.0f')} ms") for name, key in timed if d.get(key) is not None]
    return facts


def anchoring_facts(result: StepResult) -> list[tuple[str, str]]:
    """How the step's target was re-anchored on today's screen; empty when it was not."""
    d = result.details
    facts = [
        (name, _num(value, ".3f"))
        for name, value in (
            ("score", result.score),
            ("margin", result.margin),
            ("scale", result.scale),
        )
        if value is not None
    ]
    if result.shift is not None:
        facts.append(("shift", f"{result.shift[0]:+d}, {result.shift[1]:+d} px"))
    facts += [
        (key, str(d[key]))
        for key in (Evidence.RUNG, Evidence.SEARCHED, Evidence.ATTEMPTS)
        if d.get(key) is not None
    ]
    return facts


def checks_of(result: StepResult | None) -> list[dict[str, Any]]:
    """The verification checks a result holds (dicts, as `Check.to_json` wrote them)."""
    checks = result.details.get(Evidence.CHECKS) if result else None
    return [c for c in checks if isinstance(c, dict)] if isinstance(checks, list) else []


def check_line(check: dict[str, Any]) -> str:
    """One verification check in words, as `Check.describe` says it, with its verdict."""
    from deskreel.matching import Check

    read = Check.from_json(check)
    if read is None:  # written by another deskreel, in a shape this one cannot read
        return f"{'passed' if check.get('passed') else 'FAILED'} {check.get('kind', '?')}"
    return f"{'passed' if read.passed else 'FAILED'} {read.describe()}"


def _num(value: object, spec: str) -> str:
    # details come from JSON that older or newer deskreels wrote: never trust their types
    return format(value, spec) if isinstance(value, int | float) else str(value)


def aimed_at(widget: Widget) -> str:
    """The object a step was aimed at, in words: `on push button 'Apply' (row 'Mail
    server') of 'form'`."""
    if widget.source == XWINDOW:  # its label names its application already
        return f"on {widget.label}, as the X server said"
    beside = [name for role, name in widget.siblings if name and name != widget.name]
    row = f" beside {', '.join(repr(n) for n in beside[:3])}" if beside else ""
    return f"on {widget.label}{row} of {widget.app!r}, as its toolkit said"

"""Verification, live: what is kept of today's screen as a step begins, today's screen grabbed
after the step until it settles, a failed step's screen watched for its other looks, and a
failed step's message; the comparison with the recording is pure and lives beside locate
(matching/compare/)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from deskreel.matching import PARAMS as P
from deskreel.matching import Check, Image, StepWindows, VerifyOptions, carets_only
from deskreel.storage import Step
from deskreel.storage.told import Told

__all__ = [
    "UNSETTLED_HINT",
    "Seen",
    "caret_look",
    "failure",
    "later_frames",
    "other_looks",
    "settled_screen",
]

UNSETTLED_HINT = (
    "the recording's after-frame was taken before its screen settled, when the next step "
    "began: re-record with a pause after this step"
)


def settled_screen(
    grab: Callable[[], Image],
    *,
    settle: float,
    cap: float,
    pause: Callable[[float], None],
    clock: Callable[[], float] = time.monotonic,
) -> Image:
    """Grab until the screen stays the same for `settle` s (or `cap` s have passed)."""
    started = clock()
    last = grab()
    stable_since = clock()
    while clock() - stable_since < settle and clock() - started < cap:
        pause(0.05)
        now = grab()
        if now.shape != last.shape or not np.array_equal(now, last):
            last, stable_since = now, clock()
    return last


def other_looks(
    grab: Callable[[], Image],
    first: Image,
    *,
    within: float,
    pause: Callable[[float], None],
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Image]:
    """Today's screen each time it shows a look not seen since `first`, for `within` s.

    A settled screen is still not still everywhere: a text caret blinks (a bar one or two
    px wide, on for two thirds of a second, off for one third), and a step's after-frame
    caught it in one phase. Watched for one blink, the screen shows every phase of it; a
    step whose screen matches the recording in one of them did what was recorded."""
    seen = deque([first], maxlen=P.looks_kept)
    started = clock()
    while clock() - started < within:
        pause(0.05)
        now = grab()
        if not any(now.shape == s.shape and np.array_equal(now, s) for s in seen):
            seen.append(now)
            yield now


def caret_look(
    judge: Callable[[Image], list[Check]],
    verify: VerifyOptions,
    screen: Image,
    checks: list[Check],
    note: str,
    grab: Callable[[], Image],
    pause: Callable[[float], None],
    clock: Callable[[], float] = time.monotonic,
) -> tuple[Image, list[Check], str]:
    """A failed step judged again (`judge`) on each other look its screen shows for
    verify.blink s (one blink) where only a text caret changed (carets_only): the first look
    that passes every check, with a note saying when, else `screen` and its `checks`
    as they were. A message flashing or an effect arriving late changes more than a
    caret: the step fails as it did."""
    started = clock()
    for look in other_looks(grab, screen, within=verify.blink, pause=pause, clock=clock):
        if not carets_only(screen, look, verify):
            continue
        again = judge(look)
        if all(c.passed for c in again):
            later = (
                f"{len(again)} checks passed on the screen {clock() - started:.1f} s "
                f"later, its text caret in its other phase"
            )
            return look, again, f"{note}; {later}" if note else later
    return screen, checks, note


class Seen(NamedTuple):
    """What --verify keeps of today as a step begins: the screen, what tells the windows the
    step opened once it settled, what the step's window told (`told`) and what asks it
    again (None: nothing recorded to compare)."""

    screen: Any
    windows: Callable[[], StepWindows | None]
    told: Told | None
    ask_told: Callable[[], Told | None] | None


def failure(step: Step, checks: Sequence[Check]) -> str:
    """A failed step's message: on what, whether its object or the screen differs, and
    each failed check in words."""
    failed = [c for c in checks if not c.passed]
    aimed = next((c.label for c in checks if c.kind == "object" and c.passed), "")
    on = f" on {aimed}" if aimed else ""
    own = any(c.kind == "meaning" and c.label == aimed for c in failed)  # not another's
    what = "its object" if own and aimed else "the screen"
    message = (
        f"step {step.step} ({step.action.action}){on}: {what} differs from the "
        f"recording: " + "; ".join(c.describe() for c in failed)
    )
    if step.after_settled is False:  # the recording may show the effect half drawn
        message += f" ({UNSETTLED_HINT})"
    return message


def later_frames(steps: list[Step]) -> dict[int, str]:
    """For each step, the before-frame of the next step that is input (a `wait` is none):
    the recorded screen just before that step."""
    later: dict[int, str] = {}
    upcoming: str | None = None
    for step in reversed(steps):
        if upcoming is not None:
            later[step.step] = upcoming
        if step.action.action != "wait":
            upcoming = step.before_frame
    return later

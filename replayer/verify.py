"""Verification, live: after a step, grab today's screen until it settles, and watch a failed
step's screen for its other looks; the comparison with the recording is pure and lives
beside locate (matching/compare/)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator

import numpy as np

from deskreel.matching import PARAMS as P
from deskreel.matching import Check, Image, VerifyOptions, carets_only

__all__ = ["caret_look", "other_looks", "settled_screen"]


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

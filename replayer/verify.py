"""Verification, live: after a step, grab today's screen until it settles, and watch a failed
step's screen for its other looks; the comparison with the recording is pure and lives
beside locate (matching/compare/)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator

import numpy as np

from deskreel.matching import PARAMS as P
from deskreel.matching import Image

__all__ = ["other_looks", "settled_screen"]


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

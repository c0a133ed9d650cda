"""Verification, live: after a step, grab today's screen until it settles; the comparison
with the recording is pure and lives beside locate (matching/compare/)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from deskreel.matching import Image

__all__ = ["settled_screen"]


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

"""Replay timing as a chain of small generators: recorded times -> deadlines.

relative gaps -> idle cap -> speed -> absolute deadlines. Deadlines are absolute, so a late
step never pushes the ones after it: no drift accumulates.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = ["gaps", "cap_idle", "at_speed", "absolute", "deadlines"]


def gaps(times: Iterable[float]) -> Iterator[float]:
    """Seconds from each recorded time to the next (the first from itself: 0)."""
    previous = None
    for t in times:
        yield 0.0 if previous is None else max(0.0, t - previous)
        previous = t


def cap_idle(seconds: Iterable[float], max_idle: float | None) -> Iterator[float]:
    """Shorten gaps longer than `max_idle`; None keeps them as recorded."""
    for gap in seconds:
        yield gap if max_idle is None else min(gap, max_idle)


def at_speed(seconds: Iterable[float], speed: float) -> Iterator[float]:
    """Divide every gap by `speed` (2.0 replays twice as fast)."""
    if speed <= 0:
        raise ValueError("speed must be positive")
    for gap in seconds:
        yield gap / speed


def absolute(seconds: Iterable[float], start: float) -> Iterator[float]:
    """Running sums from `start`: the clock time each step is due."""
    due = start
    for gap in seconds:
        due += gap
        yield due


def deadlines(
    times: Iterable[float], *, start: float, speed: float = 1.0, max_idle: float | None = None
) -> list[float]:
    """The whole chain: recorded step times to absolute monotonic deadlines."""
    return list(absolute(at_speed(cap_idle(gaps(times), max_idle), speed), start))

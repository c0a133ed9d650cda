"""Which frames a stretch of input can need, so that the others are let go at once.

A busy desktop (a terminal running `top`, a clock) changes the screen ten times a second
whatever the person does; holding every frame of a stretch of input until its steps are
stored made the recorder's memory grow with the length of the stretch. The finisher only
ever looks at frames near a *decisive* event (recorder/cuts.py: a key or button event, or a
motion the pointer rested after): the frame on screen then (a step's before-frame), those
shown until the settle cap after it (its after-frame), up to LOOK_BACK frames before it (the
target at rest, recorder/rest.py; the end of an idle time, recorder/animation.py) and
AROUND frames from it on (the start of an idle time) and from the last of those on (what
still moves once an after-frame that did not settle is taken); and the first and last frames of a
piece (the idle times at its ends). Every other frame is no step's: it goes. Pure: no X, no
I/O, no clock.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from deskreel.storage import RawEvent

from .animation import MOST_FRAMES
from .screen import Frame

__all__ = ["AROUND", "LOOK_BACK", "needed_frames"]

LOOK_BACK = 16  # frames before a decisive event kept: what rest.py looks back through at most
AROUND = MOST_FRAMES // 2  # frames of each end of an idle time that animation.py compares

_POINTER_KINDS = frozenset({"motion", "button_down", "button_up"})


def needed_frames(
    frames: Sequence[Frame],
    events: Sequence[RawEvent],
    t0: float,
    *,
    hover_time: float,
    after: float,
) -> list[bool]:
    """For each of `frames` (in time order), whether a step of `events` (times from `t0`)
    can need it; `after`: how long after an event its after-frame may be looked for (the
    settle cap and the settle time)."""
    keep = [False] * len(frames)
    starts = [f.t_first for f in frames]
    for t in decisive_times(events, hover_time):
        at = max(bisect_right(starts, t0 + t) - 1, 0)
        end = bisect_right(starts, t0 + t + after)
        last = max(end, at + 1) - 1 + AROUND  # what still moves from the settle cap on
        for i in range(max(at - LOOK_BACK, 0), min(last, len(frames))):
            keep[i] = True
    ends = (*range(min(AROUND, len(frames))), *range(max(len(frames) - LOOK_BACK, 0), len(frames)))
    for i in ends:
        keep[i] = True
    return keep


def decisive_times(events: Sequence[RawEvent], hover_time: float) -> list[float]:
    """The times of the decisive events: every key and button event, and each motion the
    pointer rested after for `hover_time` (or has rested after since: the last one)."""
    times: list[float] = []
    last_motion: RawEvent | None = None
    for e in events:
        if e.kind in _POINTER_KINDS and last_motion is not None:
            if e.t - last_motion.t >= hover_time:
                times.append(last_motion.t)
            last_motion = None
        if e.kind == "motion":
            last_motion = e
        else:
            times.append(e.t)
    if last_motion is not None:
        times.append(last_motion.t)
    return sorted(times)

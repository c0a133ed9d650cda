"""A step's after-frame where the screen never stands still: a pulsing progress bar or a
spinner redraws it every few dozen milliseconds, so no frame stays `settle` s, and the
after-frame was the one on screen when the next step began, with whatever the person did
meanwhile (a menu item highlighted on the way to it).

What moved by itself before the step, on an object its toolkit says animates
(animating.py: a progress bar, an animation), goes on moving after it, and is no effect of
the step: the after-frame is the first frame that stayed `settle` s apart from changes
inside those objects' boxes. Only the toolkit's word makes a region count as moving by
itself: a target's hover or press, which also changed before the step, is the step's and
must settle. The recorder masks those boxes for the step's verification (animation.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from deskreel.storage.widgets import Widget

from .animating import animating_at
from .animation import MOST_FRAMES, boxes_of, kept_moving, largest

if TYPE_CHECKING:
    import numpy as np

    from .screen import Frame, FrameTimeline

__all__ = ["MOST_STILL_FRAMES", "animating_before", "still_apart"]

Box = tuple[int, int, int, int]
Point = tuple[int, int]

MOST_STILL_FRAMES = 64  # frames after a step compared at most; past them, as it was chosen


def animating_before(
    timeline: FrameTimeline, start: float, end: float, at: Callable[[Point], Widget | None]
) -> list[Box]:
    """The boxes of the objects of an animating role under what moved from one frame to
    the next while shown from `start` to `end` (the last MOST_FRAMES of them; of its
    MOST_BOXES largest regions)."""
    shown = timeline.shown_between(start, end)[-MOST_FRAMES:]
    moving = kept_moving(f.packed() for f in shown)
    found = (animating_at(box, at) for box in largest(boxes_of(moving)))
    return list(dict.fromkeys(b for b in found if b is not None))


def still_apart(
    timeline: FrameTimeline, t: float, *, settle: float, limit: float, boxes: list[Box]
) -> Frame | None:
    """The first frame shown from `t` to `limit` that the screen kept for `settle` s but
    for changes inside `boxes`; None where there is none, or more than MOST_STILL_FRAMES
    frames (or two of another size) to compare."""
    frames = timeline.shown_between(t, limit)
    if not boxes or not 2 <= len(frames) <= MOST_STILL_FRAMES:
        return None
    inside = _mask(frames[0], boxes)
    # frame i stayed (but inside `boxes`) until the last grab that saw the screen so: up to
    # the frame before the first one that differs elsewhere
    first, last = 0, frames[0].packed()
    for j, frame in enumerate(frames[1:], 1):
        now = frame.packed()
        if now.shape != last.shape:
            return None
        if ((now != last) & ~inside).any():
            if _kept(frames, first, j - 1, t, settle):
                return frames[first]
            first = j
        last = now
    until = min(limit, frames[-1].t_last)
    return frames[first] if until - max(frames[first].t_first, t) >= settle else None


def _kept(frames: list[Frame], first: int, last: int, t: float, settle: float) -> bool:
    """Whether the screen was seen as `frames[first]` shows it (but inside the animating
    boxes) for `settle` s from `t`, up to the last grab that saw `frames[last]`."""
    return frames[last].t_last - max(frames[first].t_first, t) >= settle


def _mask(frame: Frame, boxes: list[Box]) -> np.ndarray:
    import numpy as np

    mask = np.zeros((frame.height, frame.width), bool)
    for x, y, w, h in boxes:
        mask[max(y, 0) : max(y + h, 0), max(x, 0) : max(x + w, 0)] = True
    return mask

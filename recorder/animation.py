"""What moves on the screen while nobody touches anything: a caret blinking, a spinner, a
clock ticking. Seen in the idle time around each step, such a region holds no effect of the
step (its pixels are whatever phase the grab caught), so the recorder masks it for that
step's verification (storage's masks, which `deskreel mask` lists and removes).

A pixel is animated when, while the person is idle, it changes and then comes back to what
it was: a step's slow effect (a dialog opening late) changes pixels that stay changed, and
stays checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from .pieces import Job
    from .screen import FrameTimeline

__all__ = ["animated_masks", "toggled", "toggled_boxes"]

Box = tuple[int, int, int, int]

MOST_FRAMES = 16  # frames of one idle time compared at most (a video would bring hundreds)
MOST_BOXES = 8  # regions masked per step at most: the largest
_GROW = 3  # px a region is grown by: the anti-aliased edge of a caret or a glyph


def animated_masks(job: Job) -> dict[int, list[Box]]:
    """For each step of `job` that is no wait, the regions that moved back and forth in the
    idle time before it and after it (until the next step, or what the job holds)."""
    inputs = [(number, r) for number, r in job.numbered if r.action.action != "wait"]
    cache: dict[tuple[float, float], list[Box]] = {}

    def idle(start: float, end: float) -> list[Box]:
        if (start, end) not in cache:
            cache[(start, end)] = toggled_boxes(job.timeline, start, end) if end > start else []
        return cache[(start, end)]

    out: dict[int, list[Box]] = {}
    for i, (number, r) in enumerate(inputs):
        start, end = job.t0 + r.t_start, job.t0 + r.t_end
        before = job.t0 + inputs[i - 1][1].t_end if i else float("-inf")
        after = job.t0 + inputs[i + 1][1].t_start if i + 1 < len(inputs) else job.now
        boxes = _largest([*idle(before, start), *idle(end, after)])
        if boxes:
            out[number] = boxes
    return out


def toggled_boxes(timeline: FrameTimeline, start: float, end: float) -> list[Box]:
    """The regions of the frames shown from `start` to `end` that changed and came back."""
    import cv2
    import numpy as np

    frames = [f.pixels() for f in timeline.shown_between(start, end)[:MOST_FRAMES]]
    mask = toggled(frames)
    if mask is None or not mask.any():
        return []
    grown = cv2.dilate(mask.astype(np.uint8), np.ones((2 * _GROW + 1,) * 2, np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown)
    return [tuple(int(v) for v in stats[i][:4]) for i in range(1, count)]  # type: ignore[misc]


def toggled(frames: Sequence[np.ndarray]) -> np.ndarray | None:
    """The pixels that differ from the first frame in one frame and equal it again in a
    later one; None with fewer than three frames of one size."""
    import numpy as np

    if len(frames) < 3 or any(f.shape != frames[0].shape for f in frames):
        return None
    first = frames[0]
    changed = np.zeros(first.shape[:2], bool)
    back = np.zeros_like(changed)
    for frame in frames[1:]:
        same = (frame == first).all(axis=2)
        back |= changed & same
        changed |= ~same
    return back


def _largest(boxes: list[Box]) -> list[Box]:
    unique = sorted(set(boxes), key=lambda b: -b[2] * b[3])
    return unique[:MOST_BOXES]

"""What moves on the screen while nobody touches anything: a caret blinking, a spinner, a
clock ticking. Seen in the idle time around each step, such a region holds no effect of the
step (its pixels are whatever phase the grab caught), so the recorder masks it for that
step's verification (storage's masks, which `deskreel mask` lists and removes).

A pixel is animated when, while the person is idle, it changes and then comes back to what
it was (a caret, a tooltip), or when it still changes once the screen should have settled
(`settled` s after the idle time began: the recorder's settle cap, after which it takes an
after-frame as it is): a spinner or a pulsing progress bar never comes back exactly. A
step's effect, which settles, stays checked: pixels that came back are not masked for a
step that changed them and left them so (its before- and after-frame differ there, and
they stayed as the after-frame shows them until the next step). What the step drew there is its
effect (a digit replaced, a window redrawn: a grab may catch it half drawn, and then
whole again); a caret or a spinner, which go on moving, stay masked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

if TYPE_CHECKING:
    import numpy as np

    from .pieces import Job
    from .screen import Frame, FrameTimeline

__all__ = [
    "GROW",
    "MOST_BOXES",
    "animated_masks",
    "boxes_of",
    "kept_moving",
    "moves_between",
    "toggled",
]

Box = tuple[int, int, int, int]

# frames of each part of an idle time compared at most (a video would bring hundreds): its
# beginning, its end, and from the settle cap on
MOST_FRAMES = 16
MOST_BOXES = 8  # regions masked per step at most: the largest
GROW = 3  # px a region is grown by: the anti-aliased edge of a caret or a glyph


# At most this many frames shown after a step's after-frame are compared with it, to tell
# what the step drew and left there; past them, all that came back stays masked.
MOST_AFTER = 16

# What moved in an idle time: the pixels that came back (None: too few frames to tell), and
# the regions still moving late.
IdleMoves: TypeAlias = "tuple[np.ndarray | None, list[Box]]"


class StepFrames(NamedTuple):
    """A step's before- and after-frame, as the finisher chose them, and whether the screen
    was seen to settle in the after-frame."""

    before: Frame | None
    after: Frame | None
    settled: bool


def animated_masks(
    job: Job, *, settled: float, frames: Mapping[int, StepFrames] | None = None
) -> dict[int, list[Box]]:
    """For each step of `job` that is no wait, the regions that moved while nobody touched
    anything in the idle time before it and after it (until the next step, or what the job
    holds): back and forth, or still `settled` s into that time. A region that came back
    is not masked for a step that changed it lastingly (its `frames` differ there, the
    after-frame settled, and its pixels stayed until the idle time after it ended): a
    redraw caught half done, which that step drew."""
    inputs = [(number, r) for number, r in job.numbered if r.action.action != "wait"]
    cache: dict[tuple[float, float], IdleMoves] = {}

    def idle(start: float, end: float) -> IdleMoves:
        if (start, end) not in cache:
            moved = end > start
            cache[(start, end)] = (
                moves_between(job.timeline, start, end, settled) if moved else (None, [])
            )
        return cache[(start, end)]

    out: dict[int, list[Box]] = {}
    for i, (number, r) in enumerate(inputs):
        start, end = job.t0 + r.t_start, job.t0 + r.t_end
        before = job.t0 + inputs[i - 1][1].t_end if i else float("-inf")
        after = job.t0 + inputs[i + 1][1].t_start if i + 1 < len(inputs) else job.now
        (back, late), (back_after, late_after) = idle(before, start), idle(end, after)
        came_back = _either(back, back_after)
        chosen = (frames or {}).get(number)
        if came_back is not None and came_back.any() and chosen is not None:
            drawn = _drawn_by_step(job.timeline, chosen, after)
            if drawn is not None and drawn.shape == came_back.shape:
                came_back = came_back & ~drawn
        boxes = largest([*late, *late_after, *boxes_of(came_back)])
        if boxes:
            out[number] = boxes
    return out


def moves_between(timeline: FrameTimeline, start: float, end: float, settled: float) -> IdleMoves:
    """The pixels of the frames shown from `start` to `end` that changed and came back, and
    the regions that changed from one frame to the next `settled` s after the first of them
    was shown.

    The frames are compared one at a time as packed pixels (Frame.packed: one number per
    pixel, no copy): what is held at once is the first frame, the one before and two masks,
    however long the idle time."""
    shown = timeline.shown_between(start, end)
    if not shown:
        return None, []
    late_from = max(start, shown[0].t_first) + settled
    # from the frame on screen at late_from on: when a step's after-frame that did not
    # settle was taken (finisher.py), and what still moved then is what it caught in flight
    first_late = max((i for i, f in enumerate(shown) if f.t_first <= late_from), default=0)
    late = shown[-1].t_first > late_from
    half = MOST_FRAMES // 2
    if len(shown) > MOST_FRAMES:
        # its beginning (what comes back), what moves from the settle cap on, and its end
        # (the next step's before-frame)
        picked = {*range(half), *range(len(shown) - half, len(shown))}
        if late:
            picked |= set(range(first_late, min(first_late + half, len(shown))))
        first_late = sum(1 for i in picked if i < first_late)
        shown = [shown[i] for i in sorted(picked)]
    late_start = first_late if late else len(shown)
    frames = [f.packed for f in shown]  # each unpacked when it is compared
    back = toggled(f() for f in frames)
    late_moving = kept_moving(f() for f in frames[late_start:])
    return back, boxes_of(late_moving)


def _either(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """The pixels either mask holds (`a` alone where `b` is None or of another size)."""
    if a is None:
        return b
    return a if b is None or b.shape != a.shape else a | b


def boxes_of(mask: np.ndarray | None) -> list[Box]:
    """The regions of `mask`, each grown by GROW px."""
    import cv2
    import numpy as np

    if mask is None or not mask.any():
        return []
    grown = cv2.dilate(mask.astype(np.uint8), np.ones((2 * GROW + 1,) * 2, np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown)
    return [tuple(int(v) for v in stats[i][:4]) for i in range(1, count)]  # type: ignore[misc]


def _drawn_by_step(timeline: FrameTimeline, pair: StepFrames, end: float) -> np.ndarray | None:
    """Where a step's settled after-frame differs from its before-frame and every frame
    shown from it until `end` (the idle time after the step ended) shows the after-frame's
    pixels: what the step drew and left. None (nothing drawn to tell) without both frames
    of one size, when the after-frame did not settle, or when more than MOST_AFTER frames
    followed it (each is compared with it: a caret's two phases alternate frame by
    frame)."""
    import numpy as np

    before, after, settled = pair
    if before is None or after is None or not settled:
        return None
    shown = [f for f in timeline.shown_between(after.t_first, end) if f is not after]
    if len(shown) > MOST_AFTER:
        return None
    first, drawn = before.packed(), after.packed()
    if first.shape != drawn.shape:
        return None
    left = ~_same(first, drawn)
    for frame in shown:
        if not left.any():
            break
        later = frame.packed()
        if later.shape != drawn.shape:
            return None
        left &= _same(later, drawn)
    return np.asarray(left)


def toggled(frames: Iterable[np.ndarray]) -> np.ndarray | None:
    """The pixels that differ from the first frame in one frame and equal it again in a
    later one; None with fewer than three frames of one size. A frame is packed (one number
    per pixel) or has its channels last."""
    import numpy as np

    first: np.ndarray | None = None
    changed = back = None
    count = 0
    for frame in frames:
        count += 1
        if first is None:
            first = frame
            changed = np.zeros(first.shape[:2], bool)
            back = np.zeros_like(changed)
            continue
        if frame.shape != first.shape:
            return None
        same = _same(frame, first)
        back |= changed & same
        changed |= ~same
    return back if count >= 3 else None


def kept_moving(frames: Iterable[np.ndarray]) -> np.ndarray | None:
    """The pixels that differ between two consecutive frames; None with fewer than two of
    one size."""
    import numpy as np

    before: np.ndarray | None = None
    moving = None
    for frame in frames:
        if before is not None:
            if frame.shape != before.shape:
                return None
            if moving is None:
                moving = np.zeros(frame.shape[:2], bool)
            moving |= ~_same(frame, before)
        before = frame
    return moving


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where two frames show the same pixel."""
    same = a == b
    return same.all(axis=2) if same.ndim == 3 else same


def largest(boxes: list[Box]) -> list[Box]:
    """The MOST_BOXES largest of `boxes`, each once."""
    unique = sorted(set(boxes), key=lambda b: -b[2] * b[3])
    return unique[:MOST_BOXES]

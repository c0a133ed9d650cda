"""A pointer step's target as it looked at rest, before the pointer came onto it.

Many toolkits draw the control under the pointer otherwise (a prelight, a thicker border, a
highlighted menu row), so the frame just before a press shows the target hovered, while a
replay finds it at rest: the pointer is elsewhere when a step begins. The recorder keeps a
ring of frames. Going back from the press through the frames shown while only the pointer
moved, the latest one that differs from the press's frame in a region around the target,
with the pointer outside it shortly before the frame gave way, shows the target at rest.
Both looks go into the anchor: at rest first (`png`), hovered beside it (`hover_png`), on
the same box.

A hover may also tell of its target elsewhere: a status bar shows the control's tip (Qt's
status tips, a browser's link address, Tk's widget demo). Such a change, apart from the
target's region, no larger than a control and outside the anchor, does not make the frame
another screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from deskreel.storage import Anchor, RawEvent

from .screen import Frame

__all__ = [
    "Rest", "anchor_in_two_looks", "at_rest", "calm_since", "changed_regions", "meets",
    "pointer_path",
]  # fmt: skip

Box = tuple[int, int, int, int]
_LARGEST = (480, 120)  # a region changed by a hover larger than this is not one control's
# Changed pixels at most this far apart (px) are one region: a label's letters and the gaps
# between its words; a status bar's tip below the control is another
_APART = 16
_OTHERS = 2  # regions a hover changes beside its target's at most: a status tip, a tooltip
# A toolkit draws a hover within a frame or two of the pointer's entry: a look shown on
# longer with the pointer on the target is another state of it (a button enabled while the
# pointer waited on it), not its look at rest
HOVER_LAG = 0.5


@dataclass(frozen=True, slots=True)
class Rest:
    """A frame showing the target at rest: its pixels, the target's changed region, and
    the other regions the hover changed (which no anchor may hold)."""

    pixels: Any
    region: Box
    apart: tuple[Box, ...]


def calm_since(events: Sequence[RawEvent], first: int, last: int) -> tuple[float, float] | None:
    """From when to when only the pointer moved before the step of `events[first..last]`
    pressed a button (its first press, or its first event): from the event before that run of
    motion (or the first event kept) to the press; None without motion before the press."""
    press = next((i for i in range(first, last + 1) if events[i].kind == "button_down"), first)
    i = press - 1
    while i >= 0 and events[i].kind == "motion":
        i -= 1
    if i == press - 1:
        return None
    return events[max(i, 0)].t, events[press].t


def pointer_path(events: Sequence[RawEvent], start: float, end: float) -> list[tuple[int, int]]:
    """Where the pointer was from `start` to `end`: where it was at `start` (by the last
    event before that says) and wherever it moved to until `end`."""
    path: list[tuple[int, int]] = []
    for event in events:
        if event.x is None or event.y is None:
            continue
        if event.t <= start:
            path[:] = [(event.x, event.y)]
        elif event.t <= end:
            path.append((event.x, event.y))
    return path


def changed_regions(a: Any, b: Any) -> list[Box]:
    """The boxes around the separate regions where two same-sized RGB images differ (changed
    pixels less than `_APART` px apart are one region), largest first; [] where none do."""
    import cv2
    import numpy as np

    changed = np.any(a != b, axis=2).astype(np.uint8)
    if not changed.any():
        return []
    near = cv2.dilate(changed, np.ones((_APART + 1, _APART + 1), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(near, connectivity=8)
    boxes = []
    for label in range(1, count):
        x, y, w, h = (int(v) for v in stats[label, :4])
        inside = (labels[y : y + h, x : x + w] == label) & (changed[y : y + h, x : x + w] > 0)
        ys, xs = np.nonzero(inside)
        boxes.append(
            (x + int(xs.min()), y + int(ys.min()), int(np.ptp(xs)) + 1, int(np.ptp(ys)) + 1)
        )
    return sorted(boxes, key=lambda b: b[2] * b[3], reverse=True)


def _holding(regions: Sequence[Box], target: tuple[int, int]) -> Box | None:
    """The target's region among `regions`, all of them no larger than a control and at most
    `_OTHERS` beside it; None where none holds it, or the screen changed otherwise."""
    if len(regions) > 1 + _OTHERS or any(
        w > _LARGEST[0] or h > _LARGEST[1] for _, _, w, h in regions
    ):
        return None
    return next(
        (
            (x, y, w, h)
            for x, y, w, h in regions
            if x <= target[0] < x + w and y <= target[1] < y + h
        ),
        None,
    )


def at_rest(
    frames: Sequence[Frame],
    hovered: Any,
    target: tuple[int, int],
    path: Callable[[float, float], list[tuple[int, int]]],
    hide: Callable[[Any], Any],
    since: float,
    obj: Box | None = None,
) -> Rest | None:
    """The latest of `frames` (shown while only the pointer moved) that shows the target at
    rest: it differs from `hovered` in a region holding the target, and elsewhere only in
    regions apart from it (a status bar's tip), each no larger than a control; and the
    pointer was off the target's object `obj` (or, not known, off every changed region) at
    some moment in the last `HOVER_LAG` s it was shown (from `since` on, when the calm began,
    for a frame shown from before; `path` gives where the pointer was between two times).
    The region may hold more than the target: a menu moves its highlight from the row under
    the pointer to the target's row. `hide` paints redacted typing out of a frame. None when
    there is none, or when the screen changed otherwise."""
    for frame in reversed(frames):
        if (frame.height, frame.width) != hovered.shape[:2]:
            return None
        pixels = hide(frame.pixels())
        regions = changed_regions(pixels, hovered)
        if not regions:
            continue  # the hovered look itself, shown earlier too
        region = _holding(regions, target)
        if region is None:
            return None
        # Shown shortly before it gave way with the pointer off the target, it shows the look
        # at rest (a frame shown on after the pointer came in, until the toolkit drew the
        # hover, too)
        ox, oy, ow, oh = obj or around(regions)
        start = max(frame.t_first, since, frame.t_last - HOVER_LAG)
        if any(
            not (ox <= px < ox + ow and oy <= py < oy + oh) for px, py in path(start, frame.t_last)
        ):
            return Rest(pixels, region, tuple(r for r in regions if r != region))
    return None


def around(boxes: Sequence[Box]) -> Box:
    """The smallest box holding every one of `boxes`."""
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
    return x0, y0, x1 - x0, y1 - y0


def meets(box: Box, others: Sequence[Box]) -> bool:
    """Whether `box` overlaps any of `others`."""
    x, y, w, h = box
    return any(
        x < ox + ow and ox < x + w and y < oy + oh and oy < y + h for ox, oy, ow, oh in others
    )


def anchor_in_two_looks(hovered: Any, rest: Any, target: tuple[int, int]) -> Anchor:
    """The anchor chosen on the screen at `rest`, with the same box cut from `hovered`
    (none when the box holds nothing of what changed).

    The box is not grown to hold all that the hover changed: a menu moves its highlight from
    another row, and a crop grown over both rows is told by the other row's highlight, not
    by the target's name, so a target removed from the menu would match its neighbour."""
    from deskreel.matching import choose_anchor
    from deskreel.xsession.images import encode_png

    choice = choose_anchor(rest, target)
    x, y, w, h = choice.box
    at_rest, on = rest[y : y + h, x : x + w], hovered[y : y + h, x : x + w]
    return Anchor(
        png=encode_png(at_rest),
        box=choice.box,
        offset=choice.offset,
        score=choice.score,
        margin=choice.margin,
        # one look where the box holds none of the change
        hover_png=None if (at_rest == on).all() else encode_png(on),
        twins=choice.twins,
    )

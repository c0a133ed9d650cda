"""A pointer step's target as it looked at rest, before the pointer came onto it.

Many toolkits draw the control under the pointer otherwise (a prelight, a thicker border, a
highlighted menu row), so the frame just before a press shows the target hovered, while a
replay finds it at rest: the pointer is elsewhere when a step begins. The recorder keeps a
ring of frames. Going back from the press through the frames shown while only the pointer
moved, the latest one that differs from the press's frame, in one region around the target
and with the pointer outside that region then, shows the target at rest. Both looks go into
the anchor: at rest first (`png`), hovered beside it (`hover_png`), on the same box.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from deskreel.storage import Anchor, RawEvent

from .screen import Frame

__all__ = ["anchor_in_two_looks", "at_rest", "calm_since", "changed_region", "pointer_path"]

Box = tuple[int, int, int, int]
_LARGEST = (480, 120)  # a region changed by a hover larger than this is not one control's


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


def changed_region(a: Any, b: Any) -> Box | None:
    """The box around every pixel that differs between two same-sized RGB images, or None."""
    import numpy as np

    changed = np.argwhere(np.any(a != b, axis=2))
    if changed.size == 0:
        return None
    (y0, x0), (y1, x1) = changed.min(axis=0), changed.max(axis=0)
    return int(x0), int(y0), int(x1 - x0 + 1), int(y1 - y0 + 1)


def at_rest(
    frames: Sequence[Frame],
    hovered: Any,
    target: tuple[int, int],
    path: Callable[[float, float], list[tuple[int, int]]],
    hide: Callable[[Any], Any],
    since: float,
    obj: Box | None = None,
) -> tuple[Any, Box] | None:
    """The latest of `frames` (shown while only the pointer moved) that shows the target at
    rest: it differs from `hovered` in one region holding the target, no larger than a
    control, and the pointer was off the target's object `obj` (or, not known, off that
    region) at some moment while it was shown (from `since` on, when the calm began, for a
    frame shown from before; `path` gives where the pointer was between two times). The
    region may hold more than the target: a menu moves its highlight from the row under the
    pointer to the target's row. Its pixels (`hide` paints out redacted typing) and that
    region; None when there is none, or when the screen changed otherwise."""
    for frame in reversed(frames):
        if (frame.height, frame.width) != hovered.shape[:2]:
            return None
        pixels = hide(frame.pixels())
        region = changed_region(pixels, hovered)
        if region is None:
            continue  # the hovered look itself, shown earlier too
        x, y, w, h = region
        if not (x <= target[0] < x + w and y <= target[1] < y + h):
            return None
        if w > _LARGEST[0] or h > _LARGEST[1]:
            return None
        # Shown at some moment with the pointer off the target, it shows the look at rest (a
        # frame shown on after the pointer came in, until the toolkit drew the hover, too)
        ox, oy, ow, oh = obj or region
        if any(
            not (ox <= px < ox + ow and oy <= py < oy + oh)
            for px, py in path(max(frame.t_first, since), frame.t_last)
        ):
            return pixels, region
    return None


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

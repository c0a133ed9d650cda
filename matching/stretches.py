"""Flat stretches: a target in an empty canvas or a blank end of a row, placed by the ends of
the stretch it is in.

Parts (parts.py) place a target from the textured pixels around it, and the further those
are, the less surely. A target in a flat stretch is placed along an axis by the stretch's
own ends instead: the run of its shade through it, at least P.span_least px long on the recorded
screen and off the screen's edges, found again today through the parts' point with a length
that the parts' scale explains to within P.span_agree.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .params import PARAMS as P
from .search import Image, Point

__all__ = ["Span", "place_by_stretches", "stretches_through", "within_image"]

Span = tuple[int, int]  # a stretch along one axis: its first pixel and the one past its last


def stretches_through(gray: Image, target: Point, origin: Point) -> tuple[Span | None, Span | None]:
    """Along x and along y: the flat stretch through `target` on `gray`, moved by -`origin`,
    or None when it is short or runs off the screen."""
    x_span, y_span = (_long(_span(gray, target, axis), origin[axis]) for axis in (0, 1))
    return x_span, y_span


def place_by_stretches(
    gray: Image,
    start: npt.NDArray[np.float64],
    scale: float,
    spans: tuple[Span | None, Span | None],
    shade: int,
    target: Point,
) -> tuple[npt.NDArray[np.float64], list[bool | None]]:
    """The target placed by the flat stretches through it, from `start` (where the
    parts put it), and along each axis whether its stretch placed it, or None when there
    is no such stretch on the recorded screen. Placing one axis moves the line the other
    is looked along (a stretch that ends on text ends a little differently on each row),
    so both are placed again until the lines they are looked along, and which of them
    placed it, stay the same.

    `spans` are the recorded stretches (stretches_through), in the frame `target` is in;
    `shade` is the target's grayscale there."""
    point, placed = start.copy(), [False, False]
    for _ in range(4):
        lines, before = [round(point[0]), round(point[1])], list(placed)
        for axis in (0, 1):
            along = _along(gray, point, axis, scale, placed[1 - axis], spans, shade, target)
            placed[axis] = along is not None
            point[axis] = start[axis] if along is None else along
        if [round(point[0]), round(point[1])] == lines and placed == before:
            break
    else:
        point, placed = start, [False, False]  # they disagree: they place nothing
    return point, [placed[axis] if spans[axis] is not None else None for axis in (0, 1)]


def _along(
    gray: Image,
    point: npt.NDArray[np.float64],
    axis: int,
    scale: float,
    across_known: bool,
    spans: tuple[Span | None, Span | None],
    shade: int,
    target: Point,
) -> float | None:
    """Where the flat stretch through `point` along `axis` puts the target today: at the
    same share of it as on the recorded screen, when its length is what `scale` makes
    the recorded one's. When `point` was placed across the way by a stretch too, the
    line is known to a pixel (a height rounds one way at one scale and the other way at
    another), so the lines either side are tried too."""
    recorded = spans[axis]
    if recorded is None:
        return None
    for across in P.span_across if across_known else P.span_across[:1]:
        at = (round(point[0]) + across * axis, round(point[1]) + across * (1 - axis))
        if not within_image(gray, at) or abs(int(gray[at[1], at[0]]) - shade) > P.span_shade:
            continue
        today = _span(gray, at, axis)
        if today is None:
            continue
        ratio = (today[1] - today[0]) / (recorded[1] - recorded[0])
        if abs(ratio / scale - 1) <= P.span_agree:
            return today[0] + (target[axis] - recorded[0]) * ratio
    return None


def within_image(gray: Image, point: Point) -> bool:
    """Whether `point` (x, y) is a pixel of `gray`."""
    return bool(0 <= point[0] < gray.shape[1] and 0 <= point[1] < gray.shape[0])


def _span(gray: Image, point: Point, axis: int) -> Span | None:
    """The run of pixels of `point`'s shade (within P.span_shade) through it along `axis` (0:
    its row, 1: its column): its first pixel and the one past its last; None when it runs to
    the edge of `gray` (where it ends is not known)."""
    line = gray[point[1], :] if axis == 0 else gray[:, point[0]]
    at = point[axis]
    breaks = np.flatnonzero(np.abs(line.astype(np.int16) - int(line[at])) > P.span_shade)
    i = int(np.searchsorted(breaks, at))
    if i == 0 or i == len(breaks):
        return None
    return int(breaks[i - 1]) + 1, int(breaks[i])


def _long(span: Span | None, origin: int) -> Span | None:
    """`span`, moved by -`origin`, when it is at least P.span_least px long."""
    return (
        None
        if span is None or span[1] - span[0] < P.span_least
        else (span[0] - origin, span[1] - origin)
    )

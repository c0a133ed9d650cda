"""Part by part: a match at another scale checked, and its target placed, piece by piece.

A layout drawn at another scale does not scale like a picture: widgets and borders scale by
the factor, text by the nearest font size, padding by whole pixels. A crop resized as a whole
fits such a screen only roughly (the wider, the worse), and where the target sits inside it
can be off by several pixels. Cut into small parts, each part still fits on its own, a few
pixels from where the whole would put it. So a place found at another scale is verified by
looking for every textured part of the recorded neighbourhood near where the place predicts
it; the parts that fit, and fit together, give the score, and the ones nearest the target
say where the target is.

This module cuts the parts and looks for them; fitting.py fits what was found, stretches.py
places a target in a flat stretch, and deciding.py judges places by the parts' verdicts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from .fitting import PartsFit, Table, sharpness
from .params import PARAMS as P
from .search import Box, Image, Point, correlate
from .stretches import Span, place_by_stretches, stretches_through, within_image

__all__ = ["Parts", "Verdict", "part_starts", "textured_parts"]


@dataclass(frozen=True, slots=True)
class Parts:
    """The textured parts of a screen around an anchor: the recorded screen's, or what was
    found on today's, to look back with."""

    gray: Image  # the neighbourhood
    origin: Point  # its top-left on the screen
    target: Point  # the target, in `gray`
    places: tuple[Point, ...]  # top-left of each part in `gray`
    level: npt.NDArray[np.bool_]  # per part, x and y: level with the target there, in its widget
    # along x and along y: the flat stretch through the target (its first pixel and the
    # one past its last, in `gray`'s frame as `target` is), or None when it is short or runs
    # off the screen
    spans: tuple[Span | None, Span | None] = (None, None)
    shade: int = 0  # the target's grayscale there

    @classmethod
    def of(
        cls,
        gray: Image,
        box: Box,
        target: Point,
        *,
        least: tuple[int, int] = P.parts_least,
        most: int = P.parts_most,
        spans: bool = False,
    ) -> Parts:
        """Parts of `gray` (a screen, or an anchor alone) in `box` widened by P.parts_reach, and to
        at least `least`; `most` of them at most. With `spans` (`gray` being a screen), the
        flat stretches through the target too, which verify() places it by whenever they are
        found again."""
        x, y, w, h = box
        height, width = gray.shape
        # A small crop's parts reach further: the look-alikes it was told apart from may
        # differ only a little way off it.
        rx, ry = max(P.parts_reach, (least[0] - w) // 2), max(P.parts_reach, (least[1] - h) // 2)
        x0, y0 = max(0, x - rx), max(0, y - ry)
        x1, y1 = min(width, x + w + rx), min(height, y + h + ry)
        hood = gray[y0:y1, x0:x1]
        side = _side(hood.shape)
        stride = max(side // 2, math.ceil(math.sqrt(hood.size / most)))
        places = textured_parts(
            hood,
            part_starts(hood.shape[1], side, stride),
            part_starts(hood.shape[0], side, stride),
            side,
        )
        inside = (target[0] - x0, target[1] - y0)
        # Along each axis, whether each part is level with the target in the same widget.
        level = np.array(
            [
                [
                    abs(p[axis] + side / 2 - inside[axis]) <= P.level
                    and not _fenced(hood, inside, p[1 - axis] + side // 2, axis)
                    for axis in (0, 1)
                ]
                for p in places
            ],
            dtype=bool,
        ).reshape(-1, 2)
        if not spans or not within_image(gray, target):
            return cls(hood, (x0, y0), inside, places, level)
        return cls(
            hood,
            (x0, y0),
            inside,
            places,
            level,
            stretches_through(gray, target, (x0, y0)),
            int(gray[target[1], target[0]]),
        )

    @property
    def side(self) -> int:
        """The side of the parts, px on the screen they were cut from."""
        return _side(self.gray.shape)

    def verify(self, gray: Image, target: Point, scale: float, *, fixed: bool = False) -> Verdict:
        """How well the parts fit `gray` when the recorded target is at `target` at `scale`
        (held to `scale` when `fixed`).

        Each part is looked for within a few pixels (more for parts far from the target) of
        where a uniform scaling puts it; a fit of position and scale over the parts found
        throws out those that disagree with the rest.
        """
        if not self.places:
            return Verdict(0.0, None, scale, scale)
        fit = PartsFit.of(
            self._look(gray, target, scale), self.target, self.side, scale if fixed else None
        )
        if fit is None:
            return Verdict(0.0, None, scale, scale)
        # The target from the parts around it, then from the flat stretches it was in.
        says_all, start = fit.says()
        point, spanned = place_by_stretches(
            gray, start, float(fit.scale), self.spans, self.shade, self.target
        )
        reach, spread, pinned = fit.pins(self.level, says_all, point, spanned)
        return Verdict(
            fit.score(),
            (round(point[0]), round(point[1])),
            float(fit.scale),
            scale,
            reach,
            spread,
            pinned,
            False in spanned,
        )

    def _look(self, gray: Image, target: Point, scale: float) -> Table:
        """Each part looked for on `gray` near where the recorded target at `target` and
        `scale` puts it: its row of a Table."""
        import cv2

        sized = (
            cast(
                Image,
                cv2.resize(
                    self.gray,
                    None,
                    fx=scale,
                    fy=scale,
                    interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                ),
            )
            if scale != 1.0
            else self.gray
        )
        side = max(4, round(self.side * scale))
        tx, ty = self.target
        # score, x, y (found), ox, oy (recorded), and how sharply the score peaks along x
        # and along y: a piece of a horizontal line fits anywhere along x, and says nothing
        # about x.
        found: list[tuple[float, ...]] = []
        for px, py in self.places:
            sx, sy = round(px * scale), round(py * scale)
            part = sized[sy : sy + side, sx : sx + side]
            distance = math.hypot(px + self.side / 2 - tx, py + self.side / 2 - ty)
            pad = 4 + round(0.04 * distance)
            guess = (round(target[0] + (px - tx) * scale), round(target[1] + (py - ty) * scale))
            correlated = correlate(gray, part, guess, pad) if part.shape == (side, side) else None
            if correlated is None:
                found.append((0.0, 0.0, 0.0, px, py, 0.0, 0.0))
                continue
            result, (x0, y0) = correlated
            _, score, _, (x, y) = cv2.minMaxLoc(result)
            found.append(
                (float(score), x0 + x, y0 + y, px, py, *sharpness(result, x, y, float(score)))
            )
        return np.array(found, dtype=np.float64)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The parts' verdict on a place: how well they fit there, where they put the target,
    and how surely."""

    score: float  # the share of the parts found where the fit puts them, score-weighted
    point: Point | None  # where the parts put the target
    scale: float  # the scale the parts fit best
    asked: float  # the scale the parts were sized at
    reach: float = math.inf  # px from the target to the nearest part placing it (worse axis)
    spread: float = math.inf  # px: the fit's uncertainty about the target (worse axis)
    pinned: bool = False  # whether the target is placed surely enough along both axes
    unspanned: bool = False  # whether a flat stretch it was in is not found where it is put


def _side(shape: tuple[int, ...]) -> int:
    """The side of the parts of a neighbourhood: P.part_side, or half a small one (an anchor
    alone, when there is no recorded screen), so that it still has several parts."""
    return min(P.part_side, max(8, min(shape[0], shape[1]) // 2))


def textured_parts(gray: Image, xs: list[int], ys: list[int], side: int) -> tuple[Point, ...]:
    """The top-lefts among `xs` by `ys` (row by row) of the `side`-square parts of `gray`
    (cut short at its edges) whose grayscale std reaches P.texture: all of them from one pair
    of integral images, in integers, so exactly as a std of each part would say."""
    import cv2

    sums, squares = cv2.integral2(gray, sdepth=cv2.CV_32S, sqdepth=cv2.CV_64F)
    height, width = gray.shape
    x0, y0 = np.array(xs)[None, :], np.array(ys)[:, None]
    x1, y1 = np.minimum(x0 + side, width), np.minimum(y0 + side, height)

    def total(table: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
        # only the corners are taken, then made int64: the squares' sums are whole numbers
        # below 2**53, so exact
        a, b, c, d = (
            table[y, x].astype(np.int64) for y, x in ((y1, x1), (y0, x1), (y1, x0), (y0, x0))
        )
        corners: npt.NDArray[np.int64] = a - b - c + d
        return corners

    n = (x1 - x0) * (y1 - y0)
    s1, s2 = total(sums), total(squares)
    # std >= T  <=>  n * sum(v^2) - sum(v)^2 >= T^2 * n^2 (both sides exact below 2**53)
    rows, cols = np.nonzero(n * s2 - s1 * s1 >= P.texture**2 * n * n)
    return tuple((xs[c], ys[r]) for r, c in zip(rows.tolist(), cols.tolist()))


def part_starts(length: int, side: int, stride: int) -> list[int]:
    """Evenly spread starts of `side`-long parts over `length`, the last flush with the end."""
    if length <= side:
        return [0]
    count = (length - side + stride - 1) // stride + 1
    return [round(i * (length - side) / (count - 1)) for i in range(count)]


def _fenced(gray: Image, target: Point, end: float, axis: int) -> bool:
    """Whether a border (a straight line across the way) stands on `gray` between `target`
    and `end`, a part's centre level with it: along y at the target's height when `axis` is 1
    (the part is beside it), along x at its column when 0 (the part is above or below it).
    A part behind a border belongs to another widget, which may scale its content otherwise."""
    if axis == 0:
        gray, target = gray.T, (target[1], target[0])
    tx, ty = target
    lo, hi = sorted((tx, int(end)))
    band = gray[max(0, ty - P.level) : ty + P.level + 1, max(0, lo) : hi + 1].astype(np.float32)
    if band.shape[0] < 2 * P.level or band.shape[1] == 0:
        return False
    # A border: a column of the band that is one shade from end to end, and not the shade
    # the target sits on.
    across = (band.std(axis=0) < P.border_even) & (
        np.abs(band.mean(axis=0) - float(gray[ty, tx])) > P.border_shade
    )
    return bool(across.any())

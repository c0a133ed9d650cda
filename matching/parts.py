"""Part by part: a match at another scale checked, and its target placed, piece by piece.

A layout drawn at another scale does not scale like a picture: widgets and borders scale by
the factor, text by the nearest font size, padding by whole pixels. A crop resized as a whole
fits such a screen only roughly (the wider, the worse), and where the target sits inside it
can be off by several pixels. Cut into small parts, each part still fits on its own, a few
pixels from where the whole would put it. So a place found at another scale is verified by
looking for every textured part of the recorded neighbourhood near where the place predicts
it; the parts that fit, and fit together, give the score, and the ones nearest the target
say where the target is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .search import Box, Image, Point, _correlate, _each

_PART = 24  # px: the side of a part on the recorded screen
_TEXTURE = 8.0  # grayscale std a part needs to say anything
_MOST = 48  # parts at most: the stride grows on big neighbourhoods
_REACH = 16  # px of the recorded screen around the anchor that parts are cut from too
_LEAST = (128, 72)  # px: the least neighbourhood parts are cut from
_FIT = 0.7  # least score of a part that counts as found
_SLACK = 3.0  # px a found part may sit off the fit of all of them
_NEAR = 24.0  # px: parts this close to the target weigh e times more than the next band
_NEAR_SCORE = 48.0  # px: how fast a part's say in the score falls off with distance
_FLOOR = 0.25  # the least say of a part
# A target is placed surely enough along an axis when a part within _PIN_REACH px places it,
# or the flat stretch it was in does (below), or the fit's one-sigma error there is at most
# _PIN_SPREAD px and the target was in no flat stretch along it, or in one found again.
_PIN_REACH = 96
_PIN_SPREAD = 0.5
# px a target placed from afar may be put off: by a part found level with it (within _LEVEL
# px of its row or column, in its widget) when the target is further than _NEAR px from its
# nearest part, and by the difference between the parts' scale and the known one.
_FAR_OFF = 2.0
_LEVEL = 8
_EVEN, _SHADE = 3.0, 24.0  # a border line: grayscale std along it at most, and its contrast
_AGREE = 0.02  # how close the parts' own scale must be to the known one to be held to it
_APART = 8  # px between two targets that count as two places
_SANE = (0.5, 2.0)  # scales a fit may come to: outside, a few stray parts fitted nonsense
# A target in a flat stretch (an empty canvas, a blank end of a row) is placed along an axis
# by the stretch's own ends: the run of its shade through it, at least _SPAN px long on the
# recorded screen and off the screen's edges, found again today through the parts' point
# with a length that the parts' scale explains to within _SPAN_AGREE.
_SPAN = 48
_SPAN_SHADE = 2  # grayscale levels a pixel of the stretch may differ from the target's
_SPAN_AGREE = 0.03
_ACROSS = (0, -1, 1)  # px across the way: the lines a stretch is looked for along


@dataclass(frozen=True, slots=True)
class Parts:
    """The textured parts of a screen around an anchor: the recorded screen's, or what was
    found on today's, to look back with."""

    gray: Image  # the neighbourhood
    origin: Point  # its top-left on the screen
    target: Point  # the target, in `gray`
    places: tuple[Point, ...]  # top-left of each part in `gray`
    level: np.ndarray  # per part, x and y: level with the target there, in its widget
    # along x and along y: the flat stretch through the target (its first pixel and the
    # one past its last, in `gray`'s frame as `target` is), or None when it is short or runs
    # off the screen
    spans: tuple[tuple[int, int] | None, tuple[int, int] | None] = (None, None)
    shade: int = 0  # the target's grayscale there

    @classmethod
    def of(
        cls,
        gray: Image,
        box: Box,
        target: Point,
        *,
        least: tuple[int, int] = _LEAST,
        most: int = _MOST,
        spans: bool = False,
    ) -> Parts:
        """Parts of `gray` (a screen, or an anchor alone) in `box` widened by _REACH, and to
        at least `least`; `most` of them at most. With `spans` (`gray` being a screen), the
        flat stretches through the target too, which verify() places it by whenever they are
        found again."""
        x, y, w, h = box
        height, width = gray.shape
        # A small crop's parts reach further: the look-alikes it was told apart from may
        # differ only a little way off it.
        rx, ry = max(_REACH, (least[0] - w) // 2), max(_REACH, (least[1] - h) // 2)
        x0, y0 = max(0, x - rx), max(0, y - ry)
        x1, y1 = min(width, x + w + rx), min(height, y + h + ry)
        hood = gray[y0:y1, x0:x1]
        side = _side(hood.shape)
        stride = max(side // 2, math.ceil(math.sqrt(hood.size / most)))
        places = _textured(
            hood, _steps(hood.shape[1], side, stride), _steps(hood.shape[0], side, stride), side
        )
        inside = (target[0] - x0, target[1] - y0)
        # Along each axis, whether each part is level with the target in the same widget.
        level = np.array(
            [
                [
                    abs(p[axis] + side / 2 - inside[axis]) <= _LEVEL
                    and not _fenced(hood, inside, p[1 - axis] + side // 2, axis)
                    for axis in (0, 1)
                ]
                for p in places
            ],
            dtype=bool,
        ).reshape(-1, 2)
        if not spans or not _inside(gray, target):
            return cls(hood, (x0, y0), inside, places, level)
        x_span, y_span = (_long(_span(gray, target, axis), (x0, y0)[axis]) for axis in (0, 1))
        return cls(
            hood, (x0, y0), inside, places, level, (x_span, y_span), int(gray[target[1], target[0]])
        )

    @property
    def side(self) -> int:
        return _side(self.gray.shape)

    def verify(self, gray: Image, target: Point, scale: float, *, fixed: bool = False) -> Verdict:
        """How well the parts fit `gray` when the recorded target is at `target` at `scale`.

        Each part is looked for within a few pixels (more for parts far from the target) of
        where a uniform scaling puts it; a fit of position and scale over the parts found
        throws out those that disagree with the rest.
        """
        import cv2

        if not self.places:
            return Verdict(0.0, None, scale, scale)
        sized = (
            cv2.resize(
                self.gray,
                None,
                fx=scale,
                fy=scale,
                interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
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
            correlated = _correlate(gray, part, guess, pad) if part.shape == (side, side) else None
            if correlated is None:
                found.append((0.0, 0.0, 0.0, px, py, 0.0, 0.0))
                continue
            result, (x0, y0) = correlated
            _, score, _, (x, y) = cv2.minMaxLoc(result)
            found.append(
                (float(score), x0 + x, y0 + y, px, py, *_sharpness(result, x, y, float(score)))
            )
        table = np.array(found, dtype=np.float64)
        good = table[:, 0] >= _FIT
        fit = None
        for _ in range(2):
            if good.sum() < 2:
                break
            fit = _solve(table[good], scale if fixed else None)[0]
            off = np.abs(table[:, 1:3] - _predict(fit, table[:, 3:5])) * table[:, 5:7]
            good = (table[:, 0] >= _FIT) & (off.max(axis=1) <= _SLACK)
        if fit is None or good.sum() < 2 or not _SANE[0] <= fit[2] <= _SANE[1]:
            return Verdict(0.0, None, scale, scale)
        # Parts near the target count for more: a neighbouring row of a list fits most
        # parts of a wide crop, but not the ones on the target's own text.
        centres = table[:, 3:5] + self.side / 2
        near = _FLOOR + np.exp(-np.hypot(centres[:, 0] - tx, centres[:, 1] - ty) / _NEAR_SCORE)
        score = float((np.clip(table[:, 0], 0, 1) * good * near).sum() / near.sum())
        # The target from the parts around it: each found part says where the target is
        # relative to itself, along the axes it is sure of; nearer parts say it with more
        # weight.
        kept = table[good]
        distance = np.hypot(centres[good, 0] - tx, centres[good, 1] - ty)
        weight = (kept[:, 0] * np.exp(-distance / _NEAR))[:, None] * kept[:, 5:7] + 1e-9
        fitted_scale = fit[2]
        says_all = table[:, 1:3] + (np.array([tx, ty]) - table[:, 3:5]) * fitted_scale
        says = says_all[good]
        point, spanned = self._by_spans(
            gray, (says * weight).sum(axis=0) / weight.sum(axis=0), float(fitted_scale)
        )
        # Along each axis: how far the target is from the nearest part that pins it down,
        # how surely the fit of all of them places it (one standard deviation, px), and
        # whether that is sure enough: a part near it, the flat stretch it was in, or a
        # tight fit; and no part level with the target contradicts it.
        _, covariance = _solve(kept, scale if fixed else None)
        reach, spread, sure = [], [], []
        for axis, v in enumerate(((1.0, 0.0, tx), (0.0, 1.0, ty))):
            pin = distance[kept[:, 5 + axis] >= 0.5]
            reach.append(float(pin.min()) if pin.size else math.inf)
            spread.append(math.sqrt(max(0.0, float(np.array(v) @ covariance @ np.array(v)))))
            # A part level with the target along this axis places it there whatever the
            # scale is, even one the fit threw out: a list's rows keep to the font while the
            # list's box scales, and a target far from every part is placed by the box.
            level = self.level[:, axis] & (table[:, 5 + axis] >= 0.5) & (table[:, 0] >= _FIT)
            off = (
                float(np.abs(says_all[level, axis] - point[axis]).max())
                if level.any() and reach[axis] > _NEAR
                else 0.0
            )
            # A tight fit of far parts does not place it where the stretch it was in is not
            # found today (the fit may be a row off, or the stretch gone).
            sure.append(
                (
                    reach[axis] <= _PIN_REACH
                    or spanned[axis] is True
                    or (spread[axis] <= _PIN_SPREAD and spanned[axis] is None)
                )
                and off <= _FAR_OFF
            )
        return Verdict(
            score,
            (round(point[0]), round(point[1])),
            float(fitted_scale),
            scale,
            max(reach),
            max(spread),
            all(sure),
            False in spanned,
        )

    def _by_spans(
        self, gray: Image, start: np.ndarray, scale: float
    ) -> tuple[np.ndarray, list[bool | None]]:
        """The target placed by the flat stretches through it, from `start` (where the
        parts put it), and along each axis whether its stretch placed it, or None when there
        is no such stretch on the recorded screen. Placing one axis moves the line the other
        is looked along (a stretch that ends on text ends a little differently on each row),
        so both are placed again until the lines they are looked along, and which of them
        placed it, stay the same."""
        point, placed = start.copy(), [False, False]
        for _ in range(4):
            lines, before = [round(point[0]), round(point[1])], list(placed)
            for axis in (0, 1):
                along = self._along(gray, point, axis, scale, placed[1 - axis])
                placed[axis] = along is not None
                point[axis] = start[axis] if along is None else along
            if [round(point[0]), round(point[1])] == lines and placed == before:
                break
        else:
            point, placed = start, [False, False]  # they disagree: they place nothing
        return point, [placed[axis] if self.spans[axis] is not None else None for axis in (0, 1)]

    def _along(
        self, gray: Image, point: np.ndarray, axis: int, scale: float, across_known: bool
    ) -> float | None:
        """Where the flat stretch through `point` along `axis` puts the target today: at the
        same share of it as on the recorded screen, when its length is what `scale` makes
        the recorded one's. When `point` was placed across the way by a stretch too, the
        line is known to a pixel (a height rounds one way at one scale and the other way at
        another), so the lines either side are tried too."""
        recorded = self.spans[axis]
        if recorded is None:
            return None
        for across in _ACROSS if across_known else _ACROSS[:1]:
            at = (round(point[0]) + across * axis, round(point[1]) + across * (1 - axis))
            if not _inside(gray, at) or abs(int(gray[at[1], at[0]]) - self.shade) > _SPAN_SHADE:
                continue
            today = _span(gray, at, axis)
            if today is None:
                continue
            ratio = (today[1] - today[0]) / (recorded[1] - recorded[0])
            if abs(ratio / scale - 1) <= _SPAN_AGREE:
                return today[0] + (self.target[axis] - recorded[0]) * ratio
        return None


@dataclass(frozen=True, slots=True)
class Verdict:
    score: float  # the share of the parts found where the fit puts them, score-weighted
    point: Point | None  # where the parts put the target
    scale: float  # the scale the parts fit best
    asked: float  # the scale the parts were sized at
    reach: float = math.inf  # px from the target to the nearest part placing it (worse axis)
    spread: float = math.inf  # px: the fit's uncertainty about the target (worse axis)
    pinned: bool = False  # whether the target is placed surely enough along both axes
    unspanned: bool = False  # whether a flat stretch it was in is not found where it is put


def _inside(gray: Image, point: Point) -> bool:
    return 0 <= point[0] < gray.shape[1] and 0 <= point[1] < gray.shape[0]


def _span(gray: Image, point: Point, axis: int) -> tuple[int, int] | None:
    """The run of pixels of `point`'s shade (within _SPAN_SHADE) through it along `axis` (0:
    its row, 1: its column): its first pixel and the one past its last; None when it runs to
    the edge of `gray` (where it ends is not known)."""
    line = gray[point[1], :] if axis == 0 else gray[:, point[0]]
    at = point[axis]
    breaks = np.flatnonzero(np.abs(line.astype(np.int16) - int(line[at])) > _SPAN_SHADE)
    i = int(np.searchsorted(breaks, at))
    if i == 0 or i == len(breaks):
        return None
    return int(breaks[i - 1]) + 1, int(breaks[i])


def _long(span: tuple[int, int] | None, origin: int) -> tuple[int, int] | None:
    """`span`, moved by -`origin`, when it is at least _SPAN px long."""
    return (
        None if span is None or span[1] - span[0] < _SPAN else (span[0] - origin, span[1] - origin)
    )


def _fenced(gray: Image, target: Point, end: float, axis: int) -> bool:
    """Whether a border (a straight line across the way) stands on `gray` between `target`
    and `end`, a part's centre level with it: along y at the target's height when `axis` is 1
    (the part is beside it), along x at its column when 0 (the part is above or below it).
    A part behind a border belongs to another widget, which may scale its content otherwise."""
    if axis == 0:
        gray, target = gray.T, (target[1], target[0])
    tx, ty = target
    lo, hi = sorted((tx, int(end)))
    band = gray[max(0, ty - _LEVEL) : ty + _LEVEL + 1, max(0, lo) : hi + 1].astype(np.float32)
    if band.shape[0] < 2 * _LEVEL or band.shape[1] == 0:
        return False
    # A border: a column of the band that is one shade from end to end, and not the shade
    # the target sits on.
    across = (band.std(axis=0) < _EVEN) & (np.abs(band.mean(axis=0) - float(gray[ty, tx])) > _SHADE)
    return bool(across.any())


def _sharpness(result: np.ndarray, x: int, y: int, score: float) -> tuple[float, float]:
    """How surely a peak of a correlation map is placed along x and along y, 0 to 1: the
    drop in score 2 px to either side (a drop of 0.2 or more is sure)."""
    h, w = result.shape
    across = [float(result[y, i]) for i in (x - 2, x + 2) if 0 <= i < w]
    down = [float(result[j, x]) for j in (y - 2, y + 2) if 0 <= j < h]
    return tuple(
        min(1.0, max(0.0, score - max(side, default=score - 0.2)) / 0.2) for side in (across, down)
    )  # type: ignore[return-value]


def _solve(rows: np.ndarray, scale: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Least squares x0, y0, s with found = (x0, y0) + s * place, each axis weighted by the
    part's score and how sure it is along that axis, and its covariance (from the weighted
    residuals); with `scale`, s is that and only x0, y0 are fitted (s's variance is 0)."""
    n = len(rows)
    a = np.zeros((2 * n, 3))
    a[:n, 0], a[n:, 1] = 1, 1
    a[:n, 2], a[n:, 2] = rows[:, 3], rows[:, 4]
    b = np.concatenate([rows[:, 1], rows[:, 2]])
    w = np.sqrt(np.concatenate([rows[:, 0] * rows[:, 5], rows[:, 0] * rows[:, 6]]) + 1e-9)
    if scale is not None:
        b, a = b - scale * a[:, 2], a[:, :2]
    aw, bw = a * w[:, None], b * w
    solution, *_ = np.linalg.lstsq(aw, bw, rcond=None)
    residual = bw - aw @ solution
    dof = max(1, int((w > 0.1).sum()) - a.shape[1])
    # A floor on the residual: parts are placed to the whole pixel.
    variance = max(float(residual @ residual) / dof, 0.25)
    covariance = np.zeros((3, 3))
    try:
        covariance[: a.shape[1], : a.shape[1]] = variance * np.linalg.inv(aw.T @ aw)
    except np.linalg.LinAlgError:
        covariance[:] = np.inf
    if scale is not None:
        solution = np.append(solution, scale)
    return solution, covariance


def _predict(fit: np.ndarray, places: np.ndarray) -> np.ndarray:
    return fit[:2] + fit[2] * places


def _side(shape: tuple[int, ...]) -> int:
    """The side of the parts of a neighbourhood: _PART, or half a small one (an anchor
    alone, when there is no recorded screen), so that it still has several parts."""
    return min(_PART, max(8, min(shape[0], shape[1]) // 2))


def _textured(gray: Image, xs: list[int], ys: list[int], side: int) -> tuple[Point, ...]:
    """The top-lefts among `xs` by `ys` (row by row) of the `side`-square parts of `gray`
    (cut short at its edges) whose grayscale std reaches _TEXTURE: all of them from one pair
    of integral images, in integers, so exactly as a std of each part would say."""
    import cv2

    sums, squares = cv2.integral2(gray, sdepth=cv2.CV_32S, sqdepth=cv2.CV_64F)
    height, width = gray.shape
    x0, y0 = np.array(xs)[None, :], np.array(ys)[:, None]
    x1, y1 = np.minimum(x0 + side, width), np.minimum(y0 + side, height)

    def total(table: np.ndarray) -> np.ndarray:
        # only the corners are taken, then made int64: the squares' sums are whole numbers
        # below 2**53, so exact
        a, b, c, d = (
            table[y, x].astype(np.int64) for y, x in ((y1, x1), (y0, x1), (y1, x0), (y0, x0))
        )
        return a - b - c + d

    n = (x1 - x0) * (y1 - y0)
    s1, s2 = total(sums), total(squares)
    # std >= T  <=>  n * sum(v^2) - sum(v)^2 >= T^2 * n^2 (both sides exact below 2**53)
    rows, cols = np.nonzero(n * s2 - s1 * s1 >= _TEXTURE**2 * n * n)
    return tuple((xs[c], ys[r]) for r, c in zip(rows.tolist(), cols.tolist()))


def _steps(length: int, side: int, stride: int) -> list[int]:
    """Evenly spread starts of `side`-long parts over `length`, the last flush with the end."""
    if length <= side:
        return [0]
    count = (length - side + stride - 1) // stride + 1
    return [round(i * (length - side) / (count - 1)) for i in range(count)]


def decide(
    parts: Parts,
    gray: Image,
    places: list[tuple[float, Point, float]],
    judged: dict[tuple[Point, float], Verdict] | None = None,
    known: float | None = None,
) -> tuple[Verdict, Verdict]:
    """The best of `places` (whole-crop score, target, scale: the likeliest first) by how
    well the parts fit there, and the best of the others further than _APART from it.
    `judged` keeps the verdicts on places across calls (a second search adds places). At the
    `known` scale (the one earlier targets were found at: one screen has one scale) the
    parts fit position only: a target far from every part is then placed without the
    error of a scale estimated from them."""
    judged = {} if judged is None else judged

    def judge(place: tuple[Point, float]) -> Verdict:
        point, scale = place
        verdict = parts.verify(gray, point, scale)
        if scale == known and verdict.point is not None and abs(verdict.scale - known) <= _AGREE:
            # The parts agree with the known scale: let them place the target at it. Held
            # to it, they must still put the target where they put it freely, within
            # _FAR_OFF px and the free fit's own doubt (three sigmas); when holding the scale
            # moves it further, the parts near the target disagree with the known scale (a
            # list's rows keep to the font while its box scales), and the place is not sure.
            held = parts.verify(gray, point, scale, fixed=True)
            if (
                held.point is not None
                and math.dist(held.point, verdict.point) > _FAR_OFF + 3 * verdict.spread
            ):
                held = replace(held, pinned=False)
            verdict = held
        return _held(verdict, known)

    new = list(
        dict.fromkeys((point, scale) for _, point, scale in places if (point, scale) not in judged)
    )
    judged.update(zip(new, _each(judge, new)))
    verdicts = [judged[point, scale] for _, point, scale in places]
    found = sorted((v for v in verdicts if v.point is not None), key=lambda v: -v.score)
    # The two best again at the scale their parts fit (a coarse scale is up to 4% off), at
    # once: neither depends on the other.
    redo = [
        (rank, (verdict.point, round(verdict.scale, 3)))
        for rank, verdict in enumerate(found[:2])
        if verdict.point is not None and abs(verdict.scale - verdict.asked) > 0.01
    ]
    agains = _each(
        lambda place: judged.get(place) or _held(parts.verify(gray, place[0], place[1]), known),
        [p for _, p in redo],
    )
    for (rank, place), again in zip(redo, agains):
        judged[place] = again
        if again.score >= found[rank].score:
            found[rank] = again
    found.sort(key=lambda v: -v.score)
    if not found:
        return _NONE, _NONE
    best = found[0]
    assert best.point is not None
    # One flat stretch, fitted at two scales, puts its target at two places that are one.
    runner = next((v for v in found[1:] if apart(v, best.point)), _NONE)
    return best, runner


def apart(verdict: Verdict, point: Point) -> bool:
    """Whether `verdict` puts its target at another place than `point`: further than _APART
    px and than its own placement is unsure by (three sigmas)."""
    return (
        verdict.point is not None and math.dist(verdict.point, point) > _APART + 3 * verdict.spread
    )


def _held(verdict: Verdict, known: float | None) -> Verdict:
    """`verdict`, not pinned when its parts fit a scale other than the `known` one by enough
    to put a target as far from them as this one off by more than _FAR_OFF px."""
    if (
        known is None
        or verdict.point is None
        or abs(verdict.scale - known) <= _AGREE
        or verdict.reach * abs(verdict.scale - known) <= _FAR_OFF
    ):
        return verdict
    return replace(verdict, pinned=False)


_NONE = Verdict(0.0, None, 1.0, 1.0)

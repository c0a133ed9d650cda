"""The searches that choosing an anchor and locating one share.

A screen kept at three resolutions, a coarse scan that ranks its likeliest places, exact
probes around a place, and what counts as the same place. Package-private: only choice.py
and locating.py use these, so the names keep their underscore.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
Box = tuple[int, int, int, int]
Point = tuple[int, int]
Zone = tuple[Point, tuple[int, int]]  # top-left positions within (rx, ry) of a place

_PEAKS = 10  # candidates per search that are scored at full resolution
_PEAK_POOL = 400  # local maxima considered when spreading those candidates out
_FLOOR = 0.25  # correlation below which a place is not worth a closer look
_SAME_PLACE = 8  # pixels: a second match further than this from the best is a look-alike
_EDGE = 2  # grayscale step that a screen's busy part has somewhere in every 3x3 square
_WORKERS = min(4, os.cpu_count() or 1)  # threads that judge independent places at once
_WORKER_NAME = "deskreel-match"
_FLAT_NORM = 1e-3  # a template's norm (mean taken off) below which it is flat

_T = TypeVar("_T")
_R = TypeVar("_R")


class _Hit(NamedTuple):
    score: float
    x: int  # top-left of the match
    y: int


_NOWHERE = _Hit(0.0, -1, -1)


def _each(fn: Callable[[_T], _R], items: Iterable[_T]) -> list[_R]:
    """`fn` of each item, in order: on worker threads when this machine has more than one
    CPU. Correlating is most of a search's time, and OpenCV lets go of the interpreter lock
    for it, but small correlations keep only one core busy. Run inline on a worker itself
    (no waiting on the pool from inside it)."""
    items = list(items)
    if _WORKERS < 2 or len(items) < 2 or threading.current_thread().name.startswith(_WORKER_NAME):
        return [fn(item) for item in items]
    return list(_pool().map(fn, items))


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(_WORKERS, thread_name_prefix=_WORKER_NAME)


@dataclass(frozen=True, slots=True)
class _Screen:
    rgb: Image
    levels: dict[int, Image]  # grayscale at full (1), half (2) and quarter (4) resolution
    # The part of the screen that is not one flat colour (a plain desktop around a window),
    # at full resolution: nothing can match outside it, so the coarse scans skip the rest.
    busy: Box

    @classmethod
    def of(cls, rgb: Image) -> _Screen:
        import cv2

        gray = _gray(rgb)
        half = cv2.pyrDown(gray)
        quarter = cv2.pyrDown(half)
        edges = cv2.morphologyEx(quarter, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        found = cv2.findNonZero(cv2.compare(edges, _EDGE, cv2.CMP_GT))
        if found is None:
            busy: Box = (0, 0, 0, 0)
        else:
            x, y, w, h = cv2.boundingRect(found)
            busy = (
                4 * x,
                4 * y,
                min(gray.shape[1], 4 * (x + w)) - 4 * x,
                min(gray.shape[0], 4 * (y + h)) - 4 * y,
            )
        return cls(rgb, {1: gray, 2: half, 4: quarter}, busy)

    @property
    def gray(self) -> Image:
        return self.levels[1]


def _search_region(
    image: Image,
    tmpl: Image,
    top_left: Point,
    *,
    pad: int,
    keep_out: Zone | None = None,
    others: int = _PEAKS,
) -> list[_Hit]:
    """Full-resolution matches with their top-left within `pad` of `top_left`.

    Without `keep_out`: the best, then the best outside its neighbourhood, then other peaks.
    With it: the best outside `keep_out`, then other peaks. Either way the runner-up is exact.
    `others` caps the places after the best; 1 (the runner-up alone) skips peak finding.
    """
    import cv2

    correlated = _correlate(image, tmpl, top_left, pad)
    if correlated is None:
        return []
    result, (x0, y0) = correlated
    th, tw = tmpl.shape
    hits: list[_Hit] = []
    if keep_out is None:
        _, score, _, (x, y) = cv2.minMaxLoc(result)
        hits.append(_Hit(float(score), x0 + x, y0 + y))
        keep_out = (x0 + x, y0 + y), _radius(tw, th)
    _blank(result, keep_out, origin=(x0, y0))
    if others == 1:
        _, score, _, (x, y) = cv2.minMaxLoc(result)
        peaks = [(x, y)] if score > _FLOOR else []
    else:
        peaks = _peaks(result, count=others, spread=_radius(tw, th))
    return hits + [_Hit(float(result[y, x]), x0 + x, y0 + y) for x, y in peaks]


def _correlate(
    image: Image, tmpl: Image, top_left: Point, pad: int
) -> tuple[npt.NDArray[np.float32], Point] | None:
    """The correlation map of `tmpl` placed within `pad` of `top_left` (clipped to the image),
    and the image position of its first cell; only that part of `image` is made grayscale."""
    import cv2

    th, tw = tmpl.shape
    x0, y0 = max(0, top_left[0] - pad), max(0, top_left[1] - pad)
    region = image[y0 : max(0, top_left[1] + pad + th), x0 : max(0, top_left[0] + pad + tw)]
    if region.shape[0] < th or region.shape[1] < tw:
        return None
    return cv2.matchTemplate(_gray(region), tmpl, cv2.TM_CCOEFF_NORMED), (x0, y0)


def _scan(
    screen: _Screen, tmpl: Image, *, factor: int | None = None, keep_out: Zone | None = None
) -> Iterator[_Hit]:
    """The screen's likeliest places, found at reduced resolution and scored at full.

    Lazily, in the order the coarse search ranks them: callers may stop at the first
    that settles their question.
    """
    import cv2

    th, tw = tmpl.shape
    factor = factor or _factor(tw, th)
    pyramid = {1: tmpl}  # the template at the screen's levels, down to `factor`
    while max(pyramid) < factor:
        pyramid[2 * max(pyramid)] = cv2.pyrDown(pyramid[max(pyramid)])
    small = pyramid[factor]
    # Only where the template would overlap the busy part of the screen (a margin of one
    # template all round; the edges of a reduced level may round a pixel away).
    bx, by, bw, bh = screen.busy
    sh, sw = small.shape
    x0, y0 = max(0, bx // factor - sw - 1), max(0, by // factor - sh - 1)
    coarse = screen.levels[factor][
        y0 : (by + bh) // factor + sh + 2, x0 : (bx + bw) // factor + sw + 2
    ]
    if small.shape[0] > coarse.shape[0] or small.shape[1] > coarse.shape[1]:
        return
    result = cv2.matchTemplate(coarse, small, cv2.TM_CCOEFF_NORMED)
    if keep_out is not None:
        (kx, ky), (rx, ry) = keep_out
        _blank(result, ((kx // factor - x0, ky // factor - y0), (rx // factor, ry // factor)))
    rx, ry = _radius(tw, th)
    # A quarter-resolution scan ranks a small crop's true place less reliably: keep more.
    count = _PEAKS * factor if min(tw, th) < 64 else _PEAKS
    places = [
        (x + x0, y + y0)
        for x, y in _peaks(result, count=count, spread=(max(1, rx // factor), max(1, ry // factor)))
    ]
    if factor == 4:
        # A big crop: its places scored at half resolution first, where it is as telling and
        # a look costs a fourth; the two best get the full-resolution look, the others keep
        # their half-resolution score (if anything a little high: blur makes things alike).
        halves = sorted(
            (
                hit
                for x, y in places
                if (hit := _probe(screen.levels[2], pyramid[2], (2 * x, 2 * y), pad=2))
            ),
            reverse=True,
        )
        for rank, half in enumerate(halves):
            hit = (
                _probe(screen.gray, tmpl, (2 * half.x, 2 * half.y), pad=2)
                if rank < 2
                else _Hit(half.score, 2 * half.x, 2 * half.y)
            )
            if hit is not None:
                yield hit
        return
    for x, y in places:
        hit = _probe(screen.gray, tmpl, (x * factor, y * factor), pad=factor)
        if hit is not None:
            yield hit


def _factor(w: int, h: int) -> int:
    """How much to shrink screen and template for a coarse scan."""
    # A quarter of the resolution blurs small text beyond recognition; keep it for big crops.
    return 4 if min(w, h) >= 64 else 2 if min(w, h) >= 12 else 1


def _blank(result: npt.NDArray[np.float32], zone: Zone, *, origin: Point = (0, 0)) -> None:
    """Take `zone` (top-left positions around a place) out of a correlation map."""
    (x, y), (rx, ry) = zone
    x, y = x - origin[0], y - origin[1]
    result[max(0, y - ry) : max(0, y + ry + 1), max(0, x - rx) : max(0, x + rx + 1)] = -1.0


def _peaks(result: npt.NDArray[np.float32], *, count: int, spread: tuple[int, int]) -> list[Point]:
    """The highest local maxima of a correlation map, more than `spread` apart."""
    import cv2

    # Local maxima only, or the shoulders of one strong peak would take every place; then
    # spread out, or one long plateau (a border, a row of text) would.
    is_peak = cv2.compare(result, cv2.dilate(result, np.ones((3, 3), np.uint8)), cv2.CMP_GE)
    is_peak &= cv2.compare(result, _FLOOR, cv2.CMP_GT)
    places = cv2.findNonZero(is_peak)
    if places is None:
        return []
    xs, ys = places.reshape(-1, 2).T
    scores = result[ys, xs]
    if len(scores) > _PEAK_POOL:
        top = np.argpartition(scores, -_PEAK_POOL)[-_PEAK_POOL:]
        xs, ys, scores = xs[top], ys[top], scores[top]
    chosen: list[Point] = []
    for i in np.argsort(scores)[::-1]:
        x, y = int(xs[i]), int(ys[i])
        if all(abs(x - cx) > spread[0] or abs(y - cy) > spread[1] for cx, cy in chosen):
            chosen.append((x, y))
            if len(chosen) == count:
                break
    return chosen


def _probe(gray: Image, tmpl: Image, top_left: Point, *, pad: int) -> _Hit | None:
    """The best full-resolution match with its top-left within `pad` pixels of `top_left`."""
    import cv2

    correlated = _correlate(gray, tmpl, top_left, pad)
    if correlated is None:
        return None
    result, (x0, y0) = correlated
    _, score, _, (x, y) = cv2.minMaxLoc(result)
    return _Hit(float(score), x0 + x, y0 + y)


def _colour_score(rgb: Image, tmpl: Image, top_left: Point) -> float:
    """TM_CCOEFF_NORMED of `tmpl` on the same-sized window of `rgb` at `top_left`, over all
    three channels: what cv2.matchTemplate gives for that one place, to float32 rounding,
    about 15 times faster for a big crop (matchTemplate takes its Fourier path even for a
    single place)."""
    # Grayscale correlation is blind to hue (a red and a green button of one shape both score
    # 1.0); correlating each channel separately tells them apart.
    import cv2

    x, y = top_left
    window = rgb[y : y + tmpl.shape[0], x : x + tmpl.shape[1]]

    def matched() -> float:  # matchTemplate's own rules: off the screen's edge, or flat
        return float(cv2.matchTemplate(window, tmpl, cv2.TM_CCOEFF_NORMED)[0, 0])

    if tmpl.ndim != 3 or window.shape != tmpl.shape:
        return matched()
    seen, wanted = (
        cv2.subtract(v, cv2.mean(v)).ravel()
        for v in (window.astype(np.float32), tmpl.astype(np.float32))
    )
    wanted_norm = float(np.sqrt(wanted.dot(wanted)))
    if wanted_norm < _FLAT_NORM:
        return matched()
    product, norm = float(seen.dot(wanted)), float(np.sqrt(seen.dot(seen))) * wanted_norm
    # matchTemplate's own rule where the window is (nearly) flat: 0, or +-1 within rounding
    if abs(product) < norm:
        return product / norm
    return math.copysign(1.0, product) if abs(product) < norm * 1.125 else 0.0


def _gray(image: Image) -> Image:
    import cv2

    return cv2.cvtColor(image, cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image


def _radius(w: int, h: int) -> tuple[int, int]:
    """How far from a match another one still counts as the same place."""
    # Small and absolute: one row down a list is another target however big the crop is.
    return min(_SAME_PLACE, max(2, w // 4)), min(_SAME_PLACE, max(2, h // 4))


def _near(hit: _Hit, place: Point, radius: tuple[int, int]) -> bool:
    return abs(hit.x - place[0]) <= radius[0] and abs(hit.y - place[1]) <= radius[1]


def _sub(a: Point, b: Point) -> Point:
    return a[0] - b[0], a[1] - b[1]


def _add(a: Point, b: Point) -> Point:
    return a[0] + b[0], a[1] + b[1]

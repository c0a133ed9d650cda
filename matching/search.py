"""The searches that choosing an anchor and locating one share, and their primitives.

A screen kept at three resolutions, a coarse scan that ranks its likeliest places, exact
probes around a place, and what counts as the same place; under them, the primitives that
any comparison of screens by correlation needs (grayscale, a correlation map around a place,
the best match there), and a map over independent items on worker threads.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, TypeVar, cast

import numpy as np
import numpy.typing as npt

from .params import PARAMS as P

if TYPE_CHECKING:
    from cv2.typing import MatLike

__all__ = [
    "NOWHERE",
    "Box",
    "Hit",
    "Image",
    "Point",
    "Scores",
    "Screen",
    "Zone",
    "add",
    "coarse_factor",
    "colour_score",
    "correlate",
    "each",
    "grayscale",
    "is_near",
    "probe",
    "same_place_radius",
    "scan",
    "search_region",
    "sub",
]

Image = npt.NDArray[np.uint8]  # a screen or a crop: H x W x 3 RGB, or H x W grayscale
Scores = npt.NDArray[np.float32]  # a correlation map: one score per top-left position
Box = tuple[int, int, int, int]  # x, y, w, h
Point = tuple[int, int]  # x, y
Zone = tuple[Point, tuple[int, int]]  # top-left positions within (rx, ry) of a place

_WORKERS = min(4, os.cpu_count() or 1)  # threads that judge independent places at once
_WORKER_NAME = "deskreel-match"

_T = TypeVar("_T")
_R = TypeVar("_R")


class Hit(NamedTuple):
    """A place a template was matched at, and how well it matched there."""

    score: float
    x: int  # top-left of the match
    y: int


NOWHERE = Hit(0.0, -1, -1)  # no match: scores below every real one


def each(fn: Callable[[_T], _R], items: Iterable[_T]) -> list[_R]:
    """`fn` of each item, in order: on worker threads when this machine has more than one
    CPU. Correlating is most of a search's time, and OpenCV lets go of the interpreter lock
    for it, but small correlations keep only one core busy. Run inline on a worker itself
    (no waiting on the pool from inside it)."""
    items = list(items)
    if _WORKERS < 2 or len(items) < 2 or threading.current_thread().name.startswith(_WORKER_NAME):
        return [fn(item) for item in items]
    return list(_pool().map(fn, items))


# The names tests/test_parts.py reaches in by (a test's body stays as it is in this
# restructuring): the same object as the public name.
_each = each


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(_WORKERS, thread_name_prefix=_WORKER_NAME)


@dataclass(frozen=True, slots=True)
class Screen:
    """A screen made ready for searching: its pixels, grayscale at three resolutions, and
    where it is not one flat colour."""

    rgb: Image
    levels: dict[int, Image]  # grayscale at full (1), half (2) and quarter (4) resolution
    # The part of the screen that is not one flat colour (a plain desktop around a window),
    # at full resolution: nothing can match outside it, so the coarse scans skip the rest.
    busy: Box

    @classmethod
    def of(cls, rgb: Image) -> Screen:
        """`rgb` (H x W x 3), made ready for searching."""
        import cv2

        gray = grayscale(rgb)
        half = cast(Image, cv2.pyrDown(gray))
        quarter = cast(Image, cv2.pyrDown(half))
        edges = cv2.morphologyEx(quarter, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
        # (OpenCV compares with a scalar too; its type stubs know only arrays)
        found = cv2.findNonZero(cv2.compare(edges, cast("MatLike", P.busy_edge), cv2.CMP_GT))
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
        """The screen in grayscale, at full resolution."""
        return self.levels[1]


def search_region(
    image: Image,
    tmpl: Image,
    top_left: Point,
    *,
    pad: int,
    keep_out: Zone | None = None,
    others: int = P.peaks,
) -> list[Hit]:
    """Full-resolution matches with their top-left within `pad` of `top_left`.

    Without `keep_out`: the best, then the best outside its neighbourhood, then other peaks.
    With it: the best outside `keep_out`, then other peaks. Either way the runner-up is exact.
    `others` caps the places after the best; 1 (the runner-up alone) skips peak finding.
    """
    import cv2

    correlated = correlate(image, tmpl, top_left, pad)
    if correlated is None:
        return []
    result, (x0, y0) = correlated
    th, tw = tmpl.shape
    hits: list[Hit] = []
    if keep_out is None:
        _, score, _, (x, y) = cv2.minMaxLoc(result)
        hits.append(Hit(float(score), x0 + x, y0 + y))
        keep_out = (x0 + x, y0 + y), same_place_radius(tw, th)
    _blank(result, keep_out, origin=(x0, y0))
    if others == 1:
        _, score, _, (x, y) = cv2.minMaxLoc(result)
        peaks = [(x, y)] if score > P.search_floor else []
    else:
        peaks = _peaks(result, count=others, spread=same_place_radius(tw, th))
    return hits + [Hit(float(result[y, x]), x0 + x, y0 + y) for x, y in peaks]


def correlate(image: Image, tmpl: Image, top_left: Point, pad: int) -> tuple[Scores, Point] | None:
    """The correlation map of `tmpl` placed within `pad` of `top_left` (clipped to the image),
    and the image position of its first cell; only that part of `image` is made grayscale."""
    import cv2

    th, tw = tmpl.shape
    x0, y0 = max(0, top_left[0] - pad), max(0, top_left[1] - pad)
    region = image[y0 : max(0, top_left[1] + pad + th), x0 : max(0, top_left[0] + pad + tw)]
    if region.shape[0] < th or region.shape[1] < tw:
        return None
    return cast(Scores, cv2.matchTemplate(grayscale(region), tmpl, cv2.TM_CCOEFF_NORMED)), (x0, y0)


def scan(
    screen: Screen, tmpl: Image, *, factor: int | None = None, keep_out: Zone | None = None
) -> Iterator[Hit]:
    """The screen's likeliest places, found at reduced resolution and scored at full.

    Lazily, in the order the coarse search ranks them: callers may stop at the first
    that settles their question.
    """
    import cv2

    th, tw = tmpl.shape
    factor = factor or coarse_factor(tw, th)
    pyramid = {1: tmpl}  # the template at the screen's levels, down to `factor`
    while max(pyramid) < factor:
        pyramid[2 * max(pyramid)] = cast(Image, cv2.pyrDown(pyramid[max(pyramid)]))
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
    result = cast(Scores, cv2.matchTemplate(coarse, small, cv2.TM_CCOEFF_NORMED))
    if keep_out is not None:
        (kx, ky), (rx, ry) = keep_out
        _blank(result, ((kx // factor - x0, ky // factor - y0), (rx // factor, ry // factor)))
    rx, ry = same_place_radius(tw, th)
    # A quarter-resolution scan ranks a small crop's true place less reliably: keep more.
    count = P.peaks * factor if min(tw, th) < 64 else P.peaks
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
                if (hit := probe(screen.levels[2], pyramid[2], (2 * x, 2 * y), pad=2))
            ),
            reverse=True,
        )
        for rank, half in enumerate(halves):
            hit = (
                probe(screen.gray, tmpl, (2 * half.x, 2 * half.y), pad=2)
                if rank < 2
                else Hit(half.score, 2 * half.x, 2 * half.y)
            )
            if hit is not None:
                yield hit
        return
    for x, y in places:
        hit = probe(screen.gray, tmpl, (x * factor, y * factor), pad=factor)
        if hit is not None:
            yield hit


def coarse_factor(w: int, h: int) -> int:
    """How much to shrink screen and template for a coarse scan."""
    # A quarter of the resolution blurs small text beyond recognition; keep it for big crops.
    return 4 if min(w, h) >= 64 else 2 if min(w, h) >= 12 else 1


def _blank(result: Scores, zone: Zone, *, origin: Point = (0, 0)) -> None:
    """Take `zone` (top-left positions around a place) out of a correlation map."""
    (x, y), (rx, ry) = zone
    x, y = x - origin[0], y - origin[1]
    result[max(0, y - ry) : max(0, y + ry + 1), max(0, x - rx) : max(0, x + rx + 1)] = -1.0


def _peaks(result: Scores, *, count: int, spread: tuple[int, int]) -> list[Point]:
    """The highest local maxima of a correlation map, more than `spread` apart."""
    import cv2

    # Local maxima only, or the shoulders of one strong peak would take every place; then
    # spread out, or one long plateau (a border, a row of text) would.
    is_peak = cast(
        Image, cv2.compare(result, cv2.dilate(result, np.ones((3, 3), np.uint8)), cv2.CMP_GE)
    )
    is_peak &= cast(Image, cv2.compare(result, cast("MatLike", P.search_floor), cv2.CMP_GT))
    places = cv2.findNonZero(is_peak)
    if places is None:
        return []
    xs, ys = places.reshape(-1, 2).T
    scores = result[ys, xs]
    if len(scores) > P.peak_pool:
        top = np.argpartition(scores, -P.peak_pool)[-P.peak_pool :]
        xs, ys, scores = xs[top], ys[top], scores[top]
    chosen: list[Point] = []
    for i in np.argsort(scores)[::-1]:
        x, y = int(xs[i]), int(ys[i])
        if all(abs(x - cx) > spread[0] or abs(y - cy) > spread[1] for cx, cy in chosen):
            chosen.append((x, y))
            if len(chosen) == count:
                break
    return chosen


def probe(gray: Image, tmpl: Image, top_left: Point, *, pad: int) -> Hit | None:
    """The best full-resolution match with its top-left within `pad` pixels of `top_left`."""
    import cv2

    correlated = correlate(gray, tmpl, top_left, pad)
    if correlated is None:
        return None
    result, (x0, y0) = correlated
    _, score, _, (x, y) = cv2.minMaxLoc(result)
    return Hit(float(score), x0 + x, y0 + y)


def colour_score(rgb: Image, tmpl: Image, top_left: Point) -> float:
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
        cv2.subtract(v, cast("MatLike", cv2.mean(v))).ravel()
        for v in (window.astype(np.float32), tmpl.astype(np.float32))
    )
    wanted_norm = float(np.sqrt(wanted.dot(wanted)))
    if wanted_norm < P.flat_norm:
        return matched()
    product, norm = float(seen.dot(wanted)), float(np.sqrt(seen.dot(seen))) * wanted_norm
    # matchTemplate's own rule where the window is (nearly) flat: 0, or +-1 within rounding
    if abs(product) < norm:
        return product / norm
    return math.copysign(1.0, product) if abs(product) < norm * 1.125 else 0.0


def grayscale(image: Image) -> Image:
    """`image` in grayscale: converted when it is RGB (H x W x 3), as it is when it is not."""
    import cv2

    return cast(Image, cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)) if image.ndim == 3 else image


def same_place_radius(w: int, h: int) -> tuple[int, int]:
    """How far from a match another one still counts as the same place."""
    # Small and absolute: one row down a list is another target however big the crop is.
    return min(P.same_place, max(2, w // 4)), min(P.same_place, max(2, h // 4))


def is_near(hit: Hit, place: Point, radius: tuple[int, int]) -> bool:
    """Whether `hit` is within `radius` (x, y) of `place`: the same place."""
    return abs(hit.x - place[0]) <= radius[0] and abs(hit.y - place[1]) <= radius[1]


def sub(a: Point, b: Point) -> Point:
    """`a` - `b`."""
    return a[0] - b[0], a[1] - b[1]


def add(a: Point, b: Point) -> Point:
    """`a` + `b`."""
    return a[0] + b[0], a[1] + b[1]

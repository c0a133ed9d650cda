"""Twins: objects drawn alike, such as the "Apply" buttons of two rows of a form.

A crop around one of them can be unique on its screen only by position (the twin above it,
the blank below it), and a layout that reorders the rows then puts that crop on the other
twin. What tells twins apart is what belongs to them: the label of their row. So when the
object under the target has twins, the anchor must carry evidence from the object's own
row with every twin painted out, and a place found today must carry that evidence better
than each of today's twins does; otherwise the step is refused.

The object is the smallest closed outline around the target (a button's border, a field,
a row, a word); a target with no outline around it (a point on a long line, an empty
stretch) has no twins in this sense, and its crop's ordinary uniqueness stands.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .params import PARAMS as P
from .refusal import Refusal
from .search import Box, Image, Point, colour_score, grayscale, probe, sub

__all__ = ["TwinCheck", "Twins", "band_evidence", "doubt_twins", "object_box", "twins_of"]


@dataclass(frozen=True, slots=True)
class Twins:
    """The object around a target (its box in the image) and the top-left of every place
    where it is drawn, its own first."""

    box: Box
    places: tuple[Point, ...]

    @property
    def others(self) -> tuple[Point, ...]:
        return self.places[1:]


def object_box(gray: Image, target: Point) -> Box | None:
    """The smallest closed outline around `target` between P.outline_least and
    P.outline_most in size, or None."""
    import cv2

    height, width = gray.shape[:2]
    tx, ty = target
    x0, y0 = max(0, tx - P.outline_reach[0]), max(0, ty - P.outline_reach[1])
    x1, y1 = min(width, tx + P.outline_reach[0]), min(height, ty + P.outline_reach[1])
    region = np.ascontiguousarray(gray[y0:y1, x0:x1])
    if region.size == 0:
        return None
    edges = cv2.Canny(region, *P.canny)
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    best: Box | None = None
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if not (
            P.outline_least[0] <= w <= P.outline_most[0]
            and P.outline_least[1] <= h <= P.outline_most[1]
        ):
            continue
        if not (x < tx - x0 < x + w - 1 and y < ty - y0 < y + h - 1):
            continue
        if x == 0 or y == 0 or x + w >= x1 - x0 or y + h >= y1 - y0:
            continue  # cut by the region: not closed around the target here
        if best is None or w * h < best[2] * best[3]:
            best = (x + x0, y + y0, w, h)
    return best


def twins_of(
    rgb: Image, obj: Image, own: Point | None = None, *, least: float = P.twin_score
) -> list[Point]:
    """Top-lefts of the places where the RGB `obj` is drawn in the RGB `rgb`, scoring
    `least` in grayscale and in colour (a red and a green "Go" are no twins), `own` first
    when given; [] when `obj` is flat. Counting stops past P.twins_most: a caller seeing more
    than P.twins_most places has a pattern, or a table too long to tell its rows apart here."""
    gray, tmpl = grayscale(rgb), grayscale(obj)
    if (
        float(tmpl.std()) < P.row_flat
        or tmpl.shape[0] > gray.shape[0]
        or tmpl.shape[1] > gray.shape[1]
    ):
        return [] if own is None else [own]
    h, w = tmpl.shape[:2]
    places: list[Point] = [] if own is None else [own]
    for place in _candidates(gray, tmpl, least):
        if any(abs(place[0] - p[0]) < w // 2 and abs(place[1] - p[1]) < h // 2 for p in places):
            continue
        if colour_score(rgb, obj, place) < least:
            continue
        places.append(place)
        if len(places) > P.twins_most:
            break
    return places


def _candidates(gray: Image, tmpl: Image, least: float) -> Iterator[Point]:
    """Top-lefts where `tmpl` scores `least` on `gray`, best first: found at half
    resolution (a quarter of the cost, where blur lowers a score by up to P.half_loss) and
    scored at full, unless it is too small to be told at half resolution."""
    import cv2

    h, w = tmpl.shape[:2]
    if min(h, w) < 2 * P.half_least:
        scores = cv2.matchTemplate(gray, tmpl, cv2.TM_CCOEFF_NORMED)
        ys, xs = np.nonzero(scores >= least)
        for i in np.argsort(-scores[ys, xs], kind="stable"):
            yield int(xs[i]), int(ys[i])
        return
    half = cv2.matchTemplate(cv2.pyrDown(gray), cv2.pyrDown(tmpl), cv2.TM_CCOEFF_NORMED)
    ys, xs = np.nonzero(half >= least - P.half_loss)
    looked: list[Point] = []
    for i in np.argsort(-half[ys, xs], kind="stable"):
        x, y = int(xs[i]), int(ys[i])
        if any(abs(x - lx) <= 1 and abs(y - ly) <= 1 for lx, ly in looked):
            continue
        looked.append((x, y))
        if len(looked) > 4 * P.twins_most:  # (most are the same place again, a pixel off)
            return
        hit = probe(gray, tmpl, (2 * x, 2 * y), pad=2)
        if hit is not None and hit.score >= least:
            yield hit.x, hit.y


def band_evidence(gray: Image, crop: Box, twins: Twins) -> float:
    """How clearly the row of the object inside `crop` (its columns, the object's rows),
    twins painted out, tells the object's own place from each twin's: 1 minus the best
    score of a twin; 0.0 when that row holds nothing once the twins are painted out."""
    ox, oy, ow, oh = twins.box
    band = (crop[0], oy, crop[2], oh)
    own, own_mask = _cut(gray, band, twins.places, (ow, oh))
    if own_mask.sum() < 2 or float(own[own_mask].std()) < P.row_flat:
        return 0.0
    best = -1.0
    for twin in twins.others:
        dx, dy = sub(twin, (ox, oy))
        other, other_mask = _cut(gray, (band[0] + dx, oy + dy, band[2], oh), twins.places, (ow, oh))
        best = max(best, _masked_score(own, other, own_mask & other_mask))
    return round(1.0 - max(best, 0.0), 4)


@dataclass(frozen=True, slots=True)
class TwinCheck:
    """How many places draw the object today (its own included; 0 when it has no outline),
    and the refusal, when its row does not tell it from them."""

    places: int
    refusal: Refusal | None = None


def doubt_twins(
    screen: Image,
    anchor: Image,
    offset: Point,
    point: Point,
    scale: float,
    *,
    threshold: float,
    margin: float,
) -> TwinCheck:
    """Whether `point`, where a match of the RGB `anchor` put its target on the RGB `screen`,
    may be a twin of the recorded object rather than it: twins are counted at `threshold`,
    and the anchor's row through the object must match at the place found and beat every
    twin's row by `margin`. (The recorded screen's wider row is not asked: beyond the
    window it holds pixels that belong to a place on the screen, not to a row.)"""
    found = _object(anchor, offset)
    if found is None:
        return TwinCheck(0)
    obj1, rel, band1 = found
    obj = _scaled(obj1, scale)
    here = (round(point[0] + rel[0] * scale), round(point[1] + rel[1] * scale))
    today = twins_of(screen, obj, least=threshold)
    if not any(_same(p, here) for p in today):
        today = [here, *today]
    if len(today) < 2:
        return TwinCheck(len(today))
    if len(today) > P.twins_most:
        return TwinCheck(len(today), Refusal("twin-many", len(today), P.twins_most, here))
    band, left = _scaled(band1[0], scale), round(band1[1] * scale)
    row = _row_scores(grayscale(screen), band, obj, left, today, here)
    refusal = _judged(row, here, threshold, margin)
    return TwinCheck(len(today), refusal)


def _object(anchor: Image, offset: Point) -> tuple[Image, Box, tuple[Image, int]] | None:
    """The object around the target in the anchor: its pixels, its box relative to the
    target, and its row in the anchor with how far into it the object starts; None when no
    outline closes around the target inside the anchor. (The recorded screen is not
    fetched to look further: an exact match does without it, and a crop inside one object
    holds nothing of its place, so twins of it leave the match ambiguous.)"""
    box = object_box(grayscale(anchor), offset)
    if box is None:
        return None
    x, y, w, h = box
    return (
        anchor[y : y + h, x : x + w],
        (x - offset[0], y - offset[1], w, h),
        (anchor[y : y + h], x),
    )


def _judged(
    row: tuple[float, float] | float, here: Point, threshold: float, margin: float
) -> Refusal | None:
    """The refusal that a row's scores (_row_scores) call for, or None."""
    if isinstance(row, float):
        return Refusal("twin-row", round(row, 2), P.row_flat, here)
    mine, rival = row
    if mine < threshold:
        return Refusal("twin-match", round(mine, 4), threshold, here)
    if mine - rival < margin:
        return Refusal("twin-margin", round(mine - rival, 4), margin, here)
    return None


def _row_scores(
    screen: Image, band: Image, obj: Image, left: int, today: list[Point], here: Point
) -> tuple[float, float] | float:
    """How well the recorded row of the object (`band`, RGB, the object `left` px into it)
    matches the row at `here` on the grayscale `screen`, and the best that the row of another
    place of `today` does, every twin painted out; or, when the recorded row holds nothing
    once its twins are painted out, its grey-level spread."""
    size = (obj.shape[1], obj.shape[0])
    recorded = np.ones(band.shape[:2], bool)
    for x, y in twins_of(band, obj):  # the twins in the anchor's own row
        recorded[
            max(y - P.outline_pad, 0) : y + size[1] + P.outline_pad,
            max(x - P.outline_pad, 0) : x + size[0] + P.outline_pad,
        ] = False
    gray = grayscale(band)
    spread = float(gray[recorded].std()) if recorded.sum() >= 2 else 0.0
    if spread < P.row_flat:
        return spread
    mine, rival = -1.0, -1.0
    for place in today:
        box = (place[0] - left, place[1], band.shape[1], band.shape[0])
        seen, seen_mask = _cut(screen, box, today, size)
        score = _masked_score(gray, seen, recorded & seen_mask)
        if _same(place, here):
            mine = max(mine, score)
        else:
            rival = max(rival, score)
    return mine, rival


def _cut(
    gray: Image, box: Box, twins: list[Point] | tuple[Point, ...], size: tuple[int, int]
) -> tuple[Image, npt.NDArray[np.bool_]]:
    """The pixels of `box` (zero off the image) and a mask of those on the image and outside
    every twin."""
    x, y, w, h = box
    out = np.zeros((h, w), gray.dtype)
    mask = np.zeros((h, w), bool)
    sx0, sy0 = max(x, 0), max(y, 0)
    sx1, sy1 = min(x + w, gray.shape[1]), min(y + h, gray.shape[0])
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - y : sy1 - y, sx0 - x : sx1 - x] = gray[sy0:sy1, sx0:sx1]
        mask[sy0 - y : sy1 - y, sx0 - x : sx1 - x] = True
    for tx, ty in twins:
        top, left = ty - y - P.outline_pad, tx - x - P.outline_pad
        rows = slice(max(top, 0), max(top + size[1] + 2 * P.outline_pad, 0))
        mask[rows, max(left, 0) : max(left + size[0] + 2 * P.outline_pad, 0)] = False
    return out, mask


def _same(a: Point, b: Point) -> bool:
    return abs(a[0] - b[0]) <= P.same_instance and abs(a[1] - b[1]) <= P.same_instance


def _masked_score(a: Image, b: Image, mask: npt.NDArray[np.bool_]) -> float:
    """Normalized cross-correlation of `a` and `b` over `mask`; 0.0 where either is flat."""
    if mask.sum() < 2:
        return 0.0
    va = a[mask].astype(np.float64)
    vb = b[mask].astype(np.float64)
    va -= va.mean()
    vb -= vb.mean()
    norm = float(np.sqrt((va * va).sum() * (vb * vb).sum()))
    return float((va * vb).sum() / norm) if norm > 1e-6 else 0.0


def _scaled(image: Image, scale: float) -> Image:
    if scale == 1.0:
        return image
    import cv2

    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return np.ascontiguousarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA))

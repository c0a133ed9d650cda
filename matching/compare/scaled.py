"""The comparison at another scale: a recorded region against today's screen, part by part.

At another scale (the target was found at 1.25x: a HiDPI screen, a bigger font) the same
screen cannot match pixel by pixel: recorded regions are resized by the scale (and their
masks alike), but text takes the nearest whole font size and borders whole pixels, so
glyphs land a pixel or two off and drift along a line. There both are compared in grayscale
blurred by 1 px, part by part (16 recorded px square). A part passes where, within 4 px of
where the parts found nearest it were, none of its pixels differ by more than
`pixel_threshold` (as at 1x, which forgives a changed shade); failing that, a part with
detail (levels spanning more than `pixel_threshold`: text, an edge) passes where it, or
else each of its halves, correlates at least `match_threshold` with about the same level
and contrast. Every pixel of a part with detail not found differs (a glyph of other text
anywhere in it fails it: a few of its pixels might not); a part without detail differs by
its pixels that differ. Then `tolerance` and `max_patch` decide as at 1x, so another word
fails the check. Parts a mask touches are not compared.
"""

from __future__ import annotations

import numpy as np

from ..params import PARAMS as P
from ..search import Image, Point

from .checks import Mask, VerifyOptions, measured

__all__ = ["parts_changed"]


def parts_changed(
    tmpl: Image, view: Image, x: int, y: int, keep: Mask, scale: float, options: VerifyOptions
) -> tuple[float, int]:
    """`changed_pixels` at another scale: `tmpl` (blurred, resized) compared with `view` at (x, y)
    part by part (see `_part`). Text drifts along a line and down a page when fonts take
    whole pixel sizes, so a part is looked for around where the parts found nearest to it
    were: first those found before it (rows top to bottom, each left to right), then, for a
    part not found, any found around it."""
    height, width = tmpl.shape
    if not keep.any():
        return 0.0, 0
    if x < 0 or y < 0 or x + width > view.shape[1] or y + height > view.shape[0]:
        return 1.0, int(keep.sum())
    size = max(4, round(P.verify_part * scale))
    found: dict[tuple[int, int], Point] = {}  # (row, column) of a part -> where it was found
    differing: dict[tuple[int, int], Image] = {}
    cuts = [
        (row, col, top, left)
        for row, top in enumerate(_cuts(height, size))
        for col, left in enumerate(_cuts(width, size))
    ]

    def look(row: int, col: int, top: int, left: int, guess: Point) -> None:
        part = tmpl[top : top + size, left : left + size]
        at, differs = _part(part, view, x + left, y + top, guess, options)
        if at is not None:
            found[(row, col)] = at
        if (row, col) not in differing or differs.sum() < differing[(row, col)].sum():
            differing[(row, col)] = differs

    # a part a mask touches is not compared
    kept = [c for c in cuts if keep[c[2] : c[2] + size, c[3] : c[3] + size].all()]
    for row, col, top, left in kept:
        look(row, col, top, left, _nearest(found, row, col, behind=True) or (0, 0))
    for row, col, top, left in kept:
        guess = _nearest(found, row, col, behind=False)
        if differing[(row, col)].any() and guess is not None:
            look(row, col, top, left, guess)
    diff = np.zeros(tmpl.shape, bool)
    for row, col, top, left in kept:
        diff[top : top + size, left : left + size] |= differing[(row, col)]
    return measured(diff & keep, keep)


def _nearest(
    found: dict[tuple[int, int], Point], row: int, col: int, *, behind: bool, reach: int = 3
) -> Point | None:
    """Where the part nearest to (row, col), within `reach` parts, was found: of those in
    its row or the row above when `behind`, of any around it otherwise; else, when
    `behind`, the last one found in its column."""
    rows = (
        (row, row - 1)
        if behind
        else sorted(range(row - reach, row + reach + 1), key=lambda r: abs(r - row))
    )  # ties: its row
    near = [
        (np.hypot(r - row, c - col), found[(r, c)])
        for r in rows
        for c in range(col - reach, col + reach + 1)
        if (r, c) in found and (r, c) != (row, col)
    ]
    if near:
        return min(near, key=lambda n: n[0])[1]
    if behind:
        return next((found[(r, col)] for r in range(row - 2, -1, -1) if (r, col) in found), None)
    return None


def _cuts(length: int, size: int) -> list[int]:
    """Where parts of `size` px start along `length` px: the last one ends at the end."""
    starts = list(range(0, max(1, length - size + 1), size))
    if starts[-1] + size < length:
        starts.append(length - size)
    return starts


def _part(
    part: Image,
    view: Image,
    x: int,
    y: int,
    guess: Point,
    options: VerifyOptions,
    *,
    halves: bool = True,
) -> tuple[Point | None, Image]:
    """Where `part`, expected at (x, y) of `view` moved by `guess`, is within P.verify_slack px of
    there (None when it is not, or when it has no detail to say where), and which of its
    pixels differ.

    Where the fewest of its pixels differ (by more than pixel_threshold, as at 1x) and none
    do, it is found. Otherwise a part whose levels span more than pixel_threshold (text, an
    edge: detail that resampling moves by a pixel) is found where it correlates at least
    match_threshold with about the same level and contrast, and differs as a whole where
    not; a part without such detail differs by the pixels that differ.
    """
    from numpy.lib.stride_tricks import sliding_window_view

    h, w = part.shape
    detailed = int(part.max()) - int(part.min()) > options.pixel_threshold
    slack = P.verify_slack if detailed else P.verify_flat_slack
    gx, gy = x + guess[0], y + guess[1]
    x0, y0 = max(0, gx - slack), max(0, gy - slack)
    window = view[y0 : gy + h + slack, x0 : gx + w + slack]
    if window.shape[0] < h or window.shape[1] < w:
        return None, np.ones(part.shape, bool)
    places = sliding_window_view(window, part.shape)  # every place within the slack
    off = np.abs(places.astype(np.int16) - part) > options.pixel_threshold
    ys, xs = np.mgrid[y0 - gy : y0 - gy + off.shape[0], x0 - gx : x0 - gx + off.shape[1]]
    far = (ys * ys + xs * xs) / 1000.0  # a stroke or an edge fits in many places: the nearest
    counts = off.sum(axis=(2, 3)) + far
    ly, lx = np.unravel_index(int(counts.argmin()), counts.shape)
    if not detailed:
        return None, off[ly, lx]
    if not off[ly, lx].any():
        return (x0 + int(lx) - x, y0 + int(ly) - y), off[ly, lx]
    found = _correlated(part, window, far, options)
    if found is not None:
        return (x0 + int(found[0]) - x, y0 + int(found[1]) - y), np.zeros(part.shape, bool)
    if not halves:
        return None, np.ones(part.shape, bool)
    return _by_halves(part, view, x, y, guess, options)


def _by_halves(
    part: Image, view: Image, x: int, y: int, guess: Point, options: VerifyOptions
) -> tuple[Point | None, Image]:
    """`_part` for a part not found whole. Text and the lines around it keep to whole pixels
    apart: a part across a gap between words, or holding a border and a line of text, may
    fit by halves (side by side, or one above the other), each looked for on its own."""
    h, w = part.shape
    best: tuple[Point | None, Image] = (None, np.ones(part.shape, bool))
    for axis, length in ((1, w), (0, h)):
        if length < 2 * P.verify_half:
            continue
        cut = length // 2
        first, second = np.split(part, [cut], axis=axis)
        dx, dy = (cut, 0) if axis == 1 else (0, cut)
        found, one = _part(first, view, x, y, guess, options, halves=False)
        later, other = _part(second, view, x + dx, y + dy, guess, options, halves=False)
        differs = np.concatenate([one, other], axis=axis)
        if np.count_nonzero(differs) < np.count_nonzero(best[1]):
            best = (later or found, differs)
    return best


def _correlated(part: Image, window: Image, far: Image, options: VerifyOptions) -> Point | None:
    """The place in `window` least `far` where `part` correlates at least match_threshold,
    when it has a level within pixel_threshold and a contrast within P.verify_contrast times its own
    there; None when there is none."""
    import cv2

    scores = np.nan_to_num(cv2.matchTemplate(window, part, cv2.TM_CCOEFF_NORMED), nan=-1.0)
    ly, lx = np.unravel_index(
        int(np.where(scores >= options.match_threshold, far, np.inf).argmin()), scores.shape
    )
    score = float(scores[ly, lx])
    h, w = part.shape
    found = window[ly : ly + h, lx : lx + w]
    contrast = max(float(part.std()), 1e-6)
    if (
        score >= options.match_threshold
        and abs(float(found.mean()) - float(part.mean())) <= options.pixel_threshold
        and 1 / P.verify_contrast <= float(found.std()) / contrast <= P.verify_contrast
    ):
        return int(lx), int(ly)
    return None

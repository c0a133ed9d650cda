"""Verification: after a step settles, does the screen show what the recording showed?

Three kinds of check, all in recorded coordinates mapped through the step's shift and scale:
- target: the recorded after-frame around the target is found near the re-anchored target;
- effect: each region that the action changed in the recording (before vs after) shows its
  recorded content on today's screen, near where it was or, failing that, somewhere else
  where the step made it appear (a reordered layout): content that today's screen showed
  there before the step too (a duplicate, a look-alike) is no effect of the step and never
  passes it;
- checkpoint: a `screenshot` step's region (or the whole screen) matches, pixel by pixel.
A check whose content is not found is compared where it differs least, at its expected
place or at the best match within 48 px of it, and says so.
Pixels differ when their grayscale values differ by more than `pixel_threshold` (below that
is anti-aliasing and rendering noise); a check passes when at most `tolerance` of its
pixels differ and no patch of more than `max_patch` adjacent pixels differs (a changed word
in a large region is a small fraction but a solid patch). Masked regions (a clock, a
blinking cursor) are never compared.

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

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from storage import POINTER_ACTIONS

__all__ = ["Check", "VerifyOptions", "checks_for", "diff_image", "settled_screen"]

Box = tuple[int, int, int, int]
Point = tuple[int, int]
Image = np.ndarray

_PAD = 6  # px of context around a changed region
_NEAR = 48  # px around the expected place searched before the whole screen
_MIN_EFFECT = 30  # px: smaller changes (a caret blink) are not effects
_MAX_EFFECTS = 6
_FAR_TRIES = 8  # places far away, best first, checked for content that appeared there
# At another scale: what the comparison of resampled pixels forgives (see the docstring).
_BLUR = 1.0  # px (sigma, on today's screen) of the blur both images are compared under
_PART = 16  # px (recorded) of the parts a region is compared by
_SLACK = 4  # px (today's) a part may lie from where its neighbours put it
_FLAT_SLACK = 2  # the same, for a part without detail (which would hide what is beside it)
_CONTRAST = 1.5  # how much more or less contrast than recorded a part may have
_MIN_HALF = 6  # px (today's): a part is looked for by halves when they are this wide
_CONTEXT = 4  # px (recorded) around a region resized and blurred with it


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    tolerance: float = 0.02  # fraction of a check's pixels that may differ
    pixel_threshold: int = 40  # grayscale difference (0-255) that counts as a changed pixel
    max_patch: int = 12  # px: a larger patch of adjacent differing pixels fails a check
    match_threshold: float = 0.9  # correlation for recorded content to count as present
    masks: tuple[Box, ...] = ()  # recorded coordinates, for every step
    settle: float = 0.3  # s the screen must stay unchanged after a step
    settle_cap: float = 3.0  # s after which the screen is taken as it is
    keep_going: bool = False


@dataclass(frozen=True, slots=True)
class Check:
    kind: str  # target, effect, checkpoint
    box: Box  # recorded coordinates
    found_at: Box | None  # where its content is on today's screen
    score: float
    changed: float  # fraction of its pixels that differ
    patch: int  # px in the largest patch of adjacent differing pixels
    passed: bool
    expected: Box | None = None  # its recorded place, mapped onto today's screen
    # near: found near its expected place; far: found elsewhere, where it appeared during
    # the step; none: not found, compared at the best match near its expected place
    match: str = "near"
    scale: float = 1.0  # compared at this scale, part by part when not 1

    def describe(self) -> str:
        differ = f"{self.changed * 100:.1f}% of pixels differ (largest patch {self.patch} px)"
        if self.scale != 1.0:
            differ += f", compared at {self.scale:g}x"
        if self.match == "none":
            place = list(self.expected) if self.expected else "its place"
            return (
                f"{self.kind} {list(self.box)}: not found near {place} (best match "
                f"{self.score:.3f} within {_NEAR} px), {differ} there"
            )
        where = f"at {list(self.found_at)}" if self.found_at else "nowhere"
        if self.match == "far":
            where += " (appeared there during the step)"
        return f"{self.kind} {list(self.box)}: best match {self.score:.3f} {where}, {differ}"

    def to_json(self) -> dict:
        return asdict(self)


def checks_for(
    *,
    action: str,
    before: Image | None,
    after: Image | None,
    screen: Image,
    target: Point | None,
    located: Point | None,
    scale: float,
    shift: Point = (0, 0),
    region: Box | None,
    masks: Sequence[Box],
    options: VerifyOptions,
    earlier: Image | None = None,
) -> list[Check]:
    """Every check of one step; empty when the recording has no frames to compare with.

    `screen` is today's screen once the step settled, `earlier` today's screen before the
    step: an effect's recorded content found far from its place passes only where `earlier`
    did not show it (without `earlier`, only near its place).

    `target` (the step's recorded target, None for a step without one), `located` (the same
    place today, None when it was not looked for) and `scale` (the scale it was found at)
    map recorded places to today's, and a pointer step's target gets a check of its own.
    `shift` is where the recorded screen's origin is today (a recorded place p is at
    shift + p * scale): it maps places when `located` is unknown.
    """
    if after is None:
        return []
    mapper = _Mapper(target, located, scale, shift)
    keep = _unmasked(after.shape, masks)
    seen = _Views(screen, earlier, scale)
    if action == "screenshot":
        box = region or (0, 0, after.shape[1], after.shape[0])
        return [_checkpoint(after, seen, box, mapper, keep, options)]
    checks = []
    if target is not None and action in POINTER_ACTIONS:
        # where the step acted: found near the re-anchored target, never elsewhere
        checks.append(
            _find(
                "target",
                after,
                seen,
                _around(target, after.shape),
                mapper,
                keep,
                options,
                far=False,
            )
        )
    if before is not None and before.shape == after.shape:
        for box in _effects(before, after, keep, options):
            checks.append(_find("effect", after, seen, box, mapper, keep, options))
    return checks


def settled_screen(
    grab: Callable[[], Image],
    *,
    settle: float,
    cap: float,
    pause: Callable[[float], None],
    clock: Callable[[], float] = time.monotonic,
) -> Image:
    """Grab until the screen stays the same for `settle` s (or `cap` s have passed)."""
    started = clock()
    last = grab()
    stable_since = clock()
    while clock() - stable_since < settle and clock() - started < cap:
        pause(0.05)
        now = grab()
        if now.shape != last.shape or not np.array_equal(now, last):
            last, stable_since = now, clock()
    return last


def diff_image(screen: Image, checks: Sequence[Check]) -> Image:
    """Today's screen with each failed check's expected place in yellow, and where its
    content was compared in red."""
    import cv2

    out = screen.copy()
    for check in checks:
        if check.passed:
            continue
        x, y, w, h = check.expected or check.box
        cv2.rectangle(out, (x, y), (x + w, y + h), (255, 200, 0), 2)
        if check.found_at:
            fx, fy, fw, fh = check.found_at
            cv2.rectangle(out, (fx, fy), (fx + fw, fy + fh), (255, 0, 0), 2)
    return out


class _Mapper:
    """Recorded coordinates to today's: relative to the target (or else the origin) through
    the shift and scale."""

    def __init__(
        self, target: Point | None, located: Point | None, scale: float, shift: Point = (0, 0)
    ):
        if target is None:
            target, located = (0, 0), shift
        elif located is None:  # not looked for: where the screen's origin puts it
            located = (shift[0] + target[0] * scale, shift[1] + target[1] * scale)
        self.target, self.located, self.scale = target, located, scale

    def box(self, box: Box) -> Box:
        x, y, w, h = box
        tx, ty = self.target
        lx, ly = self.located
        s = self.scale
        return (round(lx + (x - tx) * s), round(ly + (y - ty) * s), round(w * s), round(h * s))


class _Views:
    """Today's screens (after the step, and before it when known) as the checks compare
    them: grayscale, blurred at another scale."""

    def __init__(self, screen: Image, earlier: Image | None, scale: float):
        self.screen = _view(screen, scale)
        self.earlier = (
            None if earlier is None or earlier.shape != screen.shape else _view(earlier, scale)
        )


class _Content:
    """A recorded region (`box` of the recorded `frame`) as today's screen should show it:
    resized by the scale."""

    def __init__(self, frame: Image, box: Box, keep: Image, scale: float, options: VerifyOptions):
        import cv2

        x, y, w, h = box
        keep = keep[y : y + h, x : x + w]
        if scale == 1.0:
            self.gray = _gray(frame[y : y + h, x : x + w])
        else:
            size = (max(1, round(w * scale)), max(1, round(h * scale)))
            self.gray = _resized_view(frame, box, size, scale)
            keep = cv2.resize(keep.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST).astype(
                bool
            )
        self.keep, self.scale, self.options = keep, scale, options
        self.height, self.width = self.gray.shape

    def scores(self, view: Image) -> Image | None:
        """How well it matches at each place of `view` (1 is exact); None when it does not
        fit."""
        return _scores(view, self.gray)

    def changed(self, view: Image, x: int, y: int) -> tuple[float, int]:
        """The fraction of its unmasked pixels that differ at (x, y) of `view`, and the
        largest patch of them."""
        if self.scale == 1.0:
            return _changed(
                self.gray, view[y : y + self.height, x : x + self.width], self.keep, self.options
            )
        return _parts_changed(self.gray, view, x, y, self.keep, self.scale, self.options)

    def passes(self, view: Image, x: int, y: int) -> bool:
        return _passes(*self.changed(view, x, y), self.options)


def _unmasked(shape: tuple[int, ...], masks: Sequence[Box]) -> Image:
    keep = np.ones(shape[:2], bool)
    for x, y, w, h in masks:
        keep[max(y, 0) : y + h, max(x, 0) : x + w] = False
    return keep


def _gray(image: Image) -> Image:
    import cv2

    return cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)


def _view(image: Image, scale: float) -> Image:
    """Grayscale; blurred at another scale, where resampled pixels cannot match exactly."""
    import cv2

    gray = _gray(image)
    return gray if scale == 1.0 else cv2.GaussianBlur(gray, (0, 0), _BLUR)


def _resized_view(frame: Image, box: Box, size: tuple[int, int], scale: float) -> Image:
    """The `_view` of `box` of `frame` resized to `size`, its edges resized and blurred with
    what surrounds them, as today's screen is (a window's edge blurs into the desktop)."""
    import cv2

    x, y, w, h = box
    fh, fw = frame.shape[:2]
    left, top = min(x, _CONTEXT), min(y, _CONTEXT)
    right, bottom = min(fw - x - w, _CONTEXT), min(fh - y - h, _CONTEXT)
    at = (round(left * scale), round(top * scale))
    grown = (at[0] + size[0] + round(right * scale), at[1] + size[1] + round(bottom * scale))
    image = cv2.resize(
        frame[y - top : y + h + bottom, x - left : x + w + right],
        grown,
        interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
    )
    return _view(image, scale)[at[1] : at[1] + size[1], at[0] : at[0] + size[0]]


def _effects(before: Image, after: Image, keep: Image, options: VerifyOptions) -> list[Box]:
    """Boxes around what the action changed on the recorded screen, largest first."""
    import cv2

    changed = np.abs(_gray(before).astype(np.int16) - _gray(after)) > options.pixel_threshold
    changed &= keep
    if not changed.any():
        return []
    grown = cv2.dilate(changed.astype(np.uint8), np.ones((9, 9), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown)
    boxes = [
        tuple(int(v) for v in stats[i][:4]) for i in range(1, count) if stats[i][4] >= _MIN_EFFECT
    ]
    boxes.sort(key=lambda b: -b[2] * b[3])
    height, width = after.shape[:2]
    return [
        _clamp((x - _PAD, y - _PAD, w + 2 * _PAD, h + 2 * _PAD), width, height)
        for x, y, w, h in boxes[:_MAX_EFFECTS]
    ]


def _around(
    target: tuple[int, int], shape: tuple[int, ...], size: tuple[int, int] = (96, 48)
) -> Box:
    return _clamp((target[0] - size[0] // 2, target[1] - size[1] // 2, *size), shape[1], shape[0])


def _find(
    kind: str,
    after: Image,
    seen: _Views,
    box: Box,
    mapper: _Mapper,
    keep: Image,
    options: VerifyOptions,
    *,
    far: bool = True,
) -> Check:
    """Is the recorded content of `box` on the screen: near its mapped place or, failing
    that (when `far`), where it appeared during the step?"""
    x, y, w, h = box
    content = _Content(after, box, keep, mapper.scale, options)
    ch, cw = content.height, content.width
    mx, my, _, _ = mapper.box(box)
    sh, sw = seen.screen.shape
    expected = _clamp((mx, my, cw, ch), sw, sh)
    near = _clamp((mx - _NEAR, my - _NEAR, cw + 2 * _NEAR, ch + 2 * _NEAR), sw, sh)
    score, fx, fy = _best_match(seen.screen, content, near)
    match = "near"
    if score < options.match_threshold:
        appeared = _appeared(seen, content) if far else None
        if appeared is not None:
            (score, fx, fy), match = appeared, "far"
        else:
            match = "none"
    places = [(fx, fy)] if fx >= 0 else []
    if match == "none" and expected[2:] == (cw, ch):
        places.append(expected[:2])  # the best match near it may be anywhere in a blank
    if not places:
        return Check(kind, box, None, 0.0, 1.0, w * h, False, expected, "none", mapper.scale)
    (changed, patch), (fx, fy) = min(
        (content.changed(seen.screen, px, py), (px, py)) for px, py in places
    )
    passed = _passes(changed, patch, options)
    return Check(
        kind,
        box,
        (fx, fy, cw, ch),
        round(max(score, 0.0), 4),
        round(changed, 4),
        patch,
        passed,
        expected,
        "near" if passed and match == "none" else match,
        mapper.scale,
    )


def _appeared(seen: _Views, content: _Content) -> tuple[float, int, int] | None:
    """The best place on today's screen that shows `content` and where the screen before
    the step did not: content the step made appear, not a look-alike that was already
    there."""
    import cv2

    if seen.earlier is None:
        return None
    ch, cw = content.height, content.width
    scores = content.scores(seen.screen)
    if scores is None:
        return None
    for _ in range(_FAR_TRIES):
        _, value, _, (x, y) = cv2.minMaxLoc(scores)
        if value < content.options.match_threshold:
            return None
        if not content.passes(seen.earlier, x, y):
            return (float(value), x, y)
        scores[max(0, y - ch // 2) : y + ch // 2 + 1, max(0, x - cw // 2) : x + cw // 2 + 1] = -1


def _checkpoint(
    after: Image, seen: _Views, box: Box, mapper: _Mapper, keep: Image, options: VerifyOptions
) -> Check:
    """A region compared at its mapped place (resized by the scale)."""
    x, y, w, h = box
    mapped = mx, my, mw, mh = mapper.box(box)
    sh, sw = seen.screen.shape
    if mx < 0 or my < 0 or mw <= 0 or mh <= 0 or mx + mw > sw or my + mh > sh:
        return Check("checkpoint", box, None, 0.0, 1.0, w * h, False, mapped, "none", mapper.scale)
    content = _Content(after, box, keep, mapper.scale, options)
    changed, patch = content.changed(seen.screen, mx, my)
    return Check(
        "checkpoint",
        box,
        mapped,
        round(1.0 - changed, 4),
        round(changed, 4),
        patch,
        _passes(changed, patch, options),
        mapped,
        scale=mapper.scale,
    )


def _best_match(view: Image, content: _Content, area: Box) -> tuple[float, int, int]:
    import cv2

    ax, ay, _, _ = area
    scores = content.scores(_crop(view, area))
    if scores is None:
        return (0.0, -1, -1)
    _, value, _, loc = cv2.minMaxLoc(scores)
    return (float(value), ax + loc[0], ay + loc[1])


def _scores(view: Image, tmpl: Image) -> Image | None:
    """How well `tmpl` matches at each place of `view` (grayscale both; 1 is exact); None
    when it does not fit."""
    import cv2

    if tmpl.shape[0] > view.shape[0] or tmpl.shape[1] > view.shape[1] or tmpl.size == 0:
        return None
    if float(tmpl.std()) < 1.0:  # flat: correlation is undefined, compare levels instead
        diff = cv2.matchTemplate(
            view.astype(np.float32), tmpl.astype(np.float32), cv2.TM_SQDIFF_NORMED
        )
        return 1.0 - diff
    return cv2.matchTemplate(view, tmpl, cv2.TM_CCOEFF_NORMED)


def _crop(image: Image, box: Box) -> Image:
    x, y, w, h = box
    return image[y : y + h, x : x + w]


def _passes(changed: float, patch: int, options: VerifyOptions) -> bool:
    return changed <= options.tolerance and patch <= options.max_patch


def _changed(
    expected: Image, seen: Image, keep: Image, options: VerifyOptions
) -> tuple[float, int]:
    """The fraction of unmasked pixels that differ (grayscale both), and the largest patch
    of them."""
    if not keep.any():
        return 0.0, 0
    if expected.shape != seen.shape:
        return 1.0, int(keep.sum())
    diff = np.abs(expected.astype(np.int16) - seen) > options.pixel_threshold
    return _measured(diff & keep, keep)


def _parts_changed(
    tmpl: Image, view: Image, x: int, y: int, keep: Image, scale: float, options: VerifyOptions
) -> tuple[float, int]:
    """`_changed` at another scale: `tmpl` (blurred, resized) compared with `view` at (x, y)
    part by part (see `_part`). Text drifts along a line and down a page when fonts take
    whole pixel sizes, so a part is looked for around where the parts found nearest to it
    were: first those found before it (rows top to bottom, each left to right), then, for a
    part not found, any found around it."""
    height, width = tmpl.shape
    if not keep.any():
        return 0.0, 0
    if x < 0 or y < 0 or x + width > view.shape[1] or y + height > view.shape[0]:
        return 1.0, int(keep.sum())
    size = max(4, round(_PART * scale))
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
    return _measured(diff & keep, keep)


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
    """Where `part`, expected at (x, y) of `view` moved by `guess`, is within _SLACK px of
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
    slack = _SLACK if detailed else _FLAT_SLACK
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
        if length < 2 * _MIN_HALF:
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
    when it has a level within pixel_threshold and a contrast within _CONTRAST times its own
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
        and 1 / _CONTRAST <= float(found.std()) / contrast <= _CONTRAST
    ):
        return lx, ly
    return None


def _measured(diff: Image, keep: Image) -> tuple[float, int]:
    """The fraction of `keep`'s pixels that `diff` marks, and its largest patch (px)."""
    import cv2

    if not diff.any():
        return 0.0, 0
    count, _, stats, _ = cv2.connectedComponentsWithStats(diff.astype(np.uint8), connectivity=8)
    patch = int(stats[1:, cv2.CC_STAT_AREA].max()) if count > 1 else 0
    return float(diff.sum()) / float(keep.sum()), patch


def _clamp(box: Box, width: int, height: int) -> Box:
    x, y, w, h = box
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(width, x + w), min(height, y + h)
    return (x0, y0, max(0, x1 - x0), max(0, y1 - y0))

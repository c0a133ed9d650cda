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

    def describe(self) -> str:
        differ = (f"{self.changed * 100:.1f}% of pixels differ (largest patch "
                  f"{self.patch} px)")
        if self.match == "none":
            place = list(self.expected) if self.expected else "its place"
            return (f"{self.kind} {list(self.box)}: not found near {place} (best match "
                    f"{self.score:.3f} within {_NEAR} px), {differ} there")
        where = f"at {list(self.found_at)}" if self.found_at else "nowhere"
        if self.match == "far":
            where += " (appeared there during the step)"
        return f"{self.kind} {list(self.box)}: best match {self.score:.3f} {where}, {differ}"

    def to_json(self) -> dict:
        return asdict(self)


def checks_for(*, action: str, before: Image | None, after: Image | None, screen: Image,
               target: Point | None, located: Point | None, scale: float,
               shift: Point = (0, 0), region: Box | None, masks: Sequence[Box],
               options: VerifyOptions, earlier: Image | None = None) -> list[Check]:
    """Every check of one step; empty when the recording has no frames to compare with.

    `screen` is today's screen once the step settled, `earlier` today's screen before the
    step: an effect's recorded content found far from its place passes only where `earlier`
    did not show it (without `earlier`, only near its place).

    `target` (the step's recorded target, None for a step without one) and `located` (the
    same place today, None when it was not looked for) map recorded places to today's, and
    a pointer step's target gets a check of its own. Without `located`, the target is taken
    to have moved by `shift` (the last one known); without `target`, recorded places map
    through `shift` and `scale` from the screen's origin.
    """
    if after is None:
        return []
    mapper = _Mapper(target, located, scale, shift)
    keep = _unmasked(after.shape, masks)
    if action == "screenshot":
        box = region or (0, 0, after.shape[1], after.shape[0])
        return [_checkpoint(after, screen, box, mapper, keep, options)]
    checks = []
    if target is not None and action in POINTER_ACTIONS:
        # where the step acted: found near the re-anchored target, never elsewhere
        checks.append(_find("target", after, screen, _around(target, after.shape), mapper,
                            keep, options, None))
    if before is not None and before.shape == after.shape:
        for box in _effects(before, after, keep, options):
            checks.append(_find("effect", after, screen, box, mapper, keep, options, earlier))
    return checks


def settled_screen(grab: Callable[[], Image], *, settle: float, cap: float,
                   pause: Callable[[float], None],
                   clock: Callable[[], float] = time.monotonic) -> Image:
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

    def __init__(self, target: Point | None, located: Point | None, scale: float,
                 shift: Point = (0, 0)):
        if target is None:
            target, located = (0, 0), shift
        elif located is None:
            located = (target[0] + shift[0], target[1] + shift[1])
        self.target, self.located, self.scale = target, located, scale

    def box(self, box: Box) -> Box:
        x, y, w, h = box
        tx, ty = self.target
        lx, ly = self.located
        s = self.scale
        return (round(lx + (x - tx) * s), round(ly + (y - ty) * s), round(w * s), round(h * s))


def _unmasked(shape: tuple[int, ...], masks: Sequence[Box]) -> Image:
    keep = np.ones(shape[:2], bool)
    for x, y, w, h in masks:
        keep[max(y, 0):y + h, max(x, 0):x + w] = False
    return keep


def _gray(image: Image) -> Image:
    import cv2

    return cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)


def _effects(before: Image, after: Image, keep: Image, options: VerifyOptions) -> list[Box]:
    """Boxes around what the action changed on the recorded screen, largest first."""
    import cv2

    changed = (np.abs(_gray(before).astype(np.int16) - _gray(after)) > options.pixel_threshold)
    changed &= keep
    if not changed.any():
        return []
    grown = cv2.dilate(changed.astype(np.uint8), np.ones((9, 9), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown)
    boxes = [tuple(int(v) for v in stats[i][:4]) for i in range(1, count)
             if stats[i][4] >= _MIN_EFFECT]
    boxes.sort(key=lambda b: -b[2] * b[3])
    height, width = after.shape[:2]
    return [_clamp((x - _PAD, y - _PAD, w + 2 * _PAD, h + 2 * _PAD), width, height)
            for x, y, w, h in boxes[:_MAX_EFFECTS]]


def _around(target: tuple[int, int], shape: tuple[int, ...], size: tuple[int, int] = (96, 48)
            ) -> Box:
    return _clamp((target[0] - size[0] // 2, target[1] - size[1] // 2, *size), shape[1],
                  shape[0])


def _find(kind: str, after: Image, screen: Image, box: Box, mapper: _Mapper, keep: Image,
          options: VerifyOptions, earlier: Image | None) -> Check:
    """Is the recorded content of `box` on the screen: near its mapped place or, failing
    that, where it appeared during the step?"""
    import cv2

    x, y, w, h = box
    crop = after[y:y + h, x:x + w]
    crop_keep = keep[y:y + h, x:x + w]
    if mapper.scale != 1.0:
        size = (max(1, round(w * mapper.scale)), max(1, round(h * mapper.scale)))
        crop = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
        crop_keep = cv2.resize(crop_keep.astype(np.uint8), size,
                               interpolation=cv2.INTER_NEAREST).astype(bool)
    ch, cw = crop.shape[:2]
    mx, my, _, _ = mapper.box(box)
    sh, sw = screen.shape[:2]
    expected = _clamp((mx, my, cw, ch), sw, sh)
    near = _clamp((mx - _NEAR, my - _NEAR, cw + 2 * _NEAR, ch + 2 * _NEAR), sw, sh)
    score, fx, fy = _best_match(screen, crop, near)
    match = "near"
    if score < options.match_threshold:
        far = _appeared(screen, earlier, crop, crop_keep, options)
        if far is not None:
            (score, fx, fy), match = far, "far"
        else:
            match = "none"
    places = [(fx, fy)] if fx >= 0 else []
    if match == "none" and expected[2:] == (cw, ch):
        places.append(expected[:2])  # the best match near it may be anywhere in a blank
    if not places:
        return Check(kind, box, None, 0.0, 1.0, w * h, False, expected, "none")
    (changed, patch), (fx, fy) = min(
        (_changed(crop, screen[py:py + ch, px:px + cw], crop_keep, options), (px, py))
        for px, py in places)
    passed = _passes(changed, patch, options)
    return Check(kind, box, (fx, fy, cw, ch), round(max(score, 0.0), 4), round(changed, 4),
                 patch, passed, expected, "near" if passed and match == "none" else match)


def _appeared(screen: Image, earlier: Image | None, crop: Image, keep: Image,
              options: VerifyOptions) -> tuple[float, int, int] | None:
    """The best place on `screen` that shows `crop` and where `earlier` (today's screen
    before the step) did not: content the step made appear, not a look-alike that was
    already there."""
    import cv2

    if earlier is None or earlier.shape != screen.shape:
        return None
    ch, cw = crop.shape[:2]
    scores = _scores(screen, crop)
    if scores is None:
        return None
    for _ in range(_FAR_TRIES):
        _, value, _, (x, y) = cv2.minMaxLoc(scores)
        if value < options.match_threshold:
            return None
        before = earlier[y:y + ch, x:x + cw]
        if not _passes(*_changed(crop, before, keep, options), options):
            return (float(value), x, y)
        scores[max(0, y - ch // 2):y + ch // 2 + 1, max(0, x - cw // 2):x + cw // 2 + 1] = -1


def _checkpoint(after: Image, screen: Image, box: Box, mapper: _Mapper, keep: Image,
                options: VerifyOptions) -> Check:
    """A region compared pixel by pixel at its mapped place (resized by the scale)."""
    import cv2

    x, y, w, h = box
    mapped = mx, my, mw, mh = mapper.box(box)
    sh, sw = screen.shape[:2]
    if mx < 0 or my < 0 or mw <= 0 or mh <= 0 or mx + mw > sw or my + mh > sh:
        return Check("checkpoint", box, None, 0.0, 1.0, w * h, False, mapped, "none")
    expected, region_keep = after[y:y + h, x:x + w], keep[y:y + h, x:x + w]
    if (mw, mh) != (w, h):
        expected = cv2.resize(expected, (mw, mh), interpolation=cv2.INTER_AREA)
        region_keep = cv2.resize(region_keep.astype(np.uint8), (mw, mh),
                                 interpolation=cv2.INTER_NEAREST).astype(bool)
    changed, patch = _changed(expected, screen[my:my + mh, mx:mx + mw], region_keep, options)
    return Check("checkpoint", box, mapped, round(1.0 - changed, 4), round(changed, 4),
                 patch, _passes(changed, patch, options), mapped)


def _best_match(screen: Image, crop: Image, area: Box) -> tuple[float, int, int]:
    import cv2

    ax, ay, _, _ = area
    scores = _scores(_crop(screen, area), crop)
    if scores is None:
        return (0.0, -1, -1)
    _, value, _, loc = cv2.minMaxLoc(scores)
    return (float(value), ax + loc[0], ay + loc[1])


def _scores(image: Image, crop: Image) -> Image | None:
    """How well `crop` matches at each place of `image` (1 is exact); None when it does
    not fit."""
    import cv2

    if crop.shape[0] > image.shape[0] or crop.shape[1] > image.shape[1] or crop.size == 0:
        return None
    tmpl, region = _gray(crop), _gray(image)
    if float(tmpl.std()) < 1.0:  # flat: correlation is undefined, compare levels instead
        diff = cv2.matchTemplate(region.astype(np.float32), tmpl.astype(np.float32),
                                 cv2.TM_SQDIFF_NORMED)
        return 1.0 - diff
    return cv2.matchTemplate(region, tmpl, cv2.TM_CCOEFF_NORMED)


def _crop(image: Image, box: Box) -> Image:
    x, y, w, h = box
    return image[y:y + h, x:x + w]


def _passes(changed: float, patch: int, options: VerifyOptions) -> bool:
    return changed <= options.tolerance and patch <= options.max_patch


def _changed(expected: Image, seen: Image, keep: Image, options: VerifyOptions
             ) -> tuple[float, int]:
    """The fraction of unmasked pixels that differ, and the largest patch of them."""
    import cv2

    if not keep.any():
        return 0.0, 0
    if expected.shape != seen.shape:
        return 1.0, int(keep.sum())
    diff = np.abs(_gray(expected).astype(np.int16) - _gray(seen)) > options.pixel_threshold
    diff &= keep
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

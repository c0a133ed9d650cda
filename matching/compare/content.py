"""Where a recorded region is on today's screen, and how many of its pixels differ there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ..params import PARAMS as P
from ..search import Box, Image, Scores, grayscale

from .checks import (
    Check,
    Mapper,
    Mask,
    VerifyOptions,
    clamp,
    drawn_by_step,
    holds_centre,
    measured,
    passes,
)
from .recolour import recoloured
from .scaled import parts_changed

__all__ = ["Content", "Views", "changed_boxes", "changed_mask", "checkpoint", "find"]


@dataclass(frozen=True, slots=True)
class Views:
    """Today's screens (after the step, and before it when known) as the checks compare
    them: grayscale, blurred at another scale (`of`)."""

    screen: Image
    earlier: Image | None

    @classmethod
    def of(cls, screen: Image, earlier: Image | None, scale: float) -> Views:
        if earlier is None or earlier.shape != screen.shape:
            return cls(view(screen, scale), None)
        return cls(view(screen, scale), view(earlier, scale))

    def before_step(self) -> Views | None:
        """Today's screen before the step, looked at as the checks look at a screen."""
        return None if self.earlier is None else Views(self.earlier, None)


class Content:
    """A recorded region (`box` of the recorded `frame`) as today's screen should show it:
    resized by the scale. `changed` (the whole frame's pixels the step changed in the
    recording, where known) tells its context apart: the pixels around what changed, kept
    for where the region is, that the recorded step did not change."""

    def __init__(
        self,
        frame: Image,
        box: Box,
        keep: Mask,
        scale: float,
        options: VerifyOptions,
        changed: Mask | None = None,
    ):
        import cv2

        x, y, w, h = box
        self.context = _context(changed[y : y + h, x : x + w]) if changed is not None else None
        keep = keep[y : y + h, x : x + w]
        if scale == 1.0:
            self.gray = grayscale(frame[y : y + h, x : x + w])
        else:
            size = (max(1, round(w * scale)), max(1, round(h * scale)))
            self.gray = resized_view(frame, box, size, scale)
            keep = cv2.resize(keep.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST).astype(
                bool
            )
        self.keep, self.scale, self.options = keep, scale, options
        self.height, self.width = self.gray.shape

    def scores(self, view: Image) -> Scores | None:
        """How well it matches at each place of `view` (1 is exact); None when it does not
        fit."""
        return scores_of(view, self.gray)

    def changed(self, view: Image, x: int, y: int) -> tuple[float, int]:
        """The fraction of its unmasked pixels that differ at (x, y) of `view`, and the
        largest patch of them."""
        if self.scale == 1.0:
            return changed_pixels(
                self.gray, view[y : y + self.height, x : x + self.width], self.keep, self.options
            )
        return parts_changed(self.gray, view, x, y, self.keep, self.scale, self.options)

    def changed_by_step(self, seen: Views, x: int, y: int) -> tuple[float, int]:
        """`changed` at (x, y) of today's screen after the step, its context excused
        where neither step drew it (checks.drawn_by_step: a container's edge that a bigger
        window moved), as long as today's step drew the effect there. At 1x, with the
        recorded change and today's screen before the step known; elsewhere as `changed`.
        The caller uses it only where the effect is expected (_by_pixels)."""
        if self.context is None or seen.earlier is None or self.scale != 1.0:
            return self.changed(seen.screen, x, y)
        area = (slice(y, y + self.height), slice(x, x + self.width))
        today, earlier = seen.screen[area], seen.earlier[area]
        if today.shape != self.gray.shape or earlier.shape != self.gray.shape:
            return self.changed(seen.screen, x, y)
        expected = self.gray.astype(np.float32)
        drawn = drawn_by_step(expected, today, earlier, self.keep, self.context, self.options)
        return self.changed(seen.screen, x, y) if drawn is None else drawn

    def passes(self, view: Image, x: int, y: int) -> bool:
        return passes(*self.changed(view, x, y), self.options)


def _context(changed: Mask) -> Mask:
    """The pixels of a region that are not the recorded change: farther than
    P.change_halo px from any pixel the step changed (its anti-aliased edge is the change)."""
    import cv2

    size = 2 * P.change_halo + 1
    near = cv2.dilate(changed.astype(np.uint8), np.ones((size, size), np.uint8)).astype(bool)
    out: Mask = ~near
    return out


def view(image: Image, scale: float) -> Image:
    """Grayscale; blurred at another scale, where resampled pixels cannot match exactly."""
    import cv2

    gray = grayscale(image)
    return gray if scale == 1.0 else cast(Image, cv2.GaussianBlur(gray, (0, 0), P.verify_blur))


def resized_view(frame: Image, box: Box, size: tuple[int, int], scale: float) -> Image:
    """The `view` of `box` of `frame` resized to `size`, its edges resized and blurred with
    what surrounds them, as today's screen is (a window's edge blurs into the desktop)."""
    import cv2

    x, y, w, h = box
    fh, fw = frame.shape[:2]
    left, top = min(x, P.resize_context), min(y, P.resize_context)
    right, bottom = min(fw - x - w, P.resize_context), min(fh - y - h, P.resize_context)
    at = (round(left * scale), round(top * scale))
    grown = (at[0] + size[0] + round(right * scale), at[1] + size[1] + round(bottom * scale))
    image = cast(
        Image,
        cv2.resize(
            frame[y - top : y + h + bottom, x - left : x + w + right],
            grown,
            interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
        ),
    )
    return view(image, scale)[at[1] : at[1] + size[1], at[0] : at[0] + size[0]]


def find(
    kind: str,
    after: Image,
    seen: Views,
    box: Box,
    mapper: Mapper,
    keep: Mask,
    options: VerifyOptions,
    *,
    far: bool = True,
    changed: Mask | None = None,
) -> Check:
    """Is the recorded content of `box` on the screen: near its mapped place or, failing
    that (when `far`), where it appeared during the step? Failing both, at 1x, an effect
    whose ink the step changed in the recording (`before`, the recorded frame before it) is
    looked for in other colours (recolour.py): the same text and marks under another theme.
    `changed`: the recorded step's changed pixels, which tell an effect's context apart
    (Content.changed_by_step)."""
    content = Content(after, box, keep, mapper.scale, options, changed)
    mx, my, _, _ = mapper.box(box)
    sh, sw = seen.screen.shape
    expected = clamp((mx, my, content.width, content.height), sw, sh)
    pad = P.content_near
    near = clamp((mx - pad, my - pad, content.width + 2 * pad, content.height + 2 * pad), sw, sh)
    check = _by_pixels(kind, content, seen, box, expected, near, far)
    if check.passed or mapper.scale != 1.0 or kind != "effect":
        return check
    x, y, w, h = box
    region = recoloured(grayscale(crop(after, box)), keep[y : y + h, x : x + w], options)
    tried = [check.found_at[:2]] if check.found_at is not None else []
    found = region.best(seen.screen, seen.earlier, [*tried, expected[:2]], near) if region else None
    if found is None:
        return check
    (fx, fy), (differ, patch) = found
    return Check(
        kind, box, (fx, fy, w, h), 1.0, round(differ, 4), patch, True, expected, "recoloured"
    )


def _by_pixels(
    kind: str, content: Content, seen: Views, box: Box, expected: Box, near: Box, far: bool
) -> Check:
    """`find` by the pixels, at the mapped scale. Flat content (a field the step emptied)
    is compared at its expected place only: it would match any blank nearby. An effect
    found at another place (one that does not hold the expected place's centre) whose
    content today's screen showed there before the step too is a duplicate, no effect of
    the step: it is looked for where it appeared instead. (At its own place, content shown
    before and after is the state the recording shows after the step.)"""
    x, y, w, h = box
    ch, cw, scale = content.height, content.width, content.scale
    flat = float(content.gray.std()) < 1.0
    score, fx, fy = (0.0, -1, -1) if flat else _best_match(seen.screen, content, near)
    match = "near"
    shown_before = (
        kind == "effect"
        and score >= content.options.match_threshold
        and not holds_centre((fx, fy, cw, ch), expected)
        and seen.earlier is not None
        and content.passes(seen.earlier, fx, fy)
    )
    if score < content.options.match_threshold or shown_before:
        appeared = _appeared(seen, content) if far and not flat else None
        if appeared is not None:
            (score, fx, fy), match = appeared, "far"
        elif shown_before:
            return Check(
                kind,
                box,
                (fx, fy, cw, ch),
                round(score, 4),
                0.0,
                0,
                False,
                expected,
                "before",
                scale,
            )
        else:
            match = "none"
    places = [(fx, fy)] if fx >= 0 else []
    if match == "none" and expected[2:] == (cw, ch):
        places.append(expected[:2])  # the best match near it may be anywhere in a blank
    if not places:
        return Check(kind, box, None, 0.0, 1.0, w * h, False, expected, "none", scale)

    def measured_at(px: int, py: int) -> tuple[float, int]:
        """A place's differing pixels; its context excused only at the expected place, or
        where the content matched and holds the expected place's centre: elsewhere the
        context is what tells the effect from its look-alikes."""
        mine = (px, py) == expected[:2] or (
            score >= content.options.match_threshold and holds_centre((px, py, cw, ch), expected)
        )
        return (
            content.changed_by_step(seen, px, py) if mine else content.changed(seen.screen, px, py)
        )

    (changed, patch), (fx, fy) = min((measured_at(px, py), (px, py)) for px, py in places)
    passed = passes(changed, patch, content.options)
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
        scale,
    )


def _appeared(seen: Views, content: Content) -> tuple[float, int, int] | None:
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
    for _ in range(P.far_tries):
        _, value, _, (x, y) = cv2.minMaxLoc(scores)
        if value < content.options.match_threshold:
            return None
        if not content.passes(seen.earlier, x, y):
            return (float(value), x, y)
        scores[max(0, y - ch // 2) : y + ch // 2 + 1, max(0, x - cw // 2) : x + cw // 2 + 1] = -1
    return None


def checkpoint(
    after: Image, seen: Views, box: Box, mapper: Mapper, keep: Mask, options: VerifyOptions
) -> Check:
    """A region compared at its mapped place (resized by the scale)."""
    x, y, w, h = box
    mapped = mx, my, mw, mh = mapper.box(box)
    sh, sw = seen.screen.shape
    if mx < 0 or my < 0 or mw <= 0 or mh <= 0 or mx + mw > sw or my + mh > sh:
        return Check("checkpoint", box, None, 0.0, 1.0, w * h, False, mapped, "none", mapper.scale)
    content = Content(after, box, keep, mapper.scale, options)
    changed, patch = content.changed(seen.screen, mx, my)
    return Check(
        "checkpoint",
        box,
        mapped,
        round(1.0 - changed, 4),
        round(changed, 4),
        patch,
        passes(changed, patch, options),
        mapped,
        scale=mapper.scale,
    )


def _best_match(view: Image, content: Content, area: Box) -> tuple[float, int, int]:
    import cv2

    ax, ay, _, _ = area
    scores = content.scores(crop(view, area))
    if scores is None:
        return (0.0, -1, -1)
    _, value, _, loc = cv2.minMaxLoc(scores)
    return (float(value), ax + loc[0], ay + loc[1])


def scores_of(view: Image, tmpl: Image) -> Scores | None:
    """How well `tmpl` matches at each place of `view` (grayscale both; 1 is exact); None
    when it does not fit."""
    import cv2

    if tmpl.shape[0] > view.shape[0] or tmpl.shape[1] > view.shape[1] or tmpl.size == 0:
        return None
    if float(tmpl.std()) < 1.0:  # flat: correlation is undefined, compare levels instead
        diff = cv2.matchTemplate(
            view.astype(np.float32), tmpl.astype(np.float32), cv2.TM_SQDIFF_NORMED
        )
        return cast(Scores, 1.0 - diff)
    return cast(Scores, cv2.matchTemplate(view, tmpl, cv2.TM_CCOEFF_NORMED))


def crop(image: Image, box: Box) -> Image:
    x, y, w, h = box
    return image[y : y + h, x : x + w]


def changed_pixels(
    expected: Image, seen: Image, keep: Mask, options: VerifyOptions
) -> tuple[float, int]:
    """The fraction of unmasked pixels that differ (grayscale both), and the largest patch
    of them."""
    if not keep.any():
        return 0.0, 0
    if expected.shape != seen.shape:
        return 1.0, int(keep.sum())
    diff = np.abs(expected.astype(np.int16) - seen) > options.pixel_threshold
    return measured(diff & keep, keep)


def changed_mask(before: Image, after: Image, keep: Mask, options: VerifyOptions) -> Mask:
    """Where `keep` holds and `after` differs from `before` (the same size) by more than
    `pixel_threshold` grey levels."""
    diff = np.abs(grayscale(before).astype(np.int16) - grayscale(after)) > options.pixel_threshold
    changed: Mask = diff & keep
    return changed


def changed_boxes(
    before: Image, after: Image, keep: Mask, options: VerifyOptions, *, most: int | None = None
) -> list[Box]:
    """Boxes around what changed from `before` to `after` (the same size) where `keep` holds,
    largest first: pixels closer than P.effect_join are one region, regions under
    P.effect_least px are left out (a caret blink), each is grown by P.effect_pad px of
    context, and at most `most` (P.effects_most) are given."""
    import cv2

    changed = changed_mask(before, after, keep, options)
    if not changed.any():
        return []
    join = np.ones((P.effect_join, P.effect_join), np.uint8)
    grown = cv2.dilate(changed.astype(np.uint8), join)
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown)
    boxes = [
        tuple(int(v) for v in stats[i][:4])
        for i in range(1, count)
        if stats[i][4] >= P.effect_least
    ]
    boxes.sort(key=lambda b: -b[2] * b[3])
    height, width = after.shape[:2]
    pad = P.effect_pad
    return [
        clamp((x - pad, y - pad, w + 2 * pad, h + 2 * pad), width, height)
        for x, y, w, h in boxes[: P.effects_most if most is None else most]
    ]

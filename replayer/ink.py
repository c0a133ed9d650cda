"""The comparison under another look (a dark theme, another palette, reverse video): what
is drawn rather than the colours it is drawn in.

Toolkits draw a region's text, marks and lines on a background. The background is the
region's most common grey level; its ink is every pixel that stands out from that level by
at least half as much as the most contrasting pixel there (and by more than
`pixel_threshold`, below which nothing is drawn). Another theme recolours both, and
anti-aliasing shades the edges of glyphs differently, but the ink keeps its shape: a
pixel differs when it is ink on one side and no ink lies within `_REACH` px of it on the
other.

Only what the step changed is compared so: the pixels it changed in the recording and
those it changed today, with `_REACH` px around them (the frame of a display or the rest
of a form drawn in the new theme's own way is no effect of the step). Then `tolerance` and
`max_patch` decide as for pixels, so another word, a missing check mark or an empty field
fails. An effect is compared by its ink only where the step changed the ink in the
recording (a change of colour alone, such as a button's highlight, has no ink to tell it
by), and passes only where the screen before the step did not show that ink already.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from matching.search import Box, Image

from .checks import Mask, VerifyOptions, measured, passes

__all__ = ["InkEffect", "background", "ink", "ink_changed"]

_REACH = 1  # px a stroke may move between two renderings of the same thing
_BLUR = 1.0  # px (sigma) the masks are blurred by to find where one fits the other
_STROKE = 3  # px: ink that differs by fewer pixels than this was not changed by the step


def ink(gray: Image, options: VerifyOptions, level: int | None = None) -> Mask:
    """The pixels of `gray` that stand out from its background (see the docstring), or
    from the grey `level` given."""
    if gray.size == 0:
        return np.zeros(gray.shape, bool)
    if level is None:
        level = background(gray)
    away = np.abs(gray.astype(np.int16) - level)
    most = int(away.max())
    if most <= options.pixel_threshold:
        return np.zeros(gray.shape, bool)
    mask: Mask = away >= max(most / 2, options.pixel_threshold + 1)
    return mask


def background(gray: Image) -> int:
    """The most common grey level of `gray`."""
    return int(np.bincount(gray.ravel(), minlength=256).argmax())


def ink_changed(expected: Mask, seen: Mask, keep: Mask) -> tuple[float, int]:
    """The fraction of `keep`'s pixels whose ink differs between two masks of one size, and
    the largest patch of them."""
    if not keep.any():
        return 0.0, 0
    if expected.shape != seen.shape:
        return 1.0, int(keep.sum())
    diff = (expected & ~_grown(seen, _REACH)) | (seen & ~_grown(expected, _REACH))
    return measured(diff & keep, keep)


@dataclass(frozen=True, slots=True)
class InkEffect:
    """A recorded region whose ink the step changed, as it should look after the step."""

    after: Image  # grayscale, the recorded after-frame's region
    mask: Mask  # its ink
    changed: Mask  # what the step changed there in the recording
    keep: Mask  # what is not masked
    options: VerifyOptions

    @classmethod
    def of(
        cls, before: Image, after: Image, keep: Mask, options: VerifyOptions
    ) -> InkEffect | None:
        """The region (grayscale crops of the recording before and after the step) when the
        step changed its ink; None for a change of colour alone."""
        changed = _changed(before, after, options) & keep
        mask = ink(after, options)
        area = _grown(changed, _REACH) & keep
        diff, _ = ink_changed(ink(before, options), mask, area)
        if diff * area.sum() < _STROKE:
            return None
        return cls(after, mask, changed, keep, options)

    def best(
        self, screen: Image, earlier: Image | None, places: list[tuple[int, int]], near: Box
    ) -> tuple[tuple[int, int], tuple[float, int]] | None:
        """The first of `places` (then where the ink fits best in `near`) where today's
        `screen` shows this ink and the `earlier` one did not: the place and how much of
        its ink differs there. None without `earlier`, which tells what the step changed."""
        if earlier is None:
            return None
        for place in [*places, *self._fits(screen, near, places)]:
            now, then = (
                _crop(screen, place, self.after.shape),
                _crop(earlier, place, self.after.shape),
            )
            if now is None or then is None:
                continue
            area = _grown(self.changed | _changed(then, now, self.options), _REACH) & self.keep
            today = ink_changed(self.mask, ink(now, self.options), area)
            if not passes(*today, self.options):
                continue
            if passes(*ink_changed(self.mask, ink(then, self.options), area), self.options):
                continue  # shown before the step too: not its effect
            return place, today
        return None

    def _fits(self, view: Image, area: Box, places: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The place in `area` of `view` where the ink the step changed fits best (its
        top-left), by the correlation of the two masks blurred, the background taken at the
        last of `places` (where the region is expected); empty when it does not fit."""
        import cv2

        ax, ay, aw, ah = area
        region = view[ay : ay + ah, ax : ax + aw]
        th, tw = self.after.shape
        mine_mask = self.mask & _grown(self.changed, _REACH)
        there = _crop(view, places[-1], self.after.shape) if places else None
        if th > region.shape[0] or tw > region.shape[1] or not mine_mask.any() or there is None:
            return []
        blur = (0, 0), _BLUR
        mine = cv2.GaussianBlur(mine_mask.astype(np.float32), *blur)
        level = background(there)
        theirs = cv2.GaussianBlur(ink(region, self.options, level).astype(np.float32), *blur)
        _, _, _, (x, y) = cv2.minMaxLoc(cv2.matchTemplate(theirs, mine, cv2.TM_CCORR_NORMED))
        return [(ax + x, ay + y)]


def _changed(before: Image, after: Image, options: VerifyOptions) -> Mask:
    changed: Mask = np.abs(before.astype(np.int16) - after) > options.pixel_threshold
    return changed


def _grown(mask: Mask, reach: int) -> Mask:
    import cv2

    kernel = np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)
    grown: Mask = cv2.dilate(mask.astype(np.uint8), kernel).astype(bool)
    return grown


def _crop(view: Image, place: tuple[int, int], shape: tuple[int, ...]) -> Image | None:
    (x, y), (h, w) = place, shape[:2]
    part = view[y : y + h, x : x + w]
    return part if part.shape == shape else None

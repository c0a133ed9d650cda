"""The comparison under another look (a dark theme, another palette, reverse video): the
same pixels in other colours.

A theme recolours a region: its background and its text each get another grey level, and
the anti-aliased edges between them blend the new levels as they blended the old ones. So
today's region is the recorded one under one straight-line change of grey levels, `today
= gain * recorded + offset`, fitted over the region's unmasked pixels (reverse video has a
gain of -1). A pixel differs when it lies more than `pixel_threshold` from that line; then
`tolerance` and `max_patch` decide as for pixels, so another word, another digit, a
missing check mark or an empty field fails as it does in the recording's own colours.

The line is taken as a theme only where it is one:
- it is not the identity (within `P.same_gain` and `pixel_threshold`): in the recording's
  own colours the pixels decide, and nothing passes here that they failed;
- it keeps at least `P.least_gain` of the recorded contrast (a theme keeps its text
  readable; a region gone blank fits a flat line);
- the recorded region has detail (a flat one fits any place).
A region drawn in three colours or more that a theme does not recolour along one line
(a blue focus ring around black text) fails, as do the marks a theme draws in its own way.
An effect passes so only where the screen before the step did not already show it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..params import PARAMS as P
from ..search import Box, Image

from .checks import Mask, VerifyOptions, measured, passes

__all__ = ["Recoloured", "grey_line", "recoloured"]


@dataclass(frozen=True, slots=True)
class Recoloured:
    """A recorded region (grayscale) that an effect check looks for in other colours."""

    gray: Image
    keep: Mask
    options: VerifyOptions

    def changed(self, view: Image | None, place: tuple[int, int]) -> tuple[float, int] | None:
        """The fraction of the region's pixels off the line that recolours it into `view`
        at `place` (its top-left), and the largest patch of them; None where no theme's
        line does (or the place runs off the view)."""
        if view is None:
            return None
        (x, y), (h, w) = place, self.gray.shape
        today = view[y : y + h, x : x + w]
        if today.shape != self.gray.shape:
            return None
        line = grey_line(self.gray, today, self.keep)
        if line is None or not _a_theme(*line, self.options):
            return None
        gain, offset = line
        off = np.abs(today.astype(np.float32) - (gain * self.gray + offset))
        return measured((off > self.options.pixel_threshold) & self.keep, self.keep)

    def best(
        self, screen: Image, earlier: Image | None, places: list[tuple[int, int]], near: Box
    ) -> tuple[tuple[int, int], tuple[float, int]] | None:
        """The first of `places` (then where the region correlates best in `near`, either
        way round) that shows it recoloured today and did not before the step; None
        without `earlier`, which tells what the step changed."""
        if earlier is None:
            return None
        for place in [*places, *self._fits(screen, near)]:
            today = self.changed(screen, place)
            if today is None or not passes(*today, self.options):
                continue
            before = self.changed(earlier, place)
            if before is not None and passes(*before, self.options):
                continue  # shown before the step too: not its effect
            return place, today
        return None

    def _fits(self, view: Image, area: Box) -> list[tuple[int, int]]:
        import cv2

        ax, ay, aw, ah = area
        region = view[ay : ay + ah, ax : ax + aw]
        th, tw = self.gray.shape
        if th > region.shape[0] or tw > region.shape[1]:
            return []
        scores = np.abs(cv2.matchTemplate(region, self.gray, cv2.TM_CCOEFF_NORMED))
        _, _, _, (x, y) = cv2.minMaxLoc(scores)
        return [(ax + x, ay + y)]


def recoloured(gray: Image, keep: Mask, options: VerifyOptions) -> Recoloured | None:
    """The region to look for in other colours; None when it is flat (it would fit any
    place) or wholly masked."""
    if not keep.any() or float(gray[keep].std()) < 1.0:
        return None
    return Recoloured(gray, keep, options)


def grey_line(recorded: Image, today: Image, keep: Mask) -> tuple[float, float] | None:
    """The least-squares line taking the recorded grey levels to today's."""
    r = recorded[keep].astype(np.float64)
    t = today[keep].astype(np.float64)
    spread = float(r.var())
    if spread < 1.0:
        return None
    gain = float(((r - r.mean()) * (t - t.mean())).mean()) / spread
    return gain, float(t.mean() - gain * r.mean())


def _a_theme(gain: float, offset: float, options: VerifyOptions) -> bool:
    same = abs(gain - 1.0) <= P.same_gain and abs(offset) <= options.pixel_threshold
    return not same and abs(gain) >= P.least_gain

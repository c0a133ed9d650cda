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

Its context (the pixels farther than P.change_halo from what the recorded step changed)
is what a theme redraws in its own way: a display's border drawn as a bevel or as three
thin lines. At the effect's expected place, the line is fitted on the change and its edge
alone, in the recorded frames before and after the step against today's screens before
and after it (one line must take both), and a context pixel that today's step did not
change either does not count, as in the recording's own colours (checks.drawn_by_step:
only where today's step drew the change there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..params import PARAMS as P
from ..search import Box, Image

from .checks import Mask, VerifyOptions, drawn_by_step, measured, passes

__all__ = ["Recoloured", "grey_line", "recoloured"]


@dataclass(frozen=True, slots=True)
class Recoloured:
    """A recorded region (grayscale) that an effect check looks for in other colours."""

    gray: Image
    keep: Mask
    options: VerifyOptions
    context: Mask | None = None  # its pixels that are not the recorded change
    before: Image | None = None  # the region in the recorded frame before the step

    def changed(self, view: Image | None, place: tuple[int, int]) -> tuple[float, int] | None:
        """The fraction of the region's pixels off the line that recolours it into `view`
        at `place` (its top-left), and the largest patch of them; None where no theme's
        line does (or the place runs off the view)."""
        (x, y), (h, w) = place, self.gray.shape
        if view is None or x < 0 or y < 0:
            return None
        today = view[y : y + h, x : x + w]
        if today.shape != self.gray.shape:
            return None
        line = grey_line(self.gray, today, self.keep)
        if line is None or not _a_theme(*line, self.options):
            return None
        gain, offset = line
        off = np.abs(today.astype(np.float32) - (gain * self.gray + offset))
        return measured((off > self.options.pixel_threshold) & self.keep, self.keep)

    def changed_by_step(
        self, view: Image, earlier: Image, place: tuple[int, int]
    ) -> tuple[float, int] | None:
        """`changed`, its context excused where neither step drew it (checks.drawn_by_step),
        the line fitted on the recorded change and its edge alone: one line must take the
        recorded frame before the step to today's screen before it there, and the recorded
        after-frame to today's screen after it (a theme recolours both alike; two levels
        alone fit any line, a light turned red where it turned green included). As
        `changed` where that line is no theme's, the step did not draw the change there, or
        nothing tells the context apart."""
        (x, y), (h, w) = place, self.gray.shape
        if x < 0 or y < 0 or self.before is None or self.context is None:
            return self.changed(view, place)
        today, then = view[y : y + h, x : x + w], earlier[y : y + h, x : x + w]
        if today.shape != self.gray.shape or then.shape != self.gray.shape:
            return None
        core = self.keep & ~self.context
        pairs = np.concatenate([self.gray, self.before]), np.concatenate([today, then])
        line = grey_line(*pairs, np.concatenate([core, core]))
        if line is None or not _a_theme(*line, self.options):
            return self.changed(view, place)
        gain, offset = line
        was = np.abs(then.astype(np.float32) - (gain * self.before.astype(np.float32) + offset))
        if not passes(*measured((was > self.options.pixel_threshold) & core, core), self.options):
            return self.changed(view, place)  # before the step, the line is no theme's
        expected = gain * self.gray.astype(np.float32) + offset
        drawn = drawn_by_step(expected, today, then, self.keep, self.context, self.options)
        return self.changed(view, place) if drawn is None else drawn

    def best(
        self,
        screen: Image,
        earlier: Image | None,
        places: list[tuple[int, int]],
        near: Box,
        expected: Box,
    ) -> tuple[tuple[int, int], tuple[float, int]] | None:
        """The first of `places` (then where the region correlates best in `near`, either
        way round) that shows it recoloured today and did not before the step; None
        without `earlier`, which tells what the step changed. Its context is excused
        (changed_by_step) only at `expected`'s place: elsewhere the context is what tells
        the effect from its look-alikes (a neighbouring cell filled instead)."""
        if earlier is None:
            return None
        for place in [*places, *self._fits(screen, near)]:
            mine = place == expected[:2]
            today = (
                self.changed_by_step(screen, earlier, place)
                if mine
                else self.changed(screen, place)
            )
            if today is None or not passes(*today, self.options):
                continue
            before = self.changed(earlier, place)
            if before is not None and passes(*before, self.options):
                continue  # shown before the step too: not its effect
            return place, today
        return None

    def _fits(self, view: Image, area: Box) -> list[tuple[int, int]]:
        """Where the region correlates best in `area` of `view`, either way round; then
        where its change and the change's edge do (a theme that draws the context its own
        way, a display's digits a few pixels off in another frame)."""
        fits = [_fit(view, area, self.gray, (0, 0))]
        if self.context is not None and (core := self.keep & ~self.context).any():
            ys, xs = np.nonzero(core)
            x0, y0 = int(xs.min()), int(ys.min())
            part = self.gray[y0 : int(ys.max()) + 1, x0 : int(xs.max()) + 1]
            fits.append(_fit(view, area, part, (x0, y0)))
        return [f for f in fits if f is not None]


def _fit(view: Image, area: Box, gray: Image, at: tuple[int, int]) -> tuple[int, int] | None:
    """The top-left of the region whose part `gray` (at `at` in it) correlates best in
    `area` of `view`, either way round; None where it does not fit or is flat."""
    import cv2

    ax, ay, aw, ah = area
    region = view[ay : ay + ah, ax : ax + aw]
    th, tw = gray.shape
    if th > region.shape[0] or tw > region.shape[1] or float(gray.std()) < 1.0:
        return None
    scores = np.abs(cv2.matchTemplate(region, gray, cv2.TM_CCOEFF_NORMED))
    _, _, _, (x, y) = cv2.minMaxLoc(scores)
    return (ax + x - at[0], ay + y - at[1])


def recoloured(
    gray: Image,
    keep: Mask,
    options: VerifyOptions,
    context: Mask | None = None,
    before: Image | None = None,
) -> Recoloured | None:
    """The region to look for in other colours; None when it is flat (it would fit any
    place) or wholly masked. `context`: its pixels that are not the recorded change;
    `before`: the region before the step, as recorded (grayscale)."""
    if not keep.any() or float(gray[keep].std()) < 1.0:
        return None
    if before is not None and before.shape != gray.shape:
        before = None
    return Recoloured(gray, keep, options, context, before)


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

"""Locating an anchor on a screen by its pixels: near its recorded place, then anywhere at
1x, then at other scales (other_scales.py).

by_pixels() climbs the stages in turn. A match that is not exact must also agree with the
screen the anchor was recorded on (doubts.py, checks.py); at other scales, places are
judged part by part (parts.py, deciding.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .checks import Match

from .doubts import doubt
from .located import Located, located, refused
from .other_scales import at_other_scales
from .params import PARAMS as P
from .parts import Parts
from .ranking import accepted, rank, settle
from .recording import Recorded, Recording
from .scaling import best_scale_near
from .search import (
    NOWHERE,
    Hit,
    Image,
    Point,
    Screen,
    add,
    coarse_factor,
    grayscale,
    scan,
    search_region,
    sub,
)

__all__ = ["Search", "by_pixels", "hints_after"]


def by_pixels(
    screen: Image,
    anchor_img: Image,
    offset: Point,
    *,
    expected: Point | None = None,
    threshold: float = P.threshold,
    margin: float = P.margin,
    unique: bool = False,
    context: Recorded | Image | Callable[[], Image | None] | None = None,
    scale_hint: float = 1.0,
    shift_hint: Point = (0, 0),
) -> Located:
    """Find `anchor_img` on `screen` and its target point; refuse weak or ambiguous matches.

    Looks within 64 pixels of `expected` (the recorded target) first. An exact match
    there settles it when the anchor was `unique` on the screen it was recorded from
    (choose_anchor's `distinctive`) and nothing else in the window comes close. Otherwise the
    whole screen is searched at reduced resolution, the likeliest places verified at full
    resolution, then 0.8x-1.25x when nothing is trusted at 1x or another scale fits the 1x
    match better. A match that is not exact (a scale, a changed neighbour) is checked against
    `context`, the screen the anchor was cut from (or a function that returns it, called only
    then, or a Recorded that keeps it for the next call), when given: the wider crop around
    the recorded target must match there too, and better than at the runner-up; so must the
    pixels right around the target; and the pixels found must look more like the recorded
    target than like anything else on that screen.
    At other scales the likeliest places are judged by the parts of the recorded
    neighbourhood (parts.py), which also place the target; the look back is then made with
    parts. Without `context`, the parts are cut from the anchor alone and nothing is looked
    back at.
    `scale_hint`, the scale earlier targets were found at, is searched (closely) before the
    others. `shift_hint`, how far the last target found at 1x had moved from its recorded
    place (a moved window moves every target alike), is looked in first: an exact unique
    match within 64 px of the recorded place moved by it settles it.
    """
    started = time.perf_counter()
    tmpl = grayscale(anchor_img)
    if tmpl.shape[0] > screen.shape[0] or tmpl.shape[1] > screen.shape[1]:
        return refused(started, "the anchor is larger than the screen")
    if float(tmpl.std()) < P.flat:
        return refused(started, "the anchor is a flat image: nothing to match")
    guess = None if expected is None else sub(expected, offset)
    if guess is not None and unique and shift_hint != (0, 0):
        _, settled = _exact_near(screen, tmpl, add(guess, shift_hint), threshold, margin)
        if settled:
            return located(started, *settled, 1.0, offset, ["shifted"], True, "")
    near: list[Hit] = []
    if guess is not None:
        near, settled = _exact_near(screen, tmpl, guess, threshold, margin)
        if unique and settled:
            return located(started, *settled, 1.0, offset, ["window"], True, "")
    if context is not None and not isinstance(context, Recorded):
        context = Recorded(context)
    search = Search(
        started, Screen.of(screen), anchor_img, tmpl, offset, threshold, margin, unique,
        Recording(context, guess, tmpl.shape, offset), ["window"] * bool(near) + ["coarse"],
    )  # fmt: skip
    return search.at_1x(near) or at_other_scales(search, scale_hint)


@dataclass
class Search:
    """One locate() of an anchor on a screen, stage by stage: at 1x (near its place, then the
    whole screen), then at other scales, judged part by part, then looked back at."""

    started: float
    seen: Screen
    anchor_img: Image
    tmpl: Image
    offset: Point
    threshold: float
    margin: float
    unique: bool
    recording: Recording
    stages: list[str]
    hits: list[Hit] = field(default_factory=list)
    best: Hit = NOWHERE
    runner: Hit = NOWHERE
    reason: str = ""  # why the best match at 1x is not trusted
    _parts: Parts | None = None
    _wide: Parts | None = None

    @property
    def parts(self) -> Parts:
        """The parts of the recorded neighbourhood, cut once, when a check needs them."""
        if self._parts is None:
            self._parts = self.recording.parts(self.tmpl)
        return self._parts

    def at_1x(self, near: list[Hit]) -> Located | None:
        """The answer at 1x: found, or refused where the recorded pixels are ambiguous (so
        at any other scale too); None when other scales must be searched (`reason`)."""
        seen, tmpl = self.seen, self.tmpl
        hits, by_colour = near, False
        for factor in _factors(tmpl.shape[1], tmpl.shape[0]):
            hits = hits + list(scan(seen, tmpl, factor=factor))
            if hits:
                self.best, self.runner, by_colour = settle(
                    seen, self.anchor_img, hits, threshold=self.threshold, margin=self.margin
                )
            if self.best.score >= P.sure:
                break
        self.hits = hits
        best, runner = self.best, self.runner
        if best is NOWHERE:
            searched = "+".join(self.stages)
            return refused(self.started, "nowhere on the screen to compare with", searched)
        match = Match(best, runner, 1.0, by_colour)
        self.reason = self.doubt(match) or self._scaled_at_1x(match)
        if not self.reason:
            self.stages += ["colour"] * match.by_colour
            stages = list(dict.fromkeys(self.stages))
            return located(self.started, best, runner, 1.0, self.offset, stages, True, "")
        if best.score >= P.sure:  # the recorded pixels, ambiguous: so at any other scale too
            return located(
                self.started, best, runner, 1.0, self.offset, self.stages, False, self.reason
            )
        return None

    def doubt(self, match: Match) -> str:
        """Why `match` is not to be trusted (doubts.py), or ""."""
        return doubt(
            match,
            self.seen,
            self.recording,
            self.threshold,
            self.margin,
            self.stages,
            unique=self.unique,
        )

    def _scaled_at_1x(self, match: Match) -> str:
        """Why a 1x match that is not the recorded pixels is a scene drawn at another scale
        (a DPI or font change that still fits at 1x, a few pixels off), or ""."""
        best = match.best
        if best.score >= P.sure:
            return ""
        fitted, fit_scale = best_scale_near(self.seen.gray, self.tmpl, best, 1.0, P.near_scales)
        if fitted.score > best.score + P.scale_lead:
            return f"the match fits better at {fit_scale:g}x ({fitted.score:.3f})"
        # Or its parts say so: spread out further than a 1x scene puts them.
        at_1x = self.parts.verify(self.seen.gray, add((best.x, best.y), self.offset), 1.0)
        if at_1x.point is not None and abs(at_1x.scale - 1.0) > P.parts_spread:
            return f"its parts fit at {at_1x.scale:.2f}x"
        return ""


def _exact_near(
    screen: Image, tmpl: Image, place: Point, threshold: float, margin: float
) -> tuple[list[Hit], tuple[Hit, Hit] | None]:
    """The matches within P.window px of `place` (a top-left), and the best and the runner-up
    when the best is exact and clearly alone there."""
    hits = search_region(screen, tmpl, place, pad=P.window, others=1)
    if hits:
        best, runner = rank(hits, tmpl.shape)
        if best.score >= P.sure and accepted(best, runner, threshold, margin):
            return hits, (best, runner)
    return hits, None


def hints_after(point: Point, scale: float, recorded: Point) -> tuple[float, Point]:
    """The `scale_hint` and `shift_hint` for the next locate() on the same screen, once a
    target recorded at `recorded` was found at `point` at `scale`: one screen has one scale,
    and a moved window moves every target alike (a shift is only told at 1x)."""
    return scale, sub(point, recorded) if scale == 1.0 else (0, 0)


def _factors(w: int, h: int) -> tuple[int, ...]:
    """Coarse scans for locate(), cheapest first: a quarter-resolution scan costs a fifth of
    a half-resolution one and finds most crops from 24 px up; the finer scan runs only when
    it did not find an exact match."""
    return (4, 2) if 24 <= min(w, h) < 64 else (coarse_factor(w, h),)

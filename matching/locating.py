"""The pixel rungs at 1x: the anchor near its recorded place moved as the last target moved
(shifted), near its recorded place (window), then anywhere on the screen (coarse); and the
working state that they and the rungs at other scales (other_scales.py) share, `Search`.

A match that is not exact must also agree with the screen the anchor was recorded on
(doubts.py, checks.py); at other scales, places are judged part by part (parts.py,
deciding.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .checks import Match
from .doubts import doubt
from .located import Located, located, refused
from .params import PARAMS as P
from .parts import Parts
from .query import Hints, Query
from .ranking import accepted, rank, refusal_of, settle
from .recording import Recording
from .refusal import AT_MOST, RULES, Refusal
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
from .trail import FOUND, NEXT, REFUSED, Trail

__all__ = ["Search", "coarse", "fit_anchor", "shifted", "unsettled", "window"]

assert RULES["anchor-larger"][1] == AT_MOST


@dataclass
class Search:
    """The pixel rungs' working state, for one look of an anchor on one screen: what the
    rungs before found (the matches near the recorded place, the best and the runner-up at
    1x, and why 1x did not settle it), and the recorded neighbourhood's parts, cut once."""

    screen: Image  # today's, as grabbed
    query: Query
    hints: Hints
    anchor_img: Image
    tmpl: Image
    recording: Recording
    trail: Trail
    near: list[Hit] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    best: Hit = NOWHERE
    runner: Hit = NOWHERE
    doubted: Refusal | None = None  # why the best match at 1x is not trusted
    _seen: Screen | None = None
    _parts: Parts | None = None
    _wide: Parts | None = None

    @classmethod
    def of(cls, screen: Image, query: Query, hints: Hints, trail: Trail) -> Search:
        assert query.anchor is not None, "the pixel rungs want an anchor"
        tmpl = grayscale(query.anchor)
        guess = None if query.recorded is None else sub(query.recorded, query.offset)
        recording = Recording(query.context, guess, tmpl.shape, query.offset)
        return cls(screen, query, hints, query.anchor, tmpl, recording, trail)

    @property
    def seen(self) -> Screen:
        """Today's screen made ready for searching, once, when a rung past the window needs
        it (the rungs near the recorded place search only there)."""
        if self._seen is None:
            self._seen = Screen.of(self.screen)
        return self._seen

    @property
    def offset(self) -> Point:
        return self.query.offset

    @property
    def guess(self) -> Point | None:
        """Where the anchor's top-left was on the recorded screen."""
        return self.recording.guess

    @property
    def parts(self) -> Parts:
        """The parts of the recorded neighbourhood, cut once, when a check needs them."""
        if self._parts is None:
            self._parts = self.recording.parts(self.tmpl)
        return self._parts

    @property
    def wide(self) -> Parts:
        """The parts of the wide recorded neighbourhood, cut once."""
        if self._wide is None:
            self._wide = self.recording.parts(self.tmpl, wide=True)
        return self._wide

    def doubt(self, match: Match) -> Refusal | None:
        """Why `match` is not to be trusted (doubts.py), or None."""
        q = self.query
        return doubt(
            match, self.seen, self.recording, q.threshold, q.margin, self.trail, unique=q.unique
        )


def fit_anchor(search: Search) -> Located | None:
    """Rung "anchor": refused when the anchor cannot be matched at all (larger than the
    screen, or a flat image); else next."""
    (th, tw), (h, w) = search.tmpl.shape, search.screen.shape[:2]
    refusal = None
    if th > h or tw > w:
        refusal = Refusal("anchor-larger", round(max(th / h, tw / w), 4), 1.0)
    elif (spread := float(search.tmpl.std())) < P.flat:
        refusal = Refusal("anchor-flat", round(spread, 4), P.flat)
    if refusal is None:
        return None
    search.trail.add("anchor", REFUSED, refusal)
    return refused(refusal)


def shifted(search: Search) -> Located | None:
    """Rung "shifted": an anchor that was unique on its screen, matched exactly and alone
    within P.window px of its recorded place moved by the hint's shift (a moved window moves
    every target alike): found; else next."""
    q, shift = search.query, search.hints.shift
    if search.guess is None or not q.unique or shift == (0, 0):
        return None
    _, settled = _exact_near(search, add(search.guess, shift))
    return _settled("shifted", search, settled)


def window(search: Search) -> Located | None:
    """Rung "window": the matches within P.window px of the recorded place, kept for the
    rungs after it; found when the anchor was unique on its screen and matches exactly and
    alone there; else next."""
    if search.guess is None:
        return None
    search.near, settled = _exact_near(search, search.guess)
    if not search.near:
        return None
    return _settled("window", search, settled if search.query.unique else None)


def _settled(name: str, search: Search, settled: tuple[Hit, Hit] | None) -> Located | None:
    if settled is None:
        search.trail.add(name, NEXT)
        return None
    search.trail.add(name, FOUND, score=round(settled[0].score, 4))
    return located(*settled, 1.0, search.offset)


def coarse(search: Search) -> Located | None:
    """Rung "coarse": the whole screen at reduced resolution, the likeliest places verified
    at full resolution. Found when the best match is trusted (doubts.py) and is not a scene
    drawn at another scale; refused where the recorded pixels are there but ambiguous (so
    at any other scale too); else next, with why (`search.doubted`)."""
    at = search.trail.open("coarse")
    seen, tmpl, q = search.seen, search.tmpl, search.query
    hits, by_colour = search.near, False
    for factor in _factors(tmpl.shape[1], tmpl.shape[0]):
        hits = hits + list(scan(seen, tmpl, factor=factor))
        if hits:
            search.best, search.runner, by_colour = settle(
                seen, search.anchor_img, hits, threshold=q.threshold, margin=q.margin
            )
        if search.best.score >= P.sure:
            break
    search.hits = hits
    best, runner = search.best, search.runner
    if best is NOWHERE:
        refusal = Refusal("nowhere", 0, 1)
        search.trail.close(at, REFUSED, refusal)
        return refused(refusal)
    match = Match(best, runner, 1.0, by_colour)
    search.doubted = search.doubt(match) or _scaled_at_1x(search, match)
    score = round(best.score, 4)
    if search.doubted is None:
        if match.by_colour:
            search.trail.add("colour", FOUND)
        search.trail.close(at, FOUND, score=score)
        return located(best, runner, 1.0, search.offset)
    if best.score >= P.sure:  # the recorded pixels, ambiguous: so at any other scale too
        search.trail.close(at, REFUSED, search.doubted, score=score)
        return located(best, runner, 1.0, search.offset, search.doubted)
    search.trail.close(at, NEXT, search.doubted, score=score)
    return None


def unsettled(search: Search) -> Located:
    """Refused at 1x, where the rungs at 1x went on and no other scale is looked at: the
    best match there, and why 1x did not settle it (`search.doubted`)."""
    q = search.query
    why = search.doubted or refusal_of(
        search.best, search.runner, q.threshold, q.margin, search.offset
    )
    return located(search.best, search.runner, 1.0, search.offset, why)


def _scaled_at_1x(search: Search, match: Match) -> Refusal | None:
    """Why a 1x match that is not the recorded pixels is a scene drawn at another scale
    (a DPI or font change that still fits at 1x, a few pixels off), or None."""
    best = match.best
    if best.score >= P.sure:
        return None
    fitted, _ = best_scale_near(search.seen.gray, search.tmpl, best, 1.0, P.near_scales)
    lead = fitted.score - best.score
    if lead > P.scale_lead:
        return Refusal("other-scale", round(lead, 4), P.scale_lead)
    # Or its parts say so: spread out further than a 1x scene puts them.
    at_1x = search.parts.verify(search.seen.gray, add((best.x, best.y), search.offset), 1.0)
    off = abs(at_1x.scale - 1.0)
    if at_1x.point is not None and off > P.parts_spread:
        return Refusal("parts-scaled", round(off, 4), P.parts_spread, at_1x.point)
    return None


def _exact_near(search: Search, place: Point) -> tuple[list[Hit], tuple[Hit, Hit] | None]:
    """The matches within P.window px of `place` (a top-left), and the best and the runner-up
    when the best is exact and clearly alone there."""
    tmpl, q = search.tmpl, search.query
    hits = search_region(search.screen, tmpl, place, pad=P.window, others=1)
    if hits:
        best, runner = rank(hits, tmpl.shape)
        if best.score >= P.sure and accepted(best, runner, q.threshold, q.margin):
            return hits, (best, runner)
    return hits, None


def _factors(w: int, h: int) -> tuple[int, ...]:
    """Coarse scans for locate(), cheapest first: a quarter-resolution scan costs a fifth of
    a half-resolution one and finds most crops from 24 px up; the finer scan runs only when
    it did not find an exact match."""
    return (4, 2) if 24 <= min(w, h) < 64 else (coarse_factor(w, h),)

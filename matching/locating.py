"""Locating an anchor on a screen: near its recorded place, then anywhere, then at other scales.

A match that is not exact must also agree with the screen the anchor was recorded on; at
other scales, places are judged part by part (parts.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any

from .defaults import DEFAULT_MARGIN, DEFAULT_THRESHOLD
from .parts import _PIN_REACH, _PIN_SPREAD, Parts, Verdict, apart, decide
from .search import (
    _NOWHERE,
    _SAME_PLACE,
    Box,
    Image,
    Point,
    _add,
    _colour_score,
    _each,
    _factor,
    _gray,
    _Hit,
    _near,
    _probe,
    _radius,
    _scan,
    _Screen,
    _search_region,
    _sub,
)

__all__ = ["Located", "Recorded", "hints_after", "locate"]


_WINDOW = 64  # pixels around the recorded place that locate() searches first
# 0.8x to 1.25x in steps of ~8%, finer steps only around the best of them; 1.0 is left out
# because locate() tries it first.
_DEFAULT_SCALES = (0.8, 0.86, 0.93, 1.08, 1.16, 1.25)
_FINE_STEPS = (-0.04, -0.03, -0.02, -0.01, 0.01, 0.02, 0.03, 0.04)
_FLAT = 1.0  # grayscale std below which an image has no pattern to correlate
_SURE = 0.97  # a match this good is the recorded pixels, not merely similar ones
_CONTEXT = (128, 72)  # least size of the wider crop that checks a doubtful match
_CONTEXT_FLOOR = 0.3  # least context score of a doubtful match
_CONTEXT_PAD = 3  # px the context may sit off where the anchor puts it (uneven scaling)
_INNER = 32  # px: the square around the target that must match on its own
_INNER_FLOOR = 0.5  # least score of that square in a match that is not exact
_FLAT_INNER = 4.0  # grayscale std below which that square has nothing to compare
# Scales tried at the place of a 1x match that is not exact, and by how much one of them
# must fit better to send locate() looking at other scales.
_NEAR_STEPS = (-0.1, -0.06, -0.03, 0.03, 0.06, 0.1)
_SCALE_LEAD = 0.01
# A place at another scale, or changed around the target, is decided by its parts: this
# share of them must fit there, this much more than at any other place.
_PARTS_SCORE = 0.55
_ALONE_SCORE = 0.75  # the same, for parts cut from the anchor alone (no recorded screen)
_PARTS_MARGIN = 0.1
_PER_SCALE = 3  # the best places at each scale that the parts judge
# The parts judge only places where the whole crop scores within _WORTH of its best place:
# a place it fits that much worse is not where it is (judging one costs a few ms), and the
# look back still weighs the recorded screen's look-alikes.
_WORTH = 0.2
_HINT_STEPS = (-0.02, -0.01, 0.01, 0.02)  # around the scale that earlier steps found
_CANDIDATES = 8  # places judged at most
_PARTS_SPREAD = 0.02  # how far from 1 the parts of a 1x match may put the scale
# When the parts of the neighbourhood cannot decide (and fit somewhere at least _WIDE_FROM),
# those of one at least _WIDE px (at most _WIDE_MOST of them) judge the _WIDE_PLACES
# likeliest places.
_WIDE_FROM = 0.3
_WIDE = (640, 480)
_WIDE_MOST = 128
_WIDE_PLACES = 4


@dataclass(frozen=True, slots=True)
class Located:
    """Where an anchor was found on a screen, or why it was not."""

    found: bool
    point: Point | None  # the target on this screen; None unless found
    score: float  # of the best match: grayscale, or colour when colour broke a tie
    margin: float  # best minus the runner-up outside the best's neighbourhood
    scale: float
    top_left: Point | None  # of the best match, found or not
    searched: str  # stages that looked for the best match, e.g. "window+coarse+scales"
    best_elsewhere: Point | None  # the target point the runner-up would give
    elapsed_ms: float
    reason: str = ""  # why found is False, in words for the replay report


def locate(
    screen: Image,
    anchor_img: Image,
    offset: Point,
    *,
    expected: Point | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    margin: float = DEFAULT_MARGIN,
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
    tmpl = _gray(anchor_img)
    if tmpl.shape[0] > screen.shape[0] or tmpl.shape[1] > screen.shape[1]:
        return _refused(started, "the anchor is larger than the screen")
    if float(tmpl.std()) < _FLAT:
        return _refused(started, "the anchor is a flat image: nothing to match")
    guess = None if expected is None else _sub(expected, offset)
    if guess is not None and unique and shift_hint != (0, 0):
        _, settled = _exact_near(screen, tmpl, _add(guess, shift_hint), threshold, margin)
        if settled:
            return _located(started, *settled, 1.0, offset, ["shifted"], True, "")
    near: list[_Hit] = []
    if guess is not None:
        near, settled = _exact_near(screen, tmpl, guess, threshold, margin)
        if unique and settled:
            return _located(started, *settled, 1.0, offset, ["window"], True, "")
    seen = _Screen.of(screen)
    stages = ["window"] * bool(near) + ["coarse"]
    hits = near
    best, runner, by_colour = _NOWHERE, _NOWHERE, False
    for factor in _factors(tmpl.shape[1], tmpl.shape[0]):
        hits = hits + list(_scan(seen, tmpl, factor=factor))
        if hits:
            best, runner, by_colour = _settle(
                seen, anchor_img, hits, threshold=threshold, margin=margin
            )
        if best.score >= _SURE:
            break
    if best is _NOWHERE:
        return _refused(started, "nowhere on the screen to compare with", "+".join(stages))
    if context is not None and not isinstance(context, Recorded):
        context = Recorded(context)
    recording = _Recording(context, guess, tmpl.shape, offset)
    parts: Parts | None = None  # cut once, when a check or the scale search needs them
    match = _Match(best, runner, 1.0, by_colour)
    reason = match.doubt(seen, recording, threshold, margin, stages)
    if not reason and best.score < _SURE:
        # Not the recorded pixels. A scene drawn at another scale (a DPI or font change) can
        # still fit at 1x, a few pixels off: see whether another scale fits better here.
        fitted, fit_scale = _fit_scale(seen.gray, tmpl, best, 1.0, _NEAR_STEPS)
        if fitted.score > best.score + _SCALE_LEAD:
            reason = f"the match fits better at {fit_scale:g}x ({fitted.score:.3f})"
        else:
            # Or its parts say so: spread out further than a 1x scene puts them.
            parts = recording.parts(tmpl)
            judged = parts.verify(seen.gray, _add((best.x, best.y), offset), 1.0)
            if judged.point is not None and abs(judged.scale - 1.0) > _PARTS_SPREAD:
                reason = f"its parts fit at {judged.scale:.2f}x"
    if not reason:
        shift = _scaled(offset, tmpl.shape, match.scale)
        stages += ["colour"] * match.by_colour
        return _located(
            started,
            match.best,
            match.runner,
            match.scale,
            shift,
            list(dict.fromkeys(stages)),
            True,
            "",
        )
    if best.score >= _SURE:  # the recorded pixels, ambiguous: so at any other scale too
        return _located(started, best, runner, 1.0, offset, stages, False, reason)
    # Drawn at another scale (a DPI or font-size change), or changed around the target: the
    # likeliest places at each scale (the one earlier steps found first: one screen has one
    # scale), judged part by part; and the whole crop at the scale it fits best, as at 1x,
    # when its parts fit there too.
    parts = parts or recording.parts(tmpl)
    # Parts cut from the anchor alone are fewer and smaller: they must fit better.
    need = _PARTS_SCORE if recording.screen is not None else _ALONE_SCORE
    candidates = [
        (hit.score, _add((hit.x, hit.y), offset), 1.0)
        for hit in sorted(hits, reverse=True)[:_PER_SCALE]
    ]
    searches = [("hint", (scale_hint,), _HINT_STEPS)] if scale_hint != 1.0 else []
    searches.append(("scales", _DEFAULT_SCALES, _FINE_STEPS))
    outcome, judged, wide, widened = None, {}, None, False  # type: ignore[var-annotated]
    for stage, scales, steps in searches:
        stages.append(stage)
        s_scale, s_hits, scanned = _search_scales(seen, tmpl, scales, steps)
        candidates += [
            (hit.score, _add((hit.x, hit.y), _scaled(offset, tmpl.shape, scale)), scale)
            for scale, found in scanned.items()
            for hit in found[:_PER_SCALE]
        ]
        verdict, other = decide(
            parts,
            seen.gray,
            _distinct(candidates, within=_WORTH),
            judged,
            known=scale_hint if scale_hint != 1.0 else None,
        )
        outcome = (
            _by_parts(started, verdict, other, offset, tmpl.shape, stages + ["parts"], reason, need)
            if verdict.point is not None
            else _located(
                started,
                best,
                runner,
                1.0,
                offset,
                stages,
                False,
                f"{reason}; at other scales: no place where its parts fit",
            )
        )
        if not outcome.found and verdict.score >= _WIDE_FROM and recording.screen is not None:
            # The neighbourhood could not decide (a look-alike beside it, or a target in a
            # flat stretch far from every part): a wider one judges the likeliest places.
            stages.append("wide")
            wide = wide or recording.parts(tmpl, wide=True)
            known = scale_hint if scale_hint != 1.0 else None
            verdict, other = decide(wide, seen.gray, _likeliest(judged, candidates), {}, known)
            if verdict.point is not None:
                decided = _by_parts(
                    started, verdict, other, offset, tmpl.shape, stages, reason, need
                )
                outcome, widened = (decided, True) if decided.found else (outcome, False)
        if outcome.found:
            break
        if s_hits:
            sized = _resized(anchor_img, s_scale)
            s_best, s_runner, s_colour = _settle(
                seen, sized, s_hits, threshold=threshold, margin=margin
            )
            scaled = _Match(s_best, s_runner, s_scale, s_colour)
            if not scaled.doubt(seen, recording, threshold, margin, stages):
                shift = _scaled(offset, tmpl.shape, s_scale)
                confirmed = parts.verify(seen.gray, _add((s_best.x, s_best.y), shift), s_scale)
                stages += ["colour"] * s_colour
                if confirmed.point is not None and confirmed.score >= need and confirmed.pinned:
                    # Found whole; where the target is inside it, its parts say best. It is
                    # looked back at with parts too, below.
                    outcome = replace(
                        _located(started, s_best, s_runner, s_scale, shift, stages, True, ""),
                        point=confirmed.point,
                    )
                    break
    assert outcome is not None
    stages.append("parts")
    if outcome.found and outcome.top_left is not None:
        # The parts agree; the pixels around the target and the look back must too.
        hit = _Hit(outcome.score, *outcome.top_left)
        match = _Match(hit, _NOWHERE, outcome.scale, False)
        doubt = (
            _doubt_unscaled(outcome, reason)
            or match.doubt_inner(seen, recording)
            or _doubt_back_by_parts(seen, recording, match, outcome, stages, widened)
        )
        if doubt:
            outcome = replace(outcome, found=False, point=None, reason=doubt)
    return replace(outcome, searched="+".join(dict.fromkeys(stages)), elapsed_ms=_since(started))


def _exact_near(
    screen: Image, tmpl: Image, place: Point, threshold: float, margin: float
) -> tuple[list[_Hit], tuple[_Hit, _Hit] | None]:
    """The matches within _WINDOW px of `place` (a top-left), and the best and the runner-up
    when the best is exact and clearly alone there."""
    hits = _search_region(screen, tmpl, place, pad=_WINDOW, others=1)
    if hits:
        best, runner = _rank(hits, tmpl.shape)
        if best.score >= _SURE and _accepted(best, runner, threshold, margin):
            return hits, (best, runner)
    return hits, None


def hints_after(point: Point, scale: float, recorded: Point) -> tuple[float, Point]:
    """The `scale_hint` and `shift_hint` for the next locate() on the same screen, once a
    target recorded at `recorded` was found at `point` at `scale`: one screen has one scale,
    and a moved window moves every target alike (a shift is only told at 1x)."""
    return scale, _sub(point, recorded) if scale == 1.0 else (0, 0)


def _doubt_unscaled(found: Located, refused: str) -> str:
    """Why a place found at about 1x (within _PARTS_SPREAD of it) is not the target: `refused`,
    the reason the search at 1x gave. Nothing there is scaled, so the 1x verdict stands: a
    button renamed in place fits every part but its label's, and a crop that was ambiguous at
    1x does not become sure by fitting a hair better at 1.004x."""
    if abs(found.scale - 1.0) > _PARTS_SPREAD:
        return ""
    return f"found only at {found.scale:g}x, that is unscaled, where {refused}"


def _unpinned(verdict: Verdict) -> str:
    why = (
        "no part places the target along both axes"
        if verdict.reach == float("inf")
        else f"the nearest part placing the target is {verdict.reach:.0f} px from it "
        f"({_PIN_REACH} px at most), and the parts place it to within "
        f"{verdict.spread:.1f} px ({_PIN_SPREAD} px needed)"
    )
    if verdict.unspanned:
        why += ", and the flat stretch it was in is not found there"
    return why


def _distinct(
    candidates: list[tuple[float, Point, float]], *, within: float = math.inf
) -> list[tuple[float, Point, float]]:
    """The likeliest candidates, one per place, at most _CANDIDATES; only those scoring
    `within` of the best."""
    kept: list[tuple[float, Point, float]] = []
    ranked = sorted(candidates, reverse=True)
    floor = ranked[0][0] - within if ranked else 0.0
    for candidate in (c for c in ranked if c[0] >= floor):
        if all(
            max(abs(candidate[1][0] - k[1][0]), abs(candidate[1][1] - k[1][1])) > _SAME_PLACE
            for k in kept
        ):
            kept.append(candidate)
            if len(kept) == _CANDIDATES:
                break
    return kept


def _likeliest(
    judged: dict[tuple[Point, float], Verdict], candidates: list[tuple[float, Point, float]]
) -> list[tuple[float, Point, float]]:
    """The places the parts put targets at, best first, then the candidates not near them:
    _WIDE_PLACES at most."""
    placed = [
        (1 + v.score, v.point, round(v.scale, 3)) for v in judged.values() if v.point is not None
    ]  # ahead of every whole-crop score
    return _distinct(placed + candidates)[:_WIDE_PLACES]


def _by_parts(
    started: float,
    verdict: Verdict,
    other: Verdict,
    offset: Point,
    shape: tuple[int, ...],
    stages: list[str],
    reason: str,
    need: float,
) -> Located:
    """The outcome that the parts decided: found when enough of them fit, clearly better
    than anywhere else; otherwise refused with both the whole crop's and the parts' reasons."""
    lead = verdict.score - other.score
    found = verdict.score >= need and lead >= _PARTS_MARGIN and verdict.pinned
    point = verdict.point
    assert point is not None
    why = (
        f"the parts fit best at {point} ({verdict.score:.2f} of them at "
        f"{verdict.scale:.2f}x, {need:.2f} needed)"
    )
    if other.point is not None:
        why += f", {lead:.2f} ahead of {other.point} ({_PARTS_MARGIN:.2f} needed)"
    if not verdict.pinned:
        why += f", but {_unpinned(verdict)}"
    scale = round(verdict.scale, 3)
    top_left = _sub(point, _scaled(offset, shape, scale))
    return Located(
        found=found,
        point=point if found else None,
        score=round(verdict.score, 4),
        margin=round(lead, 4),
        scale=scale,
        top_left=top_left,
        searched="+".join(dict.fromkeys(stages)),
        best_elsewhere=other.point,
        elapsed_ms=_since(started),
        reason="" if found else f"{reason}; at other scales: {why}",
    )


class Recorded:
    """The screen anchors were cut from, for locate()'s checks of a match that is not exact:
    fetched (`frame` may be a function that returns it) and made grayscale on first use, once
    however many locate() calls share it (the retries of one step)."""

    def __init__(self, frame: Image | Callable[[], Image | None]) -> None:
        self._frame: Image | Callable[[], Image | None] | None = frame  # None once fetched
        self._screen: _Screen | None = None

    @property
    def screen(self) -> _Screen | None:
        if self._frame is not None:
            frame, self._frame = self._frame, None
            frame = frame() if callable(frame) else frame
            if frame is not None:
                self._screen = _Screen.of(frame)
        return self._screen


@dataclass(frozen=True, slots=True)
class _Recording:
    """Where the anchor was cut from the recorded screen (when there is one to check with)."""

    recorded: Recorded | None
    guess: Point | None  # where the anchor's top-left was on it
    shape: tuple[int, ...]  # of the anchor, grayscale
    offset: Point

    @property
    def screen(self) -> _Screen | None:
        return None if self.recorded is None or self.guess is None else self.recorded.screen

    def parts(self, tmpl: Image, *, wide: bool = False) -> Parts:
        """The parts of the recorded screen around the anchor (`wide`: of the wide
        neighbourhood), or of the anchor alone."""
        screen, hood = self.screen, _wide_hood(1.0) if wide else {}
        if screen is None or self.guess is None:
            return Parts.of(tmpl, (0, 0, tmpl.shape[1], tmpl.shape[0]), self.offset, **hood)
        # (a stretch is only known on a screen: the anchor alone cuts it at its edges)
        return Parts.of(
            screen.gray,
            (*self.guess, tmpl.shape[1], tmpl.shape[0]),
            _add(self.guess, self.offset),
            spans=True,
            **hood,
        )


def _wide_hood(scale: float) -> dict[str, Any]:
    """Parts.of's size arguments for the wide neighbourhood, on a screen at `scale`."""
    return {"least": (round(_WIDE[0] * scale), round(_WIDE[1] * scale)), "most": _WIDE_MOST}


@dataclass(frozen=True, slots=True)
class _Match:
    best: _Hit
    runner: _Hit
    scale: float
    by_colour: bool

    def doubt(
        self,
        seen: _Screen,
        recording: _Recording,
        threshold: float,
        margin: float,
        stages: list[str],
    ) -> str:
        """Why this match is not to be trusted, or "" when it is."""
        best, runner = self.best, self.runner
        shift = _scaled(recording.offset, recording.shape, self.scale)
        if not _accepted(best, runner, threshold, margin):
            return _why(best, runner, threshold, margin, shift)
        if (best.score >= _SURE and self.scale == 1.0) or recording.screen is None:
            return ""
        # Not the recorded pixels: something changed (a scale, a neighbour). Three checks
        # against the recording, each of which a look-alike fails.
        assert recording.guess is not None
        # The wider crop of the recording must fit here, no worse than at the runner-up, and
        # the two leads together must make up twice the margin.
        th, tw = recording.shape
        around = _Context.of(recording.screen.gray, (*recording.guess, tw, th), recording.offset)
        places = [_add((hit.x, hit.y), shift) for hit in (best, runner) if hit.x >= 0]
        here, there = (*around.scores(seen, places, self.scale), 0.0)[:2]
        stages.append("context")
        lead = here - max(there, 0.0)  # how much better the context fits here
        if here < _CONTEXT_FLOOR or lead < 0 or best.score - runner.score + lead < 2 * margin:
            return (
                f"doubtful: the match scores {best.score:.3f} but the wider context of "
                f"the recording scores {here:.3f} there and {there:.3f} at the "
                f"runner-up {_add((runner.x, runner.y), shift)}"
            )
        return self.doubt_inner(seen, recording) or self.doubt_back(seen, recording, stages)

    def doubt_inner(self, seen: _Screen, recording: _Recording) -> str:
        """Why the pixels right around the target are not the recorded target's, or ""."""
        # A big crop can match on its frame and borders alone: the pixels right around the
        # target must fit too, where they have something to fit.
        inner = _inner_score(seen, recording, self)
        if inner is not None and inner < _INNER_FLOOR:
            return (
                f"doubtful: the match scores {self.best.score:.3f} but the {_INNER} px "
                f"around the target score {inner:.3f} there"
            )
        return ""

    def doubt_back(self, seen: _Screen, recording: _Recording, stages: list[str]) -> str:
        """Why what was found looks more like something else on the recorded screen than
        like the target, or ""."""
        best = self.best
        if recording.screen is None or recording.guess is None:
            return ""
        th, tw = recording.shape
        # What was found, looked for on the recording, must be the target itself rather
        # than something else there that it resembles more (a look-alike button that the
        # recorder's margin had only just told apart).
        stages.append("back")
        own, other = _back_match(seen, recording.screen, self, recording.guess, (tw, th))
        if other.score > own.score:
            where = _add((other.x, other.y), recording.offset)
            return (
                f"doubtful: the match scores {best.score:.3f} but looks more like "
                f"{where} on the recorded screen ({other.score:.3f}) than like the "
                f"recorded target ({own.score:.3f})"
            )
        return ""


def _doubt_back_by_parts(
    seen: _Screen,
    recording: _Recording,
    match: _Match,
    found: Located,
    stages: list[str],
    wide: bool,
) -> str:
    """The look back of a place the parts chose, done with parts too: the parts of what was
    found, brought back to the recorded scale, must fit the recorded target's place better
    than the places on the recorded screen that the crop found there resembles most. (The
    crop brought back whole does not fit its own place well when text and widgets scaled
    differently.)"""
    screen = recording.screen
    if screen is None or recording.guess is None or found.point is None:
        return ""
    import cv2

    stages.append("back")
    (th, tw), (x, y), scale = recording.shape, found.top_left or (0, 0), match.scale
    sw, sh = max(1, round(tw * scale)), max(1, round(th * scale))
    # As wide as the neighbourhood that decided the place.
    today = Parts.of(seen.gray, (x, y, sw, sh), found.point, **(_wide_hood(scale) if wide else {}))
    back = 1 / scale
    recorded_target = _add(recording.guess, recording.offset)
    patch = seen.gray[y : y + sh, x : x + sw]
    if patch.shape != (sh, sw):
        return ""  # runs off the screen: the parts' own verdict stands
    if (sw, sh) != (tw, th):
        patch = cv2.resize(
            patch, (tw, th), interpolation=cv2.INTER_AREA if scale > 1 else cv2.INTER_LINEAR
        )
    zone = (recording.guess, _radius(tw, th))
    likeliest = sorted(
        (
            hit
            for hit in islice(_scan(screen, patch, keep_out=zone), 2 * _PER_SCALE)
            if not _near(hit, *zone)
        ),
        reverse=True,
    )[:_PER_SCALE]
    places = [_add((hit.x, hit.y), recording.offset) for hit in likeliest]
    own, *others = _each(
        lambda place: today.verify(screen.gray, place, back), [recorded_target, *places]
    )
    for there, other in zip(places, others):
        # (parts that fit best back at the recorded target itself are no other place)
        if other.score > own.score and apart(other, recorded_target):
            return (
                f"doubtful: the parts fit {found.score:.2f} but what was found looks more "
                f"like {there} on the recorded screen ({other.score:.2f} of its parts) "
                f"than like the recorded target ({own.score:.2f})"
            )
    return ""


def _inner_score(seen: _Screen, recording: _Recording, match: _Match) -> float | None:
    """How well the recorded pixels right around the target fit where `match` puts them;
    None when the anchor is no bigger than that or they are flat (nothing to compare)."""
    th, tw = recording.shape
    w, h = min(_INNER, tw), min(_INNER, th)
    if (w, h) == (tw, th) or recording.screen is None or recording.guess is None:
        return None
    (ox, oy), (gx, gy) = recording.offset, recording.guess
    x0 = min(max(0, ox - w // 2), tw - w)
    y0 = min(max(0, oy - h // 2), th - h)
    inner = recording.screen.gray[gy + y0 : gy + y0 + h, gx + x0 : gx + x0 + w]
    if float(inner.std()) < _FLAT_INNER:
        return None
    at = _add((match.best.x, match.best.y), _scaled((x0, y0), recording.shape, match.scale))
    hit = _probe(seen.gray, _resized(inner, match.scale), at, pad=_CONTEXT_PAD)
    return 0.0 if hit is None else hit.score


def _back_match(
    seen: _Screen, recorded: _Screen, match: _Match, guess: Point, size: tuple[int, int]
) -> tuple[_Hit, _Hit]:
    """The pixels of `match`, brought back to the anchor's size: how well they fit where the
    anchor was cut (top-left `guess`) on the recorded screen, and the best fit elsewhere."""
    import cv2

    (tw, th), (x, y) = size, (match.best.x, match.best.y)
    sw, sh = max(1, round(tw * match.scale)), max(1, round(th * match.scale))
    patch = seen.gray[y : y + sh, x : x + sw]
    if (sw, sh) != (tw, th):
        patch = cv2.resize(
            patch, (tw, th), interpolation=cv2.INTER_AREA if match.scale > 1 else cv2.INTER_LINEAR
        )
    own = _probe(recorded.gray, patch, guess, pad=2) or _NOWHERE
    zone = (guess, _radius(tw, th))
    elsewhere = (hit for hit in _scan(recorded, patch, keep_out=zone) if not _near(hit, *zone))
    return own, max(elsewhere, default=_NOWHERE)


def _settle(
    screen: _Screen, sized: Image, hits: list[_Hit], *, threshold: float, margin: float
) -> tuple[_Hit, _Hit, bool]:
    """The best candidate, the runner-up elsewhere, and whether colour had to decide."""
    best, _ = _rank(hits, sized.shape)
    # The coarse search samples a long ridge of equal scores (a plain panel, a field wider
    # than it was) sparsely: look around the winner exactly before trusting its position.
    zone = ((best.x, best.y), _radius(sized.shape[1], sized.shape[0]))
    hits = hits + _search_region(
        screen.gray, _gray(sized), (best.x, best.y), pad=2 * _SAME_PLACE, keep_out=zone
    )
    best, runner = _rank(hits, sized.shape)
    if best.score < threshold or _accepted(best, runner, threshold, margin) or sized.ndim != 3:
        return best, runner, False
    colour = _each(
        lambda hit: _Hit(_colour_score(screen.rgb, sized, (hit.x, hit.y)), hit.x, hit.y), hits
    )
    c_best, c_runner = _rank(colour, sized.shape)
    if c_best.score - c_runner.score >= margin and _score_at(hits, c_best) >= threshold:
        return c_best, c_runner, True
    return best, runner, False


@dataclass(frozen=True, slots=True)
class _Context:
    """A wider crop of the recorded screen around an anchor, to check a doubtful match."""

    gray: Image
    target: Point  # the recorded target inside `gray`

    @classmethod
    def of(cls, gray: Image, box: Box, offset: Point) -> _Context:
        x, y, w, h = box
        height, width = gray.shape
        cw, ch = max(2 * w, _CONTEXT[0]), max(2 * h, _CONTEXT[1])
        x0 = min(max(0, x + w // 2 - cw // 2), max(0, width - cw))
        y0 = min(max(0, y + h // 2 - ch // 2), max(0, height - ch))
        return cls(gray[y0 : y0 + ch, x0 : x0 + cw], (x + offset[0] - x0, y + offset[1] - y0))

    def scores(self, screen: _Screen, targets: list[Point], scale: float) -> list[float]:
        """How well the context matches with the target at each of `targets`, at `scale`."""
        sized = _resized(self.gray, scale)
        own = _scaled(self.target, self.gray.shape, scale)
        corners = [_sub(t, own) for t in targets]
        # Only the part that lands on the screen at every place, the same part for all so
        # that their scores compare: a target near an edge of a screen scaled up pushes the
        # rest of its context off it.
        (h, w), (height, width), pad = sized.shape, screen.gray.shape, _CONTEXT_PAD
        left = max([0] + [pad - x for x, _ in corners])
        top = max([0] + [pad - y for _, y in corners])
        right = max([0] + [x + w + pad - width for x, _ in corners])
        bottom = max([0] + [y + h + pad - height for _, y in corners])
        part = sized[top : h - bottom, left : w - right]
        if part.size * 2 < sized.size:  # mostly off the screen: no evidence either way
            return [0.0] * len(targets)
        hits = (_probe(screen.gray, part, (x + left, y + top), pad=pad) for x, y in corners)
        return [0.0 if hit is None else hit.score for hit in hits]


def _factors(w: int, h: int) -> tuple[int, ...]:
    """Coarse scans for locate(), cheapest first: a quarter-resolution scan costs a fifth of
    a half-resolution one and finds most crops from 24 px up; the finer scan runs only when
    it did not find an exact match."""
    return (4, 2) if 24 <= min(w, h) < 64 else (_factor(w, h),)


def _search_scales(
    screen: _Screen, tmpl: Image, scales: Sequence[float], steps: Sequence[float]
) -> tuple[float, list[_Hit], dict[float, list[_Hit]]]:
    """The best scale, coarse to fine, and the candidates at that scale, best first; and the
    candidates at each of `scales`, best first."""
    scans = _each(lambda s: sorted(_scan(screen, _resized(tmpl, s)), reverse=True), scales)
    scanned = {s: hits for s, hits in zip(scales, scans) if hits}
    if not scanned:
        return 1.0, [], scanned
    best, coarse = max((hits[0], s) for s, hits in scanned.items())
    best, scale = _fit_scale(screen.gray, tmpl, best, coarse, steps)
    sized = _resized(tmpl, scale)
    # (a full-resolution probe of a big crop costs a few ms: at once, on the pool)
    others = _each(
        lambda hit: _probe(screen.gray, sized, (hit.x, hit.y), pad=2), scanned[coarse][1:]
    )
    return scale, [best, *(hit for hit in others if hit is not None)], scanned


def _fit_scale(
    gray: Image, tmpl: Image, hit: _Hit, scale: float, steps: Sequence[float]
) -> tuple[_Hit, float]:
    """Around `hit`, a match of `tmpl` at `scale`: the scale among `scale` + `steps` that fits
    best, and its match."""
    th, tw = _resized(tmpl, scale).shape
    centre = (hit.x + tw // 2, hit.y + th // 2)

    def fit(s: float) -> tuple[_Hit | None, float]:
        sized = _resized(tmpl, s)
        return _probe(
            gray, sized, _sub(centre, (sized.shape[1] // 2, sized.shape[0] // 2)), pad=3
        ), s

    fits = [(hit, scale)] + [
        (probed, s)
        for probed, s in _each(fit, [round(scale + step, 3) for step in steps])
        if probed is not None
    ]
    best, fitted = max(fits)
    return best, fitted


def _rank(hits: list[_Hit], shape: tuple[int, ...]) -> tuple[_Hit, _Hit]:
    """The best hit, and the best one outside its neighbourhood (_NOWHERE if none)."""
    best = max(hits)
    radius = _radius(shape[1], shape[0])
    others = (hit for hit in hits if not _near(hit, (best.x, best.y), radius))
    return best, max(others, default=_NOWHERE)


def _score_at(hits: list[_Hit], place: _Hit) -> float:
    return max(hit.score for hit in hits if (hit.x, hit.y) == (place.x, place.y))


def _accepted(best: _Hit, runner: _Hit, threshold: float, margin: float) -> bool:
    return best.score >= threshold and best.score - runner.score >= margin


def _why(best: _Hit, runner: _Hit, threshold: float, margin: float, shift: Point) -> str:
    if best.score < threshold:
        return f"no match: the best score {best.score:.3f} is below the threshold {threshold:.2f}"
    return (
        f"ambiguous: a match at {_add((runner.x, runner.y), shift)} scores {runner.score:.3f}, "
        f"within {margin:.2f} of the best ({best.score:.3f})"
    )


def _located(
    started: float,
    best: _Hit,
    runner: _Hit,
    scale: float,
    shift: Point,
    stages: list[str],
    found: bool,
    reason: str,
) -> Located:
    return Located(
        found=found,
        point=_add((best.x, best.y), shift) if found else None,
        score=round(best.score, 4),
        margin=round(best.score - runner.score, 4),
        scale=scale,
        top_left=(best.x, best.y),
        searched="+".join(stages),
        best_elsewhere=_add((runner.x, runner.y), shift) if runner.x >= 0 else None,
        elapsed_ms=_since(started),
        reason="" if found else reason,
    )


def _scaled(offset: Point, shape: tuple[int, ...], scale: float) -> Point:
    """Where the target sits in the anchor resized by `scale` (as _resized rounds it)."""
    h, w = shape[:2]
    sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
    return round(offset[0] * sw / w), round(offset[1] * sh / h)


def _refused(started: float, reason: str, searched: str = "") -> Located:
    return Located(
        found=False,
        point=None,
        score=0.0,
        margin=0.0,
        scale=1.0,
        top_left=None,
        searched=searched,
        best_elsewhere=None,
        elapsed_ms=_since(started),
        reason=reason,
    )


def _resized(image: Image, scale: float) -> Image:
    import cv2

    if scale == 1.0:
        return image
    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)

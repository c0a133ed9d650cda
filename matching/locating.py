"""Locating an anchor on a screen: near its recorded place, then anywhere, then at other scales.

locate() climbs the stages in turn. A match that is not exact must also agree with the screen
the anchor was recorded on (checks.py, and the pixels right around the target here); at other
scales, places are judged part by part (parts.py, deciding.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from .checks import CONTEXT_PAD, PARTS_SPREAD, Match, doubt_back_by_parts, doubt_unscaled
from .deciding import decide
from .defaults import DEFAULT_MARGIN, DEFAULT_THRESHOLD
from .located import Located, by_parts, located, ms_since, refused
from .parts import Parts, Verdict
from .ranking import accepted, rank, settle, why_refused
from .recording import Recorded, Recording
from .scaling import PER_SCALE, best_scale_near, resized, scaled_offset, search_scales
from .search import (
    NOWHERE,
    SAME_PLACE,
    Hit,
    Image,
    Point,
    Screen,
    add,
    coarse_factor,
    grayscale,
    probe,
    scan,
    search_region,
    sub,
)

__all__ = ["by_pixels", "hints_after"]


_WINDOW = 64  # pixels around the recorded place that locate() searches first
# 0.8x to 1.25x in steps of ~8%, finer steps only around the best of them; 1.0 is left out
# because locate() tries it first.
_DEFAULT_SCALES = (0.8, 0.86, 0.93, 1.08, 1.16, 1.25)
_FINE_STEPS = (-0.04, -0.03, -0.02, -0.01, 0.01, 0.02, 0.03, 0.04)
_FLAT = 1.0  # grayscale std below which an image has no pattern to correlate
_SURE = 0.97  # a match this good is the recorded pixels, not merely similar ones
_INNER = 32  # px: the square around the target that must match on its own
_INNER_FLOOR = 0.5  # least score of that square in a match that is not exact
_FLAT_INNER = 4.0  # grayscale std below which that square has nothing to compare
# Scales tried at the place of a 1x match that is not exact, and by how much one of them
# must fit better to send locate() looking at other scales.
_NEAR_STEPS = (-0.1, -0.06, -0.03, 0.03, 0.06, 0.1)
_SCALE_LEAD = 0.01
# A place at another scale, or changed around the target, is decided by its parts: this
# share of them must fit there (and more than at any other place: located.py).
_PARTS_SCORE = 0.55
_ALONE_SCORE = 0.75  # the same, for parts cut from the anchor alone (no recorded screen)
# The parts judge only places where the whole crop scores within _WORTH of its best place:
# a place it fits that much worse is not where it is (judging one costs a few ms), and the
# look back still weighs the recorded screen's look-alikes.
_WORTH = 0.2
_HINT_STEPS = (-0.02, -0.01, 0.01, 0.02)  # around the scale that earlier steps found
_CANDIDATES = 8  # places judged at most
# When the parts of the neighbourhood cannot decide (and fit somewhere at least _WIDE_FROM),
# those of a wide one (recording.py) judge the _WIDE_PLACES likeliest places.
_WIDE_FROM = 0.3
_WIDE_PLACES = 4


def by_pixels(
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
    tmpl = grayscale(anchor_img)
    if tmpl.shape[0] > screen.shape[0] or tmpl.shape[1] > screen.shape[1]:
        return refused(started, "the anchor is larger than the screen")
    if float(tmpl.std()) < _FLAT:
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
    seen = Screen.of(screen)
    stages = ["window"] * bool(near) + ["coarse"]
    hits = near
    best, runner, by_colour = NOWHERE, NOWHERE, False
    for factor in _factors(tmpl.shape[1], tmpl.shape[0]):
        hits = hits + list(scan(seen, tmpl, factor=factor))
        if hits:
            best, runner, by_colour = settle(
                seen, anchor_img, hits, threshold=threshold, margin=margin
            )
        if best.score >= _SURE:
            break
    if best is NOWHERE:
        return refused(started, "nowhere on the screen to compare with", "+".join(stages))
    if context is not None and not isinstance(context, Recorded):
        context = Recorded(context)
    recording = Recording(context, guess, tmpl.shape, offset)
    parts: Parts | None = None  # cut once, when a check or the scale search needs them
    match = Match(best, runner, 1.0, by_colour)
    reason = _doubt(match, seen, recording, threshold, margin, stages, unique=unique)
    if not reason and best.score < _SURE:
        # Not the recorded pixels. A scene drawn at another scale (a DPI or font change) can
        # still fit at 1x, a few pixels off: see whether another scale fits better here.
        fitted, fit_scale = best_scale_near(seen.gray, tmpl, best, 1.0, _NEAR_STEPS)
        if fitted.score > best.score + _SCALE_LEAD:
            reason = f"the match fits better at {fit_scale:g}x ({fitted.score:.3f})"
        else:
            # Or its parts say so: spread out further than a 1x scene puts them.
            parts = recording.parts(tmpl)
            at_1x = parts.verify(seen.gray, add((best.x, best.y), offset), 1.0)
            if at_1x.point is not None and abs(at_1x.scale - 1.0) > PARTS_SPREAD:
                reason = f"its parts fit at {at_1x.scale:.2f}x"
    if not reason:
        shift = scaled_offset(offset, tmpl.shape, match.scale)
        stages += ["colour"] * match.by_colour
        return located(
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
        return located(started, best, runner, 1.0, offset, stages, False, reason)
    # Drawn at another scale (a DPI or font-size change), or changed around the target: the
    # likeliest places at each scale (the one earlier steps found first: one screen has one
    # scale), judged part by part; and the whole crop at the scale it fits best, as at 1x,
    # when its parts fit there too.
    parts = parts or recording.parts(tmpl)
    # Parts cut from the anchor alone are fewer and smaller: they must fit better.
    need = _PARTS_SCORE if recording.screen is not None else _ALONE_SCORE
    candidates = [
        (hit.score, add((hit.x, hit.y), offset), 1.0)
        for hit in sorted(hits, reverse=True)[:PER_SCALE]
    ]
    searches: list[tuple[str, Sequence[float], Sequence[float]]] = (
        [("hint", (scale_hint,), _HINT_STEPS)] if scale_hint != 1.0 else []
    )
    searches.append(("scales", _DEFAULT_SCALES, _FINE_STEPS))
    outcome: Located | None = None
    judged: dict[tuple[Point, float], Verdict] = {}
    wide: Parts | None = None
    widened = False
    for stage, scales, steps in searches:
        stages.append(stage)
        s_scale, s_hits, scanned = search_scales(seen, tmpl, scales, steps)
        candidates += [
            (hit.score, add((hit.x, hit.y), scaled_offset(offset, tmpl.shape, scale)), scale)
            for scale, found in scanned.items()
            for hit in found[:PER_SCALE]
        ]
        verdict, other = decide(
            parts,
            seen.gray,
            _distinct(candidates, within=_WORTH),
            judged,
            known=scale_hint if scale_hint != 1.0 else None,
        )
        outcome = (
            by_parts(started, verdict, other, offset, tmpl.shape, stages + ["parts"], reason, need)
            if verdict.point is not None
            else located(
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
                decided = by_parts(
                    started, verdict, other, offset, tmpl.shape, stages, reason, need
                )
                outcome, widened = (decided, True) if decided.found else (outcome, False)
        if outcome.found:
            break
        if s_hits:
            sized = resized(anchor_img, s_scale)
            s_best, s_runner, s_colour = settle(
                seen, sized, s_hits, threshold=threshold, margin=margin
            )
            scaled = Match(s_best, s_runner, s_scale, s_colour)
            if not _doubt(scaled, seen, recording, threshold, margin, stages, unique=unique):
                shift = scaled_offset(offset, tmpl.shape, s_scale)
                confirmed = parts.verify(seen.gray, add((s_best.x, s_best.y), shift), s_scale)
                stages += ["colour"] * s_colour
                if confirmed.point is not None and confirmed.score >= need and confirmed.pinned:
                    # Found whole; where the target is inside it, its parts say best. It is
                    # looked back at with parts too, below.
                    outcome = replace(
                        located(started, s_best, s_runner, s_scale, shift, stages, True, ""),
                        point=confirmed.point,
                    )
                    break
    assert outcome is not None
    stages.append("parts")
    if outcome.found and outcome.top_left is not None:
        # The parts agree; the pixels around the target and the look back must too.
        hit = Hit(outcome.score, *outcome.top_left)
        match = Match(hit, NOWHERE, outcome.scale, False)
        doubt = (
            doubt_unscaled(outcome, reason)
            or _doubt_inner(match, seen, recording)
            or doubt_back_by_parts(seen, recording, match, outcome, stages, widened)
        )
        if doubt:
            outcome = replace(outcome, found=False, point=None, reason=doubt)
    return replace(outcome, searched="+".join(dict.fromkeys(stages)), elapsed_ms=ms_since(started))


def _exact_near(
    screen: Image, tmpl: Image, place: Point, threshold: float, margin: float
) -> tuple[list[Hit], tuple[Hit, Hit] | None]:
    """The matches within _WINDOW px of `place` (a top-left), and the best and the runner-up
    when the best is exact and clearly alone there."""
    hits = search_region(screen, tmpl, place, pad=_WINDOW, others=1)
    if hits:
        best, runner = rank(hits, tmpl.shape)
        if best.score >= _SURE and accepted(best, runner, threshold, margin):
            return hits, (best, runner)
    return hits, None


def hints_after(point: Point, scale: float, recorded: Point) -> tuple[float, Point]:
    """The `scale_hint` and `shift_hint` for the next locate() on the same screen, once a
    target recorded at `recorded` was found at `point` at `scale`: one screen has one scale,
    and a moved window moves every target alike (a shift is only told at 1x)."""
    return scale, sub(point, recorded) if scale == 1.0 else (0, 0)


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
            max(abs(candidate[1][0] - k[1][0]), abs(candidate[1][1] - k[1][1])) > SAME_PLACE
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


def _doubt(
    match: Match,
    seen: Screen,
    recording: Recording,
    threshold: float,
    margin: float,
    stages: list[str],
    *,
    unique: bool,
) -> str:
    """Why `match` is not to be trusted, or "" when it is. The recorded pixels at 1x are
    trusted as they are only for an anchor that was `unique` on its own screen: one that had
    a look-alike there may have matched that look-alike exactly today (a tab's "Page 2"
    beside the segment's), so it is checked against the recording like any other match."""
    best, runner = match.best, match.runner
    if not accepted(best, runner, threshold, margin):
        shift = scaled_offset(recording.offset, recording.shape, match.scale)
        return why_refused(best, runner, threshold, margin, shift)
    if (best.score >= _SURE and match.scale == 1.0 and unique) or recording.screen is None:
        return ""
    # Not the recorded pixels: something changed (a scale, a neighbour). Three checks
    # against the recording, each of which a look-alike fails.
    return (
        match.doubt_context(seen, recording, margin, stages)
        or _doubt_inner(match, seen, recording)
        or match.doubt_back(seen, recording, stages)
    )


# Here rather than in checks.py with the others: tests/test_matching_checks.py patches
# locating._inner_score to see that the check ran.
def _doubt_inner(match: Match, seen: Screen, recording: Recording) -> str:
    """Why the pixels right around the target are not the recorded target's, or ""."""
    # A big crop can match on its frame and borders alone: the pixels right around the
    # target must fit too, where they have something to fit.
    inner = _inner_score(seen, recording, match)
    if inner is not None and inner < _INNER_FLOOR:
        return (
            f"doubtful: the match scores {match.best.score:.3f} but the {_INNER} px "
            f"around the target score {inner:.3f} there"
        )
    return ""


def _inner_score(seen: Screen, recording: Recording, match: Match) -> float | None:
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
    at = add((match.best.x, match.best.y), scaled_offset((x0, y0), recording.shape, match.scale))
    hit = probe(seen.gray, resized(inner, match.scale), at, pad=CONTEXT_PAD)
    return 0.0 if hit is None else hit.score


def _factors(w: int, h: int) -> tuple[int, ...]:
    """Coarse scans for locate(), cheapest first: a quarter-resolution scan costs a fifth of
    a half-resolution one and finds most crops from 24 px up; the finer scan runs only when
    it did not find an exact match."""
    return (4, 2) if 24 <= min(w, h) < 64 else (coarse_factor(w, h),)


# The names tests/test_matching_checks.py reaches in by (a test's body stays as it is in this
# restructuring): the same objects as the public names in search.py.
_Screen = Screen
_scan = scan

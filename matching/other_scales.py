"""locate() at other scales (a DPI or font-size change), or where the surroundings of the
target changed: the likeliest places at each scale, judged part by part (parts.py,
deciding.py); the whole crop at the scale it fits best, placed by its parts; then the look
back at the recording, with parts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .checks import Match, doubt_back_by_parts, doubt_unscaled
from .deciding import decide
from .doubts import doubt_inner
from .located import Located, by_parts, located, ms_since
from .params import PARAMS as P
from .parts import Verdict
from .ranking import settle
from .scaling import resized, scaled_offset, search_scales
from .search import NOWHERE, Hit, Point, add

if TYPE_CHECKING:
    from .locating import Search

__all__ = ["at_other_scales", "distinct", "likeliest"]


def at_other_scales(search: Search, scale_hint: float) -> Located:
    """Drawn at another scale (a DPI or font-size change), or changed around the target:
    the likeliest places at each scale (the one earlier steps found first: one screen
    has one scale), judged part by part; and the whole crop at the scale it fits best,
    as at 1x, when its parts fit there too. Then looked back at."""
    known = scale_hint if scale_hint != 1.0 else None
    candidates = [
        (hit.score, add((hit.x, hit.y), search.offset), 1.0)
        for hit in sorted(search.hits, reverse=True)[: P.per_scale]
    ]
    searches: list[tuple[str, Sequence[float], Sequence[float]]] = (
        [("hint", (scale_hint,), P.hint_steps)] if known is not None else []
    )
    searches.append(("scales", P.scales, P.fine_steps))
    judged: dict[tuple[Point, float], Verdict] = {}
    outcome, widened = _refused_at_all_scales(search), False
    for stage, scales, steps in searches:
        search.stages.append(stage)
        s_scale, s_hits, scanned = search_scales(search.seen, search.tmpl, scales, steps)
        candidates += [
            (
                hit.score,
                add((hit.x, hit.y), scaled_offset(search.offset, search.tmpl.shape, sc)),
                sc,
            )
            for sc, found in scanned.items()
            for hit in found[: P.per_scale]
        ]
        verdict, other = decide(
            search.parts, search.seen.gray, distinct(candidates, within=P.worth), judged, known
        )
        outcome = _by_parts(search, verdict, other)
        if not outcome.found and verdict.score >= P.wide_from:
            outcome, widened = _widened(search, outcome, judged, candidates, known)
        if outcome.found:
            break
        whole = _whole_at(search, s_scale, s_hits)
        if whole is not None:
            outcome = whole
            break
    return _looked_back(search, outcome, widened)


def _need(search: Search) -> float:
    # Parts cut from the anchor alone are fewer and smaller: they must fit better.
    return P.parts_score if search.recording.screen is not None else P.alone_score


def _refused_at_all_scales(search: Search) -> Located:
    return located(
        search.started,
        search.best,
        search.runner,
        1.0,
        search.offset,
        search.stages,
        False,
        f"{search.reason}; at other scales: no place where its parts fit",
    )


def _by_parts(search: Search, verdict: Verdict, other: Verdict) -> Located:
    """The parts' verdict on the places judged so far, as locate() answers it."""
    if verdict.point is None:
        return _refused_at_all_scales(search)
    stages = search.stages + ["parts"]
    return by_parts(
        search.started, verdict, other, search.offset, search.tmpl.shape, stages, search.reason,
        _need(search),
    )  # fmt: skip


def _widened(
    search: Search,
    outcome: Located,
    judged: dict[tuple[Point, float], Verdict],
    candidates: list[tuple[float, Point, float]],
    known: float | None,
) -> tuple[Located, bool]:
    """The neighbourhood could not decide (a look-alike beside it, or a target in a flat
    stretch far from every part): a wider one judges the likeliest places."""
    if search.recording.screen is None:
        return outcome, False
    search.stages.append("wide")
    search._wide = search._wide or search.recording.parts(search.tmpl, wide=True)
    places = likeliest(judged, candidates)
    verdict, other = decide(search._wide, search.seen.gray, places, {}, known)
    if verdict.point is None:
        return outcome, False
    decided = by_parts(
        search.started, verdict, other, search.offset, search.tmpl.shape, search.stages,
        search.reason, _need(search),
    )  # fmt: skip
    return (decided, True) if decided.found else (outcome, False)


def _whole_at(search: Search, s_scale: float, s_hits: list[Hit]) -> Located | None:
    """The whole crop at the scale it fits best, found as at 1x and placed by its parts;
    None when it is not."""
    if not s_hits:
        return None
    sized = resized(search.anchor_img, s_scale)
    s_best, s_runner, s_colour = settle(
        search.seen, sized, s_hits, threshold=search.threshold, margin=search.margin
    )
    if search.doubt(Match(s_best, s_runner, s_scale, s_colour)):
        return None
    shift = scaled_offset(search.offset, search.tmpl.shape, s_scale)
    confirmed = search.parts.verify(search.seen.gray, add((s_best.x, s_best.y), shift), s_scale)
    search.stages += ["colour"] * s_colour
    if confirmed.point is None or confirmed.score < _need(search) or not confirmed.pinned:
        return None
    # Found whole; where the target is inside it, its parts say best. It is looked back
    # at with parts too.
    found = located(search.started, s_best, s_runner, s_scale, shift, search.stages, True, "")
    return replace(found, point=confirmed.point)


def _looked_back(search: Search, outcome: Located, widened: bool) -> Located:
    """A place found at another scale, unless the pixels around the target or the look
    back (with parts) doubt it."""
    search.stages.append("parts")
    if outcome.found and outcome.top_left is not None:
        hit = Hit(outcome.score, *outcome.top_left)
        match = Match(hit, NOWHERE, outcome.scale, False)
        doubt = (
            doubt_unscaled(outcome, search.reason)
            or doubt_inner(match, search.seen, search.recording)
            or doubt_back_by_parts(
                search.seen, search.recording, match, outcome, search.stages, widened
            )
        )
        if doubt:
            outcome = replace(outcome, found=False, point=None, reason=doubt)
    searched = "+".join(dict.fromkeys(search.stages))
    return replace(outcome, searched=searched, elapsed_ms=ms_since(search.started))


def distinct(
    candidates: list[tuple[float, Point, float]], *, within: float = math.inf
) -> list[tuple[float, Point, float]]:
    """The likeliest candidates, one per place, at most P.candidates; only those scoring
    `within` of the best."""
    kept: list[tuple[float, Point, float]] = []
    ranked = sorted(candidates, reverse=True)
    floor = ranked[0][0] - within if ranked else 0.0
    for candidate in (c for c in ranked if c[0] >= floor):
        if all(
            max(abs(candidate[1][0] - k[1][0]), abs(candidate[1][1] - k[1][1])) > P.same_place
            for k in kept
        ):
            kept.append(candidate)
            if len(kept) == P.candidates:
                break
    return kept


def likeliest(
    judged: dict[tuple[Point, float], Verdict], candidates: list[tuple[float, Point, float]]
) -> list[tuple[float, Point, float]]:
    """The places the parts put targets at, best first, then the candidates not near them:
    P.wide_places at most."""
    placed = [
        (1 + v.score, v.point, round(v.scale, 3)) for v in judged.values() if v.point is not None
    ]  # ahead of every whole-crop score
    return distinct(placed + candidates)[: P.wide_places]

"""locate() at other scales (a DPI or font-size change), or where the surroundings of the
target changed: the likeliest places at each scale, judged part by part (parts.py,
deciding.py); the whole crop at the scale it fits best, placed by its parts; then the look
back at the recording, with parts."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .checks import Match, doubt_back_by_parts, doubt_unscaled
from .deciding import decide
from .doubts import doubt_inner
from .located import Located, by_parts, located
from .params import PARAMS as P
from .parts import Verdict
from .ranking import settle
from .refusal import Refusal
from .scaling import resized, scaled_offset, search_scales
from .search import NOWHERE, Hit, Point, add
from .trail import FOUND, NEXT, REFUSED

if TYPE_CHECKING:
    from .locating import Search

__all__ = ["IN_EACH_RANGE", "LOOK_BACK", "distinct", "likeliest", "scales"]

Candidate = tuple[float, Point, float]  # a whole-crop score, the target it puts, the scale
_NO_VERDICT = Verdict(0.0, None, 1.0, 1.0)  # before any place was judged


@dataclass
class Round:
    """One range of scales searched (the hint's, then all of them): the places found so far,
    the parts' verdict on them, and the answer so far."""

    search: Search
    candidates: list[Candidate]
    judged: dict[tuple[Point, float], Verdict]
    known: float | None  # the scale earlier steps found, where it is not 1x
    at_scale: float = 1.0  # where the whole crop fits best in this range
    at_hits: list[Hit] = field(default_factory=list)
    verdict: Verdict = field(default_factory=lambda: _NO_VERDICT)
    other: Verdict = field(default_factory=lambda: _NO_VERDICT)
    outcome: Located | None = None
    widened: bool = False


def scales(search: Search) -> Located:
    """Rung "scales": drawn at another scale (a DPI or font-size change), or changed around
    the target. For each range (the scale earlier steps found first, since one screen has one
    scale, else the one the desktop's settings tell; then all of them): the likeliest places
    at each scale, then IN_EACH_RANGE in turn, until one finds it. Then what was found is
    looked back at (LOOK_BACK)."""
    at = search.trail.open("scales")
    hints = search.hints
    known = hints.scale if hints.scale != 1.0 else None
    first = [
        (hit.score, add((hit.x, hit.y), search.offset), 1.0) for hit in _likeliest_at_1x(search)
    ]
    ranges: list[tuple[str, Sequence[float], Sequence[float]]] = []
    if known is not None:
        ranges.append(("hint", (known,), P.hint_steps))
    elif hints.told is not None and hints.told != 1.0:
        ranges.append(("told", (hints.told,), P.hint_steps))
    ranges.append(("all", P.scales, P.fine_steps))
    round_ = Round(search, first, {}, known)
    for name, sizes, steps in ranges:
        search.trail.add(name, NEXT)
        _scan(round_, sizes, steps)
        if any(step(round_) for _, step in IN_EACH_RANGE):
            break
    outcome = round_.outcome or _nowhere(search)
    if outcome.found:
        outcome = _looked_back(search, outcome, round_.widened)
    search.trail.close(at, FOUND if outcome.found else REFUSED, outcome.refusal)
    return outcome


def _likeliest_at_1x(search: Search) -> list[Hit]:
    return sorted(search.hits, reverse=True)[: P.per_scale]


def _nowhere(search: Search) -> Located:
    """Refused: no place where its parts fit, at any scale (with the best match at 1x)."""
    return located(search.best, search.runner, 1.0, search.offset, Refusal("parts-nowhere", 0, 1))


def _scan(round_: Round, sizes: Sequence[float], steps: Sequence[float]) -> None:
    """The likeliest places at each scale of the range, added to the round's candidates,
    and the parts' verdict on all of them."""
    search = round_.search
    round_.at_scale, round_.at_hits, scanned = search_scales(search.seen, search.tmpl, sizes, steps)
    round_.candidates += [
        (hit.score, add((hit.x, hit.y), scaled_offset(search.offset, search.tmpl.shape, sc)), sc)
        for sc, found in scanned.items()
        for hit in found[: P.per_scale]
    ]
    places = distinct(round_.candidates, within=P.worth)
    round_.verdict, round_.other = decide(
        search.parts, search.seen.gray, places, round_.judged, round_.known
    )


def _need(search: Search) -> float:
    # Parts cut from the anchor alone are fewer and smaller: they must fit better.
    return P.parts_score if search.recording.screen is not None else P.alone_score


def by_the_parts(round_: Round) -> bool:
    """Step "parts": the parts' verdict on the places judged so far; whether it found it."""
    search, verdict = round_.search, round_.verdict
    if verdict.point is None:
        round_.outcome = _nowhere(search)
        search.trail.add("parts", REFUSED, round_.outcome.refusal)
        return False
    round_.outcome = by_parts(
        verdict, round_.other, search.offset, search.tmpl.shape, _need(search)
    )
    found = round_.outcome.found
    search.trail.add("parts", FOUND if found else NEXT, round_.outcome.refusal)
    return found


def widened(round_: Round) -> bool:
    """Step "wide": the neighbourhood could not decide (a look-alike beside it, or a target in
    a flat stretch far from every part): a wider one judges the likeliest places."""
    search = round_.search
    if round_.verdict.score < P.wide_from or search.recording.screen is None:
        return False
    places = likeliest(round_.judged, round_.candidates)
    verdict, other = decide(search.wide, search.seen.gray, places, {}, round_.known)
    if verdict.point is None:
        search.trail.add("wide", NEXT)
        return False
    decided = by_parts(verdict, other, search.offset, search.tmpl.shape, _need(search))
    search.trail.add("wide", FOUND if decided.found else NEXT, decided.refusal)
    if decided.found:
        round_.outcome, round_.widened = decided, True
    return decided.found


def whole(round_: Round) -> bool:
    """Step "whole": the whole crop at the scale it fits best in the range, found as at 1x and
    placed by its parts; whether it found it."""
    search, s_scale = round_.search, round_.at_scale
    if not round_.at_hits:
        return False
    at = search.trail.open("whole")
    q = search.query
    sized = resized(search.anchor_img, s_scale)
    s_best, s_runner, s_colour = settle(
        search.seen, sized, round_.at_hits, threshold=q.threshold, margin=q.margin
    )
    doubted = search.doubt(Match(s_best, s_runner, s_scale, s_colour))
    if doubted is not None:
        search.trail.close(at, NEXT, doubted)
        return False
    shift = scaled_offset(search.offset, search.tmpl.shape, s_scale)
    confirmed = search.parts.verify(search.seen.gray, add((s_best.x, s_best.y), shift), s_scale)
    if s_colour:
        search.trail.add("colour", FOUND)
    if confirmed.point is None or confirmed.score < _need(search) or not confirmed.pinned:
        fit = 0.0 if confirmed.point is None else round(confirmed.score, 4)
        search.trail.close(at, NEXT, Refusal("parts-fit", fit, _need(search)))
        return False
    # Found whole; where the target is inside it, its parts say best. It is looked back
    # at with parts too.
    search.trail.close(at, FOUND, score=round(s_best.score, 4))
    round_.outcome = replace(located(s_best, s_runner, s_scale, shift), point=confirmed.point)
    return True


# What each range of scales tries, in order, until one finds the target.
IN_EACH_RANGE: tuple[tuple[str, Callable[[Round], bool]], ...] = (
    ("parts", by_the_parts),
    ("wide", widened),
    ("whole", whole),
)


def _looked_back(search: Search, outcome: Located, wide: bool) -> Located:
    """A place found at another scale, unless a check of LOOK_BACK doubts it."""
    assert outcome.top_left is not None
    match = Match(Hit(outcome.score, *outcome.top_left), NOWHERE, outcome.scale, False)
    for _, check in LOOK_BACK:
        refusal = check(search, match, outcome, wide)
        if refusal is not None:
            return replace(outcome, found=False, point=None, refusal=refusal)
    return outcome


Check = Callable[["Search", Match, Located, bool], Refusal | None]

# The checks a place found at another scale must pass, in order: it is scaled (else the
# verdict at 1x stands), the pixels right around the target fit, and what was found looks
# more like the recorded target than like anything else on the recording, part by part.
LOOK_BACK: tuple[tuple[str, Check], ...] = (
    ("unscaled", lambda s, m, found, w: doubt_unscaled(found, s.trail)),
    ("inner", lambda s, m, found, w: doubt_inner(m, s.seen, s.recording, s.trail)),
    ("back", lambda s, m, found, w: doubt_back_by_parts(s.seen, s.recording, m, found, s.trail, w)),
)


def distinct(candidates: list[Candidate], *, within: float = math.inf) -> list[Candidate]:
    """The likeliest candidates, one per place, at most P.candidates; only those scoring
    `within` of the best."""
    kept: list[Candidate] = []
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
    judged: dict[tuple[Point, float], Verdict], candidates: list[Candidate]
) -> list[Candidate]:
    """The places the parts put targets at, best first, then the candidates not near them:
    P.wide_places at most."""
    placed = [
        (1 + v.score, v.point, round(v.scale, 3)) for v in judged.values() if v.point is not None
    ]  # ahead of every whole-crop score
    return distinct(placed + candidates)[: P.wide_places]

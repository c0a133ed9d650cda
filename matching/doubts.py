"""Why a match of the whole crop is not to be trusted: refused by its score and margin, or,
where it is not the recorded pixels, by the recording it was cut from (the wider context
and the look back in checks.py, and the pixels right around the target here)."""

from __future__ import annotations

from collections.abc import Callable

from .checks import Match
from .params import PARAMS as P
from .ranking import accepted, refusal_of
from .recording import Recording
from .refusal import Refusal
from .scaling import resized, scaled_offset
from .search import Screen, add, probe
from .trail import Trail

__all__ = ["DOUBTS", "doubt", "doubt_inner", "inner_score"]


def doubt(
    match: Match,
    seen: Screen,
    recording: Recording,
    threshold: float,
    margin: float,
    trail: Trail,
    *,
    unique: bool,
) -> Refusal | None:
    """Why `match` is not to be trusted, or None when it is. The recorded pixels at 1x are
    trusted as they are only for an anchor that was `unique` on its own screen: one that had
    a look-alike there may have matched that look-alike exactly today (a tab's "Page 2"
    beside the segment's), so it is checked against the recording like any other match."""
    best, runner = match.best, match.runner
    if not accepted(best, runner, threshold, margin):
        shift = scaled_offset(recording.offset, recording.shape, match.scale)
        return refusal_of(best, runner, threshold, margin, shift)
    if (best.score >= P.sure and match.scale == 1.0 and unique) or recording.screen is None:
        return None
    # Not the recorded pixels: something changed (a scale, a neighbour)
    for _, check in DOUBTS:
        refusal = check(match, seen, recording, margin, trail)
        if refusal is not None:
            return refusal
    return None


Doubt = Callable[[Match, Screen, Recording, float, Trail], Refusal | None]

# The checks against the recording of a match that is not the recorded pixels, in order;
# a look-alike fails each: the wider context fits here, the pixels right around the target
# fit, and what was found looks more like the target than like anything else recorded.
DOUBTS: tuple[tuple[str, Doubt], ...] = (
    ("context", lambda m, seen, rec, margin, trail: m.doubt_context(seen, rec, margin, trail)),
    ("inner", lambda m, seen, rec, margin, trail: doubt_inner(m, seen, rec, trail)),
    ("back", lambda m, seen, rec, margin, trail: m.doubt_back(seen, rec, trail)),
)


def doubt_inner(match: Match, seen: Screen, recording: Recording, trail: Trail) -> Refusal | None:
    """Why the pixels right around the target are not the recorded target's, or None."""
    # A big crop can match on its frame and borders alone: the pixels right around the
    # target must fit too, where they have something to fit.
    inner = inner_score(seen, recording, match)
    if inner is None:
        return None  # nothing to compare: no check made
    refused = inner < P.inner_floor
    return trail.check(
        "inner", Refusal("inner", round(inner, 4), P.inner_floor) if refused else None
    )


def inner_score(seen: Screen, recording: Recording, match: Match) -> float | None:
    """How well the recorded pixels right around the target fit where `match` puts them;
    None when the anchor is no bigger than that or they are flat (nothing to compare)."""
    th, tw = recording.shape
    w, h = min(P.inner, tw), min(P.inner, th)
    if (w, h) == (tw, th) or recording.screen is None or recording.guess is None:
        return None
    (ox, oy), (gx, gy) = recording.offset, recording.guess
    x0 = min(max(0, ox - w // 2), tw - w)
    y0 = min(max(0, oy - h // 2), th - h)
    inner = recording.screen.gray[gy + y0 : gy + y0 + h, gx + x0 : gx + x0 + w]
    if float(inner.std()) < P.inner_flat:
        return None
    at = add((match.best.x, match.best.y), scaled_offset((x0, y0), recording.shape, match.scale))
    hit = probe(seen.gray, resized(inner, match.scale), at, pad=P.context_pad)
    return 0.0 if hit is None else hit.score

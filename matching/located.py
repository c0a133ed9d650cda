"""What locate() answers: where an anchor was found on a screen, or why it was not, made from
a match of the whole crop or from the verdict of its parts."""

from __future__ import annotations

import time
from dataclasses import dataclass

from .params import PARAMS as P
from .parts import Verdict
from .refusal import Refusal
from .scaling import scaled_offset
from .search import Box, Hit, Point, add, sub

__all__ = ["Located", "by_parts", "located", "ms_since", "refused"]


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
    refusal: Refusal | None = None  # the rule that refused it, as a value, where one did
    box: Box | None = None  # the object's box on this screen, where its toolkit told it


def located(
    started: float,
    best: Hit,
    runner: Hit,
    scale: float,
    shift: Point,
    stages: list[str],
    found: bool,
    reason: str,
) -> Located:
    """The answer from a match of the whole crop: `best` and `runner` at `scale`, `shift`
    taking a match's top-left to its target."""
    return Located(
        found=found,
        point=add((best.x, best.y), shift) if found else None,
        score=round(best.score, 4),
        margin=round(best.score - runner.score, 4),
        scale=scale,
        top_left=(best.x, best.y),
        searched="+".join(stages),
        best_elsewhere=add((runner.x, runner.y), shift) if runner.x >= 0 else None,
        elapsed_ms=ms_since(started),
        reason="" if found else reason,
    )


def refused(started: float, reason: str, searched: str = "") -> Located:
    """The answer when there was nothing to match, or nowhere to match it."""
    return Located(
        found=False,
        point=None,
        score=0.0,
        margin=0.0,
        scale=1.0,
        top_left=None,
        searched=searched,
        best_elsewhere=None,
        elapsed_ms=ms_since(started),
        reason=reason,
    )


def by_parts(
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
    found = verdict.score >= need and lead >= P.parts_margin and verdict.pinned
    point = verdict.point
    assert point is not None
    why = (
        f"the parts fit best at {point} ({verdict.score:.2f} of them at "
        f"{verdict.scale:.2f}x, {need:.2f} needed)"
    )
    if other.point is not None:
        why += f", {lead:.2f} ahead of {other.point} ({P.parts_margin:.2f} needed)"
    if not verdict.pinned:
        why += f", but {_unpinned(verdict)}"
    scale = round(verdict.scale, 3)
    top_left = sub(point, scaled_offset(offset, shape, scale))
    return Located(
        found=found,
        point=point if found else None,
        score=round(verdict.score, 4),
        margin=round(lead, 4),
        scale=scale,
        top_left=top_left,
        searched="+".join(dict.fromkeys(stages)),
        best_elsewhere=other.point,
        elapsed_ms=ms_since(started),
        reason="" if found else f"{reason}; at other scales: {why}",
    )


def _unpinned(verdict: Verdict) -> str:
    why = (
        "no part places the target along both axes"
        if verdict.reach == float("inf")
        else f"the nearest part placing the target is {verdict.reach:.0f} px from it "
        f"({P.pin_reach} px at most), and the parts place it to within "
        f"{verdict.spread:.1f} px ({P.pin_spread} px needed)"
    )
    if verdict.unspanned:
        why += ", and the flat stretch it was in is not found there"
    return why


def ms_since(started: float) -> float:
    """Milliseconds since `started` (a time.perf_counter()), to 0.01 ms."""
    return round((time.perf_counter() - started) * 1000, 2)

"""Ranking the places a search found: the best, the runner-up outside its neighbourhood,
whether the best is clear enough to accept, and colour to settle what grayscale cannot."""

from __future__ import annotations

from .params import PARAMS as P
from .refusal import Refusal
from .search import (
    NOWHERE,
    Hit,
    Image,
    Point,
    Screen,
    add,
    colour_score,
    each,
    grayscale,
    is_near,
    same_place_radius,
    search_region,
)

__all__ = ["accepted", "rank", "refusal_of", "settle"]


def settle(
    screen: Screen, sized: Image, hits: list[Hit], *, threshold: float, margin: float
) -> tuple[Hit, Hit, bool]:
    """The best candidate, the runner-up elsewhere, and whether colour had to decide."""
    best, _ = rank(hits, sized.shape)
    # The coarse search samples a long ridge of equal scores (a plain panel, a field wider
    # than it was) sparsely: look around the winner exactly before trusting its position.
    zone = ((best.x, best.y), same_place_radius(sized.shape[1], sized.shape[0]))
    hits = hits + search_region(
        screen.gray, grayscale(sized), (best.x, best.y), pad=2 * P.same_place, keep_out=zone
    )
    best, runner = rank(hits, sized.shape)
    if best.score < threshold or accepted(best, runner, threshold, margin) or sized.ndim != 3:
        return best, runner, False
    colour = each(
        lambda hit: Hit(colour_score(screen.rgb, sized, (hit.x, hit.y)), hit.x, hit.y), hits
    )
    c_best, c_runner = rank(colour, sized.shape)
    if c_best.score - c_runner.score >= margin and _score_at(hits, c_best) >= threshold:
        return c_best, c_runner, True
    return best, runner, False


def rank(hits: list[Hit], shape: tuple[int, ...]) -> tuple[Hit, Hit]:
    """The best hit, and the best one outside its neighbourhood (NOWHERE if none)."""
    best = max(hits)
    radius = same_place_radius(shape[1], shape[0])
    others = (hit for hit in hits if not is_near(hit, (best.x, best.y), radius))
    return best, max(others, default=NOWHERE)


def _score_at(hits: list[Hit], place: Hit) -> float:
    return max(hit.score for hit in hits if (hit.x, hit.y) == (place.x, place.y))


def accepted(best: Hit, runner: Hit, threshold: float, margin: float) -> bool:
    """Whether `best` reaches `threshold` and beats `runner` by `margin` at least."""
    return best.score >= threshold and best.score - runner.score >= margin


def refusal_of(best: Hit, runner: Hit, threshold: float, margin: float, shift: Point) -> Refusal:
    """The rule `best` fails (accepted() is False): its score, or its lead over `runner`;
    `shift` takes a match's top-left to its target."""
    if best.score < threshold:
        return Refusal("score", round(best.score, 4), threshold, add((best.x, best.y), shift))
    lead = round(best.score - runner.score, 4)
    return Refusal("margin", lead, margin, add((runner.x, runner.y), shift))

"""Deciding between places by their parts: each likely place judged by how well the parts of
the recorded neighbourhood fit there (parts.py), and the best told from the others."""

from __future__ import annotations

import math
from dataclasses import replace

from .params import PARAMS as P
from .parts import Parts, Verdict
from .search import Image, Point, each

__all__ = ["apart", "decide"]


def decide(
    parts: Parts,
    gray: Image,
    places: list[tuple[float, Point, float]],
    judged: dict[tuple[Point, float], Verdict] | None = None,
    known: float | None = None,
) -> tuple[Verdict, Verdict]:
    """The best of `places` (whole-crop score, target, scale: the likeliest first) by how
    well the parts fit there, and the best of the others further than P.apart from it.
    `judged` keeps the verdicts on places across calls (a second search adds places). At the
    `known` scale (the one earlier targets were found at: one screen has one scale) the
    parts fit position only: a target far from every part is then placed without the
    error of a scale estimated from them."""
    judged = {} if judged is None else judged

    def judge(place: tuple[Point, float]) -> Verdict:
        point, scale = place
        verdict = parts.verify(gray, point, scale)
        if (
            scale == known
            and verdict.point is not None
            and abs(verdict.scale - known) <= P.scale_agree
        ):
            # The parts agree with the known scale: let them place the target at it. Held
            # to it, they must still put the target where they put it freely, within
            # P.far_off px and the free fit's own doubt (three sigmas); when holding the scale
            # moves it further, the parts near the target disagree with the known scale (a
            # list's rows keep to the font while its box scales), and the place is not sure.
            held = parts.verify(gray, point, scale, fixed=True)
            if (
                held.point is not None
                and math.dist(held.point, verdict.point) > P.far_off + 3 * verdict.spread
            ):
                held = replace(held, pinned=False)
            verdict = held
        return _held(verdict, known)

    new = list(
        dict.fromkeys((point, scale) for _, point, scale in places if (point, scale) not in judged)
    )
    judged.update(zip(new, each(judge, new)))
    verdicts = [judged[point, scale] for _, point, scale in places]
    found = sorted((v for v in verdicts if v.point is not None), key=lambda v: -v.score)
    # The two best again at the scale their parts fit (a coarse scale is up to 4% off), at
    # once: neither depends on the other.
    redo = [
        (rank, (verdict.point, round(verdict.scale, 3)))
        for rank, verdict in enumerate(found[:2])
        if verdict.point is not None and abs(verdict.scale - verdict.asked) > 0.01
    ]
    agains = each(
        lambda place: judged.get(place) or _held(parts.verify(gray, place[0], place[1]), known),
        [p for _, p in redo],
    )
    for (rank, place), again in zip(redo, agains):
        judged[place] = again
        if again.score >= found[rank].score:
            found[rank] = again
    found.sort(key=lambda v: -v.score)
    if not found:
        return _NONE, _NONE
    best = found[0]
    assert best.point is not None
    # One flat stretch, fitted at two scales, puts its target at two places that are one.
    runner = next((v for v in found[1:] if apart(v, best.point)), _NONE)
    return best, runner


def apart(verdict: Verdict, point: Point) -> bool:
    """Whether `verdict` puts its target at another place than `point`: further than P.apart
    px and than its own placement is unsure by (three sigmas)."""
    return (
        verdict.point is not None and math.dist(verdict.point, point) > P.apart + 3 * verdict.spread
    )


def _held(verdict: Verdict, known: float | None) -> Verdict:
    """`verdict`, not pinned when its parts fit a scale other than the `known` one by enough
    to put a target as far from them as this one off by more than P.far_off px."""
    if (
        known is None
        or verdict.point is None
        or abs(verdict.scale - known) <= P.scale_agree
        or verdict.reach * abs(verdict.scale - known) <= P.far_off
    ):
        return verdict
    return replace(verdict, pinned=False)


_NONE = Verdict(0.0, None, 1.0, 1.0)

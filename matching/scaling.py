"""The scale stage: an anchor resized, where its target sits then, and the scales the anchor
fits a screen best at, coarse to fine."""

from __future__ import annotations


from collections.abc import Sequence
from typing import cast

from .search import Hit, Image, Point, Screen, each, probe, scan, sub

__all__ = ["best_scale_near", "resized", "scaled_offset", "search_scales"]


def search_scales(
    screen: Screen, tmpl: Image, scales: Sequence[float], steps: Sequence[float]
) -> tuple[float, list[Hit], dict[float, list[Hit]]]:
    """The best scale, coarse to fine, and the candidates at that scale, best first; and the
    candidates at each of `scales`, best first."""
    scans = each(lambda s: sorted(scan(screen, resized(tmpl, s)), reverse=True), scales)
    scanned = {s: hits for s, hits in zip(scales, scans) if hits}
    if not scanned:
        return 1.0, [], scanned
    best, coarse = max((hits[0], s) for s, hits in scanned.items())
    best, scale = best_scale_near(screen.gray, tmpl, best, coarse, steps)
    sized = resized(tmpl, scale)
    # (a full-resolution probe of a big crop costs a few ms: at once, on the pool)
    others = each(lambda hit: probe(screen.gray, sized, (hit.x, hit.y), pad=2), scanned[coarse][1:])
    return scale, [best, *(hit for hit in others if hit is not None)], scanned


def best_scale_near(
    gray: Image, tmpl: Image, hit: Hit, scale: float, steps: Sequence[float]
) -> tuple[Hit, float]:
    """Around `hit`, a match of `tmpl` at `scale`: the scale among `scale` + `steps` that fits
    best, and its match."""
    th, tw = resized(tmpl, scale).shape
    centre = (hit.x + tw // 2, hit.y + th // 2)

    def fit(s: float) -> tuple[Hit | None, float]:
        sized = resized(tmpl, s)
        return probe(gray, sized, sub(centre, (sized.shape[1] // 2, sized.shape[0] // 2)), pad=3), s

    fits = [(hit, scale)] + [
        (probed, s)
        for probed, s in each(fit, [round(scale + step, 3) for step in steps])
        if probed is not None
    ]
    best, fitted = max(fits)
    return best, fitted


def scaled_offset(offset: Point, shape: tuple[int, ...], scale: float) -> Point:
    """Where the target sits in the anchor resized by `scale` (as resized rounds it)."""
    h, w = shape[:2]
    sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
    return round(offset[0] * sw / w), round(offset[1] * sh / h)


def resized(image: Image, scale: float) -> Image:
    """`image` resized by `scale` (itself at 1.0)."""
    import cv2

    if scale == 1.0:
        return image
    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cast(
        Image,
        cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR),
    )

"""locate(): an anchor found on a screen by its pixels (locating.by_pixels), then checked
for twins (twins.py): the stages so far of the ladder that issue 20 builds."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from .located import Located, ms_since
from .locating import by_pixels
from .params import PARAMS as P
from .recording import Recorded
from .search import Image, Point
from .twins import doubt_twins

__all__ = ["locate"]


def locate(
    screen: Image,
    anchor_img: Image,
    offset: Point,
    *,
    expected: Point | None = None,
    threshold: float = P.threshold,
    margin: float = P.margin,
    unique: bool = False,
    context: Recorded | Image | Callable[[], Image | None] | None = None,
    scale_hint: float = 1.0,
    shift_hint: Point = (0, 0),
    twins: int | None = None,
) -> Located:
    """Find `anchor_img` on `screen` by its pixels (by_pixels), then make sure that the place
    found is not a twin of the recorded object that only its place told apart (twins.py).
    `twins`, in how many places the recorder saw the object drawn (choose_anchor's), spares
    that search where it saw one at most; None (not known) searches."""
    if context is not None and not isinstance(context, Recorded):
        context = Recorded(context)
    found = by_pixels(
        screen,
        anchor_img,
        offset,
        expected=expected,
        threshold=threshold,
        margin=margin,
        unique=unique,
        context=context,
        scale_hint=scale_hint,
        shift_hint=shift_hint,
    )
    if not found.found or found.point is None or (twins is not None and twins <= 1):
        return found
    started = time.perf_counter() - found.elapsed_ms / 1000
    check = doubt_twins(
        screen, anchor_img, offset, found.point, found.scale, threshold=threshold, margin=margin
    )
    searched = found.searched + "+twins" * (check.places > 1)
    if check.refusal is None:
        return replace(found, searched=searched, elapsed_ms=ms_since(started))
    return replace(
        found,
        found=False,
        point=None,
        searched=searched,
        reason=check.refusal.text(),
        refusal=check.refusal,
        elapsed_ms=ms_since(started),
    )

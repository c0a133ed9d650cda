"""Blank boxes: an object that shows nothing but its face (an empty text area, a bare
canvas) has no place in it that tells one point from another, so a press in it keeps its
distance from the box's corner whatever its size. Used by the X-window rung (xwindows.py) and, for
an accessible whose content decides, the object rung (ladder.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np

from deskreel.storage.widgets import Box, Widget

from .compare.checks import Mask, VerifyOptions
from .objects import offset_in
from .params import PARAMS as P
from .search import Image, grayscale

__all__ = ["blank", "blank_both", "blank_face", "inside_rim"]


def blank_both(
    found: Widget, recorded: Widget, screen: Image, context: Image, moving: Sequence[Box]
) -> bool:
    """Whether the object found today (the window at the recorded path, the accessible at
    the recorded place) is blank then and now, whatever its size: nothing in it but its
    face, the same face, in a top-level of the recorded title (an empty editor at a bigger
    font, a bare canvas). No place in it tells one point from another but its corner, so
    the press keeps its distance from it (objects.offset_in), which must lie inside it."""
    if found.window != recorded.window:  # another dialog of the application, say
        return False
    if offset_in(found, recorded) is None:  # (a canvas that shrank: its point is gone)
        return False
    shift = (found.box[0] - recorded.box[0], found.box[1] - recorded.box[1])
    moved = [(x + shift[0], y + shift[1], w, h) for x, y, w, h in moving]
    then, now = blank_face(context, recorded.box, moving), blank_face(screen, found.box, moved)
    if then is None or now is None:
        return False
    return bool(np.abs(then - now).max() <= VerifyOptions().pixel_threshold)


def blank_face(image: Image, box: Box, moving: Sequence[Box]) -> Image | None:
    """The colour (RGB) of `box`'s face on `image` where the box (less its rim) shows
    nothing but it; None where it shows more, or lies off the screen. Where the recorder
    saw the screen keep changing (`moving`: a caret blinking) is not looked at, unless that
    hides more than a caret would (`P.blank_masked_most`)."""
    inside = inside_rim(image, box)
    if inside is None or min(box[2], box[3]) < P.blank_least:
        return None
    skip = _skipped(box, moving)
    if skip is not None and skip.mean() > P.blank_masked_most:
        return None
    if not blank(inside, skip):
        return None
    gray = grayscale(inside)
    face = int(np.bincount(gray.ravel(), minlength=256).argmax())
    return cast(Image, np.median(inside[gray == face], axis=0).astype(np.int16))


def blank(inside: Image, skip: Mask | None = None) -> bool:
    """Whether an object's box (less its rim, RGB) shows nothing but its face: no pixel off
    its commonest grey level by more than --verify's pixel threshold, but where `skip`
    (a mask of the box's shape) says what is shown there tells nothing (a blinking caret).
    Not a pixel more: a small label ("1", ".") is a few pixels too."""
    gray = grayscale(inside)
    face = int(np.bincount(gray.ravel(), minlength=256).argmax())
    off = np.abs(gray.astype(np.int16) - face) > VerifyOptions().pixel_threshold
    if skip is not None:
        off &= ~skip
    return not off.any()


def _skipped(box: Box, moving: Sequence[Box]) -> Mask | None:
    """Which pixels of `box` less its rim lie in one of the boxes `moving` (None: none)."""
    x, y, w, h = box
    r = P.window_rim
    mask = np.zeros((max(0, h - 2 * r), max(0, w - 2 * r)), bool)
    for mx, my, mw, mh in moving:
        left, top = max(mx, x + r), max(my, y + r)
        right, bottom = min(mx + mw, x + w - r), min(my + mh, y + h - r)
        if left < right and top < bottom:
            mask[top - y - r : bottom - y - r, left - x - r : right - x - r] = True
    return mask if mask.any() else None


def inside_rim(image: Image, box: tuple[int, ...]) -> Image | None:
    """The box less its rim of P.window_rim px, cut from `image`; None off the screen."""
    x, y, w, h = box
    r = P.window_rim
    if x < 0 or y < 0 or x + w > image.shape[1] or y + h > image.shape[0] or min(w, h) <= 2 * r:
        return None
    return image[y + r : y + h - r, x + r : x + w - r]

"""Effects by text: an effect that failed by its pixels, in a region that holds text (a
display's digits, a status line, a typed word), says what it reads then and today:
`reads '47' at [268, 63, 34, 29], recorded '46'`.

The region is read (matching/reading.py: recognition only, on the region's known box, its
masked pixels painted over) in the recorded after-frame and on today's screen where it is
expected. Where both read with confidence and say different things (letter for letter:
case kept, runs of spaces as one), the failure names both texts. Nothing is passed by its
text: a recogniser reads "10" and "1O", "46" and "4 6" alike, reads one glyph of a line
where only that glyph changed, and cannot see an underline or an icon lost beside the
right text; where the pixels fail, the step fails. Nothing here runs unless an effect
failed by its pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from typing import Any

import numpy as np
import numpy.typing as npt

from ..reading import UNREAD, Reader, Reading
from ..search import Box, Image, grayscale
from .checks import Check, Mask, clamp

__all__ = ["Screens", "by_text"]


@dataclass(frozen=True, slots=True)
class Screens:
    """What a text reading compares: the recorded after-frame (`keep`: the recorded pixels
    that count), and today's screen after the step."""

    after: Image
    keep: Mask
    today: Image


def by_text(checks: Sequence[Check], screens: Screens | None, read: Reader) -> list[Check]:
    """`checks` with each effect that failed by its pixels and reads otherwise than recorded
    naming both texts; all as they were without the screens it needs (`screens` None)."""
    if screens is None:
        return list(checks)
    return [_judged(c, screens, read) for c in checks]


def _judged(check: Check, s: Screens, read: Reader) -> Check:
    """`check`, failed naming both texts where they differ, or as it was."""
    if check.kind != "effect" or check.passed or check.match == "before":
        return check
    if check.expected is None:
        return check
    then = _read(read, s.after, check.box, s.keep, check.box)
    if not then.readable:
        return check  # no text there
    today = _read(read, s.today, check.expected, s.keep, check.box)
    if not today.readable or _said(today) == _said(then):
        return check
    return replace(check, match="text", said=(then.text, today.text))


def _read(read: Reader, image: Image, at: Box, keep: Mask, box: Box) -> Reading:
    """What `image` reads at `at`, with the recorded pixels that do not count at `box`
    (`keep`, resized to `at`) painted in the region's commonest grey."""
    import cv2

    region = grayscale(_part(image, at)).copy()
    kept = _part(keep, box)
    if region.size == 0 or not kept.any():
        return UNREAD
    if kept.shape != region.shape:
        size = (region.shape[1], region.shape[0])
        kept = cv2.resize(kept.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST) > 0
    if not kept.all():
        region[~kept] = int(np.bincount(region[kept].ravel(), minlength=256).argmax())
    return read(region)


def _said(reading: Reading) -> str:
    """What a reading says, letter for letter: case kept, runs of spaces as one."""
    return " ".join(reading.text.split())


def _part(image: npt.NDArray[Any], box: Box) -> npt.NDArray[Any]:
    """`image` (a screen or a mask) at `box`, cut to its edges."""
    x, y, w, h = clamp(box, image.shape[1], image.shape[0])
    return image[y : y + h, x : x + w]

"""Effects by text: an effect that failed by its pixels, in a region that holds text (a
display's digits, a status line, a typed word), says what it reads then and today:
`...; it reads '47' there, recorded '46'`.

The region is read (matching/reading.py: recognition only, on the region's known box, its
masked pixels painted over) in the recorded after-frame and on today's screen where it is
expected. Where both read with confidence and say different things (letter for letter:
case kept, runs of spaces as one), the failed check keeps both texts (Check.said). Nothing
is passed by its text: a recogniser reads "10" and "1O", "46" and "4 6" alike, reads one
glyph of a line where only that glyph changed, and cannot see an underline or an icon lost
beside the right text; where the pixels fail, the step fails. The replay reads a step's
failed effects once, when its verdict is final (not on each look of a caret's blink).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..reading import UNREAD, Reader, Reading
from ..search import Box, Image, grayscale
from .checks import Check, Mask, clamp, unmasked
from .content import crop

__all__ = ["named_by_text"]


def named_by_text(
    checks: Sequence[Check], after: Image, masks: Sequence[Box], screen: Image, read: Reader
) -> list[Check]:
    """`checks` with each effect that failed by its pixels and reads otherwise today than
    on the recorded after-frame `after` (`masks` painted over) keeping both texts."""
    keep = unmasked(after.shape, masks)
    return [_named(c, after, keep, screen, read) for c in checks]


def _named(check: Check, after: Image, keep: Mask, screen: Image, read: Reader) -> Check:
    """`check` keeping both texts where they differ, or as it was."""
    if check.kind != "effect" or check.passed or check.match == "before" or check.expected is None:
        return check
    then = _read(read, after, check.box, keep, check.box)
    if not then.readable:
        return check  # no text there
    today = _read(read, screen, check.expected, keep, check.box)
    if not today.readable or _letters(today) == _letters(then):
        return check
    return replace(check, said=(then.text, today.text))


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


def _letters(reading: Reading) -> str:
    """What a reading says, letter for letter: case kept, runs of spaces as one."""
    return " ".join(reading.text.split())


def _part(image: npt.NDArray[Any], box: Box) -> npt.NDArray[Any]:
    """`image` (a screen or a mask) at `box`, cut to its edges."""
    return crop(image, clamp(box, image.shape[1], image.shape[0]))

"""Effects by text: a region whose change the recording shows as text (a display's digits, a
typed line, a label that says another thing) is judged by what it reads, where its pixels
cannot judge it.

Another theme, font or scale draws the same text with other pixels, and a toolkit without
an accessibility tree (Xt, Tk) tells nothing else of it. So an effect that failed by its
pixels, at a place that today's screen drew otherwise than the recording before the step
too (in the same look, pixels judge), is read (matching/reading.py: recognition only, on
the region's known box, its masked pixels painted over) in the recorded before- and
after-frames and on today's screen before and after the step:
- when the recording reads otherwise after the step than before it, today's screen reads
  otherwise after the step than before it (the step changed the text, then and today),
  and today's screen reads what the recording reads after it, with confidence, letter for
  letter (case included; runs of spaces count as one), the effect passes (`match` "text");
- when both read with confidence and say different things ("46" recorded, "47" today), it
  still fails, and says both texts (however near they are: its pixels failed it already).
A region whose text the step did not change (a check box's tick beside its unchanged
label, a row highlighted) is never passed by its text: the text does not say what changed.
A failure that says the content was shown there before the step too stays as it is.
Nothing here runs unless an effect failed by its pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from typing import Any

import numpy as np
import numpy.typing as npt

from ..reading import UNREAD, Reader, Reading
from ..search import Box, Image, grayscale
from .checks import Check, Mask, VerifyOptions, clamp, passes
from .content import changed_pixels

__all__ = ["Screens", "by_text"]


@dataclass(frozen=True, slots=True)
class Screens:
    """What a text reading compares: the recorded frames around the step (`keep`: the
    recorded pixels that count), and today's screen after it and before it."""

    before: Image
    after: Image
    keep: Mask
    today: Image
    earlier: Image


def by_text(
    checks: Sequence[Check], screens: Screens | None, read: Reader, options: VerifyOptions
) -> list[Check]:
    """`checks` with each effect that failed by its pixels judged by its text, as the module
    says; all as they were without the screens it needs (`screens` None)."""
    if screens is None:
        return list(checks)
    return [_judged(c, screens, read, options) for c in checks]


def _judged(check: Check, s: Screens, read: Reader, options: VerifyOptions) -> Check:
    """`check` passed by its text, failed naming both texts, or as it was."""
    if check.kind != "effect" or check.passed or check.match == "before":
        return check
    if check.expected is None or _drawn_alike(check.box, check.expected, s, options):
        return check
    box, at = check.box, check.expected
    then = _read(read, s.after, box, s.keep, box)
    if not then.readable or _said(_read(read, s.before, box, s.keep, box)) == _said(then):
        return check  # no text there, or a change that is not in its text
    today = _read(read, s.today, at, s.keep, box)
    if not today.readable:
        return check
    said = (then.text, today.text)
    if _said(today) == _said(then) and _said(_read(read, s.earlier, at, s.keep, box)) != _said(
        today
    ):
        return replace(check, passed=True, match="text", said=said)
    if today.key != then.key:
        return replace(check, match="text", said=said)
    return check


def _drawn_alike(box: Box, at: Box, s: Screens, options: VerifyOptions) -> bool:
    """Whether today's screen before the step showed at `at` what the recording showed at
    `box` before it, pixel for pixel: the same look, where pixels judge the effect."""
    recorded, today = _part(s.before, box), _part(s.earlier, at)
    if recorded.shape[:2] != today.shape[:2]:
        return False
    keep = _part(s.keep, box)
    return passes(*changed_pixels(grayscale(recorded), grayscale(today), keep, options), options)


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

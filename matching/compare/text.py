"""Effects by text: a region whose change the recording shows as text (a display's digits, a
typed line, a label that says another thing) is judged by what it reads, where its pixels
fail.

Another theme, font or scale draws the same text with other pixels, and a toolkit without
an accessibility tree (Xt, Tk) tells nothing else of it. So an effect that failed by its
pixels is read (matching/reading.py: recognition only, on the region's known box) in the
recorded before- and after-frames and on today's screen where the region is expected:
- when the recording reads otherwise after the step than before it (the step changed the
  text there) and today's screen reads what the recording reads after it, the effect
  passes by its text (`match` "text");
- when both read with confidence and say different things ("46" recorded, "47" today), it
  still fails, and says both texts (however near they are: its pixels failed it already).
A region whose text the step did not change (a check box's tick beside its unchanged
label, a highlight) is never passed by its text: the text does not say what changed.
Nothing here runs unless an effect failed by its pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..reading import Reader, read_alike
from ..search import Box, Image
from .checks import Check

__all__ = ["by_text"]


def by_text(
    checks: Sequence[Check], before: Image | None, after: Image, screen: Image, read: Reader
) -> list[Check]:
    """`checks` with each failed effect whose recorded change is text judged by what it
    reads: passed where today's screen reads there what the recording read after the step;
    failed naming both texts where they differ with confidence; as it was otherwise."""
    if before is None or before.shape != after.shape:
        return list(checks)
    return [_read(c, before, after, screen, read) for c in checks]


def _read(check: Check, before: Image, after: Image, screen: Image, read: Reader) -> Check:
    if check.kind != "effect" or check.passed or check.expected is None:
        return check
    then = read(_crop(after, check.box))
    if not then.readable or read_alike(read(_crop(before, check.box)), then):
        return check  # no text, or a change that is not in the text
    today = read(_crop(screen, check.expected))
    said = (then.text, today.text)
    if read_alike(then, today):
        return replace(check, passed=True, match="text", said=said)
    if today.readable and today.key != then.key:
        return replace(check, match="text", said=said)
    return check


def _crop(image: Image, box: Box) -> Image:
    x, y, w, h = box
    height, width = image.shape[:2]
    return image[max(0, y) : min(height, y + h), max(0, x) : min(width, x + w)]

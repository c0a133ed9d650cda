"""An effect that restored what an earlier step's screen showed: a menu or a dialog closed,
and what it covered shows again.

What a closed window reveals is today's layout: a banner centred in a wider window, a
dialog's owner moved, text in another font. The recording cannot tell it, but today's
screen can: the recorded step restored, in the effect's region, what the recording showed
before an earlier step (the one that opened the window), so today's step must restore there
what today's screen showed before that step. Compared today against today, at the effect's
expected place, in any layout, theme or scale.

Only where the recorded effect is that restoration (the region's unmasked pixels as the
earlier before-frame shows them, within --verify's tolerance), and only where today's step
drew it: today's screen before the step showed something else there (the window was open
today too). A step that did nothing, after steps that opened nothing, restores nothing. And
only where all that today's step changed anywhere on the screen is that earlier screen
brought back, every pixel of it: a Cancel that closed its dialog and deleted a file anyway
(a row gone outside the dialog, which another layout keeps from being compared with the
recording) is no restoration. And only the latest earlier screen the recorded step brought
back, where it brought it back on the whole screen: an Undo that should undo one edit is no
return to the screen before two.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..params import PARAMS as P
from ..search import Box, Image, grayscale

from .checks import Check, Mask, VerifyOptions, passes
from .content import Views, changed_pixels, crop, view

__all__ = ["Restorable", "restored"]

# an earlier step's before-frame as recorded, and today's screen before that step
Restorable = tuple[Image | None, Image | None]


def restored(
    after: Image,
    seen: Views,
    box: Box,
    keep: Mask,
    failed: Check,
    earlier: Sequence[Restorable],
    options: VerifyOptions,
) -> Check | None:
    """The effect `box` (of the recorded `after`), which `failed` by its pixels, passed as
    restored by an `earlier` step's screen (latest first); None where none applies."""
    if seen.earlier is None or failed.expected is None:
        return None
    x, y, w, h = box
    shown = grayscale(crop(after, box))
    region_keep = keep[y : y + h, x : x + w]
    expected = failed.expected
    today, before = crop(seen.screen, expected), crop(seen.earlier, expected)
    everywhere: Mask = np.ones(today.shape, bool)
    # the latest earlier screen the recording brought back, of P.restored_back at most
    for recorded, then in earlier[: P.restored_back]:
        if recorded is None or then is None or recorded.shape != after.shape:
            continue
        then_shown = grayscale(crop(recorded, box))
        if not passes(*changed_pixels(shown, then_shown, region_keep, options), options):
            continue  # the recorded step did not bring this screen back here
        if not passes(
            *changed_pixels(grayscale(after), grayscale(recorded), keep, options), options
        ):
            return None  # nor anywhere else: an Undo of one edit, where another was undone too
        was = crop(view(then, failed.scale), expected)
        if was.shape != today.shape:
            return None
        if passes(*changed_pixels(was, before, everywhere, options), options):
            return None  # today's screen showed it before the step too: nothing was restored
        differ, patch = changed_pixels(was, today, everywhere, options)
        if not passes(differ, patch, options) or not _all_brought_back(
            seen, then, expected, failed.scale, options
        ):
            return None
        return Check(
            "effect",
            box,
            expected,
            1.0,
            round(differ, 4),
            patch,
            True,
            expected,
            "restored",
            failed.scale,
        )
    return None


def _all_brought_back(
    seen: Views, then: Image, expected: Box, scale: float, options: VerifyOptions
) -> bool:
    """Whether every pixel today's step changed outside the effect's place (`expected`)
    shows what today's screen showed before the earlier step (`then`): not one that does
    not (five unread marks of 4 px taken away beside a closed dialog are no tolerance)."""
    assert seen.earlier is not None
    earlier = view(then, scale)
    if earlier.shape != seen.screen.shape:
        return False
    thr = options.pixel_threshold
    other = (np.abs(seen.screen.astype(np.int16) - seen.earlier) > thr) & (
        np.abs(seen.screen.astype(np.int16) - earlier) > thr
    )
    x, y, w, h = expected
    other[y : y + h, x : x + w] = False
    return not other.any()

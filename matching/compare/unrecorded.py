"""Verify's other direction: what a step changed on today's screen where the recording shows
no change.

effects.py looks for each region the step changed in the recording on today's screen, so
a step that today also changed something else (a status line that now says another thing,
a message that appeared) would pass. What changed on today's screen from before the step
to after it is taken apart from the recorded effects (where they were expected and where
they were found) and the masks; each place that is left is taken back to its recorded
place and compared where it can be: where today's screen before the step showed what the
recording showed before it. There the recording, which shows no change, also tells what
the place should show after the step, and today's screen must show it at that same place
(never at the best match near it: a row of look-alikes matches anywhere along it).
Where today's screen before the step showed something else (another layout, theme or
scale, the pointer elsewhere and the hover it left), nothing tells what the place should
show, and it is not compared. A text caret's bar (P.caret_widest by P.caret_tallest, at
the step's scale) blinking is no change.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..params import PARAMS as P
from ..search import Box, Image
from .checks import Check, Mapper, Mask, VerifyOptions, clamp, passes
from .content import Content, Views, changed_boxes

__all__ = ["KIND", "unrecorded"]

KIND = "unrecorded"  # a Check's kind: a change today where the recording shows none


def unrecorded(
    before: Image,
    after: Image,
    seen: Views,
    mapper: Mapper,
    keep: Mask,
    options: VerifyOptions,
    effects: Sequence[Box],
    found: Sequence[Box],
    later: Image | None = None,
    mapped: Sequence[Box] | None = None,
) -> list[Check]:
    """A check of each place today's screen changed during the step apart from the
    recorded `effects` (recorded boxes; `found`: where today's screen showed them) and the
    masks (`keep`), where its screen before the step showed what the recorded `before`
    shows: there it must show after the step what `after` shows, or what `later` (the
    recorded screen just before the next step, the same size) shows: the recording saw
    the place change so before the next step (a message timed out, a late drawing).
    `mapped`: the effects covered at their mapped place today (all where not given; an
    effect judged where its window opened is covered only where it was found)."""
    earlier = seen.before_step()
    if earlier is None or before.shape != after.shape:
        return []
    height, width = after.shape[:2]
    covered = [*(mapper.box(box) for box in (effects if mapped is None else mapped)), *found]
    today = _today_keep(keep, mapper, seen.screen.shape[:2], covered)
    recorded = _keep_apart(keep, [*effects, *(mapper.back(box) for box in found)])
    checks = []
    for box in changed_boxes(earlier.screen, seen.screen, today, options, most=P.unrecorded_most):
        if _caret(earlier.screen, seen.screen, box, options, mapper.scale):
            continue
        back = clamp(mapper.back(box), width, height)
        if min(back[2:]) < P.effect_join:
            continue  # a sliver at the recorded screen's edge: it would match anything
        check = _compared(before, (after, later), earlier, seen, back, mapper, recorded, options)
        if check is not None:
            checks.append(check)
    return checks


def _compared(
    before: Image,
    afters: tuple[Image, Image | None],
    earlier: Views,
    seen: Views,
    box: Box,
    mapper: Mapper,
    keep: Mask,
    options: VerifyOptions,
) -> Check | None:
    """`box` (recorded) at its place today, where today's screen before the step showed
    what `before` shows there: today's screen after the step against the recorded after-
    frame, else the later frame (`afters`; match "later" where that one passes); None where
    it showed something else, or the place is not whole on today's screen. The very place,
    never the best match near it: a row of look-alikes matches anywhere along it."""
    shown = Content(before, box, keep, mapper.scale, options)
    x, y, _, _ = mapper.box(box)
    height, width = seen.screen.shape[:2]
    if x < 0 or y < 0 or x + shown.width > width or y + shown.height > height:
        return None
    if not shown.passes(earlier.screen, x, y):
        return None
    place = (x, y, shown.width, shown.height)
    check = None
    for frame, match in zip(afters, ("near", "later"), strict=True):
        if frame is None or frame.shape != before.shape:
            continue
        content = Content(frame, box, keep, mapper.scale, options)
        changed, patch = content.changed(seen.screen, x, y)
        passed = passes(changed, patch, options)
        if check is None or passed:
            check = Check(
                KIND, box, place, round(1.0 - changed, 4), round(changed, 4), patch, passed,
                place, match, mapper.scale,
            )  # fmt: skip
        if passed:
            break
    return check


def _today_keep(keep: Mask, mapper: Mapper, shape: tuple[int, ...], covered: Sequence[Box]) -> Mask:
    """Which of today's pixels count: the recorded `keep` (masks painted out) at today's
    places, outside the `covered` boxes (today's)."""
    import cv2

    (tx, ty), (lx, ly), s = mapper.target, mapper.located, mapper.scale
    move = np.array([[s, 0, lx - tx * s], [0, s, ly - ty * s]], np.float32)
    height, width = shape[:2]
    today = cv2.warpAffine(
        keep.astype(np.uint8),
        move,
        (width, height),
        flags=cv2.INTER_NEAREST,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=1,
    ).astype(bool)
    return _keep_apart(today, covered)


def _keep_apart(keep: Mask, boxes: Sequence[Box]) -> Mask:
    """`keep` with `boxes` painted out."""
    out = keep.copy()
    for x, y, w, h in boxes:
        out[max(y, 0) : max(y + h, 0), max(x, 0) : max(x + w, 0)] = False
    return out


def _caret(first: Image, then: Image, box: Box, options: VerifyOptions, scale: float) -> bool:
    """Whether what changed in `box` is one bar a text caret can be, at `scale` (blurred
    there by a pixel or so each side: content.view)."""
    x, y, w, h = box
    a = first[y : y + h, x : x + w].astype(np.int16)
    changed = np.abs(a - then[y : y + h, x : x + w]) > options.pixel_threshold
    rows, cols = np.nonzero(changed.any(axis=1))[0], np.nonzero(changed.any(axis=0))[0]
    if not len(rows):
        return True
    blur = 0 if scale == 1.0 else 2
    tall, wide = rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1
    return bool(wide <= P.caret_widest * scale + blur and tall <= P.caret_tallest * scale + blur)

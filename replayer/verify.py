"""Verification: after a step settles, does the screen show what the recording showed?

Three kinds of check, all in recorded coordinates mapped through the step's shift and scale:
- object: a pointer step's object (what its toolkit named, or its anchor's pixels) was found
  today, with its box then and now; a pointer step not looked for (no anchor, --no-anchor)
  gets a target check instead: the recorded pixels around its press, found near it;
- effect: each region that the action changed in the recording (before vs after) shows its
  recorded content on today's screen, near where it was or, failing that, somewhere else
  where the step made it appear (a reordered layout): content that today's screen showed
  there before the step too (a duplicate, a look-alike) is no effect of the step and never
  passes it. Under another theme an effect passes in other colours: the recorded pixels
  under one straight-line change of grey levels (replayer/recolour.py);
- checkpoint: a `screenshot` step's region (or the whole screen) matches, pixel by pixel.
A check whose content is not found is compared where it differs least, at its expected
place or at the best match within 48 px of it, and says so.
Pixels differ when their grayscale values differ by more than `pixel_threshold` (below that
is anti-aliasing and rendering noise); a check passes when at most `tolerance` of its
pixels differ and no patch of more than `max_patch` adjacent pixels differs (a changed word
in a large region is a small fraction but a solid patch). Masked regions (a clock, a
blinking cursor) are never compared.

Where recorded content is on today's screen, and how many of its pixels differ there, is
`content`; at another scale the comparison is part by part, in `scaled`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from deskreel.matching import PARAMS as P
from deskreel.matching import Box, Image, Point, grayscale
from deskreel.storage import POINTER_ACTIONS

from .checks import Aimed, Check, Mapper, Mask, VerifyOptions, clamp, object_check
from .content import Views, checkpoint, find

__all__ = ["Check", "VerifyOptions", "checks_for", "diff_image", "settled_screen"]


def checks_for(
    *,
    action: str,
    before: Image | None,
    after: Image | None,
    screen: Image,
    target: Point | None,
    located: Point | None,
    scale: float,
    shift: Point = (0, 0),
    region: Box | None,
    masks: Sequence[Box],
    options: VerifyOptions,
    earlier: Image | None = None,
    aimed: Aimed | None = None,
) -> list[Check]:
    """Every check of one step; empty when the recording has no frames to compare with.

    `screen` is today's screen once the step settled, `earlier` today's screen before the
    step: an effect's recorded content found far from its place passes only where `earlier`
    did not show it (without `earlier`, only near its place).

    `target` (the step's recorded target, None for a step without one), `located` (the same
    place today, None when it was not looked for) and `scale` (the scale it was found at)
    map recorded places to today's. `aimed` is what a pointer step's target was found as,
    where it was looked for: it gets a check of its own.
    `shift` is where the recorded screen's origin is today (a recorded place p is at
    shift + p * scale): it maps places when `located` is unknown.
    """
    if after is None:
        return []
    mapper = Mapper(target, located, scale, shift)
    keep = _unmasked(after.shape, masks)
    seen = Views(screen, earlier, scale)
    if action == "screenshot":
        box = region or (0, 0, after.shape[1], after.shape[0])
        return [checkpoint(after, seen, box, mapper, keep, options)]
    checks = []
    if aimed is not None and action in POINTER_ACTIONS:
        checks.append(object_check(aimed))
    elif target is not None and action in POINTER_ACTIONS:
        # not looked for (no anchor, --no-anchor): nothing but the pixels around the press
        # tells that it landed on what the recording pressed (a renamed button)
        box = _around(target, after.shape)
        checks.append(find("target", after, seen, box, mapper, keep, options, far=False))
    if before is not None and before.shape == after.shape:
        for box in _effects(before, after, keep, options):
            checks.append(find("effect", after, seen, box, mapper, keep, options))
    return checks


def settled_screen(
    grab: Callable[[], Image],
    *,
    settle: float,
    cap: float,
    pause: Callable[[float], None],
    clock: Callable[[], float] = time.monotonic,
) -> Image:
    """Grab until the screen stays the same for `settle` s (or `cap` s have passed)."""
    started = clock()
    last = grab()
    stable_since = clock()
    while clock() - stable_since < settle and clock() - started < cap:
        pause(0.05)
        now = grab()
        if now.shape != last.shape or not np.array_equal(now, last):
            last, stable_since = now, clock()
    return last


def diff_image(screen: Image, checks: Sequence[Check]) -> Image:
    """Today's screen with each failed check's expected place in yellow, and where its
    content was compared in red."""
    import cv2

    out = screen.copy()
    for check in checks:
        if check.passed:
            continue
        x, y, w, h = check.expected or check.box
        cv2.rectangle(out, (x, y), (x + w, y + h), (255, 200, 0), 2)
        if check.found_at:
            fx, fy, fw, fh = check.found_at
            cv2.rectangle(out, (fx, fy), (fx + fw, fy + fh), (255, 0, 0), 2)
    return out


def _unmasked(shape: tuple[int, ...], masks: Sequence[Box]) -> Mask:
    keep = np.ones(shape[:2], bool)
    for x, y, w, h in masks:
        keep[max(y, 0) : y + h, max(x, 0) : x + w] = False
    return keep


def _effects(before: Image, after: Image, keep: Mask, options: VerifyOptions) -> list[Box]:
    """Boxes around what the action changed on the recorded screen, largest first."""
    import cv2

    changed = (
        np.abs(grayscale(before).astype(np.int16) - grayscale(after)) > options.pixel_threshold
    )
    changed &= keep
    if not changed.any():
        return []
    grown = cv2.dilate(changed.astype(np.uint8), np.ones((9, 9), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown)
    boxes = [
        tuple(int(v) for v in stats[i][:4])
        for i in range(1, count)
        if stats[i][4] >= P.effect_least
    ]
    boxes.sort(key=lambda b: -b[2] * b[3])
    height, width = after.shape[:2]
    pad = P.effect_pad
    return [
        clamp((x - pad, y - pad, w + 2 * pad, h + 2 * pad), width, height)
        for x, y, w, h in boxes[: P.effects_most]
    ]


def _around(target: Point, shape: tuple[int, ...]) -> Box:
    """The recorded pixels around a press that was not looked for."""
    w, h = P.around_press
    return clamp((target[0] - w // 2, target[1] - h // 2, w, h), shape[1], shape[0])

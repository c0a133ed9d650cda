"""Verification: after a step settles, does the screen show what the recording showed?

Four kinds of check, all in recorded coordinates mapped through the step's shift and scale:
- object: a pointer step's object (what its toolkit named, or its anchor's pixels) was found
  today, with its box then and now; a pointer step not looked for (no anchor, --no-anchor)
  gets a target check instead: the recorded pixels around its press, found near it;
- effect: each region that the action changed in the recording (before vs after) shows its
  recorded content on today's screen, near where it was or, failing that, somewhere else
  where the step made it appear (a reordered layout): content that today's screen showed
  there before the step too (a duplicate, a look-alike) is no effect of the step and never
  passes it. Under another theme an effect passes in other colours: the recorded pixels
  under one straight-line change of grey levels (recolour.py);
- unrecorded: each place the step changed on today's screen where the recording shows no
  change, compared with the recording where today's screen showed what it showed before the
  step (unrecorded.py): a message that appeared, a status line that says another thing;
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

The checks of a step are rows of `CHECKS`, in order, each a small function of the step's
comparison (`Compared`) that returns its checks; a failed check tells its typed
`Difference` (checks.py). The replayer grabs and settles today's screen (replayer/verify.py)
and calls `checks_for`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace


from deskreel.storage import POINTER_ACTIONS

from ..params import PARAMS as P
from ..search import Box, Image, Point
from .checks import Aimed, Check, Mapper, Mask, VerifyOptions, clamp, object_check, unmasked
from .content import Views, changed_boxes, changed_mask, checkpoint, find
from .meaning import Said, by_meaning, meaning_check
from .restored import Restorable, restored
from .unrecorded import KIND, unrecorded
from .windows import Moved, StepWindows, in_window, windows_moved

__all__ = ["CHECKS", "Compared", "checks_for", "diff_image"]


@dataclass(frozen=True, slots=True)
class Compared:
    """One step's recorded frames against today's screen, as every check sees them."""

    action: str
    before: Image | None  # recorded, before the step
    after: Image  # recorded, after it
    seen: Views  # today's screens, after the step and before it
    mapper: Mapper  # recorded places to today's
    keep: Mask  # the recorded pixels that count (masks painted out)
    options: VerifyOptions
    target: Point | None  # the step's recorded target
    aimed: Aimed | None  # what a pointer step's target was found as, where looked for
    region: Box | None  # a screenshot step's region
    said: Said | None = None  # what a pointer step's object said after it, then and today
    effects: tuple[Box, ...] = ()  # the regions the step changed in the recording (recorded)
    settled: bool = True  # the recorded after-frame was seen to settle
    later: Image | None = None  # recorded, just before the next step
    # per effect, the window the step opened that holds it, then and today (windows.py)
    opened: tuple[Moved | None, ...] = ()
    changed: Mask | None = None  # the recorded pixels the step changed (content.py)
    # earlier steps' before-frames, recorded and today, latest first (restored.py)
    restorable: tuple[Restorable, ...] = ()


def _checkpoint(c: Compared, _done: list[Check]) -> list[Check]:
    """A `screenshot` step's region (or the whole screen) matches, pixel by pixel."""
    if c.action != "screenshot":
        return []
    box = c.region or (0, 0, c.after.shape[1], c.after.shape[0])
    return [checkpoint(c.after, c.seen, box, c.mapper, c.keep, c.options)]


def _object(c: Compared, _done: list[Check]) -> list[Check]:
    """A pointer step's object (its toolkit's, or its anchor's pixels) was found today."""
    if c.aimed is None or c.action not in POINTER_ACTIONS:
        return []
    return [object_check(c.aimed)]


def _meaning(c: Compared, _done: list[Check]) -> list[Check]:
    """A pointer step's object says after the step what it said when recorded."""
    return [meaning_check(c.said)] if c.said is not None else []


def _target(c: Compared, _done: list[Check]) -> list[Check]:
    """A pointer step not looked for (no anchor, --no-anchor): nothing but the pixels around
    the press tells that it landed on what the recording pressed (a renamed button)."""
    if c.aimed is not None or c.target is None or c.action not in POINTER_ACTIONS:
        return []
    box = _around(c.target, c.after.shape)
    return [find("target", c.after, c.seen, box, c.mapper, c.keep, c.options, far=False)]


def _effect(c: Compared, _done: list[Check]) -> list[Check]:
    """Each region the action changed in the recording shows its recorded content today;
    one in a window the step opened, where that window is (windows.py)."""
    opened = c.opened or (None,) * len(c.effects)
    return [_one_effect(c, box, window) for box, window in zip(c.effects, opened, strict=True)]


def _one_effect(c: Compared, box: Box, window: Moved | None) -> Check:
    if window is None:
        check = find("effect", c.after, c.seen, box, c.mapper, c.keep, c.options, changed=c.changed)
        if check.passed or not c.restorable:
            return check
        back = restored(c.after, c.seen, box, c.keep, check, c.restorable, c.options)
        return check if back is None else back
    (x, y, w, h), (rx, ry, rw, rh), (tx, ty, _, _) = box, window.recorded, window.today
    x0, y0 = max(x, rx), max(y, ry)
    inside = (x0, y0, min(x + w, rx + rw) - x0, min(y + h, ry + rh) - y0)
    mapper = Mapper(None, None, 1.0, (tx - rx, ty - ry))
    return find(
        "effect", c.after, c.seen, inside, mapper, c.keep, c.options, far=False, changed=c.changed
    )


def _unrecorded(c: Compared, done: list[Check]) -> list[Check]:
    """Each place the step changed today but not in the recording shows, where today's
    screen before the step showed what the recording did, what the recording shows after
    it (unrecorded.py). Not where the recorded after-frame did not settle: the rest of
    an effect not drawn yet then is no change the recording did not show."""
    if c.action == "screenshot" or c.before is None or c.before.shape != c.after.shape:
        return []
    if not c.settled:
        return []
    # where today's screen showed a recorded effect: a failed one's best match is no find
    found = [k.found_at for k in done if k.kind == "effect" and k.passed and k.found_at]
    # an effect judged where its window opened is covered there, not at its mapped place
    mapped = [box for box, w in zip(c.effects, c.opened or (None,) * len(c.effects)) if w is None]
    return unrecorded(
        c.before, c.after, c.seen, c.mapper, c.keep, c.options, c.effects, found, c.later, mapped
    )


# The checks of a step, in order: each returns its checks (none where it does not apply),
# given the step's comparison and the checks of the rows before it.
CHECKS: tuple[tuple[str, Callable[[Compared, list[Check]], list[Check]]], ...] = (
    ("checkpoint", _checkpoint),
    ("object", _object),
    ("meaning", _meaning),
    ("target", _target),
    ("effect", _effect),
    (KIND, _unrecorded),
)


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
    said: Said | None = None,
    settled: bool = True,
    later: Image | None = None,
    windows: StepWindows | None = None,
    restorable: Sequence[Restorable] = (),
) -> list[Check]:
    """Every check of one step (the rows of CHECKS); empty when the recording has no frames
    to compare with.

    `screen` is today's screen once the step settled, `earlier` today's screen before the
    step: an effect's recorded content found far from its place passes only where `earlier`
    did not show it (without `earlier`, only near its place).

    `target` (the step's recorded target, None for a step without one), `located` (the same
    place today, None when it was not looked for) and `scale` (the scale it was found at)
    map recorded places to today's. `aimed` is what a pointer step's target was found as,
    where it was looked for: it gets a check of its own. `said` is what its object said
    after the step, then and today: an effect inside it is judged by that (meaning.py).
    `shift` is where the recorded screen's origin is today (a recorded place p is at
    shift + p * scale): it maps places when `located` is unknown. `settled`: whether the
    recorded after-frame was seen to settle (a step's after_settled); `later` the
    recorded screen just before the next step that is input (its before-frame): a place
    the step changed today as the recording shows it by then passes (unrecorded.py).
    `windows`: the top-level windows the step opened today, as the X server told
    (windows.py). `restorable`: the before-frames of the steps before it, recorded and
    today's screen then, latest first: an effect that brought one back (a menu closed)
    passes where today's step brought today's back (restored.py).
    """
    if after is None:
        return []
    keep = unmasked(after.shape, masks)
    effects = (
        changed_boxes(before, after, keep, options)
        if action != "screenshot" and before is not None and before.shape == after.shape
        else []
    )
    moved = (
        windows_moved(before, after, screen, windows, options)
        if windows is not None and effects and scale == 1.0 and before is not None
        else []
    )
    changed = changed_mask(before, after, keep, options) if effects and before is not None else None
    opened = tuple(
        in_window(changed, box, moved) if moved and changed is not None else None for box in effects
    )
    compared = Compared(
        action, before, after, Views.of(screen, earlier, scale),
        Mapper(target, located, scale, shift), keep, options,
        target, aimed, region, said, tuple(effects), settled, later, opened, changed,
        tuple(restorable),
    )  # fmt: skip
    done: list[Check] = []
    for _, run in CHECKS:
        done += run(compared, done)
    checks = by_meaning(done)
    return [replace(check, difference=check.differs(options)) for check in checks]


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


def _around(target: Point, shape: tuple[int, ...]) -> Box:
    """The recorded pixels around a press that was not looked for."""
    w, h = P.around_press
    return clamp((target[0] - w // 2, target[1] - h // 2, w, h), shape[1], shape[0])

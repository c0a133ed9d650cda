"""What --verify decides with: its options, one check's verdict, how recorded places map to
today's, and when a fraction of differing pixels fails a check."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..params import PARAMS as P
from ..refusal import AT_MOST, rule_text
from ..search import Box, Image, Point, grayscale

__all__ = [
    "DIFFERENCES",
    "Aimed",
    "Check",
    "Difference",
    "Mapper",
    "Mask",
    "VerifyOptions",
    "carets_only",
    "clamp",
    "drawn_by_step",
    "holds_centre",
    "measured",
    "object_check",
    "passes",
    "unmasked",
]

Mask = npt.NDArray[np.bool_]  # which pixels count (or differ)


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    tolerance: float = 0.02  # fraction of a check's pixels that may differ
    pixel_threshold: int = 40  # grayscale difference (0-255) that counts as a changed pixel
    max_patch: int = 12  # px: a larger patch of adjacent differing pixels fails a check
    match_threshold: float = 0.9  # correlation for recorded content to count as present
    masks: tuple[Box, ...] = ()  # recorded coordinates, for every step
    settle: float = 0.3  # s the screen must stay unchanged after a step
    settle_cap: float = 3.0  # s after which the screen is taken as it is
    # s a failed step's screen is watched for a text caret's other phase (replayer/verify.py):
    # one blink (GTK's gtk-cursor-blink-time 1.2 s, Qt's 1.0 s, Tk's 0.9 s), or what the
    # desktop's settings manager tells (Net/CursorBlinkTime; 0 where carets do not blink)
    blink: float = 1.2
    keep_going: bool = False


# Each way a check can fail, written once: the words for its measure, and whether the
# measure must reach what is needed (at least) or stay within it (AT_MOST).
DIFFERENCES: dict[str, tuple[str, str]] = {
    "not-found": ("what the step acted on is found today:", ""),
    "nowhere": ("its recorded content matches near its place at best", ""),
    "shown-before": ("it appeared during the step (it was shown there before it too):", ""),
    "pixels": ("the fraction of its pixels that differ:", AT_MOST),
    "patch": ("px in the largest patch of differing pixels:", AT_MOST),
    "meaning": ("its object says after the step what it said when recorded:", ""),
}


@dataclass(frozen=True, slots=True)
class Difference:
    """Why a check failed, as a value: `rule` (a key of DIFFERENCES) measured `measured` in
    `where` (today's screen, where it was compared) and needed `needed`."""

    rule: str
    measured: float
    needed: float
    where: Box | None = None

    def __post_init__(self) -> None:
        if self.rule not in DIFFERENCES:
            raise ValueError(f"no such difference: {self.rule!r}")

    def text(self) -> str:
        return rule_text(DIFFERENCES[self.rule], self.measured, self.needed)

    @classmethod
    def from_json(cls, data: object) -> Difference | None:
        if not isinstance(data, dict) or data.get("rule") not in DIFFERENCES:
            return None
        where = data.get("where")
        return cls(
            str(data["rule"]),
            float(data["measured"]),
            float(data["needed"]),
            _box(where) if where else None,
        )


@dataclass(frozen=True, slots=True)
class Check:
    # object (what a pointer step acted on, found today), target (around the press of a
    # pointer step not looked for), effect, unrecorded (a change today where the recording
    # shows none: compare/unrecorded.py), checkpoint, meaning
    kind: str
    box: Box  # recorded coordinates
    found_at: Box | None  # where its content is on today's screen
    score: float
    changed: float  # fraction of its pixels that differ
    patch: int  # px in the largest patch of adjacent differing pixels
    passed: bool
    expected: Box | None = None  # its recorded place, mapped onto today's screen
    # near: found near its expected place; far: found elsewhere, where it appeared during
    # the step; recoloured: found in other colours (recolour.py); before: found
    # only where the screen showed it before the step too; none: not found,
    # compared at the best match near its expected place; later: (unrecorded) as the
    # recording shows it just before the next step; meaning: inside an object that
    # says after the step what it said when recorded (compare/meaning.py, `label` names it);
    # restored: as today's screen showed it before an earlier step (compare/restored.py)
    match: str = "near"
    scale: float = 1.0  # compared at this scale, part by part when not 1
    label: str = ""  # an object check's object: `push button 'Apply'`; "" its pixels
    difference: Difference | None = None  # why it failed (differs()), once it is judged
    # a meaning check's (compare/meaning.py): what its object said after the step when
    # recorded, and today (After.describe, or what else today's question named); a failed
    # effect's (compare/text.py): what its region read in the recording, and today
    said: tuple[str, ...] = ()

    def differs(self, options: VerifyOptions) -> Difference | None:
        """Why this check failed, by the first rule it breaks; None when it passed."""
        if self.passed:
            return None
        where = self.found_at or self.expected
        if self.kind == "object":
            return Difference("not-found", 0, 1, self.box)
        if self.kind == "meaning":
            return Difference("meaning", 0, 1, where)
        if self.match == "before":
            return Difference("shown-before", 0, 1, self.found_at)
        if self.match == "none" and self.score < options.match_threshold:
            return Difference("nowhere", self.score, options.match_threshold, self.expected)
        if self.patch > options.max_patch and self.changed <= options.tolerance:
            return Difference("patch", self.patch, options.max_patch, where)
        return Difference("pixels", self.changed, options.tolerance, where)

    def describe(self) -> str:
        """The check in words; a failed effect says what its region read then and today,
        where it was read (compare/text.py)."""
        words = self._words()
        if self.kind == "effect" and self.said and not self.passed:
            words += f"; it {self.said_words()}"
        return words

    def said_words(self) -> str:
        """What `said` holds, in words: a meaning check's object and its two states, or
        what a failed effect's region reads today and read in the recording."""
        then, now = self.then_and_now()
        if self.kind == "meaning":
            return f"{self.label}: recorded {then}, today {now}"
        return f"reads {now!r} there, recorded {then!r}"

    def _words(self) -> str:
        if self.kind == "object":
            what = f"object {self.label}" if self.label else "object (its anchor's pixels)"
            if not self.passed:
                return f"{what}: not found today"
            return f"{what}: found at {list(self.found_at or ())}"
        if self.kind == "meaning":
            then, now = self.then_and_now()
            if self.passed:
                return f"{self.label} says {now} after the step, as recorded"
            return f"{self.label} after the step: recorded {then}, today {now}"
        if self.kind == "unrecorded" and not self.passed:
            return (
                f"{list(self.expected or self.box)} changed during the step, where the "
                f"recording shows no change: {self._differ()} against the recording there"
            )
        if self.match == "meaning":
            return f"{self.kind} {list(self.box)}: inside {self.label}, which says as recorded"
        differ = self._differ()
        if self.match == "none":
            place = list(self.expected) if self.expected else "its place"
            return (
                f"{self.kind} {list(self.box)}: not found near {place} (best match "
                f"{self.score:.3f} within {P.content_near} px), {differ} there"
            )
        where = f"at {list(self.found_at)}" if self.found_at else "nowhere"
        if self.match == "before":
            return (
                f"{self.kind} {list(self.box)}: at {list(self.found_at or ())}, but shown "
                f"there before the step too: no effect of it"
            )
        if self.match == "recoloured":
            return f"{self.kind} {list(self.box)}: in other colours {where}, {differ}"
        if self.match == "far":
            where += " (appeared there during the step)"
        if self.match == "later":
            where += " (as the recording shows it just before the next step)"
        return f"{self.kind} {list(self.box)}: best match {self.score:.3f} {where}, {differ}"

    def then_and_now(self) -> tuple[str, str]:
        """What `said` holds: the recording's words and today's ("?" where missing)."""
        then, now = (*self.said, "?", "?")[:2]
        return then, now

    def _differ(self) -> str:
        differ = f"{self.changed * 100:.1f}% of pixels differ (largest patch {self.patch} px)"
        return differ + (f", compared at {self.scale:g}x" if self.scale != 1.0 else "")

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Check | None:
        """A check as `to_json` wrote it, by this or another deskreel; None when it cannot
        be read as one."""
        try:
            return cls(
                kind=str(data["kind"]),
                box=_box(data["box"]),
                found_at=_box(data["found_at"]) if data.get("found_at") else None,
                score=float(data.get("score") or 0.0),
                changed=float(data.get("changed") or 0.0),
                patch=int(data.get("patch", 0)),
                passed=bool(data["passed"]),
                expected=_box(data["expected"]) if data.get("expected") else None,
                match=str(data.get("match", "near")),
                scale=float(data.get("scale", 1.0)),
                label=str(data.get("label", "")),
                difference=Difference.from_json(data.get("difference")),
                said=tuple(str(v) for v in data.get("said") or ())[:2],
            )
        except (KeyError, TypeError, ValueError, OverflowError):
            return None


def _box(value: object) -> Box:
    x, y, w, h = (int(v) for v in value)  # type: ignore[attr-defined]
    return (x, y, w, h)


@dataclass(frozen=True, slots=True)
class Aimed:
    """What a pointer step acted on, as the replay found it before acting: its object (the
    toolkit's, or the anchor's pixels), its box on the recorded screen and today's."""

    label: str  # `push button 'Apply'`; "" for an anchor's pixels
    recorded: Box
    today: Box | None  # None: not found today
    score: float = 1.0  # how sure the finding was (1 for an object its toolkit named)


def object_check(aimed: Aimed) -> Check:
    """A pointer step's first check: its object was found today (verify v2 then looks for
    the step's effect, not for the pixels of a fixed box around the press)."""
    found = aimed.today is not None
    return Check(
        "object",
        aimed.recorded,
        aimed.today,
        round(aimed.score, 4) if found else 0.0,
        0.0 if found else 1.0,
        0,
        found,
        aimed.today,
        "near" if found else "none",
        label=aimed.label,
    )


class Mapper:
    """Recorded coordinates to today's: relative to the target (or else the origin) through
    the shift and scale."""

    def __init__(
        self, target: Point | None, located: Point | None, scale: float, shift: Point = (0, 0)
    ):
        where: tuple[float, float]
        if target is None:
            target, where = (0, 0), shift
        elif located is None:  # not looked for: where the screen's origin puts it
            where = (shift[0] + target[0] * scale, shift[1] + target[1] * scale)
        else:
            where = located
        self.target, self.located, self.scale = target, where, scale

    def box(self, box: Box) -> Box:
        x, y, w, h = box
        tx, ty = self.target
        lx, ly = self.located
        s = self.scale
        return (round(lx + (x - tx) * s), round(ly + (y - ty) * s), round(w * s), round(h * s))

    def back(self, box: Box) -> Box:
        """A box of today's screen at its recorded place: `box` undone."""
        x, y, w, h = box
        tx, ty = self.target
        lx, ly = self.located
        s = self.scale
        return (round(tx + (x - lx) / s), round(ty + (y - ly) / s), round(w / s), round(h / s))


def carets_only(first: Image, then: Image, options: VerifyOptions) -> bool:
    """Whether what changed from the screen `first` to `then` (RGB or grey, the same size)
    is a text caret blinking and nothing else: some pixels, each patch of them a bar at most
    P.caret_widest px wide and P.caret_tallest px tall. A message flashing, an effect
    arriving late or a spinner turning is more than that."""
    import cv2

    if first.shape != then.shape:
        return False
    a, b = (grayscale(i).astype(np.int16) for i in (first, then))
    diff = (np.abs(a - b) > options.pixel_threshold).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(diff, connectivity=8)
    if count < 2:
        return False
    widths, heights = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    return bool((widths <= P.caret_widest).all() and (heights <= P.caret_tallest).all())


def passes(changed: float, patch: int, options: VerifyOptions) -> bool:
    return changed <= options.tolerance and patch <= options.max_patch


def measured(diff: Mask, keep: Mask) -> tuple[float, int]:
    """The fraction of `keep`'s pixels that `diff` marks, and its largest patch (px)."""
    import cv2

    if not diff.any():
        return 0.0, 0
    count, _, stats, _ = cv2.connectedComponentsWithStats(diff.astype(np.uint8), connectivity=8)
    patch = int(stats[1:, cv2.CC_STAT_AREA].max()) if count > 1 else 0
    return float(diff.sum()) / float(keep.sum()), patch


def drawn_by_step(
    expected: npt.NDArray[Any],
    today: Image,
    earlier: Image,
    keep: Mask,
    context: Mask,
    options: VerifyOptions,
) -> tuple[float, int] | None:
    """The differing pixels of a region whose `expected` look (what today's screen should
    show, in today's colours) is compared with `today`, where a pixel of its `context` (not
    the recorded change) that today's step did not change either (`earlier`, today's screen
    before the step, shows it alike) does not count: neither step drew it, so it differs by
    the layout around the effect, not by what the step did. None where today's step did
    not draw most of what it had to draw there to show the recorded change
    (P.drawn_share of the change's pixels that `earlier` did not show): a look-alike
    that was there before the step is no effect of it, and its surroundings count."""
    thr = options.pixel_threshold
    steady = np.abs(today.astype(np.float32) - earlier) <= thr
    needed = keep & ~context & (np.abs(expected - earlier.astype(np.float32)) > thr)
    if not needed.any() or (needed & ~steady).sum() < P.drawn_share * needed.sum():
        return None
    diff = np.abs(expected - today.astype(np.float32)) > thr
    return measured(diff & keep & ~(context & steady), keep)


def holds_centre(box: Box, expected: Box) -> bool:
    """Whether `box` holds the centre of `expected`: the place an effect was expected."""
    x, y, w, h = box
    ex, ey, ew, eh = expected
    cx, cy = ex + ew // 2, ey + eh // 2
    return x <= cx < x + w and y <= cy < y + h


def unmasked(shape: tuple[int, ...], masks: Sequence[Box]) -> Mask:
    """Which pixels of a frame of `shape` count: all but the `masks`' (recorded places)."""
    keep = np.ones(shape[:2], bool)
    for x, y, w, h in masks:
        keep[max(y, 0) : y + h, max(x, 0) : x + w] = False
    return keep


def clamp(box: Box, width: int, height: int) -> Box:
    x, y, w, h = box
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(width, x + w), min(height, y + h)
    return (x0, y0, max(0, x1 - x0), max(0, y1 - y0))

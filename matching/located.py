"""What locate() answers: where a target was found on a screen, or why it was not, with the
trail of the rungs tried; made from a match of the whole crop, from the verdict of its parts,
or from what its toolkit says of the object."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from .params import PARAMS as P
from .parts import Verdict
from .refusal import Refusal
from .scaling import scaled_offset
from .search import Box, Hit, Point, add, sub
from .trail import Trail, Tried

__all__ = [
    "OBJECT",
    "XWINDOW_RUNG",
    "Located",
    "answered",
    "by_parts",
    "located",
    "ms_since",
    "parts_refusal",
    "refused",
]

OBJECT = "object"  # the rung that asks the toolkit (objects.py)
XWINDOW_RUNG = "xwindow"  # the rung that asks the X server (xwindows.py)


@dataclass(frozen=True, slots=True)
class Located:
    """Where an anchor was found on a screen, or why it was not."""

    found: bool
    point: Point | None  # the target on this screen; None unless found
    score: float  # of the best match: grayscale, or colour when colour broke a tie
    margin: float  # best minus the runner-up outside the best's neighbourhood
    scale: float
    top_left: Point | None  # of the best match, found or not
    best_elsewhere: Point | None  # the target point the runner-up would give
    elapsed_ms: float
    trail: tuple[Tried, ...] = ()  # the rungs and checks tried, in order
    refusal: Refusal | None = None  # the rule that refused it, where one did
    box: Box | None = None  # the object's box on this screen, where its toolkit told it
    recorded: Point | None = None  # where the target was recorded
    rung: str = ""  # the rung of the ladder whose answer this is

    @property
    def rungs(self) -> tuple[str, ...]:
        """The names of the rungs and checks tried, in order, each once."""
        return tuple(dict.fromkeys(t.name for t in self.trail))

    @property
    def rule(self) -> str:
        """The rule that refused it ("" when none did)."""
        return "" if self.refusal is None else self.refusal.rule

    def tried(self, name: str) -> Tried | None:
        """The first entry of the trail named `name`, if it was tried."""
        return next((t for t in self.trail if t.name == name), None)

    @property
    def searched(self) -> str:
        """The rungs and checks tried, for a person: "window+coarse+context+back"."""
        return "+".join(self.rungs)

    @property
    def reason(self) -> str:
        """Why it was not found, for a person ("" when found)."""
        if self.found:
            return ""
        said, seen = [], set()
        for t in self.trail:
            if t.refusal is not None and t.refusal not in seen:  # a check's, then its rung's
                said.append(t.text())
                seen.add(t.refusal)
        if self.refusal is not None and self.refusal not in seen:
            said.append(self.refusal.text())
        return "; ".join(said)

    @property
    def decided(self) -> bool:
        """Whether a rung answered (False: nothing to go on, no anchor, and the object rung
        left it to the pixels)."""
        return bool(self.rung)

    @property
    def by_object(self) -> bool:
        """Whether what the toolkit or the X server says of the object decided, not the
        pixels."""
        return self.rung in (OBJECT, XWINDOW_RUNG)

    @property
    def moved(self) -> Point | None:
        """How far the target moved from its recorded place (None: not found, or not known
        where it was recorded)."""
        if self.point is None or self.recorded is None:
            return None
        return sub(self.point, self.recorded)

    @property
    def origin(self) -> Point | None:
        """Where the recorded screen's origin is now, by this target: a recorded place p is
        at origin + p * scale (None: not found, or not known where it was recorded)."""
        if self.point is None or self.recorded is None:
            return None
        (x, y), (rx, ry) = self.point, self.recorded
        return round(x - rx * self.scale), round(y - ry * self.scale)


def located(
    best: Hit, runner: Hit, scale: float, shift: Point, refusal: Refusal | None = None
) -> Located:
    """The answer from a match of the whole crop: `best` and `runner` at `scale`, `shift`
    taking a match's top-left to its target; found unless `refusal` refused it."""
    found = refusal is None
    return Located(
        found=found,
        point=add((best.x, best.y), shift) if found else None,
        score=round(best.score, 4),
        margin=round(best.score - runner.score, 4),
        scale=scale,
        top_left=(best.x, best.y),
        best_elsewhere=add((runner.x, runner.y), shift) if runner.x >= 0 else None,
        elapsed_ms=0.0,
        refusal=refusal,
    )


def refused(refusal: Refusal) -> Located:
    """The answer when there was nothing to match, or nowhere to match it."""
    return Located(
        found=False,
        point=None,
        score=0.0,
        margin=0.0,
        scale=1.0,
        top_left=None,
        best_elsewhere=None,
        elapsed_ms=0.0,
        refusal=refusal,
    )


def by_parts(
    verdict: Verdict, other: Verdict, offset: Point, shape: tuple[int, ...], need: float
) -> Located:
    """The outcome that the parts decided: found when enough of them fit, clearly better
    than anywhere else; otherwise refused by the first rule they fail."""
    point = verdict.point
    assert point is not None
    refusal = parts_refusal(verdict, other, need)
    scale = round(verdict.scale, 3)
    return Located(
        found=refusal is None,
        point=point if refusal is None else None,
        score=round(verdict.score, 4),
        margin=round(verdict.score - other.score, 4),
        scale=scale,
        top_left=sub(point, scaled_offset(offset, shape, scale)),
        best_elsewhere=other.point,
        elapsed_ms=0.0,
        refusal=refusal,
    )


def parts_refusal(verdict: Verdict, other: Verdict, need: float) -> Refusal | None:
    """The first rule the parts' verdict fails: enough of them fit, clearly better than
    anywhere else, and they pin the target down."""
    lead = verdict.score - other.score
    if verdict.score < need:
        return Refusal("parts-fit", round(verdict.score, 4), need, verdict.point)
    if lead < P.parts_margin:
        return Refusal("parts-lead", round(lead, 4), P.parts_margin, other.point)
    if not verdict.pinned:
        return Refusal("parts-pinned", 0, 1, verdict.point)
    return None


def answered(
    answer: Located, rung: str, trail: Trail, started: float, recorded: Point | None
) -> Located:
    """`answer`, as the ladder gives it: from `rung`, with the trail, the time since `started`
    and the recorded place."""
    return replace(
        answer, rung=rung, trail=trail.entries, elapsed_ms=ms_since(started), recorded=recorded
    )


def ms_since(started: float) -> float:
    """Milliseconds since `started` (a time.perf_counter()), to 0.01 ms."""
    return round((time.perf_counter() - started) * 1000, 2)

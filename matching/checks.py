"""The checks against the recorded screen that a match that is not exact must pass: the
wider crop around the recorded target must fit there too, and what was found, looked for
back on the recording, must look more like the recorded target than like anything else on
it (whole, or part by part). (The pixels right around the target are checked in doubts.py.)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import cast

from .deciding import apart
from .located import Located
from .params import PARAMS as P
from .parts import Parts
from .recording import Recording, wide_hood
from .refusal import Refusal
from .scaling import resized, scaled_offset
from .trail import Trail
from .search import (
    NOWHERE,
    Box,
    Hit,
    Image,
    Point,
    Screen,
    add,
    each,
    is_near,
    probe,
    same_place_radius,
    scan,
    sub,
)

__all__ = ["Match", "doubt_back_by_parts", "doubt_unscaled"]


@dataclass(frozen=True, slots=True)
class Match:
    """A match of the whole crop: the best place, the runner-up elsewhere, the scale they
    were found at, and whether colour had to tell them apart."""

    best: Hit
    runner: Hit
    scale: float
    by_colour: bool

    def doubt_context(
        self, seen: Screen, recording: Recording, margin: float, trail: Trail
    ) -> Refusal | None:
        """Why the wider crop of the recording around the target does not confirm this
        match, or None when it does: it must fit here, no worse than at the runner-up, and
        the two leads together must make up twice the margin."""
        best, runner = self.best, self.runner
        screen = recording.screen
        assert screen is not None and recording.guess is not None
        shift = scaled_offset(recording.offset, recording.shape, self.scale)
        th, tw = recording.shape
        around = _Context.of(screen.gray, (*recording.guess, tw, th), recording.offset)
        places = [add((hit.x, hit.y), shift) for hit in (best, runner) if hit.x >= 0]
        here, there = (*around.scores(seen, places, self.scale), 0.0)[:2]
        lead = here - max(there, 0.0)  # how much better the context fits here
        both = best.score - runner.score + lead
        refusal = None
        if here < P.context_floor:
            refusal = Refusal("context", round(here, 4), P.context_floor, places[0])
        elif lead < 0:
            refusal = Refusal("context-lead", round(lead, 4), 0, places[-1])
        elif both < 2 * margin:
            refusal = Refusal("context-margins", round(both, 4), 2 * margin, places[0])
        return trail.check("context", refusal)

    def doubt_back(self, seen: Screen, recording: Recording, trail: Trail) -> Refusal | None:
        """Why what was found looks more like something else on the recorded screen than
        like the target, or None."""
        if recording.screen is None or recording.guess is None:
            return None
        th, tw = recording.shape
        # What was found, looked for on the recording, must be the target itself rather
        # than something else there that it resembles more (a look-alike button that the
        # recorder's margin had only just told apart).
        own, other = _back_match(seen, recording.screen, self, recording.guess, (tw, th))
        refusal = None
        if other.score > own.score:
            where = add((other.x, other.y), recording.offset)
            refusal = Refusal("back", round(own.score - other.score, 4), 0, where)
        return trail.check("back", refusal)


def doubt_back_by_parts(
    seen: Screen, recording: Recording, match: Match, found: Located, trail: Trail, wide: bool
) -> Refusal | None:
    """The look back of a place the parts chose, done with parts too: the parts of what was
    found, brought back to the recorded scale, must fit the recorded target's place better
    than the places on the recorded screen that the crop found there resembles most. (The
    crop brought back whole does not fit its own place well when text and widgets scaled
    differently.)"""
    screen = recording.screen
    if screen is None or recording.guess is None or found.point is None:
        return None
    import cv2

    (th, tw), (x, y), scale = recording.shape, found.top_left or (0, 0), match.scale
    sw, sh = max(1, round(tw * scale)), max(1, round(th * scale))
    # As wide as the neighbourhood that decided the place.
    today = Parts.of(seen.gray, (x, y, sw, sh), found.point, **(wide_hood(scale) if wide else {}))
    back = 1 / scale
    recorded_target = add(recording.guess, recording.offset)
    patch = seen.gray[y : y + sh, x : x + sw]
    if patch.shape != (sh, sw):
        return trail.check("back", None)  # runs off the screen: the parts' verdict stands
    if (sw, sh) != (tw, th):
        patch = cast(
            Image,
            cv2.resize(
                patch, (tw, th), interpolation=cv2.INTER_AREA if scale > 1 else cv2.INTER_LINEAR
            ),
        )
    zone = (recording.guess, same_place_radius(tw, th))
    likeliest = sorted(
        (
            hit
            for hit in islice(scan(screen, patch, keep_out=zone), 2 * P.per_scale)
            if not is_near(hit, *zone)
        ),
        reverse=True,
    )[: P.per_scale]
    places = [add((hit.x, hit.y), recording.offset) for hit in likeliest]
    own, *others = each(
        lambda place: today.verify(screen.gray, place, back), [recorded_target, *places]
    )
    for there, other in zip(places, others):
        # (parts that fit best back at the recorded target itself are no other place)
        if other.score > own.score and apart(other, recorded_target):
            lead = round(own.score - other.score, 4)
            return trail.check("back", Refusal("back-parts", lead, 0, there))
    return trail.check("back", None)


def _back_match(
    seen: Screen, recorded: Screen, match: Match, guess: Point, size: tuple[int, int]
) -> tuple[Hit, Hit]:
    """The pixels of `match`, brought back to the anchor's size: how well they fit where the
    anchor was cut (top-left `guess`) on the recorded screen, and the best fit elsewhere."""
    import cv2

    (tw, th), (x, y) = size, (match.best.x, match.best.y)
    sw, sh = max(1, round(tw * match.scale)), max(1, round(th * match.scale))
    patch = seen.gray[y : y + sh, x : x + sw]
    if (sw, sh) != (tw, th):
        patch = cast(
            Image,
            cv2.resize(
                patch,
                (tw, th),
                interpolation=cv2.INTER_AREA if match.scale > 1 else cv2.INTER_LINEAR,
            ),
        )
    own = probe(recorded.gray, patch, guess, pad=2) or NOWHERE
    zone = (guess, same_place_radius(tw, th))
    elsewhere = (hit for hit in scan(recorded, patch, keep_out=zone) if not is_near(hit, *zone))
    return own, max(elsewhere, default=NOWHERE)


@dataclass(frozen=True, slots=True)
class _Context:
    """A wider crop of the recorded screen around an anchor, to check a doubtful match."""

    gray: Image
    target: Point  # the recorded target inside `gray`

    @classmethod
    def of(cls, gray: Image, box: Box, offset: Point) -> _Context:
        x, y, w, h = box
        height, width = gray.shape
        cw, ch = max(2 * w, P.context_least[0]), max(2 * h, P.context_least[1])
        x0 = min(max(0, x + w // 2 - cw // 2), max(0, width - cw))
        y0 = min(max(0, y + h // 2 - ch // 2), max(0, height - ch))
        return cls(gray[y0 : y0 + ch, x0 : x0 + cw], (x + offset[0] - x0, y + offset[1] - y0))

    def scores(self, screen: Screen, targets: list[Point], scale: float) -> list[float]:
        """How well the context matches with the target at each of `targets`, at `scale`."""
        sized = resized(self.gray, scale)
        own = scaled_offset(self.target, self.gray.shape, scale)
        corners = [sub(t, own) for t in targets]
        # Only the part that lands on the screen at every place, the same part for all so
        # that their scores compare: a target near an edge of a screen scaled up pushes the
        # rest of its context off it.
        (h, w), (height, width), pad = sized.shape, screen.gray.shape, P.context_pad
        left = max([0] + [pad - x for x, _ in corners])
        top = max([0] + [pad - y for _, y in corners])
        right = max([0] + [x + w + pad - width for x, _ in corners])
        bottom = max([0] + [y + h + pad - height for _, y in corners])
        part = sized[top : h - bottom, left : w - right]
        if part.size * 2 < sized.size:  # mostly off the screen: no evidence either way
            return [0.0] * len(targets)
        hits = (probe(screen.gray, part, (x + left, y + top), pad=pad) for x, y in corners)
        return [0.0 if hit is None else hit.score for hit in hits]


def doubt_unscaled(found: Located, trail: Trail) -> Refusal | None:
    """Why a place found at about 1x (within P.parts_spread of it) is not the target: the
    search at 1x refused it, and nothing there is scaled, so the 1x verdict stands: a button
    renamed in place fits every part but its label's, and a crop that was ambiguous at 1x
    does not become sure by fitting a hair better at 1.004x."""
    off = round(abs(found.scale - 1.0), 4)
    return trail.check(
        "unscaled", None if off > P.parts_spread else Refusal("unscaled", off, P.parts_spread)
    )

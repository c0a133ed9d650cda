"""Re-anchoring: find a step's target on today's screen before acting on it, or refuse.

Each pointer step that has an anchor is looked for in a fresh grab (matching does
the search: a window around the recorded place, a coarse full-screen pass, then scales).
A target that is not there yet is looked for again until the timeout, so a slow UI needs
no hand-tuned sleeps and a fast one is not slowed down. Scales (0.8x-1.25x) are searched
whenever nothing is trusted at 1x, which covers a different screen size or DPI too; the
scale the last target was found at is tried first. A match that is not exact is checked
against the step's recorded before-frame; at another scale, part by part.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deskreel.xsession.grab import Grabber
from deskreel.xsession.images import decode_image, encode_png
from deskreel.matching import Located, hints_after
from deskreel.matching.looks import Look, locate_looks, looks_of
from deskreel.matching.params import PARAMS
from deskreel.matching.objects import object_located
from deskreel.xsession.files import PrivateFolder

from .checks import Aimed
from .defaults import DEFAULT_TIMEOUT
from .objects import ObjectFinder
from deskreel.matching.search import Box
from deskreel.storage import StorageError, Step, Widget

__all__ = ["AnchorOptions", "Finding", "Locator", "DEFAULT_TIMEOUT", "aimed_at"]


@dataclass(frozen=True, slots=True)
class AnchorOptions:
    threshold: float = PARAMS.threshold
    margin: float = PARAMS.margin
    timeout: float = DEFAULT_TIMEOUT  # s to keep looking for a target that is not there yet
    retry_every: float = 0.1  # s between grabs while waiting


@dataclass(frozen=True, slots=True)
class Finding:
    """Where a step's target is now, and how sure we are."""

    located: Located
    recorded: tuple[int, int]
    attempts: int
    waited: float  # s spent looking, grabs included

    @property
    def found(self) -> bool:
        return self.located.found

    @property
    def shift(self) -> tuple[int, int] | None:
        point = self.located.point
        return None if point is None else (point[0] - self.recorded[0], point[1] - self.recorded[1])

    def message(self, step: Step, threshold: float) -> str:
        """The one line a person reads when the target was not found."""
        loc = self.located
        if loc.searched == "object":  # refused by what the toolkit says, not by pixels
            return (
                f"step {step.step} ({step.action.action}): target not found: "
                f"{loc.reason}; looked for {self.waited:.1f}s ({self.attempts} looks)"
            )
        where = ""
        if loc.top_left is not None and step.anchor is not None:  # the best match's target
            (x, y), (ox, oy) = loc.top_left, step.anchor.offset
            where = f" at {[x + round(ox * loc.scale), y + round(oy * loc.scale)]}"
        return (
            f"step {step.step} ({step.action.action}): target not found: best score "
            f"{loc.score:.3f}{where}, margin {loc.margin:.3f}, threshold {threshold:.2f}; "
            f"searched {loc.searched or 'nothing'} around {list(self.recorded)} for "
            f"{self.waited:.1f}s ({self.attempts} grabs): {loc.reason}"
        )


def aimed_at(located: Located, widget: Widget | None, anchor: Box | None) -> Aimed | None:
    """What --verify's object check says of a step looked for: the object its toolkit named
    (with its box today, where the object stage found it), or else the anchor's pixels
    (their box at the scale found); None when neither was recorded."""
    today: Box | None = None
    if located.found and located.box is not None:
        today = located.box
    elif located.found and located.top_left is not None and anchor is not None:
        s = located.scale
        today = (*located.top_left, round(anchor[2] * s), round(anchor[3] * s))
    if widget is not None:
        by = "" if located.searched == "object" or not located.found else " (by its pixels)"
        return Aimed(widget.label + by, widget.box, today, located.score)
    if anchor is not None:
        return Aimed("", anchor, today, located.score)
    return None


class Locator:
    """Looks for anchors on one display; use it from the replay thread only."""

    def __init__(
        self,
        display_name: str,
        *,
        options: AnchorOptions = AnchorOptions(),
        pause: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.options, self._pause, self._clock = options, pause, clock
        self.grabber = Grabber(display_name)
        self.objects = ObjectFinder(display_name)
        self._images: dict[int, Any] = {}
        self.last_screen: Any = None
        # The scale the last target was found at: the screen most likely has it still (a
        # replay at another DPI), and locate() tries it before the others. Likewise how far
        # the last target found at 1x had moved (a moved window moves them all).
        self.scale = 1.0
        self.shift = (0, 0)

    def find(self, step: Step, recorded: Callable[[], Any] | None = None) -> Finding | None:
        """The step's target now; None when the step has nothing to look for (no anchor,
        and no object its toolkit would find), so it is replayed at its coordinates.

        The object stage (replayer/objects.py) comes first where the step has a recorded
        object; then its pixels. `recorded` returns the screen the anchor was cut from (the
        step's before-frame), or None; its wider context checks a match that is not exact.
        """
        anchor, target = step.anchor, step.action.target
        if target is None or (anchor is None and step.widget is None):
            return None
        looks = self._looks(step, recorded) if anchor is not None else []
        started = self._clock()
        attempts = 0
        while True:
            screen = self.last_screen = self.grabber.rgb()
            attempts += 1
            located = self._locate(step, screen, looks)
            if located is None:
                return None  # no anchor, and the object left it to the pixels
            if located.found and located.point is not None and located.searched != "object":
                self.scale, self.shift = hints_after(located.point, located.scale, target)
            waited = self._clock() - started
            if located.found or waited >= self.options.timeout:
                return Finding(located, target, attempts, waited)
            self._pause(self.options.retry_every)

    def _locate(self, step: Step, screen: Any, looks: list[Look]) -> Located | None:
        """One look for the target on `screen`: by its object, then by its pixels."""
        anchor, target = step.anchor, step.action.target
        assert target is not None
        if step.widget is not None:
            started = time.perf_counter()
            answer = self.objects.find(step.widget)
            if answer.decided:
                return object_located(answer, step.widget, (time.perf_counter() - started) * 1000)
        if anchor is None:
            return None
        return locate_looks(
            screen,
            looks,
            anchor.offset,
            expected=target,
            threshold=self.options.threshold,
            margin=self.options.margin,
            scale_hint=self.scale,
            shift_hint=self.shift,
            twins=anchor.twins,
        )

    def _looks(self, step: Step, recorded: Callable[[], Any] | None) -> list[Look]:
        """The step's anchor in its looks: at rest, then hovered where it was kept; each
        with the recorded screen as it looked then, fetched and made grayscale once, on the
        first grab that needs it, for every retry."""
        anchor = step.anchor
        assert anchor is not None
        cached = self._images.get(step.step)
        if cached is None:
            try:
                cached = self._images[step.step] = [
                    decode_image(png) for png in (anchor.png, anchor.hover_png) if png is not None
                ]
            except ValueError:
                raise StorageError(
                    f"step {step.step} ({step.action.action}): its anchor "
                    f"image is damaged: run 'deskreel doctor'"
                ) from None
        # The recorder checked the crop against its whole screen; a crop that had no
        # look-alike there may be taken at once where it matches exactly near its place.
        unique = anchor.margin is not None and anchor.margin >= PARAMS.distinct_margin
        return looks_of(
            cached[0], cached[1] if len(cached) > 1 else None, anchor.box, unique, recorded
        )

    def save_crops(self, step: Step, finding: Finding, folder: Path) -> list[Path]:
        """The anchor and what the best match looked like, for the report (files 0600).

        Folders it creates are 0700; an existing one (a person's own) keeps its mode.
        """
        anchor = step.anchor
        if anchor is None:  # found or refused by its object alone: no crop to show
            return []
        with PrivateFolder(folder, own=False) as crops:
            saved = [crops.write(f"step{step.step:04d}-anchor.png", anchor.png)]
            loc = finding.located
            if loc.top_left is not None and self.last_screen is not None:
                x, y = loc.top_left
                w = round(anchor.box[2] * loc.scale)
                h = round(anchor.box[3] * loc.scale)
                crop = self.last_screen[max(y, 0) : y + h, max(x, 0) : x + w]
                if crop.size:
                    name = f"step{step.step:04d}-best-match.png"
                    saved.append(crops.write(name, encode_png(crop)))
        return saved

    def close(self) -> None:
        self.grabber.close()
        self.objects.close()

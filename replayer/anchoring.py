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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from deskreel.matching import (
    NO_HINTS,
    PARAMS,
    Hints,
    Aimed,
    Box,
    Located,
    Query,
    Refusal,
    Said,
    TextReader,
    hints_after,
    locate,
    refused,
    said_of,
    with_looks,
)
from deskreel.storage import StorageError, Step, Widget
from deskreel.xsession.files import PrivateFolder
from deskreel.xsession.grab import Grabber
from deskreel.xsession.images import decode_image, encode_png

from .defaults import DEFAULT_TIMEOUT
from .desktop import DesktopChange, MonitorHints
from .objects import ObjectFinder, WindowFinder

__all__ = ["AnchorOptions", "Finding", "Locator", "DEFAULT_TIMEOUT", "aimed_at"]


@dataclass(frozen=True, slots=True)
class AnchorOptions:
    threshold: float = PARAMS.threshold
    margin: float = PARAMS.margin
    timeout: float = DEFAULT_TIMEOUT  # s to keep looking for a target that is not there yet
    retry_every: float = 0.1  # s between grabs while waiting
    # today's desktop against the recording's (layout.py): the scale their settings tell,
    # searched first until a target tells its own; where each monitor went
    desktop: DesktopChange = DesktopChange()


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
        """How far the target moved from its recorded place (None: not found)."""
        return self.located.moved

    def message(self, step: Step, threshold: float) -> str:
        """The one line a person reads when the target was not found."""
        loc = self.located
        if loc.by_object:  # refused by what the toolkit says, not by pixels
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
        by = "" if located.by_object or not located.found else " (by its pixels)"
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
        self.windows = WindowFinder(display_name)
        self.read = TextReader()  # loaded on the first box a step needs read
        self._images: dict[int, Any] = {}
        self.last_screen: Any = None
        # The scale the last target was found at: the screen most likely has it still (a
        # replay at another DPI), and locate() tries it before the others. Likewise how far
        # the last target found at 1x had moved (a moved window moves them all).
        told = options.desktop.scale
        self.hints = MonitorHints(options.desktop, Hints(told=told) if told else NO_HINTS)

    def find(
        self, step: Step, recorded: Callable[[], Any] | None = None, moving: tuple[Box, ...] = ()
    ) -> Finding | None:
        """The step's target now; None when the step has nothing to look for (no anchor,
        and no object its toolkit would find), so it is replayed at its coordinates.

        The ladder (matching/ladder.py) asks the step's recorded object first, where it
        has one (replayer/objects.py); then its pixels. `recorded` returns the screen the
        anchor was cut from (the step's before-frame), or None; its wider context checks a
        match that is not exact. `moving`: the step's masks (Query.moving).
        """
        target = step.action.target
        if target is None or (step.anchor is None and step.widget is None):
            return None
        query = replace(self._query(step, target, recorded), moving=moving)
        started = self._clock()
        attempts = 0
        while True:
            screen = self.last_screen = self.grabber.rgb()
            attempts += 1
            hints = self.hints.at(target)
            located = locate(
                screen,
                query,
                hints,
                ask=self.objects.find,
                windows=self.windows.find,
                read=self.read,
                shown=self.objects.shown,
            )
            if not located.decided:  # no anchor, and the object left it to the pixels:
                misplaced = self._misplaced(target, screen.shape)  # at its recorded place
                return None if misplaced is None else Finding(misplaced, target, attempts, 0.0)
            self.hints.learn(hints_after(located, hints), hints, target)
            waited = self._clock() - started
            if located.found or waited >= self.options.timeout:
                return Finding(located, target, attempts, waited)
            self._pause(self.options.retry_every)

    def _misplaced(self, target: tuple[int, int], shape: tuple[int, ...]) -> Located | None:
        """Refused, a step replayed at its recorded place where that place is off today's
        screen (X would press its edge) or on a monitor that stands elsewhere today
        (another monitor's content is there); None where the place holds."""
        x, y = target
        height, width = shape[:2]
        outside = max(-x, x - width + 1, -y, y - height + 1, 0)
        if outside:
            return refused(Refusal("off-screen", outside, 0, target))
        mx, my = self.options.desktop.shift_at(target)
        if (mx, my) != (0, 0):
            return refused(Refusal("monitor-moved", max(abs(mx), abs(my)), 0, target))
        return None

    def said(self, step: Step, finding: Finding | None, again: float) -> Said | None:
        """What the step's object says of itself now that the step is done, beside what it
        said when recorded (matching/compare/meaning.py): asked where the step pressed
        today, and once more `again` s later where it said otherwise (a toolkit may tell
        its tree after it paints). None where nothing is known: no meaning recorded, or
        no answer today."""
        recorded = step.widget
        if recorded is None or recorded.after is None or finding is None:
            return None
        point = finding.located.point
        if not finding.found or point is None:
            return None
        said = None
        for wait in (0.0, again):
            self._pause(wait)
            answered, today = self.objects.at(recorded, point)
            said = said_of(recorded, today) if answered else None
            if said is not None and said.today == said.recorded:
                return said
        return said

    def _query(
        self, step: Step, target: tuple[int, int], recorded: Callable[[], Any] | None
    ) -> Query:
        """What the ladder is asked for `step`: its anchor in its looks (at rest, then
        hovered where it was kept), each with the recorded screen as it looked then, fetched
        and made grayscale once, on the first grab that needs it, for every retry; and its
        recorded object."""
        opts, anchor = self.options, step.anchor
        if anchor is None:
            return Query(
                None, recorded=target, widget=step.widget,
                threshold=opts.threshold, margin=opts.margin,
            )  # fmt: skip
        images = self._images_of(step)
        # The recorder checked the crop against its whole screen; a crop that had no
        # look-alike there may be taken at once where it matches exactly near its place.
        unique = anchor.margin is not None and anchor.margin >= PARAMS.distinct_margin
        query = Query(
            images[0], anchor.offset, target, unique, twins=anchor.twins, widget=step.widget,
            threshold=opts.threshold, margin=opts.margin,
        )  # fmt: skip
        return with_looks(query, images[1] if len(images) > 1 else None, anchor.box, recorded)

    def _images_of(self, step: Step) -> list[Any]:
        """The step's anchor images (at rest, then hovered where kept), decoded once."""
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
        return cached

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
        self.windows.close()

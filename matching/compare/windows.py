"""Windows a step opened: their effects, judged where the windows are.

A step that opens a dialog changes a whole window's worth of the screen. Where that window
goes is the window manager's choice (or the toolkit's: Tk opens a window at the screen's
corner where no window manager places it), not a place relative to what was pressed: with
the application's window moved, the dialog opens where it opened before, and the step's
shift maps the recorded effect elsewhere.

The X server tells which top-level windows appeared while the step ran (`StepWindows`,
asked by the replay: their boxes, frames included). Each is found on the recorded
after-frame by its pixels, where the recorded before-frame did not show it (the step opened
it in the recording too). An effect whose changes all lie in such a window is compared
where the window is today, by its pixels: a dialog that says another thing fails. Found at
1x only: a window drawn at another scale is left to the other checks.

A window the step closed is not judged so: what it reveals is today's layout, which the
recording cannot tell, and an application that crashed closes its windows too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..search import Box, Image, grayscale

from .checks import Mask, VerifyOptions, passes
from .content import changed_pixels

__all__ = ["Moved", "StepWindows", "in_window", "windows_moved"]


@dataclass(frozen=True, slots=True)
class StepWindows:
    """The top-level windows a step opened today (their boxes on today's screen after it),
    as the X server told."""

    opened: tuple[Box, ...] = ()

    @classmethod
    def between(cls, before: Mapping[int, Box], after: Mapping[int, Box]) -> StepWindows:
        """The windows opened from `before` to `after` (the boxes of the viewable top-level
        windows, by window id)."""
        return cls(tuple(box for wid, box in after.items() if wid not in before))


@dataclass(frozen=True, slots=True)
class Moved:
    """A window the step opened today, where the recording shows it opened by the step
    likewise: its box then and today."""

    recorded: Box
    today: Box


def windows_moved(
    before: Image, after: Image, today_after: Image, windows: StepWindows, options: VerifyOptions
) -> list[Moved]:
    """The windows of `windows` found on the recorded screens, as the module says."""
    found = []
    for box in windows.opened:
        place = _opened_then(grayscale(today_after), box, before, after, options)
        if place is not None:
            found.append(Moved(place, box))
    return found


def _opened_then(
    today: Image, box: Box, without: Image, with_it: Image, options: VerifyOptions
) -> Box | None:
    """Where the recorded screen `with_it` shows the window at `box` of `today`, and
    `without` did not: its recorded box; None where nowhere."""
    import cv2

    x, y, w, h = box
    window = today[y : y + h, x : x + w]
    shown = grayscale(with_it)
    if window.shape != (h, w) or w < 2 or h < 2 or h > shown.shape[0] or w > shown.shape[1]:
        return None
    if float(window.std()) < 1.0:
        return None  # a blank window fits any blank place
    scores = cv2.matchTemplate(shown, window, cv2.TM_CCOEFF_NORMED)
    _, best, _, (bx, by) = cv2.minMaxLoc(scores)
    if best < options.match_threshold:
        return None
    keep = np.ones(window.shape, bool)
    there = (slice(by, by + h), slice(bx, bx + w))
    if not passes(*changed_pixels(window, shown[there], keep, options), options):
        return None
    if passes(*changed_pixels(window, grayscale(without)[there], keep, options), options):
        return None  # shown there before the step too: the step did not open it
    return bx, by, w, h


def in_window(changed_then: Mask, box: Box, moved: Sequence[Moved]) -> Moved | None:
    """The window of `moved` that holds all that the step changed in the effect `box`
    (`changed_then`: the recorded pixels it changed, content.py's changed_mask), where one
    does: a change outside it too (a title marked, a tick) is left to the ordinary check."""
    x, y, w, h = box
    changed = changed_then[y : y + h, x : x + w]
    if not changed.any():
        return None
    for m in moved:
        mx, my, mw, mh = m.recorded
        inside = np.zeros_like(changed)
        inside[max(0, my - y) : max(0, my + mh - y), max(0, mx - x) : max(0, mx + mw - x)] = True
        if inside.any() and not (changed & ~inside).any():
            return m
    return None

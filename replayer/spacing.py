"""What keeps an action that action at any --speed: rests the schedule may not shorten.

Replayed faster than recorded, two separate clicks at one place would come within the
multi-click time, and the application would see a double click that nobody made; a hover
would end before it is a hover (a tooltip never shows, and a recorder watching would see
no `mouse_move`). So a click waits until the same button's previous click at that place is
more than the multi-click time old (the recording's and this display's, whichever is
longer), and pointer input after a hover waits until the hover has rested `hover_time`.
The wait moves the rest of the schedule with it, so the waits after it keep their length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from deskreel.storage import Action
from deskreel.storage.grouping import DEFAULT_THRESHOLDS, InputSettings, Thresholds
from deskreel.storage.vocabulary import POINTER_ACTIONS

from .execute import BUTTONS

__all__ = ["Spacing"]

# the button each action presses first: a click, or a drag's or long press's left button
# (an application counts a press that starts a drag into a multi-click as well)
_PRESSES = {**BUTTONS, "left_click_drag": 1, "left_mouse_down": 1}
# s beyond the multi-click time or the hover's rest: the X server stamps events in whole
# milliseconds, and the press comes a few ms after the step starts (a move, a settle)
MARGIN = 0.02


@dataclass
class Spacing:
    """The earliest moment each step may start, given the steps replayed before it."""

    multi_click_time: float
    multi_click_distance: float
    hover_time: float = DEFAULT_THRESHOLDS.hover_time
    pressed: dict[int, tuple[float, tuple[int, int]]] = field(default_factory=dict)
    hovered: float | None = None  # when the latest hover's move was made

    @classmethod
    def of(cls, *settings: InputSettings, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> Spacing:
        """For input settings (the recording's, the display's): the longest time, the
        widest distance, so that neither sees a double click."""
        return cls(
            max(s.multi_click_time for s in settings),
            max(s.multi_click_distance for s in settings),
            thresholds.hover_time,
        )

    def not_before(self, action: Action, point: tuple[int, int] | None) -> float:
        """The clock time before which `action`, aimed at `point`, must not start."""
        earliest = -math.inf
        if action.action in POINTER_ACTIONS and self.hovered is not None:
            earliest = self.hovered + self.hover_time + MARGIN
        button = _PRESSES.get(action.action)
        if button in self.pressed and point is not None:
            when, where = self.pressed[button]
            if math.dist(where, point) <= self.multi_click_distance:
                earliest = max(earliest, when + self.multi_click_time + MARGIN)
        return earliest

    def done(self, action: Action, point: tuple[int, int] | None, now: float) -> None:
        """`action` was replayed at `point`, ending at clock time `now`."""
        if action.action not in POINTER_ACTIONS:
            return
        self.hovered = now if action.action == "mouse_move" else None
        if action.action in _PRESSES and point is not None:
            self.pressed[_PRESSES[action.action]] = (now, point)

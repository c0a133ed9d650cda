"""What a pressed object said of itself once its step's effect was drawn: its name and the
states a step sets (storage/widgets.py's After), from the questions the aim watch
(aiming.py) asked at the press point after the step, while the pointer rested there. A
replay's --verify asks the same of today's object and compares (a check box left
unchecked, a combo box showing another choice), whatever the theme, font or scale.
"""

from __future__ import annotations

from deskreel.storage import Widget
from deskreel.storage.widgets import ATSPI, After

from .aiming import box_changed
from .screen import FrameTimeline

__all__ = ["said_after"]


def said_after(
    timeline: FrameTimeline, widget: Widget, point: tuple[int, int], start: float, end: float
) -> After | None:
    """What `widget`, pressed at `point`, said of itself while its step's after-frame was
    on screen: the last question at `point` asked from `start` (the step's last event, or
    when the after-frame appeared) and answered by `end` (when it was last seen) names the
    object in its place (its role, path and box; its name may change), and the screen
    inside that object did not change while it was asked. None where not known: the
    pointer moved away, the object left the point (a bar closed), or it changed while
    asked. The caller's `end` is when the after-frame was replaced, so that an answer
    given by then holds for what the after-frame shows (a caret blinking in the object
    after that is no matter). A state that comes and goes (a "Copied!" for two seconds) is taken as
    the after-frame shows it, which is what a replay's --verify sees."""
    if widget.source != ATSPI:
        return None
    asked = [s for s in timeline.widgets_asked(start, end) if s.point == point and s.t <= end]
    if not asked or asked[-1].widget is None:
        return None
    last, now = asked[-1], asked[-1].widget
    if (now.role, now.path, now.box) != (widget.role, widget.path, widget.box):
        return None
    if box_changed(timeline, now.box, last.asked, last.t):
        return None  # the answer may mix two looks
    return After.of(now)

"""What a pressed object said of itself once its step's effect was drawn: its name and the
states a step sets (storage/widgets.py's After), from the questions the aim watch
(aiming.py) asked at the press point after the step, while the pointer rested there. A
replay's --verify asks the same of today's object and compares (a check box left
unchecked, a combo box showing another choice), whatever the theme, font or scale.
"""

from __future__ import annotations

from deskreel.storage import Widget
from deskreel.storage.widgets import ATSPI, After, Box

from .screen import Frame, FrameTimeline

__all__ = ["said_after"]


def said_after(
    timeline: FrameTimeline,
    widget: Widget,
    point: tuple[int, int],
    after: Frame,
    start: float,
    limit: float,
) -> After | None:
    """What `widget`, pressed at `point`, said of itself while it looked as the step's
    after-frame `after` shows it: the last question at `point` asked once it looked so
    (not before `start`, the step's last event) and answered before its look changed
    again (or `limit`, the next step's start) names the object in its place (its role,
    path and box; its name may change). Its own look, not the whole screen's: a spinner
    elsewhere changes the screen all the time. None where not known: the pointer moved
    away, the object left the point (a bar closed), or no question fell while it looked
    so. A state that comes and goes (a "Copied!" for two seconds) is taken as the
    after-frame shows it, which is what a replay's --verify sees."""
    if widget.source != ATSPI:
        return None
    held = _look_held(timeline, widget.box, after, start, limit)
    if held is None:
        return None
    since, until = held
    asked = [s for s in timeline.widgets_asked(since, until) if s.point == point and s.t <= until]
    if not asked or asked[-1].widget is None:
        return None
    now = asked[-1].widget
    if (now.role, now.path, now.box) != (widget.role, widget.path, widget.box):
        return None
    return After.of(now)


def _look_held(
    timeline: FrameTimeline, box: Box, after: Frame, start: float, limit: float
) -> tuple[float, float] | None:
    """From when to when (from `start` to `limit` at most) the screen inside `box` showed
    what `after` shows there, in the run of frames that holds `after`; None where `after`
    is not among the frames held from `start` on."""
    frames = timeline.shown_between(start, limit)
    if after not in frames:
        return None
    x, y, w, h = box
    look = after.pixels()[max(y, 0) : y + h, max(x, 0) : x + w]

    def same(frame: Frame) -> bool:
        region = frame.pixels()[max(y, 0) : y + h, max(x, 0) : x + w]
        return region.shape == look.shape and bool((region == look).all())

    at = frames.index(after)
    first = at
    while first > 0 and same(frames[first - 1]):
        first -= 1
    last = at
    while last + 1 < len(frames) and same(frames[last + 1]):
        last += 1
    until = frames[last + 1].t_first if last + 1 < len(frames) else limit
    return max(start, frames[first].t_first), min(until, limit)

"""The reducer's hover pass: places the pointer moved to and rested at, as `mouse_move`.

Pure: no X, no I/O, no clock.

The rule the issue left to us: a hover is a motion event followed by at least hover_time
without pointer events, with no button held, not ended by a press at that place sooner
than `idle` (that rest was the click's approach; a longer one gets a `wait`, and the
hover keeps the pointer where the person left it during that wait), and further than
drag_distance from where the last pointer action left the pointer. A rest is timed up to
the next pointer event, or to the last event of the recording.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from deskreel.storage.grouping import Thresholds
from deskreel.storage.values import RawEvent
from deskreel.storage.vocabulary import Action

from .reduced import Reduced, distance, position, reduced

__all__ = ["hovers", "pointer_left_at"]

_POINTER_KINDS = frozenset({"motion", "button_down", "button_up"})


def hovers(
    events: Sequence[RawEvent],
    th: Thresholds,
    pointer_at: tuple[int, int] | None,
    until: float | None,
) -> list[Reduced]:
    """Places the pointer moved to and rested at, without a press there."""
    pointer = [i for i, e in enumerate(events) if e.kind in _POINTER_KINDS]
    out: list[Reduced] = []
    buttons: set[int | None] = set()
    left_at = pointer_at  # where the last pointer action or hover left the pointer
    end = events[-1].t if events else 0.0
    if until is not None:
        end = max(end, until)  # the recording goes on: a rest at the end lasts until then
    for n, i in enumerate(pointer):
        e = events[i]
        if e.kind == "button_down":
            buttons.add(e.button)
        elif e.kind == "button_up":
            buttons.discard(e.button)
        if e.kind != "motion":
            left_at = position(e)
            continue
        after = events[pointer[n + 1]] if n + 1 < len(pointer) else None
        rest = (after.t if after is not None else end) - e.t
        if (
            buttons
            or rest < th.hover_time
            or (
                after is not None
                and after.kind == "button_down"
                and rest < th.idle
                and distance(e, after) <= th.drag_distance
            )
            or (left_at is not None and math.dist(position(e), left_at) <= th.drag_distance)
        ):
            continue
        out.append(reduced(Action("mouse_move", coordinate=position(e)), events, i, i))
        left_at = position(e)
    return out


def pointer_left_at(
    events: Sequence[RawEvent], actions: Sequence[Reduced], before: tuple[int, int] | None
) -> tuple[int, int] | None:
    """Where `events` (reduced to `actions`) left the pointer for the hover rule: at their
    last press, release or hover; `before` when they have none."""
    last = max(
        (i for i, e in enumerate(events) if e.kind in ("button_down", "button_up")), default=-1
    )
    hover = max((r.first for r in actions if r.action.action == "mouse_move"), default=-1)
    if max(last, hover) < 0:
        return before
    return position(events[max(last, hover)])

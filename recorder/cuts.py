"""Where the open chunk may be cut, so that its pieces, each reduced with what the one before
left (`Carry`), give the actions the whole recording gives. Pure: no X, no I/O, no clock.

Every rule of the reducer looks at most `quiet_after` s past a *decisive* event: a key or
button event, or a motion the pointer then rested after for `hover_time` (a hover, or a
click's approach). So does the finisher, which takes an action's after-frame up to the
settle cap later. A motion the pointer moved on from sooner decides nothing: the hover rule
times the rest before it against the next pointer event, which is that motion in the whole
recording and the piece's end (`until`) in a piece. Hence two cuts:
- quiet: nothing held and no event for `quiet_after`;
- gliding: before a motion event, nothing held, `quiet_after` since the chunk's last
  decisive event (or its first event). A person who moves the pointer while thinking gives
  no quiet moment: without this cut the chunk, and every frame kept for it, grew until the
  recording stopped, and the stop then reduced and stored it all.
"""

from __future__ import annotations

from dataclasses import dataclass

from deskreel.storage import RawEvent
from deskreel.storage.grouping import InputSettings, Thresholds

__all__ = ["Glide", "quiet_after"]

_POINTER_KINDS = frozenset({"motion", "button_down", "button_up"})


def quiet_after(settings: InputSettings, thresholds: Thresholds, settle_cap: float) -> float:
    """Longer than every rule looks ahead of a decisive event (reduce_piece; the settle cap)."""
    th = thresholds
    rules = (th.type_pause, th.hover_time, th.scroll_gap, th.long_press, th.idle)
    return max(*rules, settings.multi_click_time, settle_cap) + 0.1


@dataclass
class Glide:
    """The open chunk's last decisive event, and whether it may be cut before a motion."""

    hover_time: float
    quiet: float  # quiet_after
    decided: float | None = None  # when its last decisive event (or its first event) came
    _pointer: RawEvent | None = None  # its last pointer event

    def may_cut_before(self, event: RawEvent, *, held: bool) -> bool:
        """Whether the chunk seen so far may end just before `event`, which comes next."""
        if event.kind != "motion" or held or self.decided is None:
            return False
        return event.t - self._decided_with(event) >= self.quiet

    def see(self, event: RawEvent) -> None:
        """`event` joins the chunk."""
        self.decided = event.t if event.kind != "motion" else self._decided_with(event)
        if event.kind in _POINTER_KINDS:
            self._pointer = event

    def _decided_with(self, event: RawEvent) -> float:
        """When the last decisive event came, once `event` comes: the last pointer event was
        decisive if the pointer rested after it until `event` for hover_time."""
        last = self._pointer
        decided = event.t if self.decided is None else self.decided
        if last is not None and last.kind == "motion" and event.t - last.t >= self.hover_time:
            decided = max(decided, last.t)
        return decided

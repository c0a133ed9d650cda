"""Private windows: the events that come while a deny-listed window is active are not kept.

Runs on the writer loop's thread, except `hides`, which the screen thread asks at every look
at the active window (it grabs nothing while that is True).
"""

from __future__ import annotations

from collections.abc import Callable

from deskreel.storage import RawEvent

from .chunk import held_key
from .privacy import DenyList
from .screen import WINDOW_POLL, FrameTimeline, WindowInfo

__all__ = ["PrivateWindows"]


class PrivateWindows:
    """Tells the events to drop by the windows the timeline saw, and says when recording stops
    and starts again for that reason."""

    def __init__(self, deny: DenyList, timeline: FrameTimeline, say: Callable[[str], None]):
        self.deny, self.timeline, self.say = deny, timeline, say
        self.denied: str | None = None  # why the active window is not being recorded
        self.dropped_down: set[tuple[str, int]] = set()  # presses the deny-list dropped

    def hides(self, info: WindowInfo) -> bool:
        """Called by the screen thread for every look at the active window."""
        return self.deny.reason(info.window_class, info.title) is not None

    def allows(self, event: RawEvent, *, held: set[tuple[str, int]]) -> bool:
        """Whether to keep `event` (monotonic t); `held` are the kept presses still down.

        A release follows its press: kept when the press was kept, dropped when it was not,
        so that a chunk's held keys always empty and a denied key leaves no trace."""
        denied = self._denied_at(event)
        if event.kind in ("key_down", "button_down"):
            key = held_key(event)
            if denied:
                self.dropped_down.add(key)
                return False
            self.dropped_down.discard(key)
        elif event.kind in ("key_up", "button_up"):
            key = held_key(event)
            if key in self.dropped_down:
                self.dropped_down.discard(key)
                return False
            if denied and key not in held:
                return False
        elif denied:
            return False
        return True

    def _denied_at(self, event: RawEvent) -> bool:
        """True while a deny-listed window is active at the event (monotonic t) or one poll
        later: a window looked at just before a prompt appeared must not let typing through."""
        reason = None
        for t in (event.t, event.t + WINDOW_POLL):
            info = self.timeline.window_at(t)
            reason = self.deny.reason(info.window_class, info.title) if info else None
            if reason:
                break
        if reason != self.denied:
            if reason:
                self.say(f"paused while a private window is active ({reason})")
            elif self.denied:
                self.say("recording again: the private window is gone")
            self.denied = reason
        return reason is not None

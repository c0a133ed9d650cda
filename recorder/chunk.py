"""The open chunk: the raw events kept since the last cut, and what is held down now."""

from __future__ import annotations

from dataclasses import dataclass, field

from deskreel.storage import RawEvent

__all__ = ["Chunk", "held_key"]


@dataclass
class Chunk:
    """Raw events since the last cut, and the sequence number of the first."""

    first_seq: int = 0
    events: list[RawEvent] = field(default_factory=list)
    held: set[tuple[str, int]] = field(default_factory=set)  # keys and buttons down now

    def add(self, event: RawEvent) -> None:
        """Keep `event` (its time relative to the recording's start)."""
        self.events.append(event)
        if event.kind in ("key_down", "button_down"):
            self.held.add(held_key(event))
        elif event.kind in ("key_up", "button_up"):
            self.held.discard(held_key(event))


def held_key(event: RawEvent) -> tuple[str, int]:
    """What a press or release presses or releases: ("key", keycode) or ("but", button)."""
    return (event.kind[:3], event.keycode or event.button or 0)

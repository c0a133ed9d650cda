"""The hold-back: captured events wait a while before the chord filter sees them.

They wait HOLDBACK s so that the window they came in is known before they are kept: the
screen thread looks at the active window every WINDOW_POLL s. They stay on the monotonic
clock meanwhile, because a resume moves the recording's start while they wait. Runs on
the writer loop's thread: the capture callback only enqueues.
"""

from __future__ import annotations

import queue
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from deskreel.storage import RawEvent

from .chords import ChordFilter
from .screen import WINDOW_POLL

__all__ = ["HOLDBACK", "Fired", "HoldBack", "take"]

HOLDBACK = 3 * WINDOW_POLL  # s events wait, so a denied window is known before they are kept


@dataclass(frozen=True, slots=True)
class Fired:
    """One of our chords fired: its name ("stop", "pause") and its own (monotonic) time."""

    chord: str
    at: float


class HoldBack:
    """Events from the capture queue, held back, then through the chord filter."""

    def __init__(self, source: queue.SimpleQueue[tuple[Any, ...]], chords: ChordFilter):
        self.source, self.chords = source, chords
        self.held: deque[RawEvent] = deque()  # on the monotonic clock, not yet relative

    def take(self, *, timeout: float) -> None:
        """Move queued events into the hold-back, waiting up to `timeout` for the first."""
        take(self.source, self.held, timeout=timeout)

    def release(self, now: float, *, everything: bool = False) -> Iterator[RawEvent | Fired]:
        """Events older than the hold-back (all with `everything`) through the chord filter:
        those it keeps, and the chords that fired, in order. One at a time: what the caller
        does with each (a pause) counts for the next, and it may stop at any (the stop)."""
        while self.held and (everything or now - self.held[0].t >= HOLDBACK):
            event = self.held.popleft()
            filtered = self.chords.feed(event)
            yield from filtered.keep
            for chord in filtered.fired:
                yield Fired(chord, event.t)


def take(
    source: queue.SimpleQueue[tuple[Any, ...]], held: deque[RawEvent], *, timeout: float
) -> None:
    """Move queued events (RawEvent field tuples) into `held`, waiting up to `timeout`
    for the first."""
    # Not get(timeout=...): on CPython 3.11 a signal near its deadline (SIGINT and
    # SIGTERM are how a recording stops) leaves it blocked until the next event comes.
    item: tuple[Any, ...] | None
    try:
        item = source.get_nowait()
    except queue.Empty:
        time.sleep(timeout)
        try:
            item = source.get_nowait()
        except queue.Empty:
            return
    while item is not None:
        held.append(RawEvent(*item))
        try:
            item = source.get_nowait()
        except queue.Empty:
            item = None

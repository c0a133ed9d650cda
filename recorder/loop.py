"""The writer loop: the recording's own thread, between the capture threads and the finisher.

Each turn it takes what the capture enqueued into the hold-back, lets through what the
chord filter and the deny-list keep (the stop and pause chords act here), commits raw
events in batches, and hands the kept events to the pieces, which give the finisher its
jobs. It watches the capture threads too: the X server going away ends the recording.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Protocol

from deskreel.storage import RawEvent

from .capture import InputCapture
from .errors import RecordError
from .finisher import Finisher
from .holdback import Fired, HoldBack
from .pieces import Pieces
from .private_windows import PrivateWindows
from .screen import ScreenCapture
from .writing import EventBatches

__all__ = ["Keeps", "WriterLoop", "keep_allowed"]


class WriterLoop:
    """Turns until the stop chord, `should_stop()`, or the X server going away (`run`)."""

    def __init__(
        self,
        holdback: HoldBack,
        private: PrivateWindows,
        batches: EventBatches,
        pieces: Pieces,
        finisher: Finisher,
        *,
        capture: InputCapture,
        screen: ScreenCapture,
        clock: Callable[[], float],
        say: Callable[[str], None],
        pause_key: str,
    ):
        self.holdback, self.private, self.batches = holdback, private, batches
        self.pieces, self.finisher = pieces, finisher
        self.capture, self.screen = capture, screen
        self._clock, self.say, self._pause_key = clock, say, pause_key
        self.t0 = clock()  # the recording's start on the monotonic clock (resumes move it)
        self.paused = False
        self._paused_at = 0.0

    def run(self, should_stop: Callable[[], bool]) -> str:
        """Turn until the recording ends; what ended it."""
        while True:
            self.holdback.take(timeout=0.05)
            if self._release(self._clock()) == "stop":
                return "stop key"
            now = self._clock()
            if self.batches.due(now):
                self.batches.commit()
            self.pieces.turn(now, self.t0)
            self.finisher.check()
            if should_stop():
                return "interrupt"
            if not self.capture.alive or _connection_lost(self.screen.error):
                self.say(
                    "the X server went away: the recording ends here; everything "
                    "captured so far is kept"
                )
                return "X server gone"
            if self.screen.error is not None:
                raise RecordError(f"screen capture failed: {self.screen.error}")

    def finish(self) -> None:
        """Once the capture stopped: what it still held back goes through, and everything
        kept is committed and handed to the finisher (unless the store refused a write)."""
        if self.batches.writes.failed:
            return
        self.holdback.take(timeout=0)
        self._release(self._clock(), everything=True)
        if self.batches.writes.failed:
            return
        self._keep(self.holdback.chords.flush())
        self.batches.commit()
        self.pieces.end(self._clock(), self.t0)

    def duration(self) -> float:
        """How long the recording ran, paused time left out."""
        if self.paused:  # stopped while paused: the pause is not part of the recording
            self.t0 += self._clock() - self._paused_at
        return self._clock() - self.t0

    def _release(self, now: float, *, everything: bool = False) -> str | None:
        """Events older than the hold-back go through the chord filter and the deny-list."""
        for item in self.holdback.release(now, everything=everything):
            if not isinstance(item, Fired):
                self._keep([item])
            elif item.chord == "stop":
                return "stop"
            else:
                self._toggle_pause(at=item.at)
        return None

    def _keep(self, events: Iterable[RawEvent]) -> None:
        keep_allowed(
            events, private=self.private, t0=self.t0, batch=self.batches.pending, into=self.pieces
        )

    def _toggle_pause(self, *, at: float) -> None:
        """Pause or resume at `at`, the chord's own (monotonic) time; paused time is cut out of
        the recording's timeline."""
        self.paused = not self.paused
        self.holdback.chords.paused = self.screen.paused = self.paused
        if self.paused:
            self._paused_at = at
            self.pieces.end(self._clock(), self.t0)  # what came before is complete: store it
            self.say(f"paused: nothing is recorded until {self._pause_key}")
        else:
            self.t0 += at - self._paused_at
            self.say("recording again")


class Keeps(Protocol):
    """Where kept events go besides the store: the pieces."""

    @property
    def held(self) -> set[tuple[str, int]]: ...

    def add(self, event: RawEvent, *, t0: float) -> None: ...


def keep_allowed(
    events: Iterable[RawEvent],
    *,
    private: PrivateWindows,
    t0: float,
    batch: list[RawEvent],
    into: Keeps,
) -> None:
    """Keep what the deny-list allows, made relative to t0 (events on the monotonic clock):
    into the batch for the store and into the pieces."""
    for event in events:
        if private.allows(event, held=into.held):
            kept = replace(event, t=event.t - t0)
            into.add(kept, t0=t0)  # first: a cut there commits the batch, which ends before it
            batch.append(kept)


def _connection_lost(error: BaseException | None) -> bool:
    from Xlib import error as xerror

    return isinstance(error, (xerror.ConnectionClosedError, ConnectionError, BrokenPipeError))

"""Pieces: the kept events, cut where no rule looks across (recorder/cuts.py) and reduced,
become jobs for the finisher.

A piece is reduced once the first event after it is kept (or the recording ends): only
then is it known whether the pointer's rest at its end was a hover. Each piece gets what
the one before left (`Carry`), so the actions are those `deskreel reduce` derives from
the stored events; pauses are the exception, they end what came before them.
Runs on the writer loop's thread; the jobs go to the finisher through a queue.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deskreel.storage import RawEvent
from deskreel.storage.grouping import InputSettings, Thresholds

from .chunk import Chunk
from .cuts import Glide, quiet_after
from .reduce import Carry, Reduced, reduce_piece
from .retention import needed_frames
from .screen import Frame, FrameTimeline

if TYPE_CHECKING:
    from .jobs import JobQueue

__all__ = ["Job", "Piece", "Pieces"]

PRUNE_EVERY = 1.0  # s between lets-go of the open chunk's frames (recorder/retention.py)


@dataclass(frozen=True, slots=True)
class Piece:
    """A chunk cut at a quiet moment, with the frames and windows its steps may need."""

    chunk: Chunk
    timeline: FrameTimeline
    t0: float  # the monotonic time its event times count from (a resume moves it later)
    cut_at: float  # monotonic


@dataclass(frozen=True, slots=True)
class Job:
    """Steps for the finisher: numbered actions, and where their frames come from."""

    numbered: list[tuple[int, Reduced]]
    first_seq: int
    timeline: FrameTimeline
    t0: float
    now: float
    final: bool
    events: Sequence[RawEvent] = ()  # the piece's raw events, which `Reduced` indexes


class Pieces:
    """Keeps the open chunk, cuts it at quiet moments, and reduces each piece in its turn.

    `written` commits the raw events kept so far and tells how many are stored: a piece's
    steps point at event rows, so those rows go first."""

    def __init__(
        self,
        jobs: JobQueue,
        timeline: FrameTimeline,
        *,
        settings: InputSettings,
        thresholds: Thresholds,
        settle: float,
        settle_cap: float,
        written: Callable[[], int],
    ):
        self.jobs, self.timeline, self._written = jobs, timeline, written
        self.settings, self.thresholds = settings, thresholds
        self.chunk = Chunk()
        self.waiting: Piece | None = None  # cut, not reduced until the next event
        self.carry = Carry()  # what the pieces reduced so far leave for the next
        self.numbered = 0  # steps handed to the finisher
        # longer than every rule looks ahead, so the cut changes no action (see cuts.py)
        self._quiet_after = quiet_after(settings, thresholds, settle_cap)
        self._glide = self._new_glide()
        self._after = settle_cap + settle  # how long after an event its after-frame may come
        self._pruned_at = float("-inf")
        self.frames_let_go = 0  # frames no step could need, dropped before the finisher

    @property
    def held(self) -> set[tuple[str, int]]:
        """The keys and buttons down now."""
        return self.chunk.held

    def add(self, event: RawEvent, *, t0: float) -> None:
        """Keep `event` (its time relative to `t0`): before a motion while the pointer glides,
        the chunk so far is cut and reduced at once (the motion is the event after it)."""
        if self.waiting is not None and self.chunk.events:
            self._reduce_waiting()
        if self._glide.may_cut_before(event, held=bool(self.chunk.held)):
            self.waiting = self._cut(t0 + event.t, t0)
            self.chunk.add(event)
            self._glide.see(event)
            self._reduce_waiting()
            return
        self.chunk.add(event)
        self._glide.see(event)

    def turn(self, now: float, t0: float) -> None:
        """One turn of the writer loop: reduce the waiting piece once an event follows it,
        cut the chunk when quiet, and let the timeline drop what no step will need."""
        if self.waiting is not None and self.chunk.events:
            self._reduce_waiting()
        if self.chunk.events and self._quiet(now, t0):
            self.waiting = self._cut(now, t0)
        # the open chunk's frames stay; without one, those of events still held back
        self.timeline.keep_from = t0 + self.chunk.events[0].t if self.chunk.events else now - 1.0
        # frames shown only before the open chunk began are no step's (the waiting piece
        # holds its own copy)
        self.timeline.forget_before(self.timeline.keep_from if self.chunk.events else now - 5.0)
        if self.chunk.events and now - self._pruned_at >= PRUNE_EVERY:
            self._pruned_at = now
            self.frames_let_go += self.timeline.prune(
                self.timeline.keep_from, lambda frames: self._needed(frames, self.chunk.events, t0)
            )

    def end(self, now: float, t0: float) -> None:
        """Reduce and hand on everything kept so far: the recording ends, or pauses."""
        self._reduce_waiting(final=True)
        if self.chunk.events:
            self.waiting = self._cut(now, t0)
            self._reduce_waiting(final=True)

    def _quiet(self, now: float, t0: float) -> bool:
        return not self.chunk.held and now - (t0 + self.chunk.events[-1].t) >= self._quiet_after

    def _cut(self, now: float, t0: float) -> Piece:
        """End the chunk where no rule looks across; it waits for the next event to be
        reduced."""
        chunk = self.chunk
        self.chunk = Chunk(first_seq=self._written())
        self._glide = self._new_glide()
        frames = self.timeline.between(t0 + chunk.events[0].t, now)
        self.frames_let_go += frames.prune(
            float("-inf"), lambda held: self._needed(held, chunk.events, t0)
        )
        return Piece(chunk, frames, t0, now)

    def _needed(self, frames: list[Frame], events: Sequence[RawEvent], t0: float) -> list[bool]:
        return needed_frames(
            frames, events, t0, hover_time=self.thresholds.hover_time, after=self._after
        )

    def _new_glide(self) -> Glide:
        return Glide(self.thresholds.hover_time, self._quiet_after)

    def _reduce_waiting(self, *, final: bool = False) -> None:
        """Reduce the waiting piece: the first event after it is kept, or the recording (or
        the stretch before a pause) ends."""
        piece, self.waiting = self.waiting, None
        if piece is None:
            return
        until = self.chunk.events[0].t if self.chunk.events else None
        reduced, self.carry = reduce_piece(
            piece.chunk.events,
            carry=self.carry,
            until=until,
            settings=self.settings,
            thresholds=self.thresholds,
        )
        numbered = list(enumerate(reduced, start=self.numbered + 1))
        self.numbered += len(reduced)
        if numbered:
            self.jobs.put(
                Job(
                    numbered,
                    piece.chunk.first_seq,
                    piece.timeline,
                    piece.t0,
                    piece.cut_at,
                    final,
                    piece.chunk.events,
                )
            )

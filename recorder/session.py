"""A recording session: the parts of a recording, wired together by `Recorder.run`.

Threads: RECORD capture (`capture`: enqueues only), screen capture (`screen`: frames and
the active window), the writer loop (`loop`, on the caller's thread) and a finisher
(`finisher`). The writer loop filters our own chords after a hold-back (`holdback`) that
lets the deny-list (`private_windows`) know the window each event came in, commits raw
events in batches (`writing`: every 100 events or 100 ms) and cuts the events at quiet
moments into pieces it reduces to actions (`pieces`). The finisher gives those actions
their frames and anchors (encoding takes seconds) and stores them, so that the loop keeps
committing and hears a stop meanwhile. Queues join them: capture -> writer loop, pieces ->
finisher.

A piece is reduced once the first event after it is kept (or the recording ends): only
then is it known whether the pointer's rest at its end was a hover. Each piece gets what
the one before left (`Carry`), so the actions are those `deskreel reduce` derives from
the stored events; pauses are the exception, they end what came before them.
"""

from __future__ import annotations

import queue
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xsession.display import connect, display_name
from xsession.settings import read_input_settings
from storage import RawEvent, StorageError, Store
from storage.values import INPUT_SETTINGS

from .capture import InputCapture
from .chords import ChordFilter
from .chunk import Chunk
from .finisher import Finisher
from .header import default_name, display_header
from .holdback import HoldBack, take
from .loop import WriterLoop, keep_allowed
from .pieces import Job, Pieces
from .privacy import DenyList, Redactor, TypingRedaction
from .private_windows import PrivateWindows
from .reduce import DEFAULT_THRESHOLDS, Thresholds
from .screen import FrameTimeline, ScreenCapture
from .writing import EventBatches, StoreWrites

__all__ = ["DEFAULT_PAUSE_KEY", "DEFAULT_STOP_KEY", "RecordOptions", "RecordSummary", "Recorder"]

DEFAULT_STOP_KEY = "ctrl+alt+End"
DEFAULT_PAUSE_KEY = "ctrl+alt+Home"


@dataclass(frozen=True, slots=True)
class RecordOptions:
    name: str | None = None
    fps: float = 10.0
    frames: bool = True
    stop_key: str = DEFAULT_STOP_KEY
    pause_key: str = DEFAULT_PAUSE_KEY
    thresholds: Thresholds = DEFAULT_THRESHOLDS
    settle: float = 0.4  # s the screen must stay unchanged for an after-frame
    settle_cap: float = 2.0  # s after an action when we take the screen as it is
    deny: DenyList = field(default_factory=DenyList)  # windows during which nothing is kept
    redact_typing: bool = False  # typed text stored as {{secret:N}}, no frames of typing,
    # and what it left on screen painted out of later frames


@dataclass(frozen=True, slots=True)
class RecordSummary:
    recording_id: int
    name: str
    steps: int
    events: int
    duration: float
    frames: int
    frame_bytes: int
    ended_by: str


class _ReadThrough:
    """An attribute of one of the Recorder's parts, read through the Recorder. Not a property:
    one set on the Recorder itself wins, as white-box tests set them on a Recorder made with
    `__new__` (see the seams at the end of Recorder)."""

    def __init__(self, part: str):
        self._part = part

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, recorder: object, owner: type | None = None) -> Any:
        return getattr(getattr(recorder, self._part), self._name)


class Recorder:
    """Records the display into `store` until stopped; see `run`."""

    denied = _ReadThrough("private")  # why the active window is not being recorded
    _loop: WriterLoop | None = None  # while and after `run`

    def __init__(
        self,
        store: Store,
        *,
        options: RecordOptions = RecordOptions(),
        display: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        say: Callable[[str], None] = lambda message: None,
    ):
        self.store, self.options, self._clock, self.say = store, options, clock, say
        self._display = display_name(display)
        # checks the extensions at once, reads the header, then serves the capture as its own
        self._control = connect(self._display, extensions=("RECORD", "XTEST"))
        self._queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()  # capture -> loop
        self.capture = InputCapture(self._display, self._queue, clock=clock, control=self._control)
        # how keys repeat and what a double click is here: the reduction decides by them
        self.settings = read_input_settings(self._control)
        self.timeline = FrameTimeline()
        self.private = PrivateWindows(options.deny, self.timeline, say)
        self.screen = ScreenCapture(
            self._display,
            self.timeline,
            fps=options.fps,
            frames=options.frames,
            clock=clock,
            on_window=self.private.hides,
        )
        self.chords = ChordFilter({"stop": options.stop_key, "pause": options.pause_key})
        self.writes = StoreWrites(store)

    def run(
        self,
        should_stop: Callable[[], bool],
        *,
        on_start: Callable[[str], None] = lambda name: None,
    ) -> RecordSummary:
        """Record until the stop chord, `should_stop()`, or the X server going away."""
        options, clock = self.options, self._clock
        name = self._create_recording(**display_header(self._control), extra=self._extra())
        jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()  # pieces -> finisher
        redactor = Redactor(enabled=options.redact_typing)
        batches = EventBatches(self.writes, self.recording_id, redactor=redactor, clock=clock)
        pieces = Pieces(
            jobs,
            self.timeline,
            settings=self.settings,
            thresholds=options.thresholds,
            settle_cap=options.settle_cap,
            written=batches.commit,
        )
        finisher = Finisher(
            jobs,
            self.writes,
            self.recording_id,
            frames=options.frames,
            settle=options.settle,
            settle_cap=options.settle_cap,
            redaction=TypingRedaction(enabled=options.redact_typing),
        )
        holdback = HoldBack(self._queue, self.chords)
        self._loop = loop = WriterLoop(
            holdback,
            self.private,
            batches,
            pieces,
            finisher,
            capture=self.capture,
            screen=self.screen,
            clock=clock,
            say=self.say,
            pause_key=options.pause_key,
        )
        with finisher:
            try:
                with self.screen, self.capture:
                    on_start(name)
                    ended_by = loop.run(should_stop)
            finally:
                loop.finish()  # what the capture still held, and the last pieces
        finisher.check()
        return RecordSummary(
            self.recording_id,
            name,
            self.writes.steps,
            self.writes.events,
            loop.duration(),
            finisher.frames_stored,
            finisher.frame_bytes,
            ended_by,
        )

    def _extra(self) -> dict[str, Any]:
        """What the recording stores of how it was made, besides its display."""
        return {
            "fps": self.options.fps,
            "frames": self.options.frames,
            "display": self._display,
            INPUT_SETTINGS: self.settings.to_json(),
        }

    @property
    def paused(self) -> bool:
        """Whether the pause chord paused the recording (and it was not resumed)."""
        return self._loop is not None and self._loop.paused

    @property
    def write_failed(self) -> bool:
        """Whether the store refused a write, which stopped the recording."""
        return self.writes.failed

    def _create_recording(self, **header: Any) -> str:
        """Create the recording; a default name another recorder took meanwhile (both started
        in the same second on hosts of one name) is chosen again."""
        write = self.writes.call
        for attempt in range(5):
            name = self.options.name or write(self.store.free_name, default_name())
            try:
                self.recording_id = write(
                    self.store.create_recording, name, source="recorder", **header
                )
                return name
            except StorageError:
                if self.options.name or attempt == 4:
                    raise
        raise AssertionError("unreachable")

    # Seams for white-box tests, which build a Recorder with `__new__` and give it only the
    # attributes these read; they run the writer loop's own code on them.

    _held_back: deque[RawEvent]
    t0: float
    _dropped_down: set[tuple[str, int]]
    _chunk: Chunk
    _batch: list[RawEvent]

    def _take(self, *, timeout: float) -> None:
        """Move queued events into the hold-back (`_queue` into `_held_back`)."""
        take(self._queue, self._held_back, timeout=timeout)

    def _pass(self, events: list[RawEvent]) -> None:
        """Keep what the deny-list allows into `_chunk` and `_batch`, made relative to `t0`."""
        private = PrivateWindows(self.options.deny, self.timeline, self.say)
        private.denied, private.dropped_down = self.denied, self._dropped_down
        keep_allowed(events, private=private, t0=self.t0, batch=self._batch, chunk=self._chunk)
        self.denied = private.denied

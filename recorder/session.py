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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from deskreel.xsession.display import connect, display_name
from deskreel.xsession.monitors import read_layout
from deskreel.xsession.settings import read_input_settings
from deskreel.storage import StorageError, Store

if TYPE_CHECKING:
    from deskreel.xsession.toplevel import TopLevel
from deskreel.storage.monitors import MONITORS
from deskreel.storage.values import INPUT_SETTINGS, NESTED, SHED

from .capture import InputCapture
from .chords import ChordFilter
from .animating import ObjectsAt
from .finisher import Finisher
from .header import default_name, display_header
from .holdback import HoldBack
from .loop import WriterLoop
from .jobs import JobQueue, Progress
from .pieces import Pieces
from .privacy import DenyList, Redactor, TypingRedaction
from .private_windows import PrivateWindows
from .reduce import DEFAULT_THRESHOLDS, Thresholds
from .aiming import AimWatch
from .told import ToldWatch
from .screen import FrameTimeline, ScreenCapture, WindowInfo
from .writing import EventBatches, StoreWrites

__all__ = ["DEFAULT_PAUSE_KEY", "DEFAULT_STOP_KEY", "RecordOptions", "RecordSummary", "Recorder"]

FINISHING_SAID_AFTER = 1.0  # s: finishing longer than this is said, and said again each time
HURRY_HINT = " (Ctrl-C: store them at once, without their looks at rest and masks)"
DEFAULT_STOP_KEY = "ctrl+alt+End"
DEFAULT_PAUSE_KEY = "ctrl+alt+Home"


# what a recording made on Xwayland with --force says of itself (its `extra`)
XWAYLAND = "xwayland"
XWAYLAND_NOTE = "recorded on Xwayland with --force: what was done in Wayland windows is missing"


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
    xwayland: bool = False  # recorded on Xwayland (--force): Wayland windows were not seen
    instruction: str | None = None  # the task the person demonstrates, as they wrote it
    nested: dict[str, Any] | None = None  # recorded in a nested server (xsession.nested)


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
    shed: dict[str, int] = field(default_factory=dict)  # what the finisher left out, for how
    # many steps (Finisher.shed)


class Recorder:
    """Records the display into `store` until stopped; see `run`."""

    _loop: WriterLoop | None = None  # while and after `run`
    _finisher: Finisher | None = None
    finishing = False  # the recording stopped; what was captured is being stored

    @property
    def denied(self) -> str | None:
        """Why the active window is not being recorded (None while it is)."""
        return self.private.denied

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
        self.aim = AimWatch(
            self._display, self.timeline, allowed=self._may_ask, clock=clock, say=say
        )
        self.told = ToldWatch(self._display, self.timeline, allowed=self._may_ask, clock=clock)
        self.chords = ChordFilter({"stop": options.stop_key, "pause": options.pause_key})
        self.writes = StoreWrites(store)

    def _may_ask(self, top: TopLevel | None) -> bool:
        """Whether the accessibility tree may be asked about the window `top` under the
        pointer: not paused, and neither it nor the active window private (what it would
        name is not to be kept)."""
        if self.options.redact_typing:  # no object would be kept (TypingRedaction.widget)
            return False
        now = self._clock()
        active = self.timeline.window_at(now)
        under = WindowInfo(now, top.window_class, top.title) if top is not None else None
        return not self.screen.paused and not any(
            w is not None and self.private.hides(w) for w in (active, under)
        )

    def run(
        self,
        should_stop: Callable[[], bool],
        *,
        on_start: Callable[[str], None] = lambda name: None,
    ) -> RecordSummary:
        """Record until the stop chord, `should_stop()`, or the X server going away."""
        options, clock = self.options, self._clock
        name = self._create_recording(**display_header(self._control), extra=self._extra())
        self._jobs = jobs = JobQueue(clock)  # pieces -> finisher
        redactor = Redactor(enabled=options.redact_typing)
        batches = EventBatches(self.writes, self.recording_id, redactor=redactor, clock=clock)
        pieces = Pieces(
            jobs,
            self.timeline,
            settings=self.settings,
            thresholds=options.thresholds,
            settle=options.settle,
            settle_cap=options.settle_cap,
            written=batches.commit,
        )
        asks = options.frames and not options.redact_typing  # (the tree is never asked then)
        objects = ObjectsAt(self._display, self._may_ask) if asks else None
        finisher = Finisher(
            jobs,
            self.writes,
            self.recording_id,
            frames=options.frames,
            settle=options.settle,
            settle_cap=options.settle_cap,
            redaction=TypingRedaction(enabled=options.redact_typing),
            objects=objects,
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
        self._finisher = finisher
        try:
            with finisher:
                try:
                    with self.screen, self.aim, self.told, self.capture:
                        on_start(name)
                        self.aim.started.set()
                        ended_by = loop.run(should_stop)
                        duration = loop.duration()  # the person's: it ends at the stop
                        self.finishing = True
                finally:
                    loop.finish()  # what the capture still held, and the last pieces
                    self._wait_for_finisher()
        finally:
            if objects is not None:
                objects.close()  # the finisher's thread has ended
        finisher.check()
        if finisher.shed:
            self.writes.call(self.store.add_extra, self.recording_id, {SHED: dict(finisher.shed)})
        return RecordSummary(
            self.recording_id,
            name,
            self.writes.steps,
            self.writes.events,
            duration,
            finisher.frames_stored,
            finisher.frame_bytes,
            ended_by,
            dict(finisher.shed),
        )

    def hurry(self) -> None:
        """Store what is left without what may be shed (a second Ctrl-C after the stop)."""
        if self._finisher is not None:
            self._finisher.hurry.set()

    def _wait_for_finisher(self) -> None:
        """Wait until every step is stored, saying each second how many are left once it
        takes longer than that."""
        began = said = self._clock()
        while (left := self._jobs.progress()).jobs and self._finisher is not None:
            now = self._clock()
            if now - began >= FINISHING_SAID_AFTER and now - said >= FINISHING_SAID_AFTER:
                hint = "" if self._finisher.hurry.is_set() else HURRY_HINT
                self.say(f"finishing: {left.steps} step{'s' * (left.steps != 1)} to store{hint}")
                said = now
            time.sleep(0.05)

    def _extra(self) -> dict[str, Any]:
        """What the recording stores of how it was made, besides its display."""
        return {
            "fps": self.options.fps,
            "frames": self.options.frames,
            "display": self._display,
            INPUT_SETTINGS: self.settings.to_json(),
            MONITORS: read_layout(self._control).to_json(),
            **({XWAYLAND: XWAYLAND_NOTE} if self.options.xwayland else {}),
            **({NESTED: self.options.nested} if self.options.nested is not None else {}),
        }

    def progress(self) -> Progress:
        """What waits for the finisher now (nothing before `run`)."""
        jobs = getattr(self, "_jobs", None)
        return jobs.progress() if jobs is not None else Progress(0, 0, 0.0)

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
                    self.store.create_recording,
                    name,
                    source="recorder",
                    instruction=self.options.instruction,
                    **header,
                )
                return name
            except StorageError:
                if self.options.name or attempt == 4:
                    raise
        raise AssertionError("unreachable")

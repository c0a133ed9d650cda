"""A recording session: capture threads feed a writer loop that stores events and actions.

Threads: RECORD capture (enqueues only), screen capture (frames and active window), this
loop, which filters our own chords, commits raw events in batches (every 100 events or
100 ms) and cuts the events at quiet moments into pieces it reduces to actions, and a
finisher that gives those actions their frames and anchors (encoding takes seconds) and
stores them, so that the loop keeps committing and hears a stop meanwhile.

A piece is reduced once the first event after it is kept (or the recording ends): only
then is it known whether the pointer's rest at its end was a hover. Each piece gets what
the one before left (`Carry`), so the actions are those `deskreel reduce` derives from
the stored events; pauses are the exception, they end what came before them.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from xsession.settings import read_input_settings
from xsession.images import encode_png, encode_webp, pixel_hash
from xsession.display import display_name
from storage import Anchor, RawEvent, Step, StorageError, Store
from storage.values import INPUT_SETTINGS

from .capture import InputCapture
from .chords import ChordFilter
from .errors import RecordError, WriteFailed
from .privacy import DenyList, Redactor, TypedOnScreen
from .reduce import DEFAULT_THRESHOLDS, Carry, Reduced, Thresholds, reduce_piece
from .screen import WINDOW_POLL, Frame, FrameTimeline, ScreenCapture, WindowInfo

__all__ = ["DEFAULT_PAUSE_KEY", "DEFAULT_STOP_KEY", "RecordOptions", "RecordSummary", "Recorder"]

DEFAULT_STOP_KEY = "ctrl+alt+End"
DEFAULT_PAUSE_KEY = "ctrl+alt+Home"
BATCH_ROWS = 100
BATCH_SECONDS = 0.1
HOLDBACK = 3 * WINDOW_POLL  # s events wait, so a denied window is known before they are kept


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


@dataclass
class _Chunk:
    """Raw events since the last cut, and the sequence number of the first."""

    first_seq: int = 0
    events: list[RawEvent] = field(default_factory=list)
    held: set[tuple[str, int]] = field(default_factory=set)  # keys and buttons down now


@dataclass(frozen=True, slots=True)
class _Piece:
    """A chunk cut at a quiet moment, with the frames and windows its steps may need."""

    chunk: _Chunk
    timeline: FrameTimeline
    t0: float  # the monotonic time its event times count from (a resume moves it later)
    cut_at: float  # monotonic


@dataclass(frozen=True, slots=True)
class _Job:
    """Steps for the finisher: numbered actions, and where their frames come from."""

    numbered: list[tuple[int, Reduced]]
    first_seq: int
    timeline: FrameTimeline
    t0: float
    now: float
    final: bool


class Recorder:
    """Records the display into `store` until stopped; see `run`."""

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
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self.capture = InputCapture(self._display, self._queue, clock=clock)
        # how keys repeat and what a double click is here: the reduction decides by them
        self.settings = read_input_settings(self.capture._control)
        self.timeline = FrameTimeline()
        self.screen = ScreenCapture(
            self._display,
            self.timeline,
            fps=options.fps,
            frames=options.frames,
            clock=clock,
            on_window=self._window_denied,
        )
        self._redactor = Redactor(enabled=options.redact_typing)
        self._held_back: deque[RawEvent] = deque()  # on the monotonic clock, not yet relative
        self._dropped_down: set[tuple[str, int]] = set()  # presses the deny-list dropped
        self._typed = TypedOnScreen()  # --redact-typing: what typing left on screen
        self._typed_unseen = False  # --redact-typing: typing without frames: the next step's go
        self.denied: str | None = None  # why the active window is not being recorded
        self._filter = ChordFilter({"stop": options.stop_key, "pause": options.pause_key})
        self._frame_keys: dict[int, str] = {}  # id(Frame) -> stored hash
        self._latest: tuple[Frame | None, Any] = (None, None)  # last stored, its pixels as stored
        self.frames_stored = self.frame_bytes = 0
        self.steps = self.events = 0  # written
        self._numbered = 0  # steps handed to the finisher
        self._carry = Carry()  # what the pieces reduced so far leave for the next
        self._waiting: _Piece | None = None  # cut, not reduced until the next event
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._finisher = threading.Thread(
            target=self._finish_jobs, name="deskreel-finisher", daemon=True
        )
        self._finisher_error: BaseException | None = None
        self.write_failed = False
        self.paused = False

    def run(
        self,
        should_stop: Callable[[], bool],
        *,
        on_start: Callable[[str], None] = lambda name: None,
    ) -> RecordSummary:
        """Record until the stop chord, `should_stop()`, or the X server going away."""
        conn = self.capture._control
        screen = conn.screen()
        name = self._create_recording(
            screen=(screen.width_in_pixels, screen.height_in_pixels),
            dpi=_dpi(screen),
            keyboard_layout=_xkb_layout(conn),
            extra={
                "fps": self.options.fps,
                "frames": self.options.frames,
                "display": self._display,
                INPUT_SETTINGS: self.settings.to_json(),
            },
        )
        self.t0 = self._clock()
        self.screen.start()
        self._finisher.start()
        self.capture.start()
        self.capture.ready.wait(5)
        on_start(name)
        ended_by = "interrupt"
        try:
            ended_by = self._loop(should_stop)
        finally:
            self.capture.stop()
            self.screen.stop()
            try:
                self.capture.join()
            except Exception:  # the X connection broke: said in the loop already
                pass
            try:
                if not self.write_failed:
                    self._drain()
                    self._write_tail()
            finally:
                self._jobs.put(None)
                self._finisher.join()
        self._check_finisher()
        if self.paused:  # stopped while paused: the pause is not part of the recording
            self.t0 += self._clock() - self._paused_at
        duration = self._clock() - self.t0
        return RecordSummary(
            self.recording_id,
            name,
            self.steps,
            self.events,
            duration,
            self.frames_stored,
            self.frame_bytes,
            ended_by,
        )

    def _create_recording(self, **header: Any) -> str:
        """Create the recording; a default name another recorder took meanwhile (both started
        in the same second on hosts of one name) is chosen again."""
        for attempt in range(5):
            name = self.options.name or self._write(self.store.free_name, default_name())
            try:
                self.recording_id = self._write(
                    self.store.create_recording, name, source="recorder", **header
                )
                return name
            except StorageError:
                if self.options.name or attempt == 4:
                    raise
        raise AssertionError("unreachable")

    def _loop(self, should_stop: Callable[[], bool]) -> str:
        self._chunk = _Chunk()
        self._batch: list[RawEvent] = []
        self._last_commit = self._clock()
        while True:
            self._take(timeout=0.05)
            if self._release(self._clock()) == "stop":
                return "stop key"
            now = self._clock()
            if self._batch and (
                len(self._batch) >= BATCH_ROWS or now - self._last_commit >= BATCH_SECONDS
            ):
                self._commit()
            if self._waiting is not None and self._chunk.events:
                self._reduce_waiting()
            if self._chunk.events and self._quiet(now):
                self._waiting = self._cut(now)
            # the open chunk's frames stay; without one, those of events still held back
            self.timeline.keep_from = (
                self.t0 + self._chunk.events[0].t if self._chunk.events else now - 1.0
            )
            if not self._chunk.events:
                self.timeline.forget_before(now - 5.0)
            self._check_finisher()
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

    def _take(self, *, timeout: float) -> None:
        """Move queued events into the hold-back queue; they stay on the monotonic clock
        until released, because a resume moves t0 while they wait."""
        # Not get(timeout=...): on CPython 3.11 a signal near its deadline (SIGINT and
        # SIGTERM are how a recording stops) leaves it blocked until the next event comes.
        try:
            item = self._queue.get_nowait()
        except queue.Empty:
            time.sleep(timeout)
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
        while item is not None:
            self._held_back.append(RawEvent(*item))
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                item = None

    def _release(self, now: float, *, everything: bool = False) -> str | None:
        """Events older than the hold-back go through the chord filter and the deny-list."""
        signal = None
        while self._held_back and (everything or now - self._held_back[0].t >= HOLDBACK):
            event = self._held_back.popleft()
            filtered = self._filter.feed(event)
            self._pass(filtered.keep)
            for fired in filtered.fired:
                if fired == "stop":
                    signal = "stop"
                else:
                    self._toggle_pause(at=event.t)
            if signal:
                return signal
        return signal

    def _pass(self, events: list[RawEvent]) -> None:
        """Keep what the deny-list allows, made relative to t0 (events on the monotonic clock).

        A release follows its press: kept when the press was kept, dropped when it was not,
        so that a chunk's held keys always empty and a denied key leaves no trace."""
        for event in events:
            denied = self._deny(event)
            if event.kind in ("key_down", "button_down"):
                key = (event.kind[:3], event.keycode or event.button or 0)
                if denied:
                    self._dropped_down.add(key)
                    continue
                self._dropped_down.discard(key)
            elif event.kind in ("key_up", "button_up"):
                key = (event.kind[:3], event.keycode or event.button or 0)
                if key in self._dropped_down:
                    self._dropped_down.discard(key)
                    continue
                if denied and key not in self._chunk.held:
                    continue
            elif denied:
                continue
            self._keep(replace(event, t=event.t - self.t0))

    def _window_denied(self, info: WindowInfo) -> bool:
        """Called by the screen thread for every look at the active window."""
        return self.options.deny.reason(info.window_class, info.title) is not None

    def _deny(self, event: RawEvent) -> bool:
        """True while a deny-listed window is active at the event (monotonic t) or one poll
        later: a window looked at just before a prompt appeared must not let typing through."""
        reason = None
        for t in (event.t, event.t + WINDOW_POLL):
            info = self.timeline.window_at(t)
            reason = self.options.deny.reason(info.window_class, info.title) if info else None
            if reason:
                break
        if reason != self.denied:
            if reason:
                self.say(f"paused while a private window is active ({reason})")
            elif self.denied:
                self.say("recording again: the private window is gone")
            self.denied = reason
        return reason is not None

    def _keep(self, event: RawEvent) -> None:
        self._batch.append(event)
        self._chunk.events.append(event)
        if event.kind in ("key_down", "button_down"):
            self._chunk.held.add((event.kind[:3], event.keycode or event.button or 0))
        elif event.kind in ("key_up", "button_up"):
            self._chunk.held.discard((event.kind[:3], event.keycode or event.button or 0))

    def _toggle_pause(self, *, at: float) -> None:
        """Pause or resume at `at`, the chord's own (monotonic) time; paused time is cut out of
        the recording's timeline."""
        self.paused = not self.paused
        self._filter.paused = self.screen.paused = self.paused
        if self.paused:
            self._paused_at = at
            self._end_pieces()  # what came before the pause is complete: store it now
            self.say(f"paused: nothing is recorded until {self.options.pause_key}")
        else:
            self.t0 += at - self._paused_at
            self.say("recording again")

    def _commit(self) -> None:
        self._write(
            self.store.add_events,
            self.recording_id,
            self._redactor.events(self._batch),
            first_seq=self.events,
        )
        self.events += len(self._batch)
        self._batch = []
        self._last_commit = self._clock()

    def _quiet(self, now: float) -> bool:
        th = self.options.thresholds
        # longer than every rule looks ahead, so the cut changes no action (see reduce_piece)
        wait_for = (
            max(
                th.type_pause,
                th.hover_time,
                self.settings.multi_click_time,
                th.scroll_gap,
                th.long_press,
                th.idle,
                self.options.settle_cap,
            )
            + 0.1
        )
        return not self._chunk.held and now - (self.t0 + self._chunk.events[-1].t) >= wait_for

    def _drain(self) -> None:
        self._take(timeout=0)
        self._release(self._clock(), everything=True)

    def _write(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        from sqlalchemy.exc import SQLAlchemyError

        try:
            return method(*args, **kwargs)
        except SQLAlchemyError as err:
            self.write_failed = True
            reason = str(getattr(err, "orig", None) or err).splitlines()[0]
            raise WriteFailed(
                f"cannot write to {self.store.label} ({reason}): recording "
                f"stopped; the {self.events} events and {self.steps} steps "
                f"already written are kept"
            ) from None

    def _write_tail(self) -> None:
        if self.write_failed:
            return
        self._pass(self._filter.flush())
        if self._batch:
            self._commit()
        self._end_pieces()

    def _cut(self, now: float) -> _Piece:
        """End the chunk at a quiet moment; it waits for the next event to be reduced."""
        if self._batch:
            self._commit()  # steps point at event rows: those rows go first
        chunk = self._chunk
        self._chunk = _Chunk(first_seq=self.events)
        return _Piece(chunk, self.timeline.between(self.t0 + chunk.events[0].t, now), self.t0, now)

    def _reduce_waiting(self, *, final: bool = False) -> None:
        """Reduce the waiting piece: the first event after it is kept, or the recording (or
        the stretch before a pause) ends."""
        piece, self._waiting = self._waiting, None
        if piece is None:
            return
        until = self._chunk.events[0].t if self._chunk.events else None
        reduced, self._carry = reduce_piece(
            piece.chunk.events,
            carry=self._carry,
            until=until,
            settings=self.settings,
            thresholds=self.options.thresholds,
        )
        numbered = list(enumerate(reduced, start=self._numbered + 1))
        self._numbered += len(reduced)
        if numbered:
            self._jobs.put(
                _Job(numbered, piece.chunk.first_seq, piece.timeline, piece.t0, piece.cut_at, final)
            )

    def _end_pieces(self) -> None:
        """Reduce and store everything kept so far: the recording ends, or pauses."""
        self._reduce_waiting(final=True)
        if self._chunk.events:
            self._waiting = self._cut(self._clock())
            self._reduce_waiting(final=True)

    def _finish_jobs(self) -> None:
        """The finisher thread: frames, anchors and windows for each job's steps, stored."""
        while (job := self._jobs.get()) is not None:
            if self._finisher_error is not None:
                continue  # stopped storing: the loop reports it
            try:
                self._store_steps(job)
            except BaseException as err:
                self._finisher_error = err

    def _check_finisher(self) -> None:
        if self._finisher_error is not None:
            raise self._finisher_error

    def _store_steps(self, job: _Job) -> None:
        steps = []
        for n, (number, r) in enumerate(job.numbered):
            following = job.numbered[n + 1][1].t_start if n + 1 < len(job.numbered) else None
            steps.append(self._step(number, r, job, following))
        self._write(self.store.add_steps, self.recording_id, steps)
        self.steps += len(steps)
        self._frame_keys.clear()

    def _step(self, number: int, r: Reduced, job: _Job, following: float | None) -> Step:
        t0, timeline, now = job.t0, job.timeline, job.now
        events = (job.first_seq + r.first, job.first_seq + r.last) if r.first >= 0 else None
        window = timeline.window_at(t0 + r.t_start)
        action = self._redactor.action(r.action)
        before = after = anchor = None
        private = self.options.redact_typing and action.action == "type"
        if self.options.frames and action.action != "wait":
            before_frame = timeline.before(t0 + r.t_start)
            limit = t0 + r.t_end + self.options.settle_cap
            if following is not None:
                limit = min(limit, t0 + following)
            after_frame = timeline.settled_after(
                t0 + r.t_end,
                settle=self.options.settle,
                limit=limit,
                now=now if not job.final else max(now, limit),
            )
            if private:  # not stored; what it typed is painted out of the frames after it
                self._keep_typed(before_frame, after_frame)
                before_frame = after_frame = None
            elif self._typed_unseen:  # taken while that typing surely still shows
                self._typed_unseen = False
                before_frame = after_frame = None
            before, pixels = self._store_frame(before_frame)
            after, _ = self._store_frame(after_frame)
            if pixels is not None and r.action.is_pointer and r.action.target:
                anchor = _anchor(pixels, r.action.target)
        return Step(
            step=number,
            action=action,
            t_start=r.t_start,
            t_end=r.t_end,
            events=events,
            before_frame=before,
            after_frame=after,
            anchor=anchor,
            window_class=window.window_class if window else None,
            window_title=window.title if window else None,
        )

    def _keep_typed(self, before: Frame | None, after: Frame | None) -> None:
        """Keep a redacted typing's screens, to paint what it typed out of later frames;
        without both, the next step stores no frames instead."""
        if before is None or after is None:
            self._typed_unseen = True
            return
        self._typed.add(self._typed.hide(before.pixels()), self._typed.hide(after.pixels()))

    def _store_frame(self, frame: Frame | None) -> tuple[str | None, Any]:
        """Store a frame, redacted typing painted out of it: its key, and the pixels stored
        (kept for the latest frame only, which is the next step's before-frame; else None)."""
        if frame is None:
            return None, None
        key = self._frame_keys.get(id(frame))
        if key is None:
            rgb = self._typed.hide(frame.pixels())
            data = encode_webp(rgb)
            key = self._write(
                self.store.put_frame,
                data,
                width=frame.width,
                height=frame.height,
                fmt="webp",
                pixel_hash=pixel_hash(rgb),
            )
            self._frame_keys[id(frame)] = key
            self._latest = (frame, rgb)
            self.frames_stored += 1
            self.frame_bytes += len(data)
        return key, self._latest[1] if self._latest[0] is frame else None


def _anchor(pixels: Any, target: tuple[int, int]) -> Anchor | None:
    """Cut from the pixels stored as the step's before-frame."""
    from matching import choose_anchor

    x, y = target
    if not (0 <= x < pixels.shape[1] and 0 <= y < pixels.shape[0]):
        return None
    choice = choose_anchor(pixels, target)
    bx, by, bw, bh = choice.box
    return Anchor(
        png=encode_png(pixels[by : by + bh, bx : bx + bw]),
        box=choice.box,
        offset=choice.offset,
        score=choice.score,
        margin=choice.margin,
    )


def default_name() -> str:
    """rec-DATE-TIME-HOST: unique enough for many machines recording into one store."""
    import socket

    return f"rec-{time.strftime('%Y%m%d-%H%M%S')}-{socket.gethostname().split('.')[0]}"


def _connection_lost(error: BaseException | None) -> bool:
    from Xlib import error as xerror

    return isinstance(error, (xerror.ConnectionClosedError, ConnectionError, BrokenPipeError))


def _dpi(screen: Any) -> float | None:
    if not screen.width_in_mms:
        return None
    return round(screen.width_in_pixels / (screen.width_in_mms / 25.4), 1)


def _xkb_layout(conn: Any) -> str | None:
    from Xlib import X

    try:
        prop = conn.screen().root.get_full_property(
            conn.intern_atom("_XKB_RULES_NAMES"), X.AnyPropertyType
        )
    except Exception:
        return None
    if prop is None:
        return None
    value = prop.value
    text = value.decode() if isinstance(value, bytes) else str(value)
    parts = text.split("\0")
    return ":".join(p for p in parts[2:4] if p) or None

"""A recording session: capture threads feed a writer loop that stores events and actions.

Threads: RECORD capture (enqueues only), screen capture (frames and active window), and
this loop, which filters our own chords, commits raw events in batches (every 100 events
or 100 ms), and turns each quiet stretch of events into actions with frames and anchors.
"""

from __future__ import annotations

import queue
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from deskreel.errors import UserError
from deskreel.images import encode_png, encode_webp, pixel_hash
from deskreel.x11 import display_name
from storage import Anchor, RawEvent, Step, Store
from storage.vocabulary import Action

from .capture import InputCapture
from .chords import ChordFilter
from .privacy import DenyList, Redactor
from .reduce import DEFAULT_THRESHOLDS, Reduced, Thresholds, reduce_events
from .screen import WINDOW_POLL, Frame, FrameTimeline, ScreenCapture, WindowInfo

__all__ = ["DEFAULT_PAUSE_KEY", "DEFAULT_STOP_KEY", "RecordOptions", "RecordSummary",
           "Recorder"]

DEFAULT_STOP_KEY = "ctrl+alt+End"
DEFAULT_PAUSE_KEY = "ctrl+alt+Home"
BATCH_ROWS = 100
BATCH_SECONDS = 0.1
HOLDBACK = 3 * WINDOW_POLL  # s events wait, so a denied window is known before they are kept


class WriteFailed(UserError):
    """The database refused a write (a full disk, a lost server): the recording stops."""


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
    redact_typing: bool = False  # typed text stored as {{secret:N}}, no frames of typing


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


class Recorder:
    """Records the display into `store` until stopped; see `run`."""

    def __init__(self, store: Store, *, options: RecordOptions = RecordOptions(),
                 display: str | None = None, clock: Callable[[], float] = time.monotonic,
                 say: Callable[[str], None] = lambda message: None):
        self.store, self.options, self._clock, self.say = store, options, clock, say
        self._display = display_name(display)
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self.capture = InputCapture(self._display, self._queue, clock=clock)
        self.timeline = FrameTimeline()
        self.screen = ScreenCapture(self._display, self.timeline, fps=options.fps,
                                    frames=options.frames, clock=clock,
                                    on_window=self._window_denied)
        self._redactor = Redactor(enabled=options.redact_typing)
        self._held_back: deque[RawEvent] = deque()  # on the monotonic clock, not yet relative
        self._dropped_down: set[tuple[str, int]] = set()  # presses the deny-list dropped
        self._private_crcs: set[int] = set()  # --redact-typing: images that showed typing
        self._after_private = False  # --redact-typing: the next step's before-frame goes
        self.denied: str | None = None  # why the active window is not being recorded
        self._filter = ChordFilter({"stop": options.stop_key, "pause": options.pause_key})
        self._frame_keys: dict[int, str] = {}  # id(Frame) -> stored hash
        self.frames_stored = self.frame_bytes = 0
        self.steps = self.events = 0
        self.write_failed = False
        self._last_end: float | None = None
        self.paused = False

    def run(self, should_stop: Callable[[], bool], *,
            on_start: Callable[[str], None] = lambda name: None) -> RecordSummary:
        """Record until the stop chord, `should_stop()`, or the X server going away."""
        conn = self.capture._control
        screen = conn.screen()
        name = self.options.name or self._write(self.store.free_name, default_name())
        self.recording_id = self._write(
            self.store.create_recording, name, source="recorder",
            screen=(screen.width_in_pixels, screen.height_in_pixels),
            dpi=_dpi(screen), keyboard_layout=_xkb_layout(conn),
            extra={"fps": self.options.fps, "frames": self.options.frames,
                   "display": self._display})
        self.t0 = self._clock()
        self.screen.start()
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
            if not self.write_failed:
                self._drain()
                self._write_tail()
        if self.paused:  # stopped while paused: the pause is not part of the recording
            self.t0 += self._clock() - self._paused_at
        duration = self._clock() - self.t0
        return RecordSummary(self.recording_id, name, self.steps, self.events, duration,
                             self.frames_stored, self.frame_bytes, ended_by)

    def _loop(self, should_stop: Callable[[], bool]) -> str:
        self._chunk = _Chunk()
        self._batch: list[RawEvent] = []
        self._last_commit = self._clock()
        while True:
            self._take(timeout=0.05)
            if self._release(self._clock()) == "stop":
                return "stop key"
            now = self._clock()
            if self._batch and (len(self._batch) >= BATCH_ROWS
                                or now - self._last_commit >= BATCH_SECONDS):
                self._commit()
            if self._chunk.events and self._quiet(now):
                self._finalize(now)
            elif not self._chunk.events:
                self.timeline.forget_before(now - 5.0)
            if should_stop():
                return "interrupt"
            if not self.capture.alive or _connection_lost(self.screen.error):
                self.say("the X server went away: the recording ends here; everything "
                         "captured so far is kept")
                return "X server gone"
            if self.screen.error is not None:
                raise UserError(f"screen capture failed: {self.screen.error}")

    def _take(self, *, timeout: float) -> None:
        """Move queued events into the hold-back queue; they stay on the monotonic clock
        until released, because a resume moves t0 while they wait."""
        try:
            item = self._queue.get(timeout=timeout)
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
            if self._chunk.events:  # what came before the pause is complete: store it now
                self._finalize(self._clock(), final=True)
            self.say(f"paused: nothing is recorded until {self.options.pause_key}")
        else:
            self.t0 += at - self._paused_at
            self.say("recording again")

    def _commit(self) -> None:
        self._write(self.store.add_events, self.recording_id, self._redactor.events(self._batch),
                    first_seq=self.events)
        self.events += len(self._batch)
        self._batch = []
        self._last_commit = self._clock()

    def _quiet(self, now: float) -> bool:
        th = self.options.thresholds
        wait_for = max(th.type_pause, th.hover_time, th.multi_click_time, th.scroll_gap,
                       th.long_press, self.options.settle_cap) + 0.1
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
            raise WriteFailed(f"cannot write to {self.store.label} ({reason}): recording "
                              f"stopped; the {self.events} events and {self.steps} steps "
                              f"already written are kept") from None

    def _write_tail(self) -> None:
        if self.write_failed:
            return
        self._pass(self._filter.flush())
        if self._batch:
            self._commit()
        if self._chunk.events:
            self._finalize(self._clock(), final=True)

    def _finalize(self, now: float, *, final: bool = False) -> None:
        """Reduce the chunk to actions, attach frames, anchors and windows, store them."""
        chunk = self._chunk
        if self._batch:
            self._commit()  # steps point at event rows: those rows go first
        reduced = reduce_events(chunk.events, thresholds=self.options.thresholds)
        reduced = self._boundary_wait(reduced)
        steps = []
        for i, r in enumerate(reduced):
            following = reduced[i + 1].t_start if i + 1 < len(reduced) else None
            steps.append(self._step(self.steps + 1 + i, r, chunk.first_seq, following, now,
                                    final))
        if steps:
            self._write(self.store.add_steps, self.recording_id, steps)
            self.steps += len(steps)
            self._last_end = reduced[-1].t_end
        self.timeline.forget_before(self.t0 + chunk.events[-1].t - 1.0)
        self._frame_keys.clear()
        self._chunk = _Chunk(first_seq=self.events)

    def _boundary_wait(self, reduced: list[Reduced]) -> list[Reduced]:
        """A long idle gap between the last chunk and this one is a `wait` too."""
        if self._last_end is None or not reduced:
            return reduced
        gap = reduced[0].t_start - self._last_end
        if gap < self.options.thresholds.idle:
            return reduced
        wait = Reduced(Action(action="wait", duration=round(gap, 3)), self._last_end,
                       reduced[0].t_start, -1, -1)
        return [wait, *reduced]

    def _step(self, number: int, r: Reduced, first_seq: int, following: float | None,
              now: float, final: bool) -> Step:
        t0 = self.t0
        events = (first_seq + r.first, first_seq + r.last) if r.first >= 0 else None
        window = self.timeline.window_at(t0 + r.t_start)
        action = self._redactor.action(r.action)
        before = after = anchor = None
        private = self.options.redact_typing and action.action == "type"
        if self.options.frames and action.action != "wait":
            before_frame = self.timeline.before(t0 + r.t_start)
            limit = t0 + r.t_end + self.options.settle_cap
            if following is not None:
                limit = min(limit, t0 + following)
            after_frame = self.timeline.settled_after(
                t0 + r.t_end, settle=self.options.settle, limit=limit,
                now=now if not final else max(now, limit))
            if private:  # what the typing left on screen must not show up in other steps
                self._private_crcs |= {f.crc for f in (before_frame, after_frame) if f}
                self._after_private = True
                before_frame = after_frame = None
            elif self._after_private:  # taken while the typed text is still on screen
                self._after_private = False
                before_frame = None
            if before_frame is not None and before_frame.crc in self._private_crcs:
                before_frame = None
            if after_frame is not None and after_frame.crc in self._private_crcs:
                after_frame = None
            before = self._store_frame(before_frame)
            after = self._store_frame(after_frame)
            if before_frame is not None and r.action.is_pointer and r.action.target:
                anchor = _anchor(before_frame, r.action.target)
        return Step(step=number, action=action, t_start=r.t_start,
                    t_end=r.t_end, events=events, before_frame=before, after_frame=after,
                    anchor=anchor, window_class=window.window_class if window else None,
                    window_title=window.title if window else None)

    def _store_frame(self, frame: Frame | None) -> str | None:
        if frame is None:
            return None
        key = self._frame_keys.get(id(frame))
        if key is None:
            rgb = frame.pixels()
            data = encode_webp(rgb)
            key = self._write(self.store.put_frame, data, width=frame.width,
                              height=frame.height, fmt="webp", pixel_hash=pixel_hash(rgb))
            self._frame_keys[id(frame)] = key
            self.frames_stored += 1
            self.frame_bytes += len(data)
        return key


def _anchor(frame: Frame, target: tuple[int, int]) -> Anchor | None:
    from deskreel.matching import choose_anchor

    pixels = frame.pixels()
    x, y = target
    if not (0 <= x < frame.width and 0 <= y < frame.height):
        return None
    choice = choose_anchor(pixels, target)
    bx, by, bw, bh = choice.box
    return Anchor(png=encode_png(pixels[by:by + bh, bx:bx + bw]), box=choice.box,
                  offset=choice.offset, score=choice.score, margin=choice.margin)


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
        prop = conn.screen().root.get_full_property(conn.intern_atom("_XKB_RULES_NAMES"),
                                                     X.AnyPropertyType)
    except Exception:
        return None
    if prop is None:
        return None
    value = prop.value
    text = value.decode() if isinstance(value, bytes) else str(value)
    parts = text.split("\0")
    return ":".join(p for p in parts[2:4] if p) or None

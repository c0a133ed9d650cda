"""Screen capture for the recorder: mss (XShm) frames into a short timeline, off the input path.

The capture thread grabs at a fixed rate, and as soon as the X server reports the screen
drawn on (damage.py); it keeps a frame only when it differs from the last one (compressed
with zlib level 1: about 7 ms and 60 KB for 1280x800), and notes the active window. The
finisher asks the timeline for the frame the person saw before an action and for the first
frame after the screen settled.
"""

from __future__ import annotations

import threading
import time
import zlib
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .damage import DamageWatch

if TYPE_CHECKING:
    import numpy as np

    from deskreel.storage import Widget

    from .told import ToldSeen

__all__ = ["WINDOW_POLL", "Frame", "FrameTimeline", "ScreenCapture", "WidgetSeen", "WindowInfo"]

WINDOW_POLL = 0.05  # s between looks at the active window
# s between grabs at least, however often the screen changes: a grab of 1920x1080 costs
# about 10 ms (mss, crc32, zlib), so frames come at most 25 a second while it animates
DAMAGE_GAP = 0.04


@dataclass
class Frame:
    """A distinct screen image: when it first and last was seen, and its pixels (zlib, BGRA)."""

    t_first: float
    t_last: float
    crc: int
    width: int
    height: int
    zdata: bytes

    def pixels(self) -> np.ndarray:
        """The frame as an RGB array (height x width x 3)."""
        import numpy as np

        bgra = np.frombuffer(zlib.decompress(self.zdata), np.uint8)
        return bgra.reshape(self.height, self.width, 4)[:, :, 2::-1].copy()

    def packed(self) -> np.ndarray:
        """The frame as one number per pixel (height x width, its BGRA bytes as uint32, no
        copy): what tells two frames' pixels apart fastest."""
        import numpy as np

        return np.frombuffer(zlib.decompress(self.zdata), np.uint32).reshape(
            self.height, self.width
        )

    def settled(self, t: float, settle: float) -> bool:
        """Whether the screen was seen to stay this frame for `settle` s from t (or from
        when it first showed, if later)."""
        return self.t_last - max(self.t_first, t) >= settle


@dataclass(frozen=True, slots=True)
class WindowInfo:
    t: float
    window_class: str | None
    title: str | None


@dataclass(frozen=True, slots=True)
class WidgetSeen:
    """What was under the pointer at `point`, asked at time `asked` and answered by `t`: the
    accessibility tree's object (`widget`) and the X server's window (`window`,
    xsession/xwindows.py); None: nothing, or nothing that may be kept."""

    asked: float
    t: float
    point: tuple[int, int]
    widget: Widget | None
    window: Widget | None = None


class FrameTimeline:
    """Distinct frames in time order, shared between the capture and writer threads.

    A ring of `max_frames`, except that frames on screen at or after `keep_from` (the open
    chunk's first event) stay until they pass `max_bytes` together; a frame that was
    dropped is never replaced by a later one: the steps that needed it get none.
    """

    def __init__(self, *, max_frames: int = 600, max_bytes: int = 256 << 20):
        self._frames: list[Frame] = []
        self._windows: list[WindowInfo] = []
        self._widgets: list[WidgetSeen] = []
        self._told: list[ToldSeen] = []  # what windows told (told.py)
        self._lock = threading.Lock()
        self.max_frames, self.max_bytes = max_frames, max_bytes
        self.keep_from: float | None = None
        self._bytes = 0  # compressed, of the frames held
        self._trimmed = False  # frames before the first one held were dropped
        self.grabbed = 0  # every grab, distinct or not

    def add(self, t: float, crc: int, width: int, height: int, raw: bytes | None) -> None:
        """Record a grab; `raw` (BGRA) is compressed only when the frame is new."""
        with self._lock:
            self.grabbed += 1
            last = self._frames[-1] if self._frames else None
            if (
                last is not None
                and last.crc == crc
                and (last.width, last.height) == (width, height)
            ):
                last.t_last = t
                return
        frame = Frame(t, t, crc, width, height, zlib.compress(raw or b"", 1))
        with self._lock:
            self._frames.append(frame)
            self._bytes += len(frame.zdata)
            while len(self._frames) > max(self.max_frames, 1) and (
                self.keep_from is None
                or self._frames[1].t_first <= self.keep_from
                or self._bytes > self.max_bytes
            ):
                self._drop_first()

    def note_window(self, info: WindowInfo) -> None:
        with self._lock:
            if not self._windows or (self._windows[-1].window_class, self._windows[-1].title) != (
                info.window_class,
                info.title,
            ):
                self._windows.append(info)

    def note_widget(self, seen: WidgetSeen) -> None:
        with self._lock:
            self._widgets.append(seen)

    def note_told(self, seen: ToldSeen) -> None:
        with self._lock:
            self._told.append(seen)

    def told_between(self, start: float, end: float) -> list[ToldSeen]:
        """The readings of what windows told answered from `start` to `end`, in order."""
        with self._lock:
            return [s for s in self._told if start <= s.t <= end]

    def widget_seen(self, t: float) -> WidgetSeen | None:
        """The last answer of the accessibility tree given before time `t`."""
        with self._lock:
            i = bisect_right([w.t for w in self._widgets], t) - 1
            return self._widgets[i] if i >= 0 else None

    def widgets_asked(self, start: float, end: float) -> list[WidgetSeen]:
        """The answers of the accessibility tree asked after `start` and before `end`,
        whenever they came."""
        with self._lock:
            return sorted(
                (w for w in self._widgets if start < w.asked < end), key=lambda w: w.asked
            )

    def last_change(self) -> float | None:
        """When the screen last changed (the newest frame's first time); None: no frames."""
        with self._lock:
            return self._frames[-1].t_first if self._frames else None

    def before(self, t: float) -> Frame | None:
        """The last frame grabbed before time t (the screen the person saw); None when no
        frame from then is held."""
        with self._lock:
            i = bisect_right([f.t_first for f in self._frames], t) - 1
            return self._frames[i] if i >= 0 else None

    def shown_between(self, start: float, end: float) -> list[Frame]:
        """The frames on screen at some time from `start` to `end`, in time order."""
        with self._lock:
            first = max(bisect_right([f.t_first for f in self._frames], start) - 1, 0)
            return [f for f in self._frames[first:] if f.t_first <= end]

    def settled_after(self, t: float, *, settle: float, limit: float, now: float) -> Frame | None:
        """The first frame after t that stayed unchanged for `settle` s, or the one on screen
        at `limit`; None while that cannot be known yet, or when the frames from t on are no
        longer all held. Unchanged means seen again by a grab `settle` s later: a frame
        grabbed once before a grab that came late (a busy machine) was on screen for an
        unknown part of that gap, and a menu closing or a dialog going away may have
        replaced it at once."""
        with self._lock:
            frames = list(self._frames)
            if frames and t < frames[0].t_first and self._trimmed:
                return None
        start = max(bisect_right([f.t_first for f in frames], t) - 1, 0)
        for i in range(start, len(frames)):
            frame = frames[i]
            shown_from = max(frame.t_first, t)
            if shown_from > limit:
                return frames[i - 1] if i > start else frame
            if frame.settled(t, settle):
                return frame
        if now >= limit and frames:
            return frames[-1]
        return None

    def window_at(self, t: float) -> WindowInfo | None:
        with self._lock:
            i = bisect_right([w.t for w in self._windows], t) - 1
            return self._windows[i] if i >= 0 else None

    def between(self, start: float, end: float) -> FrameTimeline:
        """A copy holding the frames and windows on screen from `start` to `end`: what the
        steps of a chunk need, kept while the ring moves on."""
        copy = FrameTimeline(max_frames=0)
        with self._lock:
            first = max(bisect_right([f.t_first for f in self._frames], start) - 1, 0)
            copy._frames = [f for f in self._frames[first:] if f.t_first <= end]
            copy._trimmed = self._trimmed or first > 0
            first = max(bisect_right([w.t for w in self._windows], start) - 1, 0)
            copy._windows = [w for w in self._windows[first:] if w.t <= end]
            first = max(bisect_right([w.t for w in self._widgets], start) - 1, 0)
            copy._widgets = [w for w in self._widgets[first:] if w.t <= end]
            copy._told = [s for s in self._told if start - 60 <= s.t <= end]
        return copy

    def prune(self, since: float, needed: Callable[[list[Frame]], list[bool]]) -> int:
        """Drop the frames from the one on screen at `since` on that `needed` (given them, in
        order) does not keep (recorder/retention.py); how many went."""
        with self._lock:
            first = max(bisect_right([f.t_first for f in self._frames], since) - 1, 0)
            tail = self._frames[first:]
            keep = needed(tail)
            kept = [f for f, k in zip(tail, keep, strict=True) if k]
            self._bytes -= sum(len(f.zdata) for f, k in zip(tail, keep) if not k)
            self._frames[first:] = kept
            return len(tail) - len(kept)

    def forget_before(self, t: float) -> None:
        """Drop the frames shown only before t (the one on screen at t stays, and the newest)."""
        with self._lock:
            while len(self._frames) > 1 and self._frames[1].t_first <= t:
                self._drop_first()
            self._windows = [w for w in self._windows[:-1] if w.t >= t - 60] + self._windows[-1:]
            self._widgets = [w for w in self._widgets[:-1] if w.t >= t - 60] + self._widgets[-1:]
            self._told = [s for s in self._told[:-1] if s.t >= t - 60] + self._told[-1:]

    def _drop_first(self) -> None:
        self._bytes -= len(self._frames[0].zdata)
        del self._frames[0]
        self._trimmed = True

    def __len__(self) -> int:
        return len(self._frames)


class ScreenCapture:
    """A thread that grabs the screen at `fps` into a FrameTimeline and tracks the window;
    `on_window` returning True means: grab nothing while this window is active. As a
    context manager it runs inside the block; what stopped it early is `error`."""

    def __init__(
        self,
        display_name: str,
        timeline: FrameTimeline,
        *,
        fps: float = 10.0,
        frames: bool = True,
        clock: Callable[[], float] = time.monotonic,
        on_window: Callable[[WindowInfo], bool] = lambda info: False,
    ):
        self.timeline, self.fps, self.frames, self._clock = timeline, fps, frames, clock
        self._name, self._on_window = display_name, on_window
        self._stop = threading.Event()
        self.paused = False
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="deskreel-screen", daemon=True)

    def start(self) -> ScreenCapture:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScreenCapture:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _run(self) -> None:
        from deskreel.xsession.grab import Grabber
        from deskreel.xsession.display import connect

        conn = connect(self._name)
        grabber = Grabber(self._name) if self.frames else None
        watch = DamageWatch.open(conn) if grabber is not None else None
        try:
            self._loop(conn, grabber, watch)
        except BaseException as err:  # the recorder reports it and stops
            self.error = err
        finally:
            try:
                if watch is not None:
                    watch.close()
                if grabber is not None:
                    grabber.close()
                conn.close()
            except Exception:  # the server is gone already: nothing left to close
                pass

    def _loop(self, conn: Any, grabber: Any, watch: DamageWatch | None) -> None:
        # the window is watched at 20 Hz whatever the frame rate: the deny-list needs it;
        # frames are grabbed on a fixed grid, and as soon as the screen changed (damage)
        period = 1.0 / self.fps
        tick = min(period, WINDOW_POLL)
        next_grab = due = self._clock()
        last = due - DAMAGE_GAP
        while not self._stop.is_set():
            now = self._clock()
            damaged = watch is not None and watch.damaged()
            drawn = damaged and now - last >= DAMAGE_GAP
            grab = grabber is not None and not self.paused and (now >= next_grab or drawn)
            if now >= due or grab:  # the window is looked at right before every grab
                info = active_window(conn, now)
                self.timeline.note_window(info)
                grab = grab and not self._on_window(info)
                if now >= due:
                    due += tick
                    if self._clock() - due > tick:
                        due = self._clock()  # fell behind (a busy machine): skip, no burst
            if grab:
                self._grab(grabber, watch)
                last = now
            elif drawn and watch is not None:  # paused, or a window not to grab: forget it
                watch.clear()
                damaged = False
            if now >= next_grab:
                # on a fixed grid: a late wake-up must not push every later grab back
                next_grab += period
                if now - next_grab > period:
                    next_grab = now + period  # fell far behind: skip, do not burst
            wake = min(due, next_grab, last + DAMAGE_GAP if damaged else due)
            if watch is None or damaged:
                self._stop.wait(max(0.0, wake - self._clock()))
            else:
                watch.wait(wake - self._clock())

    def _grab(self, grabber: Any, watch: DamageWatch | None) -> None:
        if watch is not None:
            watch.clear()  # first: what is drawn during the grab is reported again
        raw, width, height = grabber.raw()
        # stamped after the grab: a frame never shows anything newer than its time
        self.timeline.add(self._clock(), zlib.crc32(raw), width, height, raw)


def active_window(conn: Any, now: float) -> WindowInfo:
    """The window that gets the keys, climbed to the top-level that names itself.

    With the focus on PointerRoot or the root window (no window manager, or one that
    focuses under the mouse) the keys go to the window under the pointer: that one counts,
    or a password prompt focused that way would not be recognised."""
    from Xlib import X, error

    try:
        window = conn.get_input_focus().focus
        root = conn.screen().root
        if window == X.PointerRoot or window == root:
            window = _client_under_pointer(root)
        for _ in range(10):
            if (
                window is None
                or window == X.NONE
                or not hasattr(window, "get_wm_class")
                or window == root
            ):
                break
            info = _named(window, now)
            if info is not None:
                return info
            parent = window.query_tree().parent
            if not parent:
                break
            window = parent
    except error.XError:
        pass  # the window went away while we looked
    return WindowInfo(now, None, None)


def _named(window: Any, now: float) -> WindowInfo | None:
    wm_class = window.get_wm_class()
    if not wm_class:
        return None
    title = window.get_wm_name()
    if isinstance(title, bytes):
        title = title.decode("utf-8", "replace")
    return WindowInfo(now, wm_class[1], title or None)


def _client_under_pointer(root: Any) -> Any:
    """The top-level window under the pointer, or the client inside a window manager's frame
    (the first one down that has WM_CLASS); None over the bare root."""
    from deskreel.xsession.xwindows import client_of

    top = root.query_pointer().child
    return (client_of(top) or top) if top else None

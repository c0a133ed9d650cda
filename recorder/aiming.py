"""What the pointer is on, as the toolkit and the X server say: a thread that asks the
accessibility tree (xsession/atspi.py) for the object under the pointer, and the X server
for the window there (xsession/xwindows.py), whenever the pointer comes to rest, and notes
each answer, with when it was asked, in the frame timeline; the finisher gives a press the
answer that held for it (`answer_for_press`), the accessibility tree's first.

Off the input path: it has its own X connection and its own D-Bus connection, and the
events never wait for it. A person glides onto a target, stops, and presses: the answer was
asked before the press, at its very point, and the screen did not change from the moment
it was asked to the press where the object is. A press without such an answer gets no
object, and its target is found by its pixels when replayed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from deskreel.matching import acts_on_whole, place_of
from deskreel.storage import Widget
from deskreel.storage.widgets import Box

from .screen import WINDOW_POLL, FrameTimeline, WidgetSeen

__all__ = ["COUNT_BUDGET", "AimWatch", "answer_for_press", "box_changed", "object_of_press"]

COUNT_BUDGET = 1.0  # s for counting an object's twins in its application; past it: unknown


Source = Callable[[WidgetSeen], Widget | None]  # which answer of a question is meant


def _accessible(seen: WidgetSeen) -> Widget | None:
    return seen.widget


def _xwindow(seen: WidgetSeen) -> Widget | None:
    return seen.window


SOURCES: tuple[Source, ...] = (_accessible, _xwindow)  # in the ladder's order


def answer_for_press(
    seen: WidgetSeen | None,
    press: float,
    point: tuple[int, int],
    presses: Sequence[float],
    source: Source = _accessible,
) -> Widget | None:
    """The object a press at `point` at time `press` was on: `source`'s answer of `seen`,
    the last question before it, when that was asked at this very point with no other press
    from its asking to this one (`presses`); box_changed then tells whether the screen
    changed there meanwhile."""
    said = source(seen) if seen is not None else None
    if seen is None or said is None or seen.point != point:
        return None
    if any(seen.asked <= t < press for t in presses):
        return None  # an earlier press may have changed what is there
    x, y, _, _ = said.box
    return replace(said, point=(point[0] - x, point[1] - y))


def object_of_press(
    timeline: FrameTimeline,
    press: float,
    point: tuple[int, int],
    presses: Sequence[float],
    *,
    frames: bool = True,
) -> Widget | None:
    """The object a press at `point` at time `press` was on, from the first source that
    knows it: the accessibility tree's, else the X window's."""
    for source in SOURCES:
        found = _of_press(timeline, press, point, presses, source, frames=frames)
        if found is not None:
            return found
    return None


def _of_press(
    timeline: FrameTimeline,
    press: float,
    point: tuple[int, int],
    presses: Sequence[float],
    source: Source,
    *,
    frames: bool,
) -> Widget | None:
    """`source`'s object of the press (answer_for_press), unless the screen changed inside
    it after the question (with `frames`: the screen is watched). Then it is kept only when
    a later question at the point, asked before the press, gave the same object and the
    screen inside it stayed the same from that asking to the press: the change (a submenu
    opening over its edge, a tooltip) left the object as it was. That later answer may have
    come after the press; only its agreement counts."""
    seen = timeline.widget_seen(press)
    found = answer_for_press(seen, press, point, presses, source)
    before = source(seen) if seen is not None else None
    if found is None or seen is None or before is None or not frames:
        return found
    if not box_changed(timeline, found.box, seen.asked, press):
        return found
    confirmed = (
        later.asked
        for later in timeline.widgets_asked(seen.asked, press)
        if later.point == point and (again := source(later)) is not None and _same(before, again)
    )
    return found if any(not box_changed(timeline, found.box, t, press) for t in confirmed) else None


def box_changed(timeline: FrameTimeline, box: Box, start: float, end: float) -> bool:
    """Whether the screen inside `box` changed from `start` to `end` (or cannot be known:
    the frame shown at `start` is no longer held). An animation elsewhere on the screen
    does not count; a hover effect still running on the object does."""
    frames = timeline.shown_between(start, end)
    if not frames or frames[0].t_first > start:
        return True
    x, y, w, h = box
    first = None
    for frame in frames:
        region = frame.pixels()[max(y, 0) : y + h, max(x, 0) : x + w]
        if first is None:
            first = region
        elif region.shape != first.shape or (region != first).any():
            return True
    return False


class AimWatch:
    """As a context manager, watches inside the block. `allowed(top)` False for the window
    under the pointer (paused, a private window) asks nothing, and forgets the last answer.
    `available` tells, once `ready`, whether the display has an accessibility bus; `asked`
    and `seconds` what the questions cost."""

    def __init__(
        self,
        display_name: str,
        timeline: FrameTimeline,
        *,
        allowed: Callable[[Any], bool] = lambda top: True,
        clock: Callable[[], float] = time.monotonic,
        say: Callable[[str], None] = lambda message: None,
    ):
        self.timeline, self._name, self._allowed = timeline, display_name, allowed
        self._say = say
        self._clock = clock
        self._stop = threading.Event()
        self.available: bool | None = None  # None until the thread has looked
        self.ready = threading.Event()
        self.started = threading.Event()  # the recorder said it records: say ours after it
        self.asked = 0
        self.seconds = 0.0
        self._thread = threading.Thread(target=self._run, name="deskreel-aim", daemon=True)

    def __enter__(self) -> AimWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=COUNT_BUDGET + 1)

    def _run(self) -> None:
        from deskreel.xsession.atspi import Accessibility
        from deskreel.xsession.display import connect
        from deskreel.xsession.sources import NO_ACCESSIBILITY

        conn = tree = None
        try:
            conn = connect(self._name)
            tree = Accessibility.open(conn)
            self.available = tree is not None
            self.ready.set()
            if tree is None and self.started.wait(5) and not self._stop.is_set():
                self._say(NO_ACCESSIBILITY)
            self._watch(conn, tree)  # the X server's windows, without a tree too
        except Exception:  # a dead bus or display: the objects stop, the recording does not
            self.available = bool(self.available)
        finally:
            self.ready.set()
            for closing in (tree, conn):
                if closing is not None:
                    try:
                        closing.close()
                    except Exception:  # already gone
                        pass

    def _watch(self, conn: Any, tree: Any) -> None:
        from deskreel.xsession.toplevel import toplevel_of

        root = conn.screen().root
        last: tuple[int, int] | None = None
        asked: tuple[tuple[int, int], float] | None = None  # where, and when
        while not self._stop.wait(WINDOW_POLL):
            pointer = root.query_pointer()
            here = (pointer.root_x, pointer.root_y)
            resting, last = here == last, here
            if not resting:
                continue
            top = toplevel_of(conn, pointer.child)
            now = self._clock()
            if not self._allowed(top):
                if asked is not None:  # forget the last answer, once
                    self.timeline.note_widget(WidgetSeen(now, now, here, None))
                asked = None
                continue
            changed = self.timeline.last_change()
            if asked is not None and asked[0] == here and (changed is None or changed < asked[1]):
                continue  # asked here already, and the screen is the same since
            asked = (here, now)
            self._ask(conn, tree, here, now, top)

    def _ask(self, conn: Any, tree: Any, point: tuple[int, int], asked: float, top: Any) -> None:
        """Ask what is at `point`: the X server's window there, and the accessibility tree's
        object (`tree` None: the display has none)."""
        from deskreel.xsession.atspi import Gone
        from deskreel.xsession.xwindows import window_object

        window = window_object(conn, *point)
        pid = top.pid if top is not None else None
        try:
            asking = tree is not None and pid is not None
            widget = tree.at_point(*point, pid=pid, window=top.box) if asking else None
        except Gone:  # no answer in time: nothing known, nothing kept
            widget = None
        seen = self.timeline.widget_seen(asked)
        last = seen.widget if seen is not None else None
        if widget is not None and last is not None and _same(last, widget):
            widget = replace(widget, alike=last.alike, placed=last.placed)
        elif widget is not None and acts_on_whole(widget):
            widget = _counted(tree, widget, pid)
        done = self._clock()
        if tree is not None:  # what record's summary says the accessibility tree cost
            self.asked += 1
            self.seconds += done - asked
        self.timeline.note_widget(WidgetSeen(asked, done, point, widget, window))


def _same(before: Widget, now: Widget) -> bool:
    """The same object answered again (the screen changed elsewhere): its twins were
    counted already."""
    return (before.label, before.box, place_of(before)) == (now.label, now.box, place_of(now))


def _counted(tree: Any, widget: Widget, pid: int | None) -> Widget:
    """`widget` with its twins counted (matching/objects.py decides by them): the objects of
    its role and name in its application, and how many of those stand where it stands;
    left unknown (0) when the tree cannot be read whole within COUNT_BUDGET."""
    try:
        with tree.bus.budget(COUNT_BUDGET):
            alike = tree.named(widget.role, widget.name, pid=pid, whole_path=False)
    except Exception:  # a bus or application gone wrong: unknown
        alike = None
    if alike is None:
        return widget
    placed = [w for w in alike if place_of(w) == place_of(widget)]
    return replace(widget, alike=len(alike), placed=len(placed))

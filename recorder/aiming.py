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

from deskreel.matching import PARAMS, VerifyOptions, acts_on_whole, place_of

from deskreel.storage import Widget
from deskreel.storage.widgets import (
    ASKED_AFTER,
    ASKED_AGAIN,
    ASKED_NEARBY,
    ASKED_WATCHED,
    ATSPI,
    Box,
)

from .screen import WINDOW_POLL, FrameTimeline, WidgetSeen

__all__ = [
    "COUNT_BUDGET",
    "AimWatch",
    "answer_for_press",
    "box_changed",
    "close_quietly",
    "object_of_press",
]

COUNT_BUDGET = 1.0  # s for counting an object's twins in its application; past it: unknown
# s after a question the screen changed for (a step's effect drawn) to ask once more if it
# stays still: a toolkit may tell its tree after it paints (Chromium), and a replay's
# --verify asks once the screen has been still this long (meaning.py keeps the last answer)
ASK_AGAIN = VerifyOptions().settle


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
    the last question before it, when that was asked with no other press from its asking
    to this one (`presses`), at this very point, or at another point of a control that a
    press anywhere works alike (the pointer moved on it before pressing: `asked` says so);
    box_changed then tells whether the screen changed there meanwhile."""
    said = source(seen) if seen is not None else None
    if seen is None or said is None:
        return None
    if any(seen.asked <= t < press for t in presses):
        return None  # an earlier press may have changed what is there
    x, y, w, h = said.box
    if seen.point != point:
        inside = x <= point[0] < x + w and y <= point[1] < y + h
        if not (inside and said.source == ATSPI and acts_on_whole(said)):
            return None
        said = replace(said, asked=ASKED_NEARBY)
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
    """`source`'s object of the press: the answer asked before it (answer_for_press) where
    the screen inside it stayed as it was until the press (with `frames`: the screen is
    watched); else, its look having changed (a hover, a submenu opening over its edge), that
    answer where a later question at the press point named the same object; else the
    answer of the first question at the press point after it, where nothing changed inside
    that object from the press to the asking."""
    seen = timeline.widget_seen(press)
    found = answer_for_press(seen, press, point, presses, source)
    if not frames:
        return found
    if found is not None and seen is not None:
        if not box_changed(timeline, found.box, seen.asked, press):
            return found
        if _asked_again(timeline, seen, press, point, presses, source):
            return replace(found, asked=ASKED_AGAIN)
        if _watched(timeline, seen, press, point, presses, source):
            return replace(found, asked=ASKED_WATCHED)
    return _asked_after(timeline, press, point, presses, source)


def _later(
    timeline: FrameTimeline,
    since: float,
    press: float,
    point: tuple[int, int],
    presses: Sequence[float],
    source: Source,
) -> list[tuple[float, Widget]]:
    """What the questions at `point` asked after `since`, and before the press after
    `press`, named (with when they were asked)."""
    until = min((t for t in presses if t > press), default=float("inf"))
    return [
        (later.asked, named)
        for later in timeline.widgets_asked(since, until)
        if later.point == point and (named := source(later)) is not None
    ]


def _asked_again(
    timeline: FrameTimeline,
    seen: WidgetSeen,
    press: float,
    point: tuple[int, int],
    presses: Sequence[float],
    source: Source,
) -> bool:
    """Whether a later question at the press point named the object `seen` named: asked
    before the press with nothing changed inside it since, or after the press. The change
    seen inside it (a hover look, a submenu over its edge, a toggle's state) left the
    object as it was."""
    before = source(seen)
    assert before is not None
    return any(
        _same(before, named) and (t > press or not box_changed(timeline, before.box, t, press))
        for t, named in _later(timeline, seen.asked, press, point, presses, source)
    )


def _watched(
    timeline: FrameTimeline,
    seen: WidgetSeen,
    press: float,
    point: tuple[int, int],
    presses: Sequence[float],
    source: Source,
) -> bool:
    """Whether the object `seen` named was pressed though its look kept changing until the
    press (a hover or focus transition still running: GTK's last 200 ms and more): the
    pointer rested at the press point, where every question since it came to rest named
    the same object (the tree kept naming it while its look changed), and from the last
    question to the press nothing changed on the screen but that object and the ring
    around it where toolkits draw hover and focus (a menu, a dialog or a scroll would
    change more). Only for an accessible control pressed as a whole: inside a text or a
    canvas, a popup of its own may open under the pointer without changing anything
    beside it."""
    before = source(seen)
    if before is None or seen.point != point:
        return False
    if before.source != ATSPI or not acts_on_whole(before):
        return False  # a point in content (a text, a canvas) may be covered by a popup in it
    asked_since = timeline.widgets_asked(seen.asked, press)  # answered after `seen`, maybe
    for asked in asked_since:  # a question in flight at the press that named another
        named = source(asked)
        if asked.point == point and (named is None or not _same(before, named)):
            return False
    since = max((t for t in presses if t < press), default=float("-inf"))
    resting = []  # the questions since the pointer came to rest here, last first
    for asked in reversed(timeline.widgets_asked(since, seen.asked)):
        if asked.point != point:
            break
        resting.append(source(asked))
    if not resting or not all(n is not None and _same(before, n) for n in resting):
        return False
    return not _changed_beside(timeline, before.box, seen.asked, press)


def _changed_beside(timeline: FrameTimeline, box: Box, start: float, end: float) -> bool:
    """Whether the screen outside `box` and its ring changed from `start` to `end` (or
    cannot be known: the frame shown at `start` is no longer held)."""
    frames = timeline.shown_between(start, end)
    if not frames or frames[0].t_first > start:
        return True
    r = PARAMS.window_rim
    x, y, w, h = box
    first = frames[0].pixels()
    for frame in frames[1:]:
        now = frame.pixels()
        if now.shape != first.shape:
            return True
        differ = (now != first).any(axis=-1)
        differ[max(y - r, 0) : y + h + r, max(x - r, 0) : x + w + r] = False
        if differ.any():
            return True
    return False


def _asked_after(
    timeline: FrameTimeline,
    press: float,
    point: tuple[int, int],
    presses: Sequence[float],
    source: Source,
) -> Widget | None:
    """The object the first question at the press point after the press named, where the
    screen inside it did not change from the press to that question: what was pressed
    (a press that opened a menu or a dialog over the point changed it)."""
    after = _later(timeline, press, press, point, presses, source)
    if not after:
        return None
    t, named = after[0]
    x, y, w, h = named.box
    holds = x <= point[0] < x + w and y <= point[1] < y + h
    if not holds or box_changed(timeline, named.box, press, t):
        return None
    return replace(named, point=(point[0] - x, point[1] - y), asked=ASKED_AFTER)


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
            close_quietly(tree, conn)

    def _watch(self, conn: Any, tree: Any) -> None:
        from deskreel.xsession.toplevel import toplevel_of

        root = conn.screen().root
        last: tuple[int, int] | None = None
        asked: tuple[tuple[int, int], float] | None = None  # where, and when
        again: float | None = None  # when to ask once more, the screen still since
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
            same = asked is not None and asked[0] == here
            still = same and asked is not None and (changed is None or changed < asked[1])
            due = again is not None and now >= again  # once more, after a change here
            if still and not due:
                continue  # asked here already, and the screen is the same since
            again = now + ASK_AGAIN if same and not still else None
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


def close_quietly(*resources: Any) -> None:
    """Close each of a watch thread's connections that was opened; one already gone is no
    matter."""
    for resource in resources:
        if resource is not None:
            try:
                resource.close()
            except Exception:  # already gone
                pass


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

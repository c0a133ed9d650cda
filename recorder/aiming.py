"""What the pointer is on, as the toolkit says: a thread that asks the accessibility tree
(xsession/atspi.py) for the object under the pointer whenever the pointer comes to rest,
and notes the answers in the frame timeline, where the finisher finds each press's object.

Off the input path: it has its own X connection and its own D-Bus connection, and the
events never wait for it. A press comes after a rest on its target (the pointer glides,
stops, presses), so the answer is there before the press changes the screen; a press with
no rest before it gets no object, and its target is found by pixels when replayed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from matching.objects import acts_on_whole

from .screen import WINDOW_POLL, FrameTimeline, WidgetSeen

__all__ = ["AimWatch", "REASK_AFTER"]

REASK_AFTER = 0.5  # s: a pointer resting longer is asked about again (the screen may change)


class AimWatch:
    """As a context manager, watches inside the block. `allowed()` False (paused, a private
    window) asks nothing. `available` tells, once started, whether the display has an
    accessibility bus; `asked` and `seconds` what the questions cost."""

    def __init__(
        self,
        display_name: str,
        timeline: FrameTimeline,
        *,
        allowed: Callable[[], bool] = lambda: True,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.timeline, self._name, self._allowed, self._clock = (
            timeline,
            display_name,
            allowed,
            clock,
        )
        self._stop = threading.Event()
        self.available: bool | None = None  # None until the thread has looked
        self.ready = threading.Event()
        self.asked = 0
        self.seconds = 0.0
        self._thread = threading.Thread(target=self._run, name="deskreel-aim", daemon=True)

    def __enter__(self) -> AimWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        from xsession.atspi import Accessibility
        from xsession.display import connect

        try:
            conn = connect(self._name)
        except Exception:  # the recorder's own connection reports a display that went away
            self.available = False
            self.ready.set()
            return
        tree = Accessibility.open(conn)
        self.available = tree is not None
        self.ready.set()
        try:
            if tree is not None:
                self._watch(conn, tree)
        except Exception:  # a dead bus or display: the objects stop, the recording does not
            pass
        finally:
            if tree is not None:
                tree.close()
            conn.close()

    def _watch(self, conn: Any, tree: Any) -> None:
        root = conn.screen().root
        last: tuple[int, int] | None = None
        asked: tuple[tuple[int, int], float] | None = None
        while not self._stop.wait(WINDOW_POLL):
            pointer = root.query_pointer()
            here = (pointer.root_x, pointer.root_y)
            resting, last = here == last, here
            now = self._clock()
            fresh = asked is not None and asked[0] == here and now - asked[1] < REASK_AFTER
            if not resting or fresh or not self._allowed():
                continue
            asked = (here, now)
            self._ask(tree, here, _pid_of(conn, pointer.child))

    def _ask(self, tree: Any, point: tuple[int, int], pid: int | None) -> None:
        started = self._clock()
        widget = tree.at_point(*point, pid=pid)
        if widget is not None and acts_on_whole(widget):
            # its twins: what tells it apart when replayed (matching/objects.py)
            alike = tree.named(widget.role, widget.name, pid=pid)
            widget = replace(widget, alike=len(alike) if alike else 0)
        done = self._clock()
        self.asked += 1
        self.seconds += done - started
        if widget is not None:
            self.timeline.note_widget(WidgetSeen(done, widget))


def _pid_of(conn: Any, top: Any) -> int | None:
    """The process of the top-level window under the pointer (its or its client's
    _NET_WM_PID); None when it says none."""
    if not top:
        return None
    from Xlib import error

    atom = conn.intern_atom("_NET_WM_PID")
    try:
        for window in (top, *top.query_tree().children):
            prop = window.get_full_property(atom, 0)
            if prop is not None and len(prop.value):
                return int(prop.value[0])
    except error.XError:
        pass  # it went away
    return None

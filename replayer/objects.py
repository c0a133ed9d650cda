"""The ladder's first rung on a live display: the step's recorded object (what its toolkit
said the pointer was on) looked for in today's accessibility tree, decided by
matching/objects.py. Without an accessibility bus, or for a recording made without one,
every step goes on to its pixels, as before."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from matching.objects import ObjectAnswer, acts_on_whole, at_recorded_place, by_object
from storage import Widget

__all__ = ["ObjectFinder"]


class ObjectFinder:
    """Asks one display's accessibility tree; use it from the replay thread only. The bus is
    opened on the first step that needs it; `asked` and `seconds` are what it cost."""

    def __init__(self, display_name: str, *, clock: Callable[[], float] = time.perf_counter):
        self._name, self._clock = display_name, clock
        self._tree: Any = None
        self._opened = False
        self.asked = 0
        self.seconds = 0.0

    def find(self, recorded: Widget) -> ObjectAnswer:
        if not acts_on_whole(recorded):
            return ObjectAnswer(None, None, f"a point in a {recorded.role}: its content decides")
        tree = self._open()
        if tree is None:
            return ObjectAnswer(None, None, "no accessibility bus on this display")
        started = self._clock()
        try:
            x, y, _, _ = recorded.box
            here = tree.at_point(x + recorded.point[0], y + recorded.point[1], whole_path=False)
            answer = at_recorded_place(recorded, here)
            if answer is None:
                answer = by_object(
                    recorded,
                    tree.named(recorded.role, recorded.name, app=recorded.app, whole_path=False),
                )
            return answer
        finally:
            self.asked += 1
            self.seconds += self._clock() - started

    def _open(self) -> Any:
        if not self._opened:
            self._opened = True
            from xsession.atspi import Accessibility
            from xsession.display import connect

            conn = connect(self._name)
            try:
                self._tree = Accessibility.open(conn)
            finally:
                conn.close()
        return self._tree

    def close(self) -> None:
        if self._tree is not None:
            self._tree.close()
            self._tree = None

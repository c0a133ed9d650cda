"""The ladder's first rung on a live display: the step's recorded object (what its toolkit
said the pointer was on) looked for in today's accessibility tree, decided by
matching/objects.py. Without an accessibility bus, or for a recording made without one,
every step goes on to its pixels, as before.

A point belongs to the application whose top-level window the X server shows there
(xsession/toplevel.py): a found object is pressed only where the screen shows that very
object, never where another window covers it or its list scrolled it away.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from deskreel.matching import (
    ObjectAnswer,
    acts_on_whole,
    at_recorded_place,
    by_object,
    placed_alone,
    point_in,
    same_place,
)
from deskreel.matching import Refusal, StepWindows
from deskreel.storage import Widget
from deskreel.storage.told import Told

T = TypeVar("T")

__all__ = [
    "QUESTION_BUDGET", "ObjectFinder", "WindowFinder", "ask_tree", "shown_at", "shown_in_place",
]  # fmt: skip

QUESTION_BUDGET = 2.0  # s for one look at the tree, however many calls it takes


def ask_tree(tree: Any, conn: Any, recorded: Widget) -> ObjectAnswer:
    """The recorded object on today's screen (`tree` an xsession Accessibility, `conn` an X
    connection to the same display): at its recorded place, else among every object of its
    role and name, then checked to be what the screen shows where it would be pressed."""
    if not acts_on_whole(recorded):
        return by_object(recorded, None)  # its content decides: no question asked
    if placed_alone(recorded):  # else the hit test could not decide: spare it
        x, y, _, _ = recorded.box
        here = shown_at(tree, conn, recorded, (x + recorded.point[0], y + recorded.point[1]))
        answer = at_recorded_place(recorded, here)
        if answer is not None:
            return answer
    today = tree.named(recorded.role, recorded.name, app=recorded.app, whole_path=False)
    answer = by_object(recorded, today)
    if answer.widget is None:
        return answer
    point = point_in(answer.widget, recorded)
    if not _shows(tree, conn, recorded, answer.widget, point):
        return ObjectAnswer(None, Refusal("object-covered", 0, 1, point), "covered")
    return answer


def told_on_top(tree: Any, conn: Any, point: tuple[int, int]) -> Told | None:
    """What the objects of the window on top at `point` tell (xsession/atspi_told.py);
    None over the bare root window, or a window the tree does not have."""
    from deskreel.xsession.atspi_told import told_at as read
    from deskreel.xsession.toplevel import toplevel_at

    top = toplevel_at(conn, *point)
    if top is None or top.box is None:
        return None
    return read(tree, point, pid=top.pid, window=top.box)


def _on_top(conn: Any, recorded: Widget, point: tuple[int, int]) -> dict[str, Any] | None:
    """Which application's tree answers for `point`: the one whose window the X server
    shows there (by its process where the window tells it, else by the recorded
    application's name); None over the bare root window."""
    from deskreel.xsession.toplevel import toplevel_at

    top = toplevel_at(conn, *point)
    if top is None:
        return None
    which: dict[str, Any] = {"window": top.box}
    return {**which, "pid": top.pid} if top.pid is not None else {**which, "app": recorded.app}


def shown_at(tree: Any, conn: Any, recorded: Widget, point: tuple[int, int]) -> Widget | None:
    """The object the screen shows at `point`."""
    which = _on_top(conn, recorded, point)
    return None if which is None else tree.at_point(*point, whole_path=False, **which)


def shown_in_place(tree: Any, conn: Any, recorded: Widget) -> Widget | None:
    """What the screen shows at the recorded object's point today, where it is that object
    by its role, name and place among its siblings; None otherwise. Asked of an object whose
    content decides, which was blank when recorded (matching/blank.py)."""
    x, y, _, _ = recorded.box
    here = shown_at(tree, conn, recorded, (x + recorded.point[0], y + recorded.point[1]))
    if here is None or (here.role, here.name) != (recorded.role, recorded.name):
        return None
    if "sensitive" in recorded.states and "sensitive" not in here.states:
        return None  # (it takes no input today: the pixels decide, as usable() would wait)
    return here if same_place(here, recorded) else None


def _shows(tree: Any, conn: Any, recorded: Widget, found: Widget, point: tuple[int, int]) -> bool:
    """Whether the screen shows `found` (or something inside it) at `point`."""
    which = _on_top(conn, recorded, point)
    return which is not None and bool(tree.shows(found, *point, **which))


class ObjectFinder:
    """Asks one display's accessibility tree; use it from the replay thread only. The bus is
    opened on the first step that needs it; `asked` and `seconds` are what it cost."""

    def __init__(self, display_name: str, *, clock: Callable[[], float] = time.perf_counter):
        self._name, self._clock = display_name, clock
        self._tree: Any = None
        self._conn: Any = None
        self._opened = False
        self.asked = 0
        self.seconds = 0.0

    def find(self, recorded: Widget) -> ObjectAnswer:
        if not acts_on_whole(recorded):
            return by_object(recorded, None)  # its content decides: no bus opened for it
        if self._open() is None:
            return ObjectAnswer(None, None, "no-bus")
        try:
            return self._timed(lambda: ask_tree(self._tree, self._conn, recorded))
        except Exception as err:  # a bus or application gone wrong: the pixels decide
            return ObjectAnswer(None, None, "tree-failed", str(err))

    def shown(self, recorded: Widget) -> Widget | None:
        """The recorded object where it stood, today (shown_in_place); None where the tree
        does not answer."""
        if self._open() is None:
            return None
        try:
            return self._timed(lambda: shown_in_place(self._tree, self._conn, recorded))
        except Exception:  # a bus or application gone wrong: the pixels decide
            return None

    def at(self, recorded: Widget, point: tuple[int, int]) -> tuple[bool, Widget | None]:
        """Whether the tree answered, and what the screen shows at `point` today (in the
        application whose window is on top there): asked after a step, for what its
        object says of itself then."""
        if self._open() is None:
            return False, None
        try:
            return True, self._timed(lambda: shown_at(self._tree, self._conn, recorded, point))
        except Exception:  # a bus or application gone wrong: nothing known
            return False, None

    def told(self, point: tuple[int, int]) -> Told | None:
        """What the objects of the window on top at `point` tell today; None where the tree
        does not answer (told_on_top)."""
        if self._open() is None:
            return None
        try:
            return self._timed(lambda: told_on_top(self._tree, self._conn, point))
        except Exception:  # a bus or application gone wrong: nothing known
            return None

    def _timed(self, question: Callable[[], T]) -> T:
        """One question within QUESTION_BUDGET, counted in `asked` and `seconds`."""
        started = self._clock()
        try:
            with self._tree.bus.budget(QUESTION_BUDGET):
                return question()
        finally:
            self.asked += 1
            self.seconds += self._clock() - started

    def _open(self) -> Any:
        if not self._opened:
            self._opened = True
            from deskreel.xsession.atspi import Accessibility
            from deskreel.xsession.display import connect

            try:
                self._conn = connect(self._name)
                self._tree = Accessibility.open(self._conn)
            except Exception:  # the replay's own connection reports a display gone wrong
                self._tree = None
        return self._tree

    def close(self) -> None:
        if self._tree is not None:
            self._tree.close()
            self._tree = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class WindowFinder:
    """Asks one display's X server for a recorded window at its path today (the X-window
    rung), keeping what it was told between steps as long as the server's notices say it
    holds (xsession/xtree.py); use it from the replay thread only. `asked` and `seconds`
    are what it cost."""

    def __init__(self, display_name: str, *, clock: Callable[[], float] = time.perf_counter):
        self._name, self._clock = display_name, clock
        self._conn: Any = None
        self._tree: Any = None
        self.asked = 0
        self.seconds = 0.0

    def find(self, recorded: Widget) -> list[Widget]:
        from deskreel.xsession.xwindows import windows_at

        started = self._clock()
        try:
            return windows_at(self._kept(), recorded)
        finally:
            self.asked += 1
            self.seconds += self._clock() - started

    def tops(self) -> dict[int, tuple[int, int, int, int]] | None:
        """The viewable top-level windows' boxes by window id (what a step opened is told
        by two of these); None where the server did not answer whole, or the display
        could not be reached (a display gone is told by the replay's own grabs)."""
        from Xlib import error

        from deskreel.xsession.display import DisplayError
        from deskreel.xsession.xwindows import tops_shown

        try:
            return tops_shown(self._kept())
        except (error.XError, DisplayError):
            return None

    def _kept(self) -> Any:
        """The display's window tree, kept between steps (connected on first use)."""
        from deskreel.xsession.display import connect
        from deskreel.xsession.xwindows import WindowTree

        if self._conn is None:
            self._conn = connect(self._name)
            self._tree = WindowTree.of(self._conn, kept=True)
        return self._tree

    def since(
        self, tops: dict[int, tuple[int, int, int, int]] | None
    ) -> Callable[[], StepWindows | None]:
        """What tells, when called, the windows opened since `tops` (tops()) was taken;
        None where either was not told."""

        def told() -> StepWindows | None:
            now = self.tops() if tops is not None else None
            return None if tops is None or now is None else StepWindows.between(tops, now)

        return told

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn, self._tree = None, None

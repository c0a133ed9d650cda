"""Objects that animate by themselves, as their toolkit names them: a progress bar (its
block sweeps the trough while it pulses, and never comes back where the recorder saw it)
and an animation (a spinner, a throbber).

The recorder sees what moves in an idle time only in the frames it grabbed there
(animation.py): a pulsing bar's block at a few of its places. A replay's grab catches it
at another, and its effect checks fail on a bar no step touched. Where a region that moved
by itself lies on such an object, the accessibility tree tells the whole box it may draw
in: the mask becomes that box (grown as animation.py grows a region). Asked at the
region's centre by the finisher, off the input path, with connections of its own, when it
stores the step: of the screen as it is then, seconds after the step (an object gone or
moved since holds no region it did not draw, and answers nothing); nothing of the object
is kept but the box. A region on any other object (a caret in an entry, a
clock's label) stays as it was seen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deskreel.storage.widgets import Widget

from .aiming import close_quietly
from .animation import GROW
from .rest import around

__all__ = ["ANIMATING_ROLES", "ObjectsAt", "animating_at", "widened"]

Box = tuple[int, int, int, int]
Point = tuple[int, int]

# the roles of objects whose toolkit draws them moving without any input (AT-SPI's names)
ANIMATING_ROLES = frozenset({"progress bar", "animation"})
ASK_BUDGET = 0.5  # s for one question; past it, the region stays as seen


class ObjectsAt:
    """The innermost object at a point of the screen, asked of the accessibility tree of
    the application whose window is on top there; None where there is none, it may not be
    asked (`allowed`: paused, a private window) or the tree does not answer. Connects on
    the first question, on the asking thread; `close` when done."""

    def __init__(self, display_name: str, allowed: Callable[[Any], bool]):
        self._name, self._allowed = display_name, allowed
        self._conn: Any = None
        self._tree: Any = None
        self._opened = False

    def __call__(self, point: Point) -> Widget | None:
        from deskreel.xsession.toplevel import toplevel_at

        if not self._open():
            return None
        try:
            top = toplevel_at(self._conn, *point)
            if top is None or top.pid is None or not self._allowed(top):
                return None
            with self._tree.bus.budget(ASK_BUDGET):
                found: Widget | None = self._tree.at_point(
                    *point, pid=top.pid, window=top.box, whole_path=False
                )
            return found
        except Exception:  # no answer in time, a window gone: the region stays as seen
            return None

    def _open(self) -> bool:
        if not self._opened:
            from deskreel.xsession.atspi import Accessibility
            from deskreel.xsession.display import connect

            self._opened = True
            try:
                self._conn = connect(self._name)
                self._tree = Accessibility.open(self._conn)
            except Exception:  # no display or bus: nothing is asked
                self._tree = None
        return self._tree is not None

    def close(self) -> None:
        close_quietly(self._tree, self._conn)
        self._tree = self._conn = None


def widened(boxes: list[Box], at: Callable[[Point], Widget | None]) -> list[Box]:
    """`boxes` (regions that moved by themselves, grown by GROW px), each whose pixels lie
    mostly on an object of an ANIMATING_ROLES role (`at` its centre) replaced by that
    object's box grown by GROW px, and holding the region; the others as they were."""
    out: list[Box] = []
    for box in boxes:
        on = animating_at(box, at)
        box = box if on is None else around([on, box])
        if box not in out:
            out.append(box)
    return out


def animating_at(box: Box, at: Callable[[Point], Widget | None]) -> Box | None:
    """The box (grown by GROW px) of the object of an ANIMATING_ROLES role that holds most
    of the region `box` (grown by GROW px), asked at its centre; None: no such object."""
    x, y, w, h = box
    found = at((x + w // 2, y + h // 2))
    if found is None or found.role not in ANIMATING_ROLES or not _mostly_on(box, found.box):
        return None
    ox, oy, ow, oh = found.box
    return (ox - GROW, oy - GROW, ow + 2 * GROW, oh + 2 * GROW)


def _mostly_on(box: Box, on: Box) -> bool:
    """Whether at least half of the pixels of `box` (a region grown by GROW px) lie on
    `on`."""
    x, y, w, h = box
    if w > 2 * GROW and h > 2 * GROW:
        x, y, w, h = x + GROW, y + GROW, w - 2 * GROW, h - 2 * GROW
    ox, oy, ow, oh = on
    across = max(0, min(x + w, ox + ow) - max(x, ox))
    down = max(0, min(y + h, oy + oh) - max(y, oy))
    return 2 * across * down >= w * h

"""The accessibility tree (AT-SPI) of the applications on a display, read over D-Bus: the
accessible under a point, and the accessibles that may be a recorded one today.

A pure D-Bus client (jeepney, from PyPI, through dbus_calls.py): AT-SPI is a D-Bus
protocol, so the project's venv needs neither Debian's own Python (python3-pyatspi) nor a
PyGObject build. GTK, Qt, LibreOffice, Firefox and Chromium publish their trees on the
accessibility bus, whose address the bus launcher puts on the display's root window
(AT_SPI_BUS), or gives on the session bus (org.a11y.Bus). Every call has a deadline: an
application that hangs costs CALL_TIMEOUT, never a stalled recorder or replay; a tree is
read a level per round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deskreel.storage.widgets import Box, Widget

from .atspi_describe import describe_all
from .atspi_protocol import (
    ACCESSIBLE,
    COMPONENT,
    MAX_DEPTH,
    MAX_OBJECTS,
    NULL,
    REGISTRY,
    ROOT,
    SCREEN,
    SHOWING,
    VISIBLE,
    extents_box,
)
from .atspi_collection import showing_of_role
from .atspi_names import role_name, role_number
from .atspi_bus import bus_address
from .atspi_hit import holds, leaf_at
from .atspi_popups import popup_item, popup_of, popup_searched
from .dbus_calls import CALL_TIMEOUT, Bus, Call, Gone, Ref

__all__ = ["Accessibility", "Node", "bus_address"]


@dataclass(frozen=True, slots=True)
class Node:
    ref: Ref
    role: str
    name: str
    bits: tuple[int, ...]
    top: Ref | None = None  # its top-level window, where known

    @property
    def showing(self) -> bool:
        low = self.bits[0] if self.bits else 0
        return bool(low >> SHOWING & 1 and low >> VISIBLE & 1)

    @property
    def label(self) -> str:
        return f"{self.role} {self.name!r}" if self.name else self.role


class Accessibility:
    """The accessibility bus of one display; use it from one thread."""

    def __init__(self, address: str):
        self.bus = Bus(address)
        # top-levels -> (the window box, top-level, object) that _boxed last found, kept
        # between questions and asked again before each use (_still_boxed)
        self._boxed_at: dict[tuple[Ref, ...], tuple[Box, Ref, Ref]] = {}

    @classmethod
    def open(cls, display: Any | None = None) -> Accessibility | None:
        """The display's accessibility bus, its registry woken; None without one."""
        address = bus_address(display)
        if address is None:
            return None
        try:
            tree = cls(address)
        except Exception:  # (a stale address: no accessibility)
            return None
        try:
            tree.applications()  # starts the registry if nothing has yet
        except Gone:
            tree.close()
            return None
        return tree

    def close(self) -> None:
        self.bus.close()

    def __enter__(self) -> Accessibility:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading the tree, a level per round trip -------------------------------------------

    def applications(self) -> list[Ref]:
        return _refs(self.bus.call((REGISTRY, ROOT), ACCESSIBLE, "GetChildren")[0])

    def nodes(self, refs: Sequence[Ref], tops: Sequence[Ref | None] = ()) -> list[Node | None]:
        """Role, name and states of each of `refs` (None: it did not answer)."""
        calls: list[Call] = []
        for ref in refs:
            calls += [
                (ref, ACCESSIBLE, "GetRole", None, ()),
                Bus.prop_call(ref, ACCESSIBLE, "Name"),
                (ref, ACCESSIBLE, "GetState", None, ()),
            ]
        answers = self.bus.batch(calls)
        out: list[Node | None] = []
        for n, ref in enumerate(refs):
            role, name, bits = answers[3 * n : 3 * n + 3]
            top = tops[n] if n < len(tops) else None
            if any(isinstance(a, Gone) for a in (role, name, bits)):
                out.append(None)
            else:
                out.append(
                    Node(
                        ref, role_name(int(role[0])), str(name[0][1]), tuple(map(int, bits[0])), top
                    )
                )
        return out

    def children(self, refs: Sequence[Ref]) -> list[list[Ref] | None]:
        """Each of `refs`' children (None: it did not answer)."""
        answers = self.bus.batch([(ref, ACCESSIBLE, "GetChildren", None, ()) for ref in refs])
        return [None if isinstance(a, Gone) else _refs(a[0]) for a in answers]

    def boxes(self, refs: Sequence[Ref]) -> list[Box | None]:
        answers = self.bus.batch([(ref, COMPONENT, "GetExtents", "u", (SCREEN,)) for ref in refs])
        return [None if isinstance(a, Gone) else extents_box(a[0]) for a in answers]

    def _tops(self, apps: Sequence[Ref]) -> tuple[list[Node], bool]:
        """The applications' showing top-level windows, and whether every one answered."""
        lists = self.children(apps)
        refs = [ref for kids in lists if kids is not None for ref in kids]
        nodes = self.nodes(refs, refs)
        complete = None not in lists and None not in nodes
        return [n for n in nodes if n is not None and n.showing], complete

    def apps_of(self, pid: int | None = None, name: str = "") -> list[Ref]:
        """The applications on the bus: those of process `pid` where it is given (none when
        that process publishes no tree: never another's), else those named `name`, else
        all."""
        apps = self.applications()
        if pid is not None:
            pids = self.bus.batch(
                [
                    (
                        ("org.freedesktop.DBus", "/org/freedesktop/DBus"),
                        "org.freedesktop.DBus",
                        "GetConnectionUnixProcessID",
                        "s",
                        (app[0],),
                    )
                    for app in apps
                ]
            )
            return [a for a, p in zip(apps, pids) if not isinstance(p, Gone) and p[0] == pid]
        if name:
            names = self.bus.batch([Bus.prop_call(a, ACCESSIBLE, "Name") for a in apps])
            return [a for a, n in zip(apps, names) if not isinstance(n, Gone) and n[0][1] == name]
        return apps

    def walk(self, apps: Sequence[Ref]) -> tuple[list[Node], bool]:
        """The applications' showing accessibles, a level at a time; and whether the reading
        is complete (every object answered, no limit reached): a count or an absence is a
        fact only then."""
        tops, complete = self._tops(apps)
        nodes, whole = self.walk_from(tops)
        return nodes, complete and whole

    def of_role(self, apps: Sequence[Ref], role: str) -> tuple[list[Node], bool]:
        """The applications' showing accessibles of `role` (others may come too), and
        whether the reading is complete: found by the applications themselves where they
        can search (atspi_collection.py), else by a walk."""
        tops, complete = self._tops(apps)
        number = role_number(role)
        found = None if number is None else showing_of_role(self, tops, number)
        nodes, whole = found if found is not None else self.walk_from(tops)
        return nodes, complete and whole

    def walk_from(self, tops: list[Node]) -> tuple[list[Node], bool]:
        """The showing accessibles under these top-level windows, theirs included."""
        complete = True
        out: list[Node] = []
        level = tops
        for _ in range(MAX_DEPTH):
            shown = [n for n in level if n.showing]
            out += shown
            if len(out) >= MAX_OBJECTS:
                return out[:MAX_OBJECTS], False
            lists = self.children([n.ref for n in shown])
            complete = complete and None not in lists
            refs, tops_of = [], []
            for node, kids in zip(shown, lists):
                for kid in kids or ():
                    if kid[1] != NULL:
                        refs.append(kid)
                        tops_of.append(node.top)
            if not refs:
                return out, complete
            nodes = self.nodes(refs, tops_of)
            complete = complete and None not in nodes
            level = [n for n in nodes if n is not None]
        return out, False

    # -- what a recorder and a replay ask ---------------------------------------------------

    def at_point(
        self,
        x: int,
        y: int,
        *,
        pid: int | None = None,
        app: str = "",
        window: Box | None = None,
        whole_path: bool = True,
    ) -> Widget | None:
        """The innermost showing accessible at (x, y) on the screen, in the application of
        process `pid`, or named `app`, where given; `window` is the box of the X window on
        top there (_start_at). None where there is none; Gone where the tree did not answer
        whole (nothing is known then, not even that nothing is there)."""
        hit = self._hit(x, y, pid, app, window)
        if hit is None:
            return None
        top, leaf = hit
        return self.describe(leaf, (x, y), top=top, whole_path=whole_path)

    def shows(
        self,
        widget: Widget,
        x: int,
        y: int,
        *,
        pid: int | None = None,
        app: str = "",
        window: Box | None = None,
    ) -> bool:
        """Whether the accessible at (x, y) (as at_point finds it) is `widget` (the same
        role, name and box) or inside it: a toolkit may answer a button's label for a point
        on the button. Gone where the tree did not answer whole."""
        hit = self._hit(x, y, pid, app, window)
        if hit is None:
            return False
        here = hit[1]
        for _ in range(MAX_DEPTH):
            node, box = self.nodes([here])[0], self.boxes([here])[0]
            if node is None or box is None:
                raise Gone(f"{here} went away")
            if (node.role, node.name, box) == (widget.role, widget.name, widget.box):
                return True
            up = self.bus.prop(here, ACCESSIBLE, "Parent")
            parent: Ref = (str(up[0]), str(up[1]))
            if parent[1] in (NULL, ROOT) or parent == here:
                return False
            here = parent
        return False

    def window_at(self, x: int, y: int, *, pid: int | None, window: Box) -> Ref | None:
        """The accessible that is the X window `window` on top at (x, y) (_start_at)."""
        start = self._start_at(x, y, pid, "", window)
        return None if start is None else start[1]

    def _hit(
        self, x: int, y: int, pid: int | None, app: str, window: Box | None
    ) -> tuple[Ref, Ref] | None:
        """(The top-level window, the innermost showing accessible) at (x, y). A top-level
        whose box is the X window on top but that holds nothing at all is a popup whose
        items the tree keeps under the menu or combo box that opened it (Chromium's select):
        they are looked for there (atspi_popups.py). Never for a window that holds objects:
        a tree may report a popup's items at a wrong place (Chromium's, at another device
        scale), inside the window under them."""
        start = self._start_at(x, y, pid, app, window)
        if start is None:
            return None
        top, below = start
        leaf = leaf_at(self, below, x, y)
        if leaf == below != top and not holds(self._box_of(below), (x, y)):
            return None  # an open menu, boxed as its title: none of its items is here
        if leaf != top or window is None:
            return top, leaf
        return popup_item(self, top, x, y, pid, app, window) or (top, leaf)

    def _start_at(
        self, x: int, y: int, pid: int | None, app: str, window: Box | None
    ) -> tuple[Ref, Ref] | None:
        """Where to look for (x, y): (its top-level window, the object to descend from).
        The accessible whose box is `window` (the X window on top at the point): a
        top-level window, or an object inside one. None when no accessible has that box:
        the window on top is one the tree does not show as such (GTK's menu popups are
        items under the menu bar, out of any hit test), and what the tree has at the point
        is behind it. The top-levels' own boxes do not decide where `window` is given: a
        toolkit may tell its top-level in other units than its X window (Chromium at another
        device scale tells its frame unscaled, its page's objects in screen pixels), so a
        point in the window may lie outside its frame's box. Without `window`, the smallest
        top-level holding the point (a popup before the window it opened from)."""
        tops, complete = self._tops(self.apps_of(pid, app))
        boxes = self.boxes([n.ref for n in tops])
        if not complete or None in boxes:
            raise Gone("a top-level window did not answer")
        if window is not None:
            exact = [n.ref for n, box in zip(tops, boxes) if box == window]
            if len(exact) > 1:  # two windows of one box: which is on top is not known
                return None
            return (exact[0], exact[0]) if exact else self._boxed(tops, window)
        held = [
            (box[2] * box[3], n.ref)
            for n, box in zip(tops, boxes)
            if box is not None and holds(box, (x, y))
        ]
        return (min(held)[1], min(held)[1]) if held else None

    def _boxed(self, tops: list[Node], window: Box) -> tuple[Ref, Ref] | None:
        """The open menu (or combo box) whose items `window` shows, where the applications
        find it by their own search (atspi_popups.py); else the first showing object (by
        levels) whose box is `window`, with its top-level; else the menu whose items that
        window shows (popup_of), by a walk. A walk reads the whole tree (Chromium at another
        device scale, 60-80 ms), so the object it finds is kept for the next question about
        the same window and used while it still shows with that box (two round trips)."""
        key = tuple(n.ref for n in tops)
        kept = self._boxed_at.pop(key, None)
        if kept is not None and kept[0] == window and self._still_boxed(kept[2], window):
            self._boxed_at[key] = kept
            return kept[1], kept[2]
        popup = popup_searched(self, tops, window)
        if popup is not None:
            return popup
        nodes, _ = self.walk_from(tops)
        boxes = self.boxes([n.ref for n in nodes])
        for node, box in zip(nodes, boxes):
            if box == window and node.top is not None:
                self._boxed_at[key] = (window, node.top, node.ref)
                return node.top, node.ref
        return popup_of(self, nodes, window)

    def _box_of(self, ref: Ref) -> Box:
        box = self.boxes([ref])[0]
        if box is None:
            raise Gone(f"{ref}: its box did not answer")
        return box

    def _still_boxed(self, ref: Ref, window: Box) -> bool:
        """Whether `ref` is still there, showing, with `window` for its box."""
        node, box = self.nodes([ref])[0], self.boxes([ref])[0]
        return node is not None and node.showing and box == window

    def describe(
        self,
        ref: Ref,
        point: tuple[int, int] | None = None,
        *,
        top: Ref | None = None,
        whole_path: bool = True,
    ) -> Widget:
        """What `ref` is (atspi_describe.py); Gone when it went away."""
        found = describe_all(self, [ref], [top], [point], whole_path=whole_path)[0]
        if found is None:
            raise Gone(f"{ref} went away")
        return found

    def named(
        self,
        role: str,
        name: str,
        *,
        pid: int | None = None,
        app: str = "",
        whole_path: bool = True,
    ) -> list[Widget] | None:
        """Every showing accessible of this role and name in the application (of process
        `pid`, else named `app`), described; None when no such application is on the bus,
        or its tree could not be read whole (what is absent from it proves nothing)."""
        try:
            apps = self.apps_of(pid, app)
            if not apps:
                return None
            nodes, complete = self.of_role(apps, role)
            if not complete:
                return None
            same = [n for n in nodes if (n.role, n.name) == (role, name)]
            found = describe_all(
                self,
                [n.ref for n in same],
                [n.top for n in same],
                [None] * len(same),
                whole_path=whole_path,
            )
            if None in found:
                return None  # one went away meanwhile: not the whole tree
            return [w for w in found if w is not None]
        except Gone:
            return None


def _refs(items: Any) -> list[Ref]:
    return [(str(bus), str(path)) for bus, path in items]


__all__ += ["CALL_TIMEOUT", "Gone"]

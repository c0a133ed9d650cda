"""The part of one X server's window tree that has been asked about, kept as the server
tells it changed.

A replay asks for a recorded window at its path step after step; asking again, from
scratch, costs a hundred questions for a keypad of fifty keys (each key's attributes and
geometry, for its siblings' layout). The X server tells any client that asks how a
window's children change: SubstructureNotify on a window reports its children created,
destroyed, mapped, unmapped, moved, resized, restacked and reparented; PropertyChange
reports its properties (WM_CLASS, WM_NAME) rewritten. A kept tree selects those on every
window whose children or names it holds, before it asks, and forgets what each notice
makes stale: the answers it keeps are the server's, never a guess that nothing moved.
Another client's selection does not change the application's own events.

`refresh()` brings it up to date with one round trip: call it before each use. A tree not
kept forgets everything there, and asks each question at most once between two calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deskreel.storage.widgets import Box

__all__ = ["DEEPEST", "Shape", "WindowTree"]

DEEPEST = 32  # levels a window sits below the root at most (toolkits nest a dozen)
# Notices waiting at a refresh beyond which everything is forgotten at once rather than
# notice by notice (an hour of a busy desktop between two questions)
BACKLOG = 512
WM_CLASS_LONGS = 256  # 32-bit units of WM_CLASS read at most: 1 KB for its two names together


@dataclass(frozen=True, slots=True)
class Shape:
    """A window's attributes and geometry, as one pipelined question asked them."""

    shows: bool  # viewable, and drawn (InputOutput)
    viewable: bool
    box: Box  # relative to its parent, inside its border
    border: int


class WindowTree:
    """What one connection's X server said of the windows asked about; `kept` keeps it
    between `refresh()` calls, as the server's notices allow."""

    def __init__(self, display: Any, root: Any, *, kept: bool = False) -> None:
        """`display`: a connection's protocol display (Xlib.display.Display's `display`);
        `root`: its screen's root window (None where only clients are asked for)."""
        self.display, self.root, self.kept = display, root, kept
        self._children: dict[int, list[Any]] = {}
        self._shapes: dict[int, Shape | None] = {}
        self._classes: dict[int, tuple[str, str] | None] = {}
        self._titles: dict[int, str] = {}
        self._origins: dict[int, tuple[int, int]] = {}
        self._parent: dict[int, int] = {}  # learned from the children asked for
        self._kids: dict[int, set[int]] = {}  # the same, the other way
        self._watched: dict[int, int] = {}  # the event mask selected on each window

    @classmethod
    def of(cls, conn: Any, *, kept: bool = False) -> WindowTree:
        """The tree of `conn`'s (an Xlib.display.Display's) screen."""
        return cls(conn.display, conn.screen().root, kept=kept)

    def refresh(self) -> None:
        """Forget what changed since the last call (kept: what the server's notices, all
        received after one round trip, make stale; else everything)."""
        if not self.kept:
            self._forget_all()
            return
        from Xlib.protocol import request

        request.GetInputFocus(display=self.display)  # every notice sent before arrives first
        waiting = self.display.pending_events()
        for _ in range(waiting):  # those only: a window that keeps changing cannot hold us
            event = self.display.next_event()
            if waiting <= BACKLOG:
                self._told(event)
        if waiting > BACKLOG:
            self._forget_all()

    def _forget_all(self) -> None:
        """Forget everything, the notices selected too (a window gone meanwhile may have
        given its id to another, on which nothing is selected)."""
        for cache in (self._children, self._shapes, self._classes, self._titles, self._origins,
                      self._parent, self._kids, self._watched):  # fmt: skip
            cache.clear()

    def children(self, windows: Sequence[Any]) -> list[list[Any]]:
        """Each window's children, bottom to top ([] for one gone), the ones not known asked
        in one round trip."""
        from Xlib import X, error
        from Xlib.protocol import request

        new = [w for w in _distinct(windows) if w.id not in self._children]
        for window in new:
            self._watch(window, X.SubstructureNotifyMask | X.StructureNotifyMask)
        asked = [request.QueryTree(display=self.display, defer=True, window=w) for w in new]
        self.display.flush()
        for window, reply in zip(new, asked, strict=True):
            try:
                reply.reply()
                kids = list(reply.children)
            except error.XError:
                kids = []
            self._children[window.id] = kids
            self._kids[window.id] = {kid.id for kid in kids}
            for kid in kids:
                self._parent[kid.id] = window.id
        return [self._children[w.id] for w in windows]

    def shapes(self, windows: Sequence[Any]) -> list[Shape | None]:
        """Each window's shape (None: it went away), the ones not known asked in one round
        trip: a keypad of 50 keys costs what one key does."""
        from Xlib import X, error
        from Xlib.protocol import request

        new = [w for w in _distinct(windows) if w.id not in self._shapes]
        display = self.display
        asked = [
            (
                request.GetWindowAttributes(display=display, defer=True, window=w),
                request.GetGeometry(display=display, defer=True, drawable=w),
            )
            for w in new
        ]
        self.display.flush()
        found: dict[int, Shape | None] = {}
        for window, (attributes, geometry) in zip(new, asked, strict=True):
            try:
                attributes.reply()
                geometry.reply()
            except error.XError:
                found[window.id] = None
                continue
            viewable = attributes.map_state == X.IsViewable
            shows = viewable and attributes.win_class == X.InputOutput
            b = geometry.border_width
            box = (geometry.x + b, geometry.y + b, geometry.width, geometry.height)
            found[window.id] = Shape(shows, viewable, box, b)
        for wid, shape in found.items():
            if not self.kept or self._told_of(wid):  # its parent's notices tell of changes
                self._shapes[wid] = shape
        return [self._shapes.get(w.id, found.get(w.id)) for w in windows]

    def wm_classes(self, windows: Sequence[Any]) -> list[tuple[str, str] | None]:
        """Each window's WM_CLASS (instance, class), None where it has none or went away,
        the ones not known asked in one round trip."""
        from Xlib import X, Xatom, error
        from Xlib.protocol import request

        new = [w for w in _distinct(windows) if w.id not in self._classes]
        for window in new:
            self._watch(window, X.PropertyChangeMask | X.StructureNotifyMask)
        asked = [
            request.GetProperty(display=self.display, defer=True, delete=False, window=w,
                                property=Xatom.WM_CLASS, type=Xatom.STRING, long_offset=0,
                                long_length=WM_CLASS_LONGS)
            for w in new
        ]  # fmt: skip
        self.display.flush()
        for window, reply in zip(new, asked, strict=True):
            try:
                reply.reply()
            except error.XError:
                self._classes[window.id] = None
                continue
            fmt, data = reply.value if reply.property_type else (0, b"")
            parts = bytes(data).decode("latin-1").split("\0") if fmt == 8 else []
            self._classes[window.id] = (parts[0], parts[1]) if len(parts) >= 2 else None
        return [self._classes[w.id] for w in windows]

    def title(self, window: Any) -> str:
        """The window's WM_NAME ("" where it has none)."""
        from Xlib import X

        if window.id not in self._titles:
            self._watch(window, X.PropertyChangeMask | X.StructureNotifyMask)
            title = window.get_wm_name()
            if isinstance(title, bytes):
                title = title.decode("utf-8", "replace")
            self._titles[window.id] = title or ""
        return self._titles[window.id]

    def origin(self, window: Any) -> tuple[int, int]:
        """Where `window`'s inside begins on the screen."""
        known = self._origins.get(window.id)
        if known is not None:
            return known
        at = window.translate_coords(self.root, 0, 0)
        origin = (-at.x, -at.y)
        if not self.kept or self._chain(window.id) is not None:  # those above it tell moves
            self._origins[window.id] = origin
        return origin

    def _watch(self, window: Any, mask: int) -> None:
        """Select `mask`'s notices on `window` for this client, before asking of it."""
        if not self.kept or self._watched.get(window.id, 0) & mask == mask:
            return
        self._watched[window.id] = self._watched.get(window.id, 0) | mask
        window.change_attributes(event_mask=self._watched[window.id], onerror=_ignore)

    def _told_of(self, wid: int) -> bool:
        """Whether a kept tree hears when `wid` changes: its parent's children are watched."""
        from Xlib import X

        parent = self._parent.get(wid)
        return parent is not None and bool(self._watched.get(parent, 0) & X.SubstructureNotifyMask)

    def _chain(self, wid: int) -> list[int] | None:
        """`wid` and the windows above it up to the root, where every one is told of; None
        where one is not (nothing about its place can be kept)."""
        chain = [wid]
        while chain[-1] != self.root.id and len(chain) <= DEEPEST:
            if not self._told_of(chain[-1]):
                return None
            chain.append(self._parent[chain[-1]])
        return chain if chain[-1] == self.root.id else None

    def _told(self, event: Any) -> None:
        """Forget what one notice from the server makes stale."""
        from Xlib import X, Xatom

        kind = event.type
        if kind == X.PropertyNotify:
            if event.atom == Xatom.WM_NAME:
                self._titles.pop(event.window.id, None)
            elif event.atom == Xatom.WM_CLASS:
                self._classes.pop(event.window.id, None)
        elif kind == X.CreateNotify:
            self._children.pop(event.parent.id, None)
        elif kind in (X.DestroyNotify, X.MapNotify, X.UnmapNotify, X.ConfigureNotify,
                      X.GravityNotify, X.ReparentNotify, X.CirculateNotify):  # fmt: skip
            wid = event.window.id
            if event.event.id != wid:  # told its parent: the parent's children changed
                self._children.pop(event.event.id, None)
            if kind == X.ReparentNotify:
                self._children.pop(event.parent.id, None)
            self._forget_below(wid, gone=kind in (X.DestroyNotify, X.ReparentNotify))

    def _forget_below(self, wid: int, *, gone: bool) -> None:
        """Forget the shapes and places of `wid` and of every window known below it (a
        window's place and viewability follow its ancestors'); `gone`: and whatever else
        was known of `wid` itself, the notices selected on it too (its id may be given to
        another window)."""
        below, level = [wid], [wid]
        for _ in range(DEEPEST):
            level = [kid for w in level for kid in self._kids.get(w, ())]
            if not level:
                break
            below += level
        for w in below:
            self._shapes.pop(w, None)
            self._origins.pop(w, None)
        if gone:
            for cache in (self._children, self._classes, self._titles, self._kids, self._watched):
                cache.pop(wid, None)
            parent = self._parent.pop(wid, None)
            if parent is not None:
                self._kids.get(parent, set()).discard(wid)


def _distinct(windows: Sequence[Any]) -> list[Any]:
    seen: dict[int, Any] = {}
    for window in windows:
        seen.setdefault(window.id, window)
    return list(seen.values())


def _ignore(*_: Any) -> None:
    """An error on selecting notices: the window went away, and nothing is kept of it."""

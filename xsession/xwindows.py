"""What the X server knows of the widget under a point: the deepest viewable InputOutput
window there, inside its top-level client window.

Older toolkits (Tk, Xt/Athena, Motif) make each widget an X window. Such a window's box does
not change with a hover look, a theme or a colour scheme, and under a bigger font the tree
keeps its order: xcalc's seventh key is its keypad's seventh child. So the window under a
press is an object as the accessibility tree's are (storage/widgets.py, source "xwindow"):
its path of child indices from its top-level, its box, the boxes of its siblings (parent's
children, in the server's order) and the top-level's WM_CLASS, which names the application.

Newer toolkits (GTK 3, Qt, Chromium) draw their widgets inside one window. There the deepest
window under a point is as large as its top-level's client window, which says nothing the
pixels do not: no object is made of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deskreel.storage.widgets import XWINDOW, Box, Widget

from .xtree import DEEPEST, WindowTree

__all__ = ["Placed", "WindowTree", "client_of", "clients_of_class", "placed_at", "tops_shown",
           "window_object", "windows_at"]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Placed:
    """A window at the end of a path from a top-level: its box on the screen, and its
    siblings' boxes (the parent's viewable children, in the server's order, relative to
    the parent) with its own place among them."""

    window: Any
    box: Box
    layout: tuple[Box, ...]
    rank: int


def window_object(conn: Any, x: int, y: int) -> Widget | None:
    """The deepest viewable InputOutput window under (x, y) on `conn`'s screen, as an
    object; None over the bare root, over a window no client names (no WM_CLASS), or where
    the deepest window is the client's whole area (its toolkit draws its widgets itself)."""
    from Xlib import error

    tree = WindowTree.of(conn)
    root = tree.root
    try:
        top = root.translate_coords(root, x, y).child
        found = _clients(tree, [top]) if top else []
        if not found:
            return None
        _, client, wm_class = found[0]
        path: list[tuple[str, int]] = []
        children: list[Any] = []
        window = client
        for _ in range(DEEPEST):
            step = _child_at(tree, window, x, y)
            if step is None:
                break
            index, children = step
            path.append(("window", index))
            window = children[index]
        if not path:
            return None
        here = _placed(tree, children, path[-1][1], window)
        whole = _screen_box(tree, client)
        if here is None or whole is None or _covers(here.box, whole):
            return None
        return _widget(tree, here, path, (x, y), app=wm_class[1], top=client, top_box=whole)
    except error.XError:
        return None  # a window went away while we looked


def windows_at(tree: WindowTree, recorded: Widget) -> list[Widget]:
    """Today's windows at `recorded`'s path, one per viewable top-level of its application
    (its WM_CLASS) where the path leads to a viewable window, topmost first. `tree` is
    brought up to date first."""
    from Xlib import error

    tree.refresh()
    found = []
    for client in clients_of_class(tree, recorded.app):
        here = placed_at(tree, client, recorded.path)
        if here is None:
            continue
        try:
            whole = _screen_box(tree, client)
            if whole is not None:
                found.append(
                    _widget(tree, here, list(recorded.path), here.box[:2], app=recorded.app,
                            top=client, top_box=whole)
                )  # fmt: skip
        except error.XError:
            continue  # it went away while we looked
    return found


def tops_shown(tree: WindowTree) -> dict[int, Box]:
    """Every viewable top-level window that holds a client (WM_CLASS), by its id: its box
    on the screen, a window manager's frame and its decorations included. What a step
    opened is told by two of these, taken before and after it. `tree` is brought up to
    date first."""
    tree.refresh()
    shown = _viewable_tops(tree)
    boxes = {top.id: box for top, box in shown}
    held = _clients(tree, [top for top, _ in shown])
    return {top.id: boxes[top.id] for top, _, _ in held}


def client_of(window: Any) -> Any | None:
    """The client window inside `window`, a child of the root: itself, or the first one
    down that has WM_CLASS (inside a window manager's frame); None when none says, or
    `window` went away."""
    found = _clients(WindowTree(window.display, None), [window])
    return found[0][1] if found else None


def clients_of_class(tree: WindowTree, app: str) -> list[Any]:
    """The viewable client windows whose WM_CLASS class is `app`, topmost first. The
    questions go to the server a level at a time, each level's in one round trip: a desktop
    of fifty windows costs what one window does."""
    viewable = [top for top, _ in reversed(_viewable_tops(tree))]
    return [client for _, client, wm_class in _clients(tree, viewable) if wm_class[1] == app]


def _viewable_tops(tree: WindowTree) -> list[tuple[Any, Box]]:
    """The root's viewable children, bottom to top, each with its box on the screen."""
    (tops,) = tree.children([tree.root])
    shapes = tree.shapes(tops)
    return [(top, s.box) for top, s in zip(tops, shapes, strict=True) if s and s.viewable]


def _clients(tree: WindowTree, tops: Sequence[Any]) -> list[tuple[Any, Any, tuple[str, str]]]:
    """Each top-level with its client window and the client's WM_CLASS, in the top-levels'
    order: the top-level itself, or the first window down that has WM_CLASS (inside a window
    manager's frame); top-levels where none says are left out."""
    found: dict[int, tuple[Any, tuple[str, str]]] = {}
    level = [(i, top) for i, top in enumerate(tops)]
    for depth in range(3):  # frame -> (decoration ->) client
        classes = tree.wm_classes([window for _, window in level])
        for (i, window), wm_class in zip(level, classes, strict=True):
            if wm_class is not None and i not in found:
                found[i] = (window, wm_class)
        below = [(i, w) for (i, w), c in zip(level, classes, strict=True) if i not in found]
        if depth == 2 or not below:
            break
        level = [(i, child) for (i, _), children in
                 zip(below, tree.children([w for _, w in below]), strict=True)
                 for child in children]  # fmt: skip
    return [(tops[i], *found[i]) for i in sorted(found)]


def placed_at(tree: WindowTree, client: Any, path: Sequence[tuple[str, int]]) -> Placed | None:
    """The viewable window at the end of `path` (child indices) below `client`; None where
    the path leads nowhere today. (A window is viewable only where its ancestors are mapped
    too: the last one's attributes tell for the whole path.)"""
    from Xlib import error

    parent, children = client, []
    try:
        for _, index in path:
            (children,) = tree.children([parent])
            if not 0 <= index < len(children):
                return None
            parent = children[index]
        return _placed(tree, children, path[-1][1], parent) if path else None
    except error.XError:
        return None


def _child_at(tree: WindowTree, parent: Any, x: int, y: int) -> tuple[int, list[Any]] | None:
    """The topmost viewable InputOutput child of `parent` holding (x, y): its index among
    the parent's children, and those children; None when no child holds it."""
    (children,) = tree.children([parent])
    ox, oy = tree.origin(parent)
    shapes = tree.shapes(children)
    for index in reversed(range(len(children))):  # the server lists them bottom to top
        shape = shapes[index]
        if shape is None or not shape.shows:
            continue
        left, top, w, h = shape.box
        b = shape.border
        if ox + left - b <= x < ox + left + w + b and oy + top - b <= y < oy + top + h + b:
            return index, children
    return None


def _placed(tree: WindowTree, children: Sequence[Any], index: int, window: Any) -> Placed | None:
    """Child `index` of a parent whose children are `children`: its box on the screen, and
    its viewable siblings' layout (relative to the parent), itself among them; None where
    it is not shown (unmapped, under an unmapped window, or InputOnly)."""
    shapes = tree.shapes(children)
    shape = shapes[index]
    if shape is None or not shape.shows:
        return None
    layout: list[Box] = []
    rank = -1
    for i, shape in enumerate(shapes):
        if shape is None or not (shape.viewable or i == index):
            continue
        if i == index:
            rank = len(layout)
        layout.append(shape.box)
    ox, oy = tree.origin(window)
    _, _, w, h = layout[rank]
    return Placed(window, (ox, oy, w, h), tuple(layout), rank)


def _screen_box(tree: WindowTree, window: Any) -> Box | None:
    """`window`'s box on the screen, inside its border; None where it went away."""
    (shape,) = tree.shapes([window])
    if shape is None:
        return None
    x, y = tree.origin(window)
    return x, y, shape.box[2], shape.box[3]


def _covers(box: Box, whole: Box) -> bool:
    """Whether `box` is the whole of `whole` or more: a window that tells nothing apart."""
    x, y, w, h = box
    wx, wy, ww, wh = whole
    return x <= wx and y <= wy and x + w >= wx + ww and y + h >= wy + wh


def _widget(
    tree: WindowTree,
    here: Placed,
    path: list[tuple[str, int]],
    point: tuple[int, int],
    *,
    app: str,
    top: Any,
    top_box: Box,
) -> Widget:
    x, y, _, _ = here.box
    title = tree.title(top)
    return Widget(
        source=XWINDOW,
        app=app,
        role="window",
        name="",
        box=here.box,
        point=(point[0] - x, point[1] - y),
        path=tuple(path),
        parent="",
        siblings=(),
        rank=here.rank,
        window=f"window {title!r}" if title else "window",
        layout=here.layout,
        top=top_box,
    )

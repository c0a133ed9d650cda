"""Where the widgets are, as the toolkit itself says: the accessibility tree (AT-SPI: GTK,
Qt, LibreOffice, Chromium) or the X window tree (Tk and Xt give every widget an X window of
its own). A target is the widget a point hits; in another scenario it is found again by its
path in the tree, role and name, never by how it looks."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = ["Element", "accessibles", "find_same", "target_at", "topmost_box", "windows"]

ATSPI_DUMP = Path(__file__).with_name("atspi_dump.py")
SYSTEM_PYTHON = "/usr/bin/python3"  # has python3-gi; the venv cannot
# Roles that hold widgets rather than being one: a point inside a button is inside these too.
CONTAINERS = frozenset(
    {
        "application", "frame", "window", "dialog", "panel", "filler", "scroll pane",
        "viewport", "layered pane", "root pane", "glass pane", "split pane", "section",
        "document frame", "document web", "internal frame", "page tab list", "tool bar",
        "menu bar", "status bar", "table", "tree table", "list", "list box", "form",
        "grouping", "landmark", "unknown", "redundant object", "embedded", "canvas",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Element:
    """One widget: its path of child indexes from the tree's root, role, name and box."""

    path: tuple[int, ...]
    role: str
    name: str
    box: tuple[int, int, int, int]  # x, y, w, h on the screen

    def contains(self, point: Sequence[float]) -> bool:
        x, y, w, h = self.box
        return w > 0 and h > 0 and x <= point[0] < x + w and y <= point[1] < y + h

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Element:
        return cls(tuple(data["path"]), data["role"], data["name"], tuple(data["box"]))


def accessibles(env: Mapping[str, str], app: str | None = None) -> list[Element]:
    """Every showing accessible of `app` (by its AT-SPI name; all when None)."""
    done = subprocess.run(
        [SYSTEM_PYTHON, str(ATSPI_DUMP), *([app] if app else [])],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = []
    for line in done.stdout.splitlines():
        data = json.loads(line)
        if "showing" in data["states"] and "visible" in data["states"]:
            out.append(Element.from_json(data))
    return out


def windows(display: str, wm_class: str) -> list[Element]:
    """Every viewable X window of the application whose top-levels have WM_CLASS `wm_class`
    (instance or class), with its path from the root's children."""
    from Xlib import X
    from Xlib.display import Display

    conn = Display(display)
    try:
        root = conn.screen().root
        out: list[Element] = []
        for index, top in enumerate(root.query_tree().children):
            names = top.get_wm_class() or ()
            if wm_class in names and top.get_attributes().map_state == X.IsViewable:
                _walk(conn, top, (index,), out)
        return out
    finally:
        conn.close()


def _walk(conn: Any, window: Any, path: tuple[int, ...], out: list[Element]) -> None:
    from Xlib import X

    if window.get_attributes().map_state != X.IsViewable:
        return
    geometry = window.get_geometry()
    origin = window.translate_coords(conn.screen().root, 0, 0)
    box = (-origin.x, -origin.y, geometry.width, geometry.height)
    out.append(Element(path, "window", window.get_wm_name() or "", box))
    for index, child in enumerate(window.query_tree().children):
        _walk(conn, child, (*path, index), out)


def topmost_box(display: str, point: Sequence[float]) -> tuple[int, int, int, int] | None:
    """The box of the topmost top-level X window holding `point`, as the X server stacks
    them: a popup menu over the window it opened from."""
    from Xlib.display import Display

    conn = Display(display)
    try:
        root = conn.screen().root
        child = root.translate_coords(root, int(point[0]), int(point[1])).child
        if not child:
            return None
        geometry = child.get_geometry()
        origin = child.translate_coords(root, 0, 0)
        return (-origin.x, -origin.y, geometry.width, geometry.height)
    finally:
        conn.close()


def target_at(
    elements: Sequence[Element],
    point: Sequence[float],
    top: tuple[int, int, int, int] | None = None,
) -> Element | None:
    """The widget a point hits: the smallest element containing it that is not a container
    (the smallest of all when only containers do), in the top-level window whose box is
    `top` (topmost_box) where given: the trees know nothing of which window is on top."""
    hit = [e for e in elements if e.contains(point)]
    if top is not None:
        hit = _in_window(hit, top, elements)
    widgets = [e for e in hit if e.role not in CONTAINERS]
    pool = widgets or hit
    return min(pool, key=lambda e: (e.box[2] * e.box[3], -len(e.path)), default=None)


def _in_window(
    hit: list[Element], top: tuple[int, int, int, int], elements: Sequence[Element]
) -> list[Element]:
    """Those of `hit` inside the top-level element whose box is `top` (the shortest path of
    that box); else the items of an open menu drawn in that window; else all of them."""
    tops = [e for e in hit if e.box == top]
    if tops:
        window = min(tops, key=lambda e: len(e.path))
        inside = [e for e in hit if e.path[: len(window.path)] == window.path]
        if inside != [window]:
            return inside
    # No element is that window, or it holds nothing at the point: a popup whose items the
    # tree keeps under the menu or combo box that opened it (GTK's menus, Chromium's select,
    # whose popup frame Chromium places in unscaled pixels at another device scale), drawn
    # inside the window's box.
    owners = {e.path for e in elements if e.role in ("menu", "combo box")}
    items = [
        e
        for e in hit
        if _within(e.box, top) and any(e.path[: len(o)] == o for o in owners if o != e.path)
    ]
    return items or ([window] if tops else hit)


def _within(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return w > 0 and h > 0 and ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


def find_same(elements: Sequence[Element], target: Element) -> Element | None:
    """`target` in another tree of the same application: at the same path with the same role
    and name; else the only element of that role and name (a name the toolkit gives); None
    when it is not there."""
    same = [e for e in elements if (e.role, e.name) == (target.role, target.name)]
    at_path = [e for e in same if e.path == target.path]
    if at_path:
        return at_path[0]
    if target.name and len(same) == 1:
        return same[0]
    return None

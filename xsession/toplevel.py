"""The top-level window at a point of the screen, as the X server stacks them: its
process (_NET_WM_PID, else the X server's own record of its client), class and title.
What tells which application's accessibility tree answers for a point, and whether the
window there is a private one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["TopLevel", "toplevel_at", "toplevel_of"]


@dataclass(frozen=True, slots=True)
class TopLevel:
    pid: int | None  # None: the window does not say
    window_class: str | None
    title: str | None
    box: tuple[int, int, int, int] | None = None  # x, y, w, h on the screen


def toplevel_at(conn: Any, x: int, y: int) -> TopLevel | None:
    """The topmost top-level window holding (x, y) on `conn`'s screen; None over the bare
    root window."""
    root = conn.screen().root
    return toplevel_of(conn, root.translate_coords(root, x, y).child)


def toplevel_of(conn: Any, window: Any) -> TopLevel | None:
    """What `window`, a child of the root, says of itself, or its client's inside a window
    manager's frame (the first one down that has WM_CLASS)."""
    from Xlib import error

    from .xwindows import client_of

    if not window:
        return None
    try:
        client = client_of(window)
        if client is not None:
            wm_class = client.get_wm_class()
            return TopLevel(_pid(conn, client), wm_class[1], _title(client), _box(conn, client))
        return TopLevel(_pid(conn, window), None, None, _box(conn, window))
    except error.XError:
        return None  # it went away while we looked


def _box(conn: Any, window: Any) -> tuple[int, int, int, int]:
    """The window's box on the screen, less the invisible margins a client-side decorated
    window keeps for its shadows (_GTK_FRAME_EXTENTS: left, right, top, bottom)."""
    geometry = window.get_geometry()
    origin = window.translate_coords(conn.screen().root, 0, 0)
    x, y, w, h = -origin.x, -origin.y, geometry.width, geometry.height
    prop = window.get_full_property(conn.intern_atom("_GTK_FRAME_EXTENTS"), 0)
    if prop is not None and len(prop.value) == 4:
        left, right, top, bottom = (int(v) for v in prop.value)
        x, y, w, h = x + left, y + top, w - left - right, h - top - bottom
    return x, y, w, h


def _pid(conn: Any, window: Any) -> int | None:
    """The process that shows `window`: as the window says (_NET_WM_PID), else as the X
    server knows its client (the X-Resource extension: a popup menu or a tooltip says
    nothing of itself); None for a client on another machine."""
    prop = window.get_full_property(conn.intern_atom("_NET_WM_PID"), 0)
    if prop is not None and len(prop.value):
        return int(prop.value[0])
    return _client_pid(conn, window)


def _client_pid(conn: Any, window: Any) -> int | None:
    from Xlib.ext import res

    if not conn.has_extension(res.extname):
        return None
    reply = conn.res_query_client_ids([{"client": window.id, "mask": res.LocalClientPIDMask}])
    pids = [int(i.value[0]) for i in reply.ids if i.spec.mask == res.LocalClientPIDMask and i.value]
    return pids[0] if pids else None


def _title(window: Any) -> str | None:
    title = window.get_wm_name()
    if isinstance(title, bytes):
        title = title.decode("utf-8", "replace")
    return title or None

"""Connections to the X server, shared by recorder and replayer, with errors a person can act on.

python-xlib is imported here lazily, so that importing deskreel needs no display.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["DisplayError", "connect", "display_gone", "display_name", "refuse_xwayland", "xwayland"]

_EXTENSION_HINTS = {
    "RECORD": "start Xvfb with +extension RECORD, or enable the RECORD module in xorg.conf",
    "XTEST": "start Xvfb with +extension XTEST, or enable the XTEST module in xorg.conf",
}


class DisplayError(Exception):
    """No X display, or one that lacks what we need; `details` say which (the display, the
    extension)."""

    def __init__(self, message: str, *, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.details = details or {}


def display_name(name: str | None = None) -> str:
    """The display to use: the one given, else $DISPLAY, else a clear error."""
    name = name or os.environ.get("DISPLAY")
    if not name:
        raise DisplayError(
            "$DISPLAY is not set: run deskreel inside an X session, or set "
            "DISPLAY (for a virtual one: Xvfb :99 & DISPLAY=:99 deskreel ...)"
        )
    return name


def connect(name: str | None = None, *, extensions: tuple[str, ...] = ()) -> Any:
    """Open one connection (one per thread) and check the extensions it must have."""
    from Xlib import display as xdisplay
    from Xlib import error as xerror

    name = display_name(name)
    try:
        conn = xdisplay.Display(name)
    except (xerror.DisplayError, xerror.ConnectionClosedError, xerror.XauthError, OSError) as err:
        raise DisplayError(
            f"cannot open X display {name} ({_first_line(err)}): check that "
            f"the X server runs and that you may connect (xauth)"
        ) from None
    for ext in extensions:
        if not conn.has_extension(ext):
            conn.close()
            raise DisplayError(
                f"X server {name} lacks the {ext} extension: "
                f"{_EXTENSION_HINTS.get(ext, 'enable it')}",
                details={"display": name, "extension": ext},
            )
    return conn


def display_gone(err: BaseException, name: str | None = None) -> bool:
    """Whether `err` came of the X server going away (it exited, or a nested one was
    closed): python-xlib's closed connection says so; any other error (a screen grab's,
    whose library raises its own) counts when the local server `name` no longer listens."""
    from Xlib import error as xerror

    from .xserver import local_server_listens

    if isinstance(err, xerror.ConnectionClosedError):
        return True
    return name is not None and local_server_listens(name) is False


def xwayland(conn: Any) -> bool:
    """Whether the X server is Xwayland, as it says itself: by its XWAYLAND extension
    (Xwayland 23 and later) or by the names of its RandR outputs (XWAYLAND0, ...)."""
    if conn.has_extension("XWAYLAND"):
        return True
    if not conn.has_extension("RANDR"):
        return False
    resources = conn.screen().root.xrandr_get_screen_resources()
    return any(
        conn.xrandr_get_output_info(output, resources.config_timestamp).name.startswith("XWAYLAND")
        for output in resources.outputs
    )


def refuse_xwayland(conn: Any, *, force: bool) -> bool:
    """Raise DisplayError when `conn` is Xwayland, unless `force`; whether it is. Xwayland's
    RECORD and XTEST reach only the windows of X clients: whatever is done in the Wayland
    session's own windows would be missed, or receive nothing, without a word."""
    if not xwayland(conn):
        return False
    if not force:
        session = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("XDG_SESSION_TYPE")
        within = f" of the Wayland session {session!r}" if session else ""
        raise DisplayError(
            f"X display {conn.get_display_name()} is Xwayland{within}: it shows deskreel only "
            f"the windows of X clients, never the Wayland ones; run the application in a "
            f"nested X server with --nested -- COMMAND, or log in to an X11 session, or add "
            f"--force",
            details={"display": conn.get_display_name(), "xwayland": True},
        )
    return True


def _first_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]

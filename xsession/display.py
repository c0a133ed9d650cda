"""Connections to the X server, shared by recorder and replayer, with errors a person can act on.

python-xlib is imported here lazily, so that importing deskreel needs no display.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["DisplayError", "connect", "display_name"]

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
    except (xerror.DisplayError, xerror.ConnectionClosedError, OSError) as err:
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


def _first_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]

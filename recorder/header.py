"""What a new recording is called by default, and what it says about the display it shows."""

from __future__ import annotations

import time
from typing import Any

__all__ = ["default_name", "display_header"]


def default_name() -> str:
    """rec-DATE-TIME-HOST: unique enough for many machines recording into one store."""
    import socket

    return f"rec-{time.strftime('%Y%m%d-%H%M%S')}-{socket.gethostname().split('.')[0]}"


def display_header(conn: Any) -> dict[str, Any]:
    """The screen's size, its DPI and the keyboard layout, as `create_recording` takes them."""
    screen = conn.screen()
    return {
        "screen": (screen.width_in_pixels, screen.height_in_pixels),
        "dpi": _dpi(screen),
        "keyboard_layout": _xkb_layout(conn),
    }


def _dpi(screen: Any) -> float | None:
    if not screen.width_in_mms:
        return None
    return round(screen.width_in_pixels / (screen.width_in_mms / 25.4), 1)


def _xkb_layout(conn: Any) -> str | None:
    from Xlib import X

    try:
        prop = conn.screen().root.get_full_property(
            conn.intern_atom("_XKB_RULES_NAMES"), X.AnyPropertyType
        )
    except Exception:
        return None
    if prop is None:
        return None
    value = prop.value
    text = value.decode() if isinstance(value, bytes) else str(value)
    parts = text.split("\0")
    return ":".join(p for p in parts[2:4] if p) or None

"""Where a display's accessibility bus is: the address the bus launcher puts on the root
window (AT_SPI_BUS), or the one the session bus gives (org.a11y.Bus)."""

from __future__ import annotations

import os
from typing import Any

from .dbus_calls import Bus

__all__ = ["bus_address"]


def bus_address(display: Any | None = None) -> str | None:
    """The accessibility bus of `display` (a python-xlib connection), from its root window's
    AT_SPI_BUS; else the session bus's answer; None when there is none."""
    if display is not None:
        try:
            prop = display.screen().root.get_full_property(display.intern_atom("AT_SPI_BUS"), 0)
        except Exception:  # (a display that went away answers nothing either)
            prop = None
        if prop is not None and prop.value:
            value = prop.value
            return value.decode() if isinstance(value, bytes) else str(value)
    session = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if not session:
        return None
    try:
        bus = Bus(session)
        try:
            return str(bus.call(("org.a11y.Bus", "/org/a11y/bus"), "org.a11y.Bus", "GetAddress")[0])
        finally:
            bus.close()
    except Exception:  # (no session bus, no launcher: no accessibility)
        return None

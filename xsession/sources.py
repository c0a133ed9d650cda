"""Where a display can tell what the pointer is on, said in a line a person reads: the
accessibility tree (AT-SPI) where the desktop publishes one, else pixels alone."""

from __future__ import annotations

from typing import Any

__all__ = ["NO_ACCESSIBILITY", "accessibility_line"]

NO_ACCESSIBILITY = (
    "no accessibility bus on this display: targets are found by their pixels alone "
    "(enable your desktop's accessibility, or start at-spi-bus-launcher from at-spi2-core)"
)


def accessibility_line(display: Any) -> tuple[bool, str]:
    """Whether `display` (a python-xlib connection) has an accessibility bus, and a line
    saying so: with how many applications publish their trees there now."""
    from .atspi import Accessibility
    from .dbus_calls import Gone

    tree = Accessibility.open(display)
    if tree is None:
        return False, NO_ACCESSIBILITY
    try:
        count = len(tree.applications())
    except (Gone, OSError):  # the bus went away since it answered
        count = 0
    finally:
        tree.close()
    return True, (
        f"accessibility (AT-SPI): {count} application(s) publish their widgets; pointer "
        f"targets are recorded and found as objects there, by pixels elsewhere"
    )

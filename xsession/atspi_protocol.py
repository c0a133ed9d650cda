"""AT-SPI's D-Bus names, and how far deskreel reads a tree: written once, for the client
(atspi.py) and the descriptions of objects (atspi_describe.py)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ACCESSIBLE",
    "extents_box",
    "COMPONENT",
    "MAX_DEPTH",
    "MAX_FANOUT",
    "MAX_OBJECTS",
    "MAX_SIBLINGS",
    "NULL",
    "REGISTRY",
    "ROOT",
    "SCREEN",
    "SHOWING",
    "VISIBLE",
]

ROOT = "/org/a11y/atspi/accessible/root"
NULL = "/org/a11y/atspi/null"
REGISTRY = "org.a11y.atspi.Registry"
ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
SCREEN = 0  # ATSPI_COORD_TYPE_SCREEN
SHOWING, VISIBLE = 25, 30  # ATSPI_STATE_SHOWING, ATSPI_STATE_VISIBLE

MAX_SIBLINGS = 64  # a parent with more children (a long list) is no context for one of them
MAX_DEPTH = 40  # an accessible deeper than this under its application is not followed
MAX_OBJECTS = 5000  # accessibles walked per application when searching it whole
MAX_FANOUT = 256  # children looked through by hand where a toolkit's hit test stops short


def extents_box(extents: Any) -> tuple[int, int, int, int]:
    """A Component's GetExtents answer as (x, y, w, h)."""
    x, y, w, h = (int(v) for v in extents)
    return x, y, w, h

"""Print every accessible on the AT-SPI bus as JSON lines: its path of child indexes from
the desktop, role, name, screen box and states.

Run by the system Python (`/usr/bin/python3`, with python3-gi and gir1.2-atspi-2.0 from
Debian): PyGObject does not install into a virtualenv without a compiler toolchain, and
this is the only part of the corpus that needs it.
"""

from __future__ import annotations

import json
import sys

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

MAX_DEPTH = 60
MAX_CHILDREN = 2000  # a long list or table: its rows past this are not targets of a task


def walk(accessible: Atspi.Accessible, path: list[int], depth: int) -> None:
    try:
        role = accessible.get_role_name()
        name = accessible.get_name() or ""
        box = accessible.get_extents(Atspi.CoordType.SCREEN)
        states = [Atspi.StateType(s).value_nick for s in accessible.get_state_set().get_states()]
    except Exception:  # an accessible that went away meanwhile
        return
    line = {
        "path": path,
        "role": role,
        "name": name,
        "box": [box.x, box.y, box.width, box.height],
        "states": states,
    }
    print(json.dumps(line))
    if depth >= MAX_DEPTH:
        return
    try:
        count = accessible.get_child_count()
    except Exception:
        return
    for index in range(min(count, MAX_CHILDREN)):
        try:
            child = accessible.get_child_at_index(index)
        except Exception:
            continue
        if child is not None:
            walk(child, [*path, index], depth + 1)


def main() -> int:
    desktop = Atspi.get_desktop(0)
    for index in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(index)
        if app is not None and (len(sys.argv) < 2 or app.get_name() in sys.argv[1:]):
            walk(app, [index], 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The object a pointer step was aimed at, as its toolkit told it: the accessible under the
point (AT-SPI), with its role, name, box, states, its path from its application, and its
parent's children in reading order (what tells twins apart). Stored as JSON beside the step
(schema 5); a damaged or foreign value reads as None, never as an error."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MEANT_STATES",
    "After",
    "ASKED",
    "ASKED_AFTER",
    "ASKED_AGAIN",
    "ASKED_NEARBY",
    "ASKED_WATCHED",
    "ATSPI",
    "XWINDOW",
    "Widget",
    "reading_order",
    "widget_from_json",
    "widget_to_json",
    "meant_states",
]

Box = tuple[int, int, int, int]
ATSPI = "atspi"  # a widget's source: the accessibility tree (xsession/atspi.py)
XWINDOW = "xwindow"  # the X server's window tree (xsession/xwindows.py)
# How a recorded object was tied to its press (recorder/aiming.py), where not by a question
# asked at the press's point while the pointer rested there, nothing changing inside it
ASKED: dict[str, str] = {
    "nearby": "asked while the pointer rested elsewhere on it",
    "again": "its look changed before the press; asked again, it was the same object",
    "after": "asked at the press's point just after the press",
    "watched": "its look kept changing to the press; asked as it changed, it was the same object",
}
ASKED_NEARBY, ASKED_AGAIN, ASKED_AFTER, ASKED_WATCHED = ASKED


# The states of an object that a step's effect may set or clear, as AT-SPI names them
# (xsession/atspi_names.py): what a replay's --verify compares after the step. Focus,
# hover and showing follow the pointer and the window manager, not the step.
MEANT_STATES = ("checked", "indeterminate", "selected", "expanded", "pressed")


def meant_states(states: tuple[str, ...]) -> tuple[str, ...]:
    """Those of `states` that a step's effect may set or clear (MEANT_STATES)."""
    return tuple(s for s in states if s in MEANT_STATES)


@dataclass(frozen=True, slots=True)
class After:
    """What an object said of itself once a step's effect was drawn: its name (a combo box
    names its choice) and those of its states that a step sets (MEANT_STATES)."""

    name: str
    states: tuple[str, ...]

    @classmethod
    def of(cls, widget: Widget) -> After:
        return cls(widget.name, meant_states(widget.states))

    def describe(self) -> str:
        """`'Right' (expanded)`; `'' (none set)`: the name, and the meant states set."""
        return f"{self.name!r} ({', '.join(self.states) or 'none set'})"


@dataclass(frozen=True, slots=True)
class Widget:
    """An accessible as it was when the step was recorded (or as it is on today's screen).

    `path` is (role, index among its parent's children) of each object from the
    application's root down to this one. `siblings` are (role, name) of its parent's
    children in reading order (rows top to bottom, left to right in each), itself included at
    `rank`; empty when the parent has too many children to be a context.
    """

    source: str  # ATSPI or XWINDOW
    app: str  # the application's accessible name
    role: str
    name: str
    box: Box  # x, y, w, h on the screen
    point: tuple[int, int]  # the pointer inside `box` (recorded widgets only)
    path: tuple[tuple[str, int], ...]
    parent: str  # the parent's name
    siblings: tuple[tuple[str, str], ...]
    rank: int  # this object's place in `siblings`; -1 when they are not known
    states: tuple[str, ...] = ()
    description: str = ""
    window: str = ""  # its top-level window's role and name: `dialog 'Delete all?'`
    # how many showing accessibles of its application had its role and name when it was
    # recorded, itself included (2 or more: twins); 0 when not counted
    alike: int = 0
    # how many of those stood in the same place (window, parent, siblings, rank), itself
    # included: 2 or more are twins that nothing around them tells apart; 0 not counted
    placed: int = 0
    # an X window's (source "xwindow"): its parent's viewable children's boxes relative to
    # the parent, in the server's order, itself at `rank`
    layout: tuple[Box, ...] = ()
    asked: str = ""  # a key of ASKED: how the object was tied to its press ("": at rest there)
    # an X window's: its top-level client window's box on the screen (where windows that look
    # like it could be told from it by its path only); None not known
    top: Box | None = None
    # a recorded object's name and states once its step's effect was drawn, asked at the
    # press point after the press (recorder/meaning.py); None: not known
    after: After | None = None

    @property
    def label(self) -> str:
        """How a person names it: `push button 'Apply'`; an X window, which has no name, by
        its path from its application's top-level: `X window 0/3 of 'XCalc'`."""
        if self.source == XWINDOW:
            return f"X window {'/'.join(str(i) for _, i in self.path)} of {self.app!r}"
        return f"{self.role} {self.name!r}" if self.name else self.role


def reading_order(boxes: list[Box]) -> list[int]:
    """The indexes of `boxes` as a person reads them: rows top to bottom, each left to right.
    A box joins the row above when its middle lies within that row's height, so boxes of
    different heights side by side (a label and a taller button) are one row."""
    order = sorted(range(len(boxes)), key=lambda i: (boxes[i][1], boxes[i][0]))
    rows: list[list[int]] = []
    bottom = -1
    for i in order:
        x, y, w, h = boxes[i]
        if rows and y + h / 2 < bottom:
            rows[-1].append(i)
            bottom = max(bottom, y + h)
        else:
            rows.append([i])
            bottom = y + h
    return [i for row in rows for i in sorted(row, key=lambda i: boxes[i][0])]


def widget_to_json(widget: Widget | None) -> str | None:
    if widget is None:
        return None
    return json.dumps(
        {
            "source": widget.source,
            "app": widget.app,
            "role": widget.role,
            "name": widget.name,
            "box": list(widget.box),
            "point": list(widget.point),
            "path": [list(p) for p in widget.path],
            "parent": widget.parent,
            "siblings": [list(s) for s in widget.siblings],
            "rank": widget.rank,
            "states": list(widget.states),
            "description": widget.description,
            "window": widget.window,
            "alike": widget.alike,
            "placed": widget.placed,
            **({"layout": [list(b) for b in widget.layout]} if widget.layout else {}),
            **({"asked": widget.asked} if widget.asked else {}),
            **({"top": list(widget.top)} if widget.top else {}),
            **({"after": _after_json(widget.after)} if widget.after else {}),
        },
        ensure_ascii=False,
    )


def _after_json(after: After) -> dict[str, Any]:
    return {"name": after.name, "states": list(after.states)}


def _after(value: Any) -> After:
    return After(str(value["name"]), tuple(str(s) for s in value["states"]))


def _box(value: Any) -> Box:
    x, y, w, h = (int(v) for v in value)
    return x, y, w, h


def widget_from_json(text: str | None) -> Widget | None:
    """The stored widget; None when there is none or it cannot be read (a replay then finds
    the target by its pixels, as for a recording made without accessibility)."""
    if not text:
        return None
    try:
        data: Any = json.loads(text)
        x, y, w, h = _box(data["box"])
        px, py = (int(v) for v in data["point"])
        return Widget(
            source=str(data["source"]),
            app=str(data["app"]),
            role=str(data["role"]),
            name=str(data["name"]),
            box=(x, y, w, h),
            point=(px, py),
            path=tuple((str(r), int(i)) for r, i in data["path"]),
            parent=str(data["parent"]),
            siblings=tuple((str(r), str(n)) for r, n in data["siblings"]),
            rank=int(data["rank"]),
            states=tuple(str(s) for s in data.get("states", ())),
            description=str(data.get("description", "")),
            window=str(data.get("window", "")),
            alike=int(data.get("alike", 0)),
            placed=int(data.get("placed", 0)),
            layout=tuple(_box(b) for b in data.get("layout", ())),
            asked=str(data.get("asked", "")),
            top=_box(data["top"]) if data.get("top") else None,
            after=_after(data["after"]) if data.get("after") else None,
        )
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None

"""The first rung of the ladder (ladder.py): the recorded object found again by what its
toolkit says of it (storage/widgets.py), before any pixel is compared.

The accessibles of the recorded object's role and name are the candidates. One of them is
the target when it stands where the recorded one stood (the same window, parent, siblings in
reading order and place among them), and nothing else stood or stands there; or when the
object had no twin in its window when recorded and has none today. A named object of
which today's application, read whole, shows none is gone or renamed: refused, whatever the
pixels say. A found object that cannot take the press (insensitive) is waited for.
Anything else (an unnamed object whose place changed, twins with the same surroundings, a
point in a document or canvas) is left to the pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deskreel.storage.widgets import Widget

from .located import Located
from .params import PARAMS as P
from .refusal import Refusal
from .search import Point
from .trail import WHY

__all__ = [
    "ObjectAnswer",
    "place_of",
    "placed_alone",
    "same_place",
    "usable",
    "acts_on_whole",
    "at_recorded_place",
    "by_object",
    "object_located",
    "point_in",
    "TOGGLES",
]

# Roles whose object does the same thing wherever the pointer presses it: a control. A point
# in anything else (a document, a canvas, a list or table, a multi-line text, a container)
# means a place in its content, which its box does not tell.
CONTROLS = frozenset(
    {
        "push button", "toggle button", "check box", "radio button", "combo box",
        "menu item", "check menu item", "radio menu item", "menu", "page tab", "spin button",
        "link", "list item", "tree item", "table cell", "icon", "slider",
        "push button menu", "tearoff menu item", "image",
    }
)  # fmt: skip
_LINE_ROLES = frozenset({"text", "entry", "password text"})  # a control when single-line
# Controls whose whole look is their state: a tick, a dot, a pushed-in face, beside their
# name. What such a control says after a step accounts for the pixels inside it
# (compare/meaning.py); a row, a cell, a tab or a combo box holds children or text its
# name and states do not tell.
TOGGLES = frozenset(
    {"check box", "radio button", "toggle button", "check menu item", "radio menu item"}
)


@dataclass(frozen=True, slots=True)
class ObjectAnswer:
    """The object rung's answer: the object today (found), a refusal, or neither (the
    pixels decide); `why` (a key of trail.WHY) says which rule answered, `detail` what an
    outside party said (a failed bus's error)."""

    widget: Widget | None
    refusal: Refusal | None
    why: str
    detail: str = ""

    def __post_init__(self) -> None:
        assert self.why in WHY, f"no such reason: {self.why!r}"

    @property
    def decided(self) -> bool:
        return self.widget is not None or self.refusal is not None


def acts_on_whole(widget: Widget) -> bool:
    """Whether a press anywhere in `widget` does what the recorded press did."""
    if widget.role in _LINE_ROLES:
        return "single-line" in widget.states
    return widget.role in CONTROLS


def by_object(recorded: Widget, today: Sequence[Widget] | None) -> ObjectAnswer:
    """The recorded object among `today`'s accessibles of its role and name in its
    application (None: the application shows no tree today, or not all of it)."""
    if not acts_on_whole(recorded):
        return ObjectAnswer(None, None, "content")
    if today is None or not recorded.app:
        return ObjectAnswer(None, None, "no-tree")
    same = [w for w in today if (w.role, w.name) == (recorded.role, recorded.name)]
    if not same:
        if recorded.name:
            return ObjectAnswer(None, Refusal("object-gone", 0, 1), "gone")
        return ObjectAnswer(None, None, "no-unnamed")
    placed = [w for w in same if same_place(w, recorded)]
    if len(placed) == 1 and recorded.placed == 1:
        return usable(placed[0], recorded, "same-place")
    if len(placed) > 1 or recorded.placed > 1:
        return ObjectAnswer(None, None, "twins")
    lone = recorded.name and recorded.alike == 1 and len(same) == 1
    if lone and same[0].window == recorded.window:
        return usable(same[0], recorded, "only-one")
    return ObjectAnswer(None, None, "moved")


def usable(today: Widget, recorded: Widget, why: str) -> ObjectAnswer:
    """`today` found, unless it cannot take the press now: insensitive where the recorded
    one was not (a replay waits for it, as for a target not there yet)."""
    if "sensitive" in recorded.states and "sensitive" not in today.states:
        return ObjectAnswer(None, Refusal("object-insensitive", 0, 1), "insensitive")
    return ObjectAnswer(today, None, why)


def placed_alone(recorded: Widget) -> bool:
    """Whether the object at the recorded point alone may decide (at_recorded_place): a
    named control that had no twin; else the whole application must be searched."""
    return recorded.alike == 1 and bool(recorded.name) and acts_on_whole(recorded)


def at_recorded_place(recorded: Widget, here: Widget | None) -> ObjectAnswer | None:
    """The object at the recorded point today, when it is the recorded one beyond doubt:
    its role, name and place among its siblings, and no twin then; None when the whole
    application must be searched (by_object)."""
    if here is None or not placed_alone(recorded):
        return None
    if (here.role, here.name) != (recorded.role, recorded.name) or not same_place(here, recorded):
        return None
    return usable(here, recorded, "at-place")


def same_place(today: Widget, recorded: Widget) -> bool:
    """Whether `today` stands where `recorded` stood: the same window, parent, siblings in
    reading order and place among them (never where the siblings were not read)."""
    return recorded.rank >= 0 and place_of(today) == place_of(recorded)


def place_of(widget: Widget) -> tuple[object, ...]:
    return (widget.window, widget.parent, widget.siblings, widget.rank)


def point_in(today: Widget, recorded: Widget) -> Point:
    """The recorded press moved into `today`'s box: the same fraction of its width and
    height (a control grown under a bigger font keeps the press where it was on it)."""
    x, y, w, h = today.box
    _, _, rw, rh = recorded.box
    fx = recorded.point[0] / rw if rw > 0 else 0.5
    fy = recorded.point[1] / rh if rh > 0 else 0.5
    return (
        x + min(max(round(fx * w), 0), max(w - 1, 0)),
        y + min(max(round(fy * h), 0), max(h - 1, 0)),
    )


def offset_in(today: Widget, recorded: Widget) -> Point | None:
    """The recorded press at its distance from the box's top-left, times the scale the box
    tells (`box_scale`: 1 where it grew one way only); None where that falls outside
    today's box. For a blank box (blank.py), where nothing in it tells a place but its
    corner: a canvas's point, the first line of an empty editor."""
    x, y, w, h = today.box
    scale = box_scale(today, recorded)
    dx, dy = round(recorded.point[0] * scale), round(recorded.point[1] * scale)
    return (x + dx, y + dy) if 0 <= dx < w and 0 <= dy < h else None


BLANK = ("blank", "xwindow-blank")  # the answers of a blank box: pressed by offset_in


def box_scale(today: Widget, recorded: Widget) -> float:
    """The scale the screen has today around an object found again, as its box tells it:
    the ratio of its sides where width and height grew alike (a bigger font, a scaled
    screen), else 1 (a box stretched one way by its layout says nothing of the scale)."""
    _, _, w, h = today.box
    _, _, rw, rh = recorded.box
    if min(w, h, rw, rh) <= 0:
        return 1.0
    across, down = w / rw, h / rh
    if abs(across - down) > P.box_scale_agree * max(across, down):
        return 1.0
    scale = (across * down) ** 0.5
    low, high = P.sane_scales
    return scale if low <= scale <= high else 1.0


def object_located(answer: ObjectAnswer, recorded: Widget) -> Located:
    """What locate() answers for a step the object rung decided: found at the recorded press
    moved into today's box (a blank one's by `offset_in`), at the scale its box grew by, or
    refused by its rule."""
    found = answer.widget
    place = point_in if answer.why not in BLANK else offset_in
    point = place(found, recorded) if found is not None else None
    return Located(
        found=point is not None,
        point=point,
        score=1.0 if found is not None else 0.0,
        margin=1.0 if found is not None else 0.0,
        scale=box_scale(found, recorded) if found is not None else 1.0,
        top_left=None,
        best_elsewhere=None,
        elapsed_ms=0.0,
        refusal=answer.refusal,
        box=found.box if found is not None else None,
    )

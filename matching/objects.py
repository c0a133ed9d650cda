"""The first stage of the ladder: the recorded object found again by what its toolkit says
of it (storage/widgets.py), before any pixel is compared.

The accessibles of the recorded object's role and name are the candidates. One of them is
the target when it stands where the recorded one stood among its parent's children (the
same parent, the same siblings in reading order, the same place among them), and no other
does; or when the object had no twin when recorded and has none today. A named object of
which today's application shows none is gone or renamed: refused, whatever the pixels say.
Anything else (an unnamed object whose place changed, twins with the same surroundings, a
point in a document or canvas) is left to the pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from storage.widgets import Widget

from .located import Located
from .refusal import Refusal
from .search import Point

__all__ = [
    "ObjectAnswer",
    "acts_on_whole",
    "at_recorded_place",
    "by_object",
    "object_located",
    "point_in",
]

# Roles whose object does the same thing wherever the pointer presses it: a control. A point
# in anything else (a document, a canvas, a list or table, a multi-line text, a container)
# means a place in its content, which its box does not tell.
CONTROLS = frozenset(
    {
        "push button", "toggle button", "check box", "radio button", "combo box",
        "menu item", "check menu item", "radio menu item", "menu", "page tab", "spin button",
        "link", "list item", "tree item", "table cell", "icon", "slider", "scroll bar",
        "push button menu", "tearoff menu item", "label", "image",
    }
)  # fmt: skip
_LINE_ROLES = frozenset({"text", "entry", "password text"})  # a control when single-line


@dataclass(frozen=True, slots=True)
class ObjectAnswer:
    """The object stage's answer: the object today (found), a refusal, or neither (the
    pixels decide); `reason` says which rule answered."""

    widget: Widget | None
    refusal: Refusal | None
    reason: str

    @property
    def decided(self) -> bool:
        return self.widget is not None or self.refusal is not None


def acts_on_whole(widget: Widget) -> bool:
    """Whether a press anywhere in `widget` does what the recorded press did."""
    if widget.role in _LINE_ROLES:
        return "single-line" in widget.states
    return widget.role in CONTROLS


def by_object(recorded: Widget, today: Sequence[Widget] | None) -> ObjectAnswer:
    """The recorded object among `today`'s accessibles of its role and name (None: its
    application shows no accessibility tree today)."""
    if not acts_on_whole(recorded):
        return ObjectAnswer(None, None, f"a point in a {recorded.role}: its content decides")
    if today is None:
        return ObjectAnswer(None, None, f"no accessible application {recorded.app!r}")
    same = [w for w in today if (w.role, w.name) == (recorded.role, recorded.name)]
    if not same:
        if recorded.name:
            return ObjectAnswer(None, Refusal("object-gone", 0, 1), "gone or renamed")
        return ObjectAnswer(None, None, f"no unnamed {recorded.role} today")
    placed = [w for w in same if _same_place(w, recorded)]
    if len(placed) == 1:
        return ObjectAnswer(placed[0], None, "same role, name and place among its siblings")
    if len(placed) > 1:
        return ObjectAnswer(None, None, f"{len(placed)} twins in the same surroundings")
    if recorded.name and recorded.alike == 1 and len(same) == 1:
        return ObjectAnswer(same[0], None, "the only one of its role and name, then and now")
    return ObjectAnswer(None, None, "its place among its siblings changed")


def at_recorded_place(recorded: Widget, here: Widget | None) -> ObjectAnswer | None:
    """The object at the recorded point today, when it is the recorded one beyond doubt:
    its role, name and place among its siblings, and no twin then; None when the whole
    application must be searched (by_object)."""
    if here is None or recorded.alike != 1 or not recorded.name:
        return None
    if (here.role, here.name) != (recorded.role, recorded.name) or not _same_place(here, recorded):
        return None
    return ObjectAnswer(here, None, "at its recorded place, and it had no twin")


def _same_place(today: Widget, recorded: Widget) -> bool:
    return recorded.rank >= 0 and (today.parent, today.siblings, today.rank) == (
        recorded.parent,
        recorded.siblings,
        recorded.rank,
    )


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


def object_located(answer: ObjectAnswer, recorded: Widget, elapsed_ms: float) -> Located:
    """What locate() answers for a step the object stage decided: found at the recorded
    press moved into today's box, or refused by its rule."""
    found = answer.widget
    return Located(
        found=found is not None,
        point=point_in(found, recorded) if found is not None else None,
        score=1.0 if found is not None else 0.0,
        margin=1.0 if found is not None else 0.0,
        scale=1.0,
        top_left=None,
        searched="object",
        best_elsewhere=None,
        elapsed_ms=round(elapsed_ms, 3),
        reason="" if found is not None else _refused_because(answer, recorded),
        refusal=answer.refusal,
    )


def _refused_because(answer: ObjectAnswer, recorded: Widget) -> str:
    said = answer.refusal.text() if answer.refusal is not None else answer.reason
    return f"{recorded.label} of {recorded.app!r}: {said}"

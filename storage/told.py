"""What the objects of a step's window told of themselves: just before the step, once its
effect was drawn, and last before the next step. Each showing accessible that tells a text
(AT-SPI Text), a value (Value) or a state a step sets (MEANT_STATES), with its place in the
window's tree, its role, name and box. A replay's --verify compares the recorded "after"
with today's: a calculator's display that reads "46" reads "46" under any theme, font or
scale (matching/compare/told.py).

Stored as JSON beside the step (schema 8); a damaged or foreign value reads as None, never
as an error. Bounded: at most MAX_TOLD objects are walked and TEXT_CAP characters of a
text kept (its length says whether it was cut); a reading cut short says why
(`Told.cut`), and what was cut is not known. A password field's text is never read.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from .widgets import Box, meant_states

__all__ = [
    "MAX_TOLD",
    "TEXT_CAP",
    "StepTold",
    "Told",
    "ToldObject",
    "step_told_from_json",
    "step_told_to_json",
]

MAX_TOLD = 600  # accessibles of a window walked for what they tell; past it: cut
TEXT_CAP = 200  # characters of an object's text kept; `length` tells a longer one


@dataclass(frozen=True, slots=True)
class ToldObject:
    """One showing accessible: `path` its child indexes from its application's top down
    (the same whichever object a reading started from), `text` the first TEXT_CAP
    characters of what its Text interface tells and `length` the whole text's (both None:
    it has no text; `length` -1: its text did not answer), `value` its Value's current
    value (None: it has none), `states` those of MEANT_STATES it has, `leaf` whether it
    holds no other object."""

    path: tuple[int, ...]
    role: str
    name: str
    box: Box
    text: str | None = None
    length: int | None = None
    value: float | None = None
    states: tuple[str, ...] = ()
    leaf: bool = True

    @property
    def label(self) -> str:
        return f"{self.role} {self.name!r}" if self.name else self.role

    @property
    def whole_text(self) -> bool:
        """Whether `text` is all of its text (not cut at TEXT_CAP, not unknown)."""
        return self.text is not None and self.length == len(self.text)

    def says(self) -> str:
        """What it tells, as a person reads it: `'46'`, `0.5`, `'Medium' (checked)`."""
        parts = [repr(self.text) + ("…" * (not self.whole_text))] if self.text is not None else []
        if self.value is not None:
            parts.append(f"{self.value:g}")
        said = " ".join(parts) or repr(self.name)
        return f"{said} ({', '.join(self.states)})" if self.states else said

    def meaning(self) -> tuple[str | None, int | None, float | None, tuple[str, ...]]:
        """What is compared: its text (and the whole text's length), value and meant
        states."""
        return (self.text, self.length, self.value, self.states)

    @property
    def known(self) -> bool:
        """Whether what it tells was read whole: a text that did not answer is unknown."""
        return self.length != -1


@dataclass(frozen=True, slots=True)
class Told:
    """A window's objects that tell something, in the tree's order (a level at a time), as
    one question read them; `window` is the box of the window's accessible, `cut` why the
    reading stopped short ("" it is whole)."""

    window: Box
    objects: tuple[ToldObject, ...]
    cut: str = ""

    def at(self, path: tuple[int, ...], role: str) -> ToldObject | None:
        return next((o for o in self.objects if o.path == path and o.role == role), None)


@dataclass(frozen=True, slots=True)
class StepTold:
    """What a step's window told: just before the step (`before`), once its effect was drawn
    (`after`), and last before the next step (`later`: a "Saving…" that became "Saved");
    each None where it was not read while the screen stood still there."""

    before: Told | None
    after: Told | None
    later: Told | None = None

    def changes(self) -> list[tuple[ToldObject, ToldObject]]:
        """The objects whose text, value or states the step changed: (before, after) of
        each that both readings hold (at the same path, of the same role) and read whole."""
        if self.before is None or self.after is None:
            return []
        was = {(o.path, o.role): o for o in self.before.objects}
        pairs = [(was.get((o.path, o.role)), o) for o in self.after.objects]
        return [
            (b, a)
            for b, a in pairs
            if b is not None and b.known and a.known and b.meaning() != a.meaning()
        ]


def _told_json(told: Told | None) -> dict[str, Any] | None:
    if told is None:
        return None
    return {
        "window": list(told.window),
        "cut": told.cut,
        "objects": [
            {
                "path": list(o.path),
                "role": o.role,
                "name": o.name,
                "box": list(o.box),
                **({"text": o.text, "length": o.length} if o.length is not None else {}),
                **({"value": o.value} if o.value is not None else {}),
                **({"states": list(o.states)} if o.states else {}),
                **({} if o.leaf else {"leaf": False}),
            }
            for o in told.objects
        ],
    }


def _told_of(data: Any) -> Told | None:
    if data is None:
        return None
    objects = tuple(_object_of(o) for o in data["objects"])
    return Told(_box(data["window"]), objects, str(data.get("cut", "")))


def _object_of(o: dict[str, Any]) -> ToldObject:
    length = None if o.get("length") is None else int(o["length"])
    value = None if o.get("value") is None else float(o["value"])
    return ToldObject(
        path=tuple(int(i) for i in o["path"]),
        role=str(o["role"]),
        name=str(o["name"]),
        box=_box(o["box"]),
        text=None if length is None else str(o.get("text", ""))[:TEXT_CAP],
        length=length,
        value=value if value is not None and math.isfinite(value) else None,
        states=meant_states(tuple(str(s) for s in o.get("states", ()))),
        leaf=bool(o.get("leaf", True)),
    )


def _box(value: Any) -> Box:
    x, y, w, h = (int(v) for v in value)
    return (x, y, w, h)


def step_told_to_json(told: StepTold | None) -> str | None:
    if told is None or (told.before is None and told.after is None and told.later is None):
        return None
    return json.dumps(
        {k: _told_json(getattr(told, k)) for k in ("before", "after", "later")},
        ensure_ascii=False,
        separators=(",", ":"),
    )


def step_told_from_json(text: str | None) -> StepTold | None:
    """A stored value; None where absent, damaged or foreign."""
    if not text:
        return None
    try:
        data = json.loads(text)
        return StepTold(*(_told_of(data.get(k)) for k in ("before", "after", "later")))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None

"""What the objects of a step's window told of themselves, before the step and once its
effect was drawn: each showing accessible that tells a text (AT-SPI Text), a value (Value)
or a state a step sets (MEANT_STATES), with its place in the window's tree, its role, name
and box. A replay's --verify compares the recorded "after" with today's: a calculator's
display that reads "46" reads "46" under any theme, font or scale (matching/compare/told.py).

Stored as JSON beside the step (schema 8); a damaged or foreign value reads as None, never
as an error. Bounded: at most MAX_TOLD objects are walked and TEXT_CAP characters of a text
kept; a cut says so (`Told.cut`), and what was cut is not known.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .widgets import MEANT_STATES, Box

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
TEXT_CAP = 200  # characters of an object's text kept; a longer one is kept cut


@dataclass(frozen=True, slots=True)
class ToldObject:
    """One showing accessible: `path` its child indexes from the window's accessible down,
    `text` what its Text interface tells (TEXT_CAP characters at most; None: it has none),
    `value` its Value's current value (None: it has none), `states` those of MEANT_STATES
    it has."""

    path: tuple[int, ...]
    role: str
    name: str
    box: Box
    text: str | None = None
    value: float | None = None
    states: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.role} {self.name!r}" if self.name else self.role

    def says(self) -> str:
        """What it tells, as a person reads it: `'46'`, `0.5`, `'Medium' (checked)`."""
        parts = [repr(self.text)] if self.text is not None else []
        if self.value is not None:
            parts.append(f"{self.value:g}")
        said = " ".join(parts) or repr(self.name)
        return f"{said} ({', '.join(self.states)})" if self.states else said

    def meaning(self) -> tuple[str | None, float | None, tuple[str, ...]]:
        """What is compared: its text, value and meant states."""
        return (self.text, self.value, self.states)


@dataclass(frozen=True, slots=True)
class Told:
    """A window's objects that tell something, in the tree's order (a level at a time), as
    one question read them; `window` is the box of the window's accessible, `cut` why the
    reading stopped short ("" it is whole)."""

    window: Box
    objects: tuple[ToldObject, ...]
    cut: str = ""

    def inside(self, box: Box, rim: int = 0) -> Iterator[ToldObject]:
        """The objects whose box holds `box` (grown by `rim` on each side), innermost (the
        smallest) first."""
        x, y, w, h = box
        held = [
            o
            for o in self.objects
            if o.box[0] - rim <= x
            and o.box[1] - rim <= y
            and x + w <= o.box[0] + o.box[2] + rim
            and y + h <= o.box[1] + o.box[3] + rim
        ]
        yield from sorted(held, key=lambda o: o.box[2] * o.box[3])

    def at(self, path: tuple[int, ...], role: str) -> ToldObject | None:
        return next((o for o in self.objects if o.path == path and o.role == role), None)


@dataclass(frozen=True, slots=True)
class StepTold:
    """What a step's window told just before the step and once its effect was drawn; either
    None where it was not asked while the screen stood still there."""

    before: Told | None
    after: Told | None

    def changes(self) -> list[tuple[ToldObject, ToldObject]]:
        """The objects whose text, value or states the step changed: (before, after) of
        each that both readings hold (at the same path, of the same role)."""
        if self.before is None or self.after is None:
            return []
        pairs = [(self.before.at(o.path, o.role), o) for o in self.after.objects]
        return [(b, a) for b, a in pairs if b is not None and b.meaning() != a.meaning()]


def meant(states: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(s for s in states if s in MEANT_STATES)


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
                **({"text": o.text} if o.text is not None else {}),
                **({"value": o.value} if o.value is not None else {}),
                **({"states": list(o.states)} if o.states else {}),
            }
            for o in told.objects
        ],
    }


def _told_of(data: Any) -> Told | None:
    if data is None:
        return None
    objects = tuple(
        ToldObject(
            path=tuple(int(i) for i in o["path"]),
            role=str(o["role"]),
            name=str(o["name"]),
            box=_box(o["box"]),
            text=None if o.get("text") is None else str(o["text"]),
            value=None if o.get("value") is None else float(o["value"]),
            states=meant(tuple(str(s) for s in o.get("states", ()))),
        )
        for o in data["objects"]
    )
    return Told(_box(data["window"]), objects, str(data.get("cut", "")))


def _box(value: Any) -> Box:
    x, y, w, h = (int(v) for v in value)
    return (x, y, w, h)


def step_told_to_json(told: StepTold | None) -> str | None:
    if told is None or (told.before is None and told.after is None):
        return None
    return json.dumps(
        {"before": _told_json(told.before), "after": _told_json(told.after)},
        ensure_ascii=False,
        separators=(",", ":"),
    )


def step_told_from_json(text: str | None) -> StepTold | None:
    """A stored value; None where absent, damaged or foreign."""
    if not text:
        return None
    try:
        data = json.loads(text)
        return StepTold(_told_of(data.get("before")), _told_of(data.get("after")))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None

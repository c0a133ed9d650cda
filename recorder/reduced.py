"""What every pass of the reducer makes (`Reduced`) and reads (held modifiers, positions).

Pure: no X, no I/O, no clock.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from deskreel.storage.keys import is_modifier, parse_chord
from deskreel.storage.values import RawEvent
from deskreel.storage.vocabulary import Action

__all__ = [
    "TYPING_MODIFIERS",
    "Reduced",
    "any_between",
    "distance",
    "key_id",
    "modifiers_held",
    "position",
    "reduced",
]


@dataclass(frozen=True, slots=True)
class Reduced:
    """One action, and the span of raw events it was reduced from."""

    action: Action
    t_start: float  # time of its first raw event (for `wait`: when the idle gap began)
    t_end: float  # time of its last raw event
    first: int  # index into the events of its first raw event (-1 for wait)
    last: int  # index of its last raw event (-1 for wait)


def reduced(action: Action, events: Sequence[RawEvent], first: int, last: int) -> Reduced:
    """`action`, made of the events from index `first` to index `last`."""
    return Reduced(action, events[first].t, events[last].t, first, last)


# A fixed order, so one gesture always spells the same (`ctrl+shift+s`, whoever went first).
_MODIFIER_ORDER = (
    "ctrl",
    "alt",
    "shift",
    "super",
    "meta",
    "hyper",
    "ISO_Level3_Shift",
    "Mode_switch",
)
# Held while typing, these choose which character a key types; they make no chord.
TYPING_MODIFIERS = frozenset({"shift", "ISO_Level3_Shift", "Mode_switch"})


def modifiers_held(events: Sequence[RawEvent]) -> list[tuple[str, ...]]:
    """For each event, the modifiers held just before it, by their chord names."""
    down: dict[object, str] = {}
    held = []
    for e in events:
        held.append(tuple(sorted(set(down.values()), key=_MODIFIER_ORDER.index)))
        if e.kind == "key_down" and e.keysym and is_modifier(e.keysym):
            down[key_id(e)] = parse_chord(e.keysym).names[0]
        elif e.kind == "key_up":
            down.pop(key_id(e), None)
    return held


def key_id(e: RawEvent) -> object:
    """What tells one key from another: its keycode, or its keysym where it has none."""
    return e.keycode if e.keycode is not None else e.keysym


def any_between(sorted_indices: list[int], start: int, end: int) -> bool:
    """Whether any index lies strictly between start and end."""
    n = bisect_right(sorted_indices, start)
    return n < len(sorted_indices) and sorted_indices[n] < end


def position(e: RawEvent) -> tuple[int, int]:
    return (e.x or 0, e.y or 0)  # the recorder sets x and y on every pointer event


def distance(a: RawEvent, b: RawEvent) -> float:
    return math.dist(position(a), position(b))

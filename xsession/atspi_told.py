"""What the objects of one window tell of themselves (storage/told.py): a walk of the
window's showing accessibles, a level per round trip, keeping those with a text (AT-SPI's
Text interface), a value (Value) or a state a step sets. Which interfaces an object has is
asked, not guessed from a failed call: a text that did not answer in time is unknown
(length -1), never taken for no text. A text is read in a second round trip, only as far
as its character count (a toolkit asked past its text's end may read past its memory) and
never beyond TEXT_CAP; a password field's text is never asked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from deskreel.storage.told import MAX_TOLD, TEXT_CAP, Told, ToldObject
from deskreel.storage.widgets import Box, meant_states

from .atspi_describe import path_above
from .atspi_names import role_name, state_names
from .atspi_protocol import (
    ACCESSIBLE, COMPONENT, MAX_DEPTH, NULL, SCREEN, SHOWING, VISIBLE, extents_box,
)  # fmt: skip
from .dbus_calls import Bus, Call, Gone, Ref

if TYPE_CHECKING:
    from .atspi import Accessibility

__all__ = ["SECRET_ROLES", "TEXT", "VALUE", "told_at", "told_under"]

TEXT = "org.a11y.atspi.Text"
VALUE = "org.a11y.atspi.Value"
SECRET_ROLES = ("password text",)  # whose text is never read
_ASKED = 8  # calls per object in a level's batch (_level)


def told_under(tree: Accessibility, window: Ref) -> Told | None:
    """What the showing objects under `window` (an accessible, itself included) tell; None
    where `window` did not answer. Objects that go away meanwhile are left out, and the
    reading is said to be cut."""
    top = tuple(index for _, index in path_above(tree.bus, window))  # the same from any root
    level: list[Kid] = [(window, top)]
    objects: list[ToldObject] = []
    cuts: list[str] = []
    walked, box = 0, None
    for _ in range(MAX_DEPTH):
        if walked + len(level) > MAX_TOLD:
            level = level[: MAX_TOLD - walked]
            cuts.append(f"more than {MAX_TOLD} objects")
        walked += len(level)
        read, kids, gone = _level(tree.bus, level, root=box is None)
        if box is None:
            if not read or read[0].path != top:
                return None  # the window itself did not answer
            box = read[0].box
        if gone:
            cuts.append("an object did not answer whole")
        objects += [o for o in read if _tells(o)]
        level = kids
        if not level:
            break
        if walked >= MAX_TOLD:
            cuts.append(f"more than {MAX_TOLD} objects")
            break
    else:
        cuts.append(f"deeper than {MAX_DEPTH} levels")
    return None if box is None else Told(box, tuple(objects), "; ".join(dict.fromkeys(cuts)))


def _tells(o: ToldObject) -> bool:
    return o.text is not None or o.value is not None or bool(o.states)


Kid = tuple[Ref, tuple[int, ...]]  # an accessible, and its path from the window


def _level(
    bus: Bus, level: Sequence[Kid], *, root: bool
) -> tuple[list[ToldObject], list[Kid], int]:
    """The showing objects of a level (the window itself, the `root` level, shows whatever
    it says), their children to read next, and how many objects did not answer whole."""
    calls: list[Call] = []
    for ref, _ in level:
        calls += [
            (ref, ACCESSIBLE, "GetRole", None, ()),
            Bus.prop_call(ref, ACCESSIBLE, "Name"),
            (ref, ACCESSIBLE, "GetState", None, ()),
            (ref, ACCESSIBLE, "GetChildren", None, ()),
            (ref, COMPONENT, "GetExtents", "u", (SCREEN,)),
            (ref, ACCESSIBLE, "GetInterfaces", None, ()),
            Bus.prop_call(ref, TEXT, "CharacterCount"),
            Bus.prop_call(ref, VALUE, "CurrentValue"),
        ]
    answers = bus.batch(calls)
    rows = [answers[_ASKED * n : _ASKED * n + _ASKED] for n in range(len(level))]
    counts = [_count(row) for row in rows]
    texts = _texts(bus, [ref for ref, _ in level], counts)
    objects: list[ToldObject] = []
    kids: list[Kid] = []
    gone = 0
    for (_, path), row, count, text in zip(level, rows, counts, texts):
        role, name, bits, children, extents, interfaces = row[:6]
        if any(isinstance(a, Gone) for a in (role, name, bits, children, extents, interfaces)):
            gone += 1
            continue
        low = int(bits[0][0]) if bits[0] else 0
        if not root and not (low >> SHOWING & 1 and low >> VISIBLE & 1):
            continue  # hidden, and what it holds with it
        mine = [((str(k[0]), str(k[1])), path + (i,)) for i, k in enumerate(children[0])]
        mine = [kid for kid in mine if kid[0][1] != NULL]
        unknown = count == -1 or (count is not None and count > 0 and text is None)
        gone += unknown
        objects.append(
            ToldObject(
                path=path,
                role=role_name(int(role[0])),
                name=str(name[0][1]),
                box=extents_box(extents[0]),
                text="" if unknown else text,
                length=-1 if unknown else count,
                value=_value(row[7], interfaces[0]),
                states=meant_states(state_names(tuple(map(int, bits[0])))),
                leaf=not mine,
            )
        )
        kids += mine
    return objects, kids, gone


def _texts(bus: Bus, refs: Sequence[Ref], counts: Sequence[int | None]) -> list[str | None]:
    """The texts of the objects that have one, read up to their length or TEXT_CAP ("" for
    an empty one, None for none or one that did not answer)."""
    asked = [(n, min(c, TEXT_CAP)) for n, c in enumerate(counts) if c is not None and c > 0]
    answers = bus.batch([(refs[n], TEXT, "GetText", "ii", (0, end)) for n, end in asked])
    out: list[str | None] = [None if c is None or c < 0 else "" for c in counts]
    for (n, _), answer in zip(asked, answers):
        out[n] = None if isinstance(answer, Gone) else str(answer[0])
    return out


def _count(row: Sequence[Any]) -> int | None:
    """An object's text length: None where it has no Text interface (or is a password
    field's), -1 where it has one that did not answer."""
    role, interfaces, count = row[0], row[5], row[6]
    if isinstance(interfaces, Gone) or TEXT not in interfaces[0]:
        return None
    if not isinstance(role, Gone) and role_name(int(role[0])) in SECRET_ROLES:
        return None
    return -1 if isinstance(count, Gone) else int(count[0][1])


def _value(answer: Any, interfaces: Sequence[str]) -> float | None:
    if VALUE not in interfaces or isinstance(answer, Gone):
        return None
    value = float(answer[0][1])
    return value if math.isfinite(value) else None


def told_at(
    tree: Accessibility, point: tuple[int, int], *, pid: int | None, window: Box
) -> Told | None:
    """What the objects of the X window `window`, on top at `point` in process `pid`,
    tell; None where the tree has no such window. Gone where it did not answer."""
    ref = tree.window_at(*point, pid=pid, window=window)
    return None if ref is None else told_under(tree, ref)

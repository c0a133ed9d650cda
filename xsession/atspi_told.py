"""What the objects of one window tell of themselves (storage/told.py): a walk of the
window's showing accessibles, a level per round trip, keeping those with a text (AT-SPI's
Text interface), a value (Value) or a state a step sets. A text is read in a second round
trip, only as far as its character count (a toolkit asked past its text's end may read
past its memory) and never beyond TEXT_CAP.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from deskreel.storage.told import MAX_TOLD, TEXT_CAP, Told, ToldObject, meant
from deskreel.storage.widgets import Box

from .atspi_names import role_name, state_names
from .atspi_protocol import ACCESSIBLE, COMPONENT, MAX_DEPTH, NULL, SCREEN, SHOWING, VISIBLE
from .dbus_calls import Bus, Call, Gone, Ref

if TYPE_CHECKING:
    from .atspi import Accessibility

__all__ = ["TEXT", "VALUE", "told_at", "told_under"]

TEXT = "org.a11y.atspi.Text"
VALUE = "org.a11y.atspi.Value"
_ASKED = 7  # calls per object in a level's batch (_level)


def told_under(tree: Accessibility, window: Ref) -> Told | None:
    """What the showing objects under `window` (an accessible, itself included) tell; None
    where `window` did not answer. Objects that go away meanwhile are left out, and the
    reading is said to be cut."""
    level: list[Kid] = [(window, ())]
    objects: list[ToldObject] = []
    cut, walked, box = "", 0, None
    for _ in range(MAX_DEPTH):
        if walked + len(level) > MAX_TOLD:
            level, cut = level[: MAX_TOLD - walked], f"more than {MAX_TOLD} objects"
        walked += len(level)
        read, kids, gone = _level(tree.bus, level)
        if box is None:
            if not read or read[0].path:
                return None  # the window itself did not answer
            box = read[0].box
        if gone:
            cut = cut or "an object went away while read"
        objects += [o for o in read if _tells(o)]
        level = kids
        if cut or not level:
            break
    else:
        cut = cut or f"deeper than {MAX_DEPTH} levels"
    return None if box is None else Told(box, tuple(objects), cut)


def _tells(o: ToldObject) -> bool:
    return o.text is not None or o.value is not None or bool(o.states)


Kid = tuple[Ref, tuple[int, ...]]  # an accessible, and its path from the window


def _level(bus: Bus, level: Sequence[Kid]) -> tuple[list[ToldObject], list[Kid], int]:
    """The showing objects of a level (the window itself shows whatever it says), their
    children to read next, and how many objects did not answer."""
    calls: list[Call] = []
    for ref, _ in level:
        calls += [
            (ref, ACCESSIBLE, "GetRole", None, ()),
            Bus.prop_call(ref, ACCESSIBLE, "Name"),
            (ref, ACCESSIBLE, "GetState", None, ()),
            (ref, ACCESSIBLE, "GetChildren", None, ()),
            (ref, COMPONENT, "GetExtents", "u", (SCREEN,)),
            Bus.prop_call(ref, TEXT, "CharacterCount"),
            Bus.prop_call(ref, VALUE, "CurrentValue"),
        ]
    answers = bus.batch(calls)
    rows = [answers[_ASKED * n : _ASKED * n + _ASKED] for n in range(len(level))]
    texts = _texts(bus, [ref for ref, _ in level], [_count(row[5]) for row in rows])
    objects: list[ToldObject] = []
    kids: list[Kid] = []
    gone = 0
    for (_, path), row, text in zip(level, rows, texts):
        role, name, bits, children, extents = row[:5]
        if any(isinstance(a, Gone) for a in (role, name, bits, children, extents)):
            gone += 1
            continue
        low = int(bits[0][0]) if bits[0] else 0
        if path and not (low >> SHOWING & 1 and low >> VISIBLE & 1):
            continue  # hidden, and what it holds with it
        objects.append(
            ToldObject(
                path=path,
                role=role_name(int(role[0])),
                name=str(name[0][1]),
                box=_box(extents[0]),
                text=text,
                value=_value(row[6]),
                states=meant(state_names(tuple(map(int, bits[0])))),
            )
        )
        kids += [
            ((str(k[0]), str(k[1])), path + (i,)) for i, k in enumerate(children[0]) if k[1] != NULL
        ]
    return objects, kids, gone


def _texts(bus: Bus, refs: Sequence[Ref], counts: Sequence[int | None]) -> list[str | None]:
    """The texts of the objects that have one, read up to their length or TEXT_CAP."""
    asked = [(n, min(c, TEXT_CAP)) for n, c in enumerate(counts) if c is not None and c > 0]
    answers = bus.batch([(refs[n], TEXT, "GetText", "ii", (0, end)) for n, end in asked])
    out: list[str | None] = [None if c is None else "" for c in counts]
    for (n, _), answer in zip(asked, answers):
        out[n] = None if isinstance(answer, Gone) else str(answer[0])
    return out


def _count(answer: Any) -> int | None:
    if isinstance(answer, Gone):
        return None  # no Text interface
    return int(answer[0][1])


def _value(answer: Any) -> float | None:
    if isinstance(answer, Gone):
        return None
    return float(answer[0][1])


def _box(extents: Any) -> Box:
    x, y, w, h = (int(v) for v in extents)
    return (x, y, w, h)


def told_at(
    tree: Accessibility, point: tuple[int, int], *, pid: int | None, window: Box
) -> Told | None:
    """What the objects of the X window `window`, on top at `point` in process `pid`,
    tell; None where the tree has no such window. Gone where it did not answer."""
    ref = tree.window_at(*point, pid=pid, window=window)
    return None if ref is None else told_under(tree, ref)

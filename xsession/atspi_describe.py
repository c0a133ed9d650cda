"""What accessibles are, read for many at once in three round trips: their own facts,
then their parents', then their siblings' (in reading order). A replay describes every
twin of a recorded object; one by one, that was nine round trips each.

Only a recorder's question wants the whole path from the application (`whole_path`),
climbed one level per round trip."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from deskreel.storage.widgets import Box, Widget, reading_order

from .atspi_names import role_name, state_names
from .atspi_protocol import (
    ACCESSIBLE, COMPONENT, MAX_DEPTH, MAX_SIBLINGS, NULL, ROOT, SCREEN, extents_box,
)  # fmt: skip
from .dbus_calls import Bus, Call, Gone, Ref

if TYPE_CHECKING:
    from .atspi import Accessibility

__all__ = ["describe_all", "path_above"]

_OWN = ("GetRole", "Name", "GetState", "GetExtents", "GetIndexInParent", "Parent", "Description")


@dataclass(frozen=True, slots=True)
class _Own:
    role: str
    name: str
    bits: tuple[int, ...]
    box: Box
    index: int
    parent: Ref | None  # None at the top of its application
    description: str


def describe_all(
    tree: Accessibility,
    refs: Sequence[Ref],
    tops: Sequence[Ref | None],
    points: Sequence[tuple[int, int] | None],
    *,
    whole_path: bool,
) -> list[Widget | None]:
    """A Widget for each of `refs` (None for one that went away meanwhile): `tops` their
    top-level windows where known, `points` the screen points to keep inside their boxes
    (None: the middle)."""
    own = _own(tree.bus, refs)
    parents = sorted({o.parent for o in own if o is not None and o.parent is not None})
    kids = dict(zip(parents, tree.children(parents)))
    context = _contexts(tree, kids)
    labels = _labels(tree, refs, tops, parents)
    out: list[Widget | None] = []
    for n, (ref, mine) in enumerate(zip(refs, own)):
        if mine is None:
            out.append(None)
            continue
        siblings, rank = context.get(mine.parent, ((), {})) if mine.parent else ((), {})
        path = [(mine.role, mine.index)]
        if whole_path and mine.parent is not None:
            path = path_above(tree.bus, mine.parent) + path
        box = mine.box
        px, py = points[n] or (box[0] + box[2] // 2, box[1] + box[3] // 2)
        out.append(
            Widget(
                source="atspi",
                app=labels.get((ref[0], ROOT), ("", ""))[1],
                role=mine.role,
                name=mine.name,
                box=box,
                point=(px - box[0], py - box[1]),
                path=tuple(path),
                parent=labels.get(mine.parent, ("", ""))[1] if mine.parent else "",
                siblings=siblings,
                rank=rank.get(mine.index, -1),
                states=state_names(mine.bits),
                description=mine.description,
                window=_label(labels.get(tops[n])) if tops[n] is not None else "",
            )
        )
    return out


def _own(bus: Bus, refs: Sequence[Ref]) -> list[_Own | None]:
    calls: list[Call] = []
    for ref in refs:
        calls += [
            (ref, ACCESSIBLE, "GetRole", None, ()),
            Bus.prop_call(ref, ACCESSIBLE, "Name"),
            (ref, ACCESSIBLE, "GetState", None, ()),
            (ref, COMPONENT, "GetExtents", "u", (SCREEN,)),
            (ref, ACCESSIBLE, "GetIndexInParent", None, ()),
            Bus.prop_call(ref, ACCESSIBLE, "Parent"),
            Bus.prop_call(ref, ACCESSIBLE, "Description"),
        ]
    answers = bus.batch(calls)
    out: list[_Own | None] = []
    for n in range(len(refs)):
        role, name, bits, box, index, parent, description = answers[n * 7 : n * 7 + 7]
        if any(isinstance(a, Gone) for a in (role, name, bits, box, index, parent)):
            out.append(None)
            continue
        up = (str(parent[0][1][0]), str(parent[0][1][1]))
        out.append(
            _Own(
                role=role_name(int(role[0])),
                name=str(name[0][1]),
                bits=tuple(int(b) for b in bits[0]),
                box=extents_box(box[0]),
                index=int(index[0]),
                parent=None if up[1] in (NULL, ROOT) else up,
                description="" if isinstance(description, Gone) else str(description[0][1]),
            )
        )
    return out


def _contexts(
    tree: Accessibility, kids: dict[Ref, list[Ref] | None]
) -> dict[Ref, tuple[tuple[tuple[str, str], ...], dict[int, int]]]:
    """For each parent: its showing children (role, name) in reading order, and the rank
    of each child index among them; nothing for a parent of more than MAX_SIBLINGS."""
    read = {p: k for p, k in kids.items() if k is not None and len(k) <= MAX_SIBLINGS}
    flat = [child for k in read.values() for child in k]
    nodes, boxes = tree.nodes(flat), tree.boxes(flat)
    out = {}
    n = 0
    for parent, children in read.items():
        shown = []
        for index in range(len(children)):
            node, box = nodes[n + index], boxes[n + index]
            if node is not None and box is not None and node.showing:
                shown.append((index, node, box))
        n += len(children)
        ranked = [shown[i] for i in reading_order([box for _, _, box in shown])]
        out[parent] = (
            tuple((node.role, node.name) for _, node, _ in ranked),
            {index: r for r, (index, _, _) in enumerate(ranked)},
        )
    return out


def _labels(
    tree: Accessibility, refs: Sequence[Ref], tops: Sequence[Ref | None], parents: list[Ref]
) -> dict[Ref | None, tuple[str, str]]:
    """(role, name) of the applications, parents and top-level windows the descriptions
    name, read in one round trip."""
    wanted = {(ref[0], ROOT) for ref in refs} | {t for t in tops if t is not None} | set(parents)
    order = sorted(wanted)
    nodes = tree.nodes(order)
    return {ref: (node.role, node.name) for ref, node in zip(order, nodes) if node is not None}


def _label(role_and_name: tuple[str, str] | None) -> str:
    if role_and_name is None:
        return ""
    role, name = role_and_name
    return f"{role} {name!r}" if name else role


def path_above(bus: Bus, parent: Ref) -> list[tuple[str, int]]:
    """(role, index) of `parent` and its ancestors, from the application's top down."""
    path: list[tuple[str, int]] = []
    here = parent
    for _ in range(MAX_DEPTH):
        role, index, up = bus.batch(
            [
                (here, ACCESSIBLE, "GetRole", None, ()),
                (here, ACCESSIBLE, "GetIndexInParent", None, ()),
                Bus.prop_call(here, ACCESSIBLE, "Parent"),
            ]
        )
        if any(isinstance(a, Gone) for a in (role, index, up)):
            break
        path.append((role_name(int(role[0])), int(index[0])))
        above: Ref = (str(up[0][1][0]), str(up[0][1][1]))
        if above[1] in (NULL, ROOT) or above == here:
            break
        here = above
    return list(reversed(path))

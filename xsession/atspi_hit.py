"""Where a point is in the accessibility tree: the innermost showing object under it, by
the toolkit's own hit test and, where that stops short, by the boxes of the children."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from deskreel.storage.widgets import Box

from .atspi_protocol import COMPONENT, MAX_DEPTH, MAX_FANOUT, NULL, SCREEN
from .dbus_calls import Gone, Ref

if TYPE_CHECKING:
    from .atspi import Accessibility

__all__ = ["holds", "leaf_at"]


def leaf_at(tree: Accessibility, top: Ref, x: int, y: int) -> Ref:
    """The innermost accessible at (x, y) under `top`: the toolkit's own hit test, and
    where it stops short (GTK's containers answer nothing for some), the smallest showing
    child holding the point."""
    here = top
    for _ in range(MAX_DEPTH):
        hit = tree.bus.call(here, COMPONENT, "GetAccessibleAtPoint", "iiu", x, y, SCREEN)
        found: Ref = (str(hit[0][0]), str(hit[0][1]))
        if found[1] == NULL or found == here:
            found = _child_at(tree, here, x, y) or here
        if found == here:
            return here
        here = found
    return here


def _child_at(tree: Accessibility, ref: Ref, x: int, y: int) -> Ref | None:
    """The smallest showing child of `ref` holding (x, y); where none does, the smallest
    showing grandchild that does: a child may be boxed smaller than what it holds (GTK
    boxes a notebook's page tab as its label, and the tab holds the page)."""
    kids = tree.children([ref])[0]
    if kids is None:
        raise Gone(f"{ref}: its children did not answer")
    shown = _shown(tree, kids[:MAX_FANOUT])
    if shown is None:
        raise Gone(f"{ref}: a child did not answer")
    inside = _smallest_holding(shown, (x, y))
    if inside is not None or not shown:
        return inside
    lists = tree.children([kid for kid, _ in shown])
    grand = [g for gs in lists if gs is not None for g in gs[:MAX_FANOUT]]
    return _smallest_holding(_shown(tree, grand) or [], (x, y))


def _shown(tree: Accessibility, refs: Sequence[Ref]) -> list[tuple[Ref, Box]] | None:
    """The showing ones of `refs`, with their boxes; None when one did not answer."""
    if not refs:
        return []
    nodes, boxes = tree.nodes(refs), tree.boxes(refs)
    if None in nodes or None in boxes:
        return None
    return [
        (ref, box) for ref, node, box in zip(refs, nodes, boxes) if node and node.showing and box
    ]


def _smallest_holding(shown: Sequence[tuple[Ref, Box]], point: tuple[int, int]) -> Ref | None:
    held = [(box[2] * box[3], ref) for ref, box in shown if holds(box, point)]
    return min(held)[1] if held else None


def holds(box: Box, point: tuple[int, int]) -> bool:
    x, y, w, h = box
    return w > 0 and h > 0 and x <= point[0] < x + w and y <= point[1] < y + h

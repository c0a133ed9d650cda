"""An open menu's popup in the accessibility tree: which object's items the X window on
top at a point shows, where no accessible has that window's box."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storage.widgets import Box

from .atspi_protocol import MAX_FANOUT, NULL
from .dbus_calls import Ref

if TYPE_CHECKING:
    from .atspi import Accessibility, Node

__all__ = ["POPUP_OWNERS", "popup_of"]

# Roles whose items a toolkit shows in a popup window of their own when open.
POPUP_OWNERS = frozenset({"menu", "combo box"})


def popup_of(tree: Accessibility, nodes: list[Node], window: Box) -> tuple[Ref, Ref] | None:
    """The open menu (or combo box) among `nodes` whose showing items all lie in `window`,
    with its top-level: a toolkit draws an open menu's items in a popup window of their
    own, while its tree keeps them under the menu, whose box is its title in the menu bar
    (GTK's menus). Items of a closed menu are not showing; a submenu's items lie in its own
    popup, not in the one it opened from."""
    owners = [n for n in nodes if n.role in POPUP_OWNERS and n.top is not None][:MAX_FANOUT]
    lists = tree.children([n.ref for n in owners])
    kids = [[k for k in (refs or ()) if k[1] != NULL][:MAX_FANOUT] for refs in lists]
    flat = [k for ks in kids for k in ks]
    found = dict(zip(flat, zip(tree.nodes(flat), tree.boxes(flat))))
    for owner, refs in zip(owners, kids):
        pairs = [found[r] for r in refs]
        shown = [box for node, box in pairs if node is not None and node.showing]
        if shown and all(b is not None and _within(b, window) for b in shown):
            assert owner.top is not None
            return owner.top, owner.ref
    return None


def _within(inner: Box, outer: Box) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return w > 0 and h > 0 and ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh

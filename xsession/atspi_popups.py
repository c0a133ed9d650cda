"""An open menu's popup in the accessibility tree: which object's items the X window on
top at a point shows, where no accessible has that window's box."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deskreel.storage.widgets import Box

from .atspi_collection import showing_of_role
from .atspi_hit import leaf_at
from .atspi_names import role_number
from .atspi_protocol import MAX_FANOUT, NULL
from .dbus_calls import Gone, Ref

if TYPE_CHECKING:
    from .atspi import Accessibility, Node

__all__ = ["POPUP_OWNERS", "popup_item", "popup_of", "popup_searched"]

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


def popup_searched(tree: Accessibility, tops: list[Node], window: Box) -> tuple[Ref, Ref] | None:
    """popup_of among the showing menus and combo boxes under `tops` that the applications
    find themselves (atspi_collection.py), none of them inside `window`: an open menu's
    title is outside its popup (a submenu's may overlap it by a few pixels). A few round
    trips, where a walk of a menu-laden tree reads hundreds of objects. (A menu drawn inside
    `window`, a page's own menu, holds its items where it is: the walk decides there, and
    finds the object boxed as the window first.) None where none is found so, or an
    application cannot search."""
    roles = [role_number(role) for role in sorted(POPUP_OWNERS)]
    found = showing_of_role(tree, tops, *(r for r in roles if r is not None))
    if found is None:
        return None
    owners = [n for n in found[0] if n.role in POPUP_OWNERS]  # not the top-levels themselves
    boxes = tree.boxes([n.ref for n in owners])
    apart = [n for n, box in zip(owners, boxes) if box is not None and not _within(box, window)]
    return popup_of(tree, apart, window)


def popup_item(
    tree: Accessibility, top: Ref, x: int, y: int, pid: int | None, app: str, window: Box
) -> tuple[Ref, Ref] | None:
    """(The top-level, the item) at (x, y) when `top`, the accessible whose box is the X
    window on top there, holds nothing at all: a popup whose items the tree keeps under the
    menu or combo box that opened it (Chromium's select); None otherwise, or when no item
    holds the point. Never for a window that holds objects: a tree may report a popup's
    items at a wrong place (Chromium's, at another device scale), inside the window under
    them."""
    if _holds_any(tree, top):
        return None
    nodes, _ = tree.walk(tree.apps_of(pid, app))
    popup = popup_of(tree, nodes, window)
    if popup is None:
        return None
    item = leaf_at(tree, popup[1], x, y)
    return None if item == popup[1] else (popup[0], item)


def _holds_any(tree: Accessibility, ref: Ref) -> bool:
    """Whether `ref` has a showing child."""
    kids = tree.children([ref])[0]
    if kids is None:
        raise Gone(f"{ref}: its children did not answer")
    nodes = tree.nodes([k for k in kids[:MAX_FANOUT] if k[1] != NULL])
    return any(n is not None and n.showing for n in nodes)


def _within(inner: Box, outer: Box) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return w > 0 and h > 0 and ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh

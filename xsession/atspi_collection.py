"""Every showing accessible of one role under some top-level windows, found by the
application itself (AT-SPI's Collection interface, GetMatches): one round trip for the
search, one to read what was found, where a walk of the tree takes a round trip per level
and three calls per object. at-spi2-core's bridge (GTK 3, Chromium, Firefox, LibreOffice)
answers it by walking its own objects, hidden ones included, so what it finds is every
object of the role that says it is showing and visible: never fewer than a walk that stops
at hidden containers. A toolkit without the interface answers an error, and the caller
walks instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .atspi_protocol import MAX_OBJECTS, SHOWING, VISIBLE
from .dbus_calls import Gone, Ref

if TYPE_CHECKING:
    from .atspi import Accessibility, Node

__all__ = ["COLLECTION", "showing_of_role"]

COLLECTION = "org.a11y.atspi.Collection"
_MATCH_ALL, _MATCH_ANY = 1, 2  # AtspiCollectionMatchType
_CANONICAL = 1  # AtspiCollectionSortOrder: the tree's own order
_RULE = "(aiia{ss}iaiiasib)uib"  # GetMatches(rule, sortby, count, traverse)


def showing_of_role(
    tree: Accessibility, tops: Sequence[Node], *roles: int
) -> tuple[list[Node], bool] | None:
    """The showing accessibles of AT-SPI role numbers `roles` under `tops` (theirs
    included), and whether the answer is whole (every object answered, no limit reached);
    None when an application did not answer the search (it has no Collection, or it
    failed): walk."""
    states: tuple[Any, ...] = (_bitset((SHOWING, VISIBLE)), _MATCH_ALL, {}, _MATCH_ALL)
    rule = states + (_bitset(roles), _MATCH_ANY, [], _MATCH_ALL, False)  # not inverted
    answers = tree.bus.batch(
        [
            (top.ref, COLLECTION, "GetMatches", _RULE, (rule, _CANONICAL, MAX_OBJECTS, True))
            for top in tops
        ]
    )
    if any(isinstance(a, Gone) for a in answers):
        return None
    refs: list[Ref] = []
    tops_of: list[Ref | None] = []
    whole = True
    for top, answer in zip(tops, answers):
        found = [(str(bus), str(path)) for bus, path in answer[0]]
        whole = whole and len(found) < MAX_OBJECTS
        refs += found
        tops_of += [top.ref] * len(found)
    nodes = tree.nodes(refs, tops_of)
    whole = whole and None not in nodes
    own = [top for top in tops if top.showing]
    return own + [n for n in nodes if n is not None and n.showing], whole


def _bitset(numbers: Sequence[int]) -> list[int]:
    """AT-SPI's bit set of `numbers`: 32-bit words, lowest first, as D-Bus's signed ints."""
    words = [0] * (max(numbers) // 32 + 1)
    for n in numbers:
        words[n // 32] |= 1 << n % 32
    return [w - (1 << 32) if w >= 1 << 31 else w for w in words]

"""An anchor in more than one look: the target at rest (the pointer elsewhere, as a replay
finds it) and hovered (as it looked just before the press). The ladder climbs its pixel rungs
for each look in turn, with the recorded screen as it looked then (ladder.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .query import Look, Query
from .recording import Recorded
from .search import Box, Image

__all__ = ["INVERTED", "pasted", "with_looks"]

INVERTED = "inverted"  # the look of an anchor with its grey levels turned over


def pasted(frame: Callable[[], Image | None], crop: Image, box: Box) -> Callable[[], Image | None]:
    """A function returning `frame()` with `crop` over `box`: the recorded screen as it
    looked when the crop was (the target at rest, where the stored frame shows it hovered)."""

    def fetch() -> Image | None:
        shown = frame()
        if shown is None:
            return None
        x, y, w, h = box
        if crop.shape[:2] != (h, w) or y + h > shown.shape[0] or x + w > shown.shape[1]:
            return shown
        shown = shown.copy()
        shown[y : y + h, x : x + w] = crop
        return shown

    return fetch


def with_looks(
    query: Query, hovered: Image | None, box: Box, recorded: Callable[[], Image | None] | None
) -> Query:
    """`query`, its anchor at rest (`unique` as the recorder judged it), with the recorded
    screen as it looked then, the hovered look where it was kept, whose look-alikes nobody
    judged, and last the anchor turned over (`_with_inverted`). `recorded` returns the
    step's stored before-frame (it shows the target hovered), or None; `box` is where the
    anchor was cut from it."""
    if hovered is None:
        looked = replace(query, context=None if recorded is None else Recorded(recorded))
    elif recorded is None or query.anchor is None:
        looked = replace(query, context=None, looks=(Look(hovered, False, None, "hovered"),))
    else:
        at_rest = pasted(recorded, query.anchor, box)
        looked = replace(
            query,
            context=Recorded(at_rest),
            looks=(Look(hovered, False, Recorded(recorded), "hovered"),),
        )
    return _with_inverted(looked, recorded if hovered is None else _at_rest(query, box, recorded))


def _at_rest(
    query: Query, box: Box, recorded: Callable[[], Image | None] | None
) -> Callable[[], Image | None] | None:
    if recorded is None or query.anchor is None:
        return None
    return pasted(recorded, query.anchor, box)


def _with_inverted(query: Query, recorded: Callable[[], Image | None] | None) -> Query:
    """`query` with one look more, tried last: its anchor at rest with every grey level
    turned over, against the recorded screen turned over alike. A dark theme or reverse
    video draws light text on a dark ground where the recording had dark on light: the
    same shapes, the contrast the other way round, which a correlation scores near -1."""
    if query.anchor is None:
        return query
    context = None if recorded is None else Recorded(_inverted(recorded))
    # never unique: the recorder judged the anchor's look-alikes, not its negatives (a
    # selected row, a sunken bevel, a highlight drawn light on dark), so no fast path
    look = Look(_turned(query.anchor), False, context, INVERTED)
    return replace(query, looks=(*query.looks, look))


def _inverted(frame: Callable[[], Image | None]) -> Callable[[], Image | None]:
    def fetch() -> Image | None:
        shown = frame()
        return None if shown is None else _turned(shown)

    return fetch


def _turned(image: Image) -> Image:
    return 255 - image

"""An anchor in more than one look: the target at rest (the pointer elsewhere, as a replay
finds it) and hovered (as it looked just before the press). The ladder climbs its pixel rungs
for each look in turn, with the recorded screen as it looked then (ladder.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .params import PARAMS as P
from .compare.checks import VerifyOptions
from .query import Look, Query
from .recording import Recorded
from .refusal import Refusal
from .search import Box, Image, Point, grayscale, sub

__all__ = ["EDGES", "INVERTED", "edges", "pasted", "with_looks"]

INVERTED = "inverted"  # the look of an anchor with its grey levels turned over
EDGES = "edges"  # the look of an anchor, and of the screens, by where their grey levels step


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
    judged, then the anchor turned over (`_with_inverted`), and last its edges
    (`_with_edges`). `recorded` returns the
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
    rest = recorded if hovered is None else _at_rest(query, box, recorded)
    return _with_edges(_with_inverted(looked, rest), rest)


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
    same shapes, the contrast the other way round, which a correlation scores near -1.
    Like the edges look, it is looked for at the recorded scale only (`Look.scaled`): a
    theme or reverse video recolours, it does not resize; and at other scales a target is
    judged part by part, where a few letters of another label, turned over or seen as
    edges, fit some scale (those of "Large" for "Medium" in a menu whose "Medium" row was
    removed)."""
    if query.anchor is None:
        return query
    context = None if recorded is None else Recorded(_inverted(recorded))
    # never unique: the recorder judged the anchor's look-alikes, not its negatives (a
    # selected row, a sunken bevel, a highlight drawn light on dark), so no fast path
    look = Look(_turned(query.anchor), False, context, INVERTED, scaled=False)
    return replace(query, looks=(*query.looks, look))


def _with_edges(query: Query, recorded: Callable[[], Image | None] | None) -> Query:
    """`query` with one look more, tried last: its anchor at rest, the recorded screen and
    today's screen each seen as its edges (`edges`). A theme gives a toolkit's faces, text
    and borders other grey levels, one face another than the next (a button lighter than its
    window in one theme, darker in another), so no one line of grey levels maps a dark
    theme's button onto a light one's and neither the anchor nor its negative correlates.
    But a theme moves no border and no letter: they stand where they stood, each a step in
    grey level, whichever way it steps. Every check of the pixel rungs holds in this look as
    in the others, on the edges of the recorded screen, at the recorded scale only; and a
    place found is checked to be recoloured around as a theme recolours
    (`recoloured_around`)."""
    if query.anchor is None or recorded is None or query.recorded is None:
        return query  # (nothing to check a place against: no theme is told from a change)
    context = Recorded(_each(recorded, edges))
    plain = Recorded(recorded)
    h, w = query.anchor.shape[:2]
    box = (*sub(query.recorded, query.offset), w, h)

    def check(screen: Image, top_left: Point) -> Refusal | None:
        shown = plain.screen
        if shown is None:
            return Refusal("recoloured-alone", 0.0, P.theme_changed_least, top_left)
        return recoloured_around(shown.rgb, box, screen, top_left, shown.busy)

    # never unique: the recorder judged the anchor's look-alikes by their pixels, not edges
    look = Look(edges(query.anchor), False, context, EDGES, edges, False, check)
    return replace(query, looks=(*query.looks, look))


def recoloured_around(
    recorded: Image, box: Box, screen: Image, top_left: Point, busy: Box
) -> Refusal | None:
    """Refused (`recoloured-alone`) where the anchor's surroundings (its box grown by its
    own size each way, `P.theme_ring` px at most, less the box, on both screens, inside
    `busy`: the recorded screen's part that is not one flat colour) mostly show what they
    showed: a theme recolours a window, not one control, so where only the target changed
    colour (a swatch, a status light) it is no theme and its edges do not tell it."""
    x, y, w, h = box
    dx, dy = top_left[0] - x, top_left[1] - y
    gw, gh = min(w, P.theme_ring), min(h, P.theme_ring)
    bx, by, bw, bh = busy
    x0, y0 = max(0, x - gw, -dx, bx), max(0, y - gh, -dy, by)  # on both screens
    x1 = min(recorded.shape[1], x + w + gw, screen.shape[1] - dx, bx + bw)
    y1 = min(recorded.shape[0], y + h + gh, screen.shape[0] - dy, by + bh)
    if x1 <= x0 or y1 <= y0:
        return Refusal("recoloured-alone", 0.0, P.theme_changed_least, top_left)
    then = grayscale(recorded[y0:y1, x0:x1]).astype(np.int16)
    now = grayscale(screen[y0 + dy : y1 + dy, x0 + dx : x1 + dx]).astype(np.int16)
    around = np.ones(then.shape, bool)
    around[max(0, y - y0) : max(0, y - y0 + h), max(0, x - x0) : max(0, x - x0 + w)] = False
    changed = (np.abs(now - then) > VerifyOptions().pixel_threshold)[around]
    share = float(changed.mean()) if changed.size else 0.0
    if share >= P.theme_changed_least:
        return None
    return Refusal("recoloured-alone", round(share, 3), P.theme_changed_least, top_left)


def edges(image: Image) -> Image:
    """`image` (RGB or grayscale) as its edges, RGB of three like channels: at each pixel
    how much the grey level steps there, either way (Sobel's gradient magnitude), its
    square root times `edge_gain`. Where nothing steps it is 0: a flat region stays flat,
    and matchTemplate scores a flat window 0."""
    import cv2

    gray = grayscale(image).astype(np.float32)
    across = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    down = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    steps = np.sqrt(cv2.magnitude(across, down)) * P.edge_gain
    level = np.clip(steps, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(np.repeat(level[:, :, None], 3, axis=2))


def _inverted(frame: Callable[[], Image | None]) -> Callable[[], Image | None]:
    return _each(frame, _turned)


def _each(
    frame: Callable[[], Image | None], seen: Callable[[Image], Image]
) -> Callable[[], Image | None]:
    """A function returning `frame()` as `seen` sees it (None where it returns None)."""

    def fetch() -> Image | None:
        shown = frame()
        return None if shown is None else seen(shown)

    return fetch


def _turned(image: Image) -> Image:
    return 255 - image

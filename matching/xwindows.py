"""The ladder's X-window rung (ladder.py): the recorded X window (xsession/xwindows.py) found
again by its path from its application's top-level, then told to be the same widget.

Tk, Xt/Athena and Motif make each widget an X window, and an application builds its tree the
same way each time it starts: the window at the recorded path of child indices, under a
top-level of the recorded WM_CLASS, is the recorded widget when its siblings lie as they lay
(as many, itself at the same place in their reading order), and, of several top-levels of
one class, under the one of the recorded title. A hover look, a theme, a colour
scheme or another place on the screen leave that box as it was; a bigger font grows it.

A path tells which window, not what it shows today: a list that scrolled shows other rows in
the same box, and a button renamed keeps its place. So the window found is only taken where
what it shows today is what it showed: the same pixels in other colours (the comparison of
compare/recolour.py, over the box less the ring where toolkits draw hover and focus), when
it kept its size; or where it shows nothing but the same face then and now, whatever its
size (`blank_both`: an empty text area at a bigger font, its caret blinking; no place in
it is told from another, and the pixels find nothing in it). Anything else (the path
leads nowhere, the siblings moved, several top-levels agree, the box shows something else
or grew) is left to the pixels.

Twins are told apart by what they say, or left to the pixels: windows that look alike (the
Apply button of each row) are told apart by their path only in the order the application made
them, and a list made from data makes its rows in the data's order, which can change. Where
the window's look was drawn elsewhere on the recorded screen, or is drawn elsewhere today, the
window at the path is taken only where its box reads today the name it read, and each
look-alike, then and now, shows other pixels and reads another name (the radio buttons "Point
Size 10" and "Point Size 18"). Twins that read alike (every row's "Apply"), or more of them
than can be read, are left to the pixels, which read the row around the window.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from deskreel.storage.widgets import Box, Widget, reading_order

from .blank import blank_both, inside_rim
from .compare.checks import VerifyOptions, measured, passes
from .compare.recolour import grey_line
from .objects import ObjectAnswer
from .params import PARAMS as P
from .reading import UNREAD, Reader, Reading, read_alike, renamed
from .refusal import Refusal
from .search import Image, grayscale
from .twins import twins_of

__all__ = ["by_window", "layout_agrees", "shows_the_same"]


def by_window(
    recorded: Widget,
    today: Sequence[Widget],
    screen: Image,
    context: Image | None,
    read: Reader | None = None,
    moving: Sequence[Box] = (),
) -> ObjectAnswer:
    """The recorded window among `today`'s windows at its path (one per top-level of its
    application), judged on `screen` (today's, RGB) against `context` (the recorded screen,
    RGB; None: not kept); `read` tells what a box says (None: no names); `moving`: where
    the recorded screen kept changing (Query.moving)."""
    if not today:
        return ObjectAnswer(None, None, "xwindow-path")
    placed = [w for w in today if layout_agrees(w, recorded)]
    if not placed:
        return ObjectAnswer(None, None, "xwindow-layout")
    if len(placed) > 1:  # several top-levels of its class: the one of its title, if one
        placed = [w for w in placed if w.window == recorded.window]
    if len(placed) != 1:
        return ObjectAnswer(None, None, "xwindow-many")
    found = placed[0]
    resized = found.box[2:] != recorded.box[2:]
    if context is None:
        return ObjectAnswer(None, None, "xwindow-resized" if resized else "xwindow-shows")
    twins = _twins(context, recorded.box, recorded.top), _twins(screen, found.box, found.top)
    if twins != ((), ()):
        return _among_twins(found, recorded, screen, context, read, twins)
    if not resized and shows_the_same(context, recorded.box, screen, found.box):
        return ObjectAnswer(found, None, "xwindow-same")
    if blank_both(found, recorded, screen, context, moving):
        return ObjectAnswer(found, None, "xwindow-blank")
    return _by_name(found, recorded, screen, context, read, resized=resized)


def _by_name(
    found: Widget,
    recorded: Widget,
    screen: Image,
    context: Image,
    read: Reader | None,
    *,
    resized: bool,
) -> ObjectAnswer:
    """The window at the recorded path that grew, or shows other pixels: found where its box
    reads today the name it read then, refused where two confident readings differ, else
    left to the pixels."""
    unsure = "xwindow-resized" if resized else "xwindow-shows"
    then = inside_rim(context, recorded.box)
    now = inside_rim(screen, found.box)
    if read is None or then is None or now is None:
        return ObjectAnswer(None, None, unsure)
    before, after = read(then), read(now)
    if read_alike(before, after):
        return ObjectAnswer(found, None, "xwindow-name")
    if renamed(before, after):
        return ObjectAnswer(None, Refusal("renamed", 0, 1, found.box[:2]), "xwindow-renamed")
    return ObjectAnswer(None, None, unsure)


def layout_agrees(today: Widget, recorded: Widget) -> bool:
    """Whether `today`'s siblings lie as `recorded`'s did: as many, and it at the same place
    in their reading order."""
    if len(today.layout) != len(recorded.layout) or not recorded.layout:
        return False
    if not (0 <= today.rank < len(today.layout) and 0 <= recorded.rank < len(recorded.layout)):
        return False
    return reading_order(list(today.layout)).index(today.rank) == reading_order(
        list(recorded.layout)
    ).index(recorded.rank)


def shows_the_same(
    recorded: Image, box: tuple[int, ...], today: Image, now: tuple[int, ...]
) -> bool:
    """Whether the window's box shows today what it showed, in the same or other colours:
    today's grey levels one straight line of the recorded ones (reverse video, a theme) but
    for as few pixels as --verify allows, over the box less its rim (hover and focus rings)."""
    then_rgb, now_rgb = inside_rim(recorded, box), inside_rim(today, now)
    if then_rgb is None or now_rgb is None or then_rgb.shape != now_rgb.shape:
        return False
    before, after = grayscale(then_rgb), grayscale(now_rgb)
    keep = np.ones(before.shape, bool)
    line = grey_line(before, after, keep)
    if line is None:  # flat: it would look the same as any flat box
        return False
    gain, offset = line
    if abs(gain) < P.least_gain:  # gone blank, or nearly
        return False
    options = VerifyOptions()
    off = np.abs(after.astype(np.float32) - (gain * before + offset))
    return passes(*measured(off > options.pixel_threshold, keep), options)


def _among_twins(
    found: Widget,
    recorded: Widget,
    screen: Image,
    context: Image,
    read: Reader | None,
    twins: tuple[tuple[Box, ...], tuple[Box, ...]],
) -> ObjectAnswer:
    """The window at the recorded path, where windows look like it (`twins`: their boxes on
    the recorded screen, and today): found where its box reads today, with confidence, the
    name it read, and every look-alike shows other pixels and reads, with confidence,
    another name, then and now; refused where, every look-alike having read another name
    then, it reads today, with confidence, the name one of them read (the path leads to
    another of them); else left to the pixels (twins that show or read alike are told apart
    by their order alone)."""
    then, now = twins
    unsure = ObjectAnswer(None, None, "xwindow-twins")
    if read is None or max(len(then), len(now)) > P.twins_read_most:
        return unsure
    if _shown_alike(context, recorded.box, then) or _shown_alike(screen, found.box, now):
        return unsure  # (the pixels tell this, before anything is read)
    name = _read(read, context, recorded.box)
    theirs = [_read(read, context, twin) for twin in then]
    if not (name.readable and _other_names(theirs, name)):
        return unsure
    today = _read(read, screen, found.box)
    if today.readable and any(t.key == today.key for t in theirs):
        return ObjectAnswer(None, Refusal("renamed", 0, 1, found.box[:2]), "xwindow-renamed")
    # both readings confident: one misread is not enough to press another look-alike
    if today.readable and read_alike(name, today) and _read_apart(read, screen, now, name):
        return ObjectAnswer(found, None, "xwindow-told")
    return unsure


def _twins(rgb: Image, box: tuple[int, ...], top: Box | None) -> tuple[Box, ...]:
    """The boxes of the windows that look like the window at `box` on the RGB screen `rgb`
    (its box less the rim, where a focus or hover ring marks one twin only, drawn there
    elsewhere), inside its top-level window's box `top` (None: anywhere). A look-alike in
    another top-level is no twin: its path starts elsewhere (by_window tells top-levels
    apart by their class and title)."""
    inside = inside_rim(rgb, box)
    if inside is None:
        return ()
    (ox, oy), part = _within(rgb, box, top)
    r = P.window_rim
    places = twins_of(part, inside, own=(box[0] + r - ox, box[1] + r - oy))[1:]
    return tuple((x + ox - r, y + oy - r, box[2], box[3]) for x, y in places)


def _within(rgb: Image, box: tuple[int, ...], top: Box | None) -> tuple[tuple[int, int], Image]:
    """The part of `rgb` inside `top` (clipped to the screen) and where it starts; the whole
    screen where `top` is not known or does not hold `box`."""
    if top is not None:
        x0, y0 = max(0, top[0]), max(0, top[1])
        x1, y1 = min(rgb.shape[1], top[0] + top[2]), min(rgb.shape[0], top[1] + top[3])
        x, y, w, h = box
        if x0 <= x and y0 <= y and x + w <= x1 and y + h <= y1:
            return (x0, y0), rgb[y0:y1, x0:x1]
    return (0, 0), rgb


def _shown_alike(rgb: Image, box: tuple[int, ...], twins: Sequence[Box]) -> bool:
    """Whether a twin shows what the window at `box` shows, in its colours or others."""
    return any(shows_the_same(rgb, box, rgb, twin) for twin in twins)


def _read_apart(read: Reader, rgb: Image, twins: Sequence[Box], name: Reading) -> bool:
    """Whether each twin reads, with confidence, a name other than `name` (read one by one:
    the first that does not ends the reading)."""
    return all(_other_names([_read(read, rgb, twin)], name) for twin in twins)


def _other_names(readings: Sequence[Reading], name: Reading) -> bool:
    """Whether each of `readings` is confident and names other than `name`."""
    return all(r.readable and r.key != name.key for r in readings)


def _read(read: Reader, rgb: Image, box: tuple[int, ...]) -> Reading:
    """What the box less its rim says; UNREAD off the screen."""
    inside = inside_rim(rgb, box)
    return UNREAD if inside is None else read(inside)

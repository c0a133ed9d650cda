"""The sample app's geometry: its layouts, fonts and sizes, at any --scale.

Tests and benchmarks read it (`NORMAL_LAYOUT`, `layout_places`) to know where each widget
is without starting the app; `samples/app.py` builds its window from it.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "BANNER_FONT",
    "BANNER_HEIGHT",
    "BANNER_TEXT",
    "Box",
    "FONT",
    "LAYOUTS",
    "LISTBOX_ITEMS",
    "MONO_FONT",
    "NORMAL_LAYOUT",
    "PIXEL_OPTIONS",
    "REORDERED_LAYOUT",
    "WINDOW_HEIGHT",
    "WINDOW_WIDTH",
    "layout_places",
    "scaled",
    "scaled_box",
    "scaled_font",
    "text_of",
    "window_size",
]

WINDOW_WIDTH, WINDOW_HEIGHT = 800, 600
FONT = ("DejaVu Sans", -14)  # negative size = pixels, so the look does not depend on dpi
MONO_FONT = ("DejaVu Sans Mono", -13)
BANNER_FONT = ("DejaVu Sans", -16, "bold")
BANNER_HEIGHT = 60  # --banner pushes every widget down by this much (before --scale)
BANNER_TEXT = "A new version is available"
LISTBOX_ITEMS = [
    f"Item {i:02d}" + (" - a long line so the list can also scroll sideways" if i % 5 == 0 else "")
    for i in range(1, 51)
]

Box = tuple[int, int, int, int]  # x, y, width, height

# Widget name -> (x, y, width, height) inside the window.
NORMAL_LAYOUT: dict[str, Box] = {
    "button:Save": (20, 20, 100, 32),
    "button:Open": (130, 20, 100, 32),
    "button:Delete": (240, 20, 100, 32),
    "button:OK": (350, 20, 100, 32),
    "label:name": (20, 70, 60, 28),
    "entry": (85, 70, 365, 28),
    "text": (20, 110, 430, 150),
    "label:double": (20, 272, 140, 44),
    "label:triple": (165, 272, 140, 44),
    "label:context": (310, 272, 140, 44),
    "listbox": (480, 20, 300, 296),
    "canvas": (20, 330, 760, 220),
    "label:status": (20, 562, 560, 26),
    "label:clock": (620, 562, 160, 26),
}
# The same widgets elsewhere, so an image-matching replayer has to search for them.
REORDERED_LAYOUT: dict[str, Box] = {
    "canvas": (20, 20, 760, 200),
    "listbox": (20, 240, 260, 310),
    "label:name": (300, 240, 60, 28),
    "entry": (365, 240, 255, 28),
    "text": (300, 280, 320, 270),
    "button:OK": (680, 240, 100, 32),
    "button:Delete": (680, 282, 100, 32),
    "button:Open": (680, 324, 100, 32),
    "button:Save": (680, 366, 100, 32),
    "label:context": (640, 410, 140, 44),
    "label:triple": (640, 458, 140, 44),
    "label:double": (640, 506, 140, 44),
    "label:status": (300, 562, 480, 26),
    "label:clock": (20, 562, 160, 26),
}
# --layout duplicate[-context]: the toolbar's OK moves into two framed rows "[label] [OK]"
# at the top of the listbox column; a second widget of the same name gets "#2".
ROW_TOPS = (20, 100)
ROW_PARTS: dict[str, Box] = {  # relative to the row's top-left
    "frame:row": (0, 0, 300, 64),  # first, so that the label and button stack above it
    "label:{text}": (12, 16, 160, 32),  # right-aligned text, 12 px left of the button
    "button:OK": (184, 16, 100, 32),
}
ROW_TEXTS = {"duplicate": ("Confirm", "Confirm"), "duplicate-context": ("Invoice", "Refund")}
ROWS_LEFT = 480
ROWS_LISTBOX = (480, 180, 300, 136)
LAYOUTS = ("normal", "reordered", "renamed", "removed", "duplicate", "duplicate-context")
# Integer pixel options that --scale multiplies; sizes with units ("3m") follow `tk scaling`.
PIXEL_OPTIONS = (
    "borderwidth",
    "highlightthickness",
    "padx",
    "pady",
    "insertwidth",
    "insertborderwidth",
    "selectborderwidth",
    "spacing1",
    "spacing2",
    "spacing3",
)


def layout_places(
    layout: str, *, clock: bool = False, banner: bool = False, scale: float = 1.0
) -> dict[str, Box]:
    """Widget name -> (x, y, width, height) inside the window, in screen pixels."""
    places = dict(REORDERED_LAYOUT if layout == "reordered" else NORMAL_LAYOUT)
    if layout == "renamed":
        places["button:Store"] = places.pop("button:Save")
    elif layout == "removed":
        del places["button:Save"]
    elif layout in ROW_TEXTS:
        places = _with_rows(places, ROW_TEXTS[layout])
    if not clock:
        del places["label:clock"]
    if banner:
        places = {
            "label:banner": (0, 0, WINDOW_WIDTH, BANNER_HEIGHT),
            **{name: (x, y + BANNER_HEIGHT, w, h) for name, (x, y, w, h) in places.items()},
        }
    return {name: scaled_box(box, scale) for name, box in places.items()}


def window_size(*, banner: bool = False, scale: float = 1.0) -> tuple[int, int]:
    """The window's width and height."""
    height = WINDOW_HEIGHT + (BANNER_HEIGHT if banner else 0)
    return scaled(WINDOW_WIDTH, scale), scaled(height, scale)


def _with_rows(places: dict[str, Box], texts: tuple[str, str]) -> dict[str, Box]:
    rows: dict[str, Box] = {}
    for top, text in zip(ROW_TOPS, texts):
        for part, (x, y, w, h) in ROW_PARTS.items():
            name = part.format(text=text)
            if name in rows:
                name += f"#{sum(n.partition('#')[0] == name for n in rows) + 1}"
            rows[name] = (ROWS_LEFT + x, top + y, w, h)
    others = {name: box for name, box in places.items() if name != "button:OK"}
    others["listbox"] = ROWS_LISTBOX
    return {**rows, **others}


def scaled(pixels: float, scale: float) -> int:
    """`pixels` times `scale`, halves rounded up (Python's round() would round 2.5 to 2)."""
    return math.floor(pixels * scale + 0.5)


def scaled_box(box: Box, scale: float) -> Box:
    """A box scaled by its edges, so that neighbouring boxes stay neighbours."""
    x, y, width, height = box
    left, top = scaled(x, scale), scaled(y, scale)
    return left, top, scaled(x + width, scale) - left, scaled(y + height, scale) - top


def scaled_font(font: tuple[Any, ...], scale: float) -> tuple[Any, ...]:
    """A (family, -pixels, ...) font with its pixel size scaled."""
    family, size, *styles = font
    return (family, -scaled(-size, scale), *styles)


def text_of(name: str) -> str:
    """What a widget shows: "button:OK#2" -> "OK"."""
    return name.partition(":")[2].partition("#")[0]

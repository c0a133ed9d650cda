"""Hiding typed text in later screens: what a redacted typing step put on screen stays there
(the entry still reads the secret when the next click is taken), so later frames get those
regions painted back to how they looked before the typing.

`hide_typed_text` works on RGB arrays (the recorder's `--redact-typing`);
`hide_in_stored_frames` on stored frame bytes (`deskreel redact`, through
`storage.redaction.redact_steps`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .images import decode_image, encode_png, encode_webp, pixel_hash

if TYPE_CHECKING:
    import numpy as np

__all__ = ["HiddenFrame", "hide_in_stored_frames", "hide_typed_text", "typed_regions"]

Box = tuple[int, int, int, int]  # x, y, width, height

MARGIN = 3  # px around what changed: anti-aliasing and the caret's edge
TOLERANCE = 24  # per channel: pixels this close count as the same
SHOWN = 0.2  # share of the typed pixels a later frame must still show to be hidden
AROUND = 0.5  # share of the rest of the region (the field around the text) it must show


def hide_typed_text(before: np.ndarray, after: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """`frame` with every region the typing changed (from `before` to `after`) painted back
    to `before` where it still shows what the typing put there (a SHOWN share of it: a
    frame grabbed half-way through the typing counts) in the field it was typed into (most
    of the region's other pixels); `frame` itself (the same object) when no region does:
    the field was cleared, or the screen moved on."""
    if not before.shape == after.shape == frame.shape:
        return frame
    changed = _changed(before, after)
    hidden = frame
    for x, y, w, h in typed_regions(before, after, changed=changed):
        typed = changed[y : y + h, x : x + w]
        same = ~_changed(frame[y : y + h, x : x + w], after[y : y + h, x : x + w])
        around = same[~typed]  # empty when the whole screen changed
        if same[typed].mean() >= SHOWN and (not around.size or around.mean() >= AROUND):
            if hidden is frame:
                hidden = frame.copy()
            hidden[y : y + h, x : x + w] = before[y : y + h, x : x + w]
    return hidden


def typed_regions(
    before: np.ndarray, after: np.ndarray, *, changed: np.ndarray | None = None
) -> list[Box]:
    """Boxes around what changed from `before` to `after`, MARGIN px wider, one per
    connected patch (the typed text and its caret; a status line that echoed it)."""
    import cv2
    import numpy as np

    if changed is None:
        changed = _changed(before, after)
    if not changed.any():
        return []
    size = 2 * MARGIN + 1
    grown = cv2.dilate(changed.astype(np.uint8), np.ones((size, size), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
    return [(int(x), int(y), int(w), int(h)) for x, y, w, h in stats[1:count, :4]]


def _changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where two same-sized RGB images differ by more than TOLERANCE in some channel."""
    import numpy as np

    return np.any(np.abs(a.astype(np.int16) - b.astype(np.int16)) > TOLERANCE, axis=2)


@dataclass(frozen=True, slots=True)
class HiddenFrame:
    """A stored frame with typed text painted over: its new bytes and content address."""

    pixels: np.ndarray
    data: bytes
    fmt: str
    pixel_hash: str

    def crop_png(self, box: Box) -> bytes:
        """PNG of a box of the hidden frame: an anchor cut from it anew."""
        x, y, w, h = box
        return encode_png(self.pixels[y : y + h, x : x + w])


def hide_in_stored_frames(before: bytes, after: bytes, frame: bytes) -> HiddenFrame | None:
    """`hide_typed_text` on stored (encoded) frames; None when `frame` needs no hiding."""
    shown = decode_image(frame)
    hidden = hide_typed_text(decode_image(before), decode_image(after), shown)
    if hidden is shown:
        return None
    return HiddenFrame(hidden, encode_webp(hidden), "webp", pixel_hash(hidden))

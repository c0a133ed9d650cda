"""An after-frame where a progress bar never stops pulsing (recorder/still.py): the first
frame still but for what its toolkit animates, never one that still changes elsewhere."""

from __future__ import annotations

import numpy as np

from deskreel.recorder.still import animating_before, still_apart
from deskreel.storage.widgets import Widget
from tests.test_animation import H, W, timeline

BAR = (10, 80, 140, 8)  # a progress bar: its block moves along it
BOX = (20, 20, 40, 20)  # what the step draws (a message), late


def screen(phase: int, *, message: bool, hover: bool = False) -> np.ndarray:
    rgb = np.full((H, W, 3), 230, np.uint8)
    x, y, w, h = BAR
    rgb[y : y + h, x : x + w] = 200
    rgb[y : y + h, x + 10 * (phase % 12) : x + 10 * (phase % 12) + 20] = 40
    if message:
        bx, by, bw, bh = BOX
        rgb[by : by + bh, bx : bx + bw] = 0
    if hover:  # the person moved on, over another control
        rgb[50:60, 100:140] = 150
    return rgb


def at(point):
    x, y, w, h = BAR
    if x <= point[0] < x + w and y <= point[1] < y + h:
        return Widget("atspi", "app", "progress bar", "", BAR, (0, 0), (), "", (), -1)
    return None


def pulsing(message_at: float, hover_at: float):
    """A pulse every 0.1 s from 0 to 3 s; the message from `message_at`, a hover from
    `hover_at`."""
    shots = [
        (t / 10, screen(t, message=t / 10 >= message_at, hover=t / 10 >= hover_at))
        for t in range(31)
    ]
    return timeline(*shots)


def test_the_first_frame_still_but_for_the_bar_is_the_after_frame():
    shots = pulsing(message_at=1.2, hover_at=2.5)
    boxes = animating_before(shots, 0.0, 1.0, at)
    assert boxes == [(7, 77, 146, 14)], boxes
    frame = still_apart(shots, 1.1, settle=0.3, limit=2.9, boxes=boxes)
    assert frame is not None and 1.2 <= frame.t_first < 1.3, frame
    # the message is in it, and no hover
    pixels = frame.pixels()
    assert pixels[25, 25].tolist() == [0, 0, 0] and pixels[55, 120].tolist() == [230] * 3


def test_without_an_animating_object_or_time_to_settle_nothing_is_chosen():
    shots = pulsing(message_at=1.2, hover_at=2.5)
    assert animating_before(shots, 0.0, 1.0, lambda point: None) == []
    assert still_apart(shots, 1.1, settle=0.3, limit=2.9, boxes=[]) is None
    # the screen changes elsewhere every 0.2 s: never still
    flicker = timeline(*((t / 10, screen(t, message=t % 2 == 0)) for t in range(31)))
    boxes = animating_before(flicker, 0.0, 1.0, at)
    assert still_apart(flicker, 1.1, settle=0.3, limit=2.9, boxes=boxes) is None

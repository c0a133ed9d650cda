"""A step's after-frame shows what the step did, however long the person waited before the
next step: a `wait` is no input, and the screen it shows is the step's to settle in."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from deskreel.recorder.screen import FrameTimeline
from deskreel.storage import RawEvent
from tests.test_retention import stored

W, H = 120, 60
CLICK = 2.0  # s: the press; the release 0.08 s later
DRAWN = 0.05  # s after the release: the application draws the step's effect
FPS = 25


def picture(t: float) -> np.ndarray:
    """A window whose status line fills in once the click's effect is drawn."""
    s = np.full((H, W, 3), 220, np.uint8)
    s[10:30, 10:50] = 90  # the button
    if t >= CLICK + 0.08 + DRAWN:
        s[40:50, 10:110] = 0  # "Draft saved"
    return s


def frames(seconds: float) -> FrameTimeline:
    timeline = FrameTimeline(max_frames=10_000)
    last = None
    for i in range(int(seconds * FPS)):
        rgb = picture(i / FPS)
        raw = np.dstack([rgb[:, :, ::-1], np.full((H, W), 255, np.uint8)]).tobytes()
        crc = zlib.crc32(raw)
        timeline.add(i / FPS, crc, W, H, None if crc == last else raw)
        last = crc
    return timeline


@pytest.mark.parametrize("next_key", [2.6, 6.0])  # 6.0: a wait comes between the two steps
def test_the_after_frame_shows_the_effect_drawn_after_the_release(next_key: float) -> None:
    events = [
        RawEvent(1.0, "motion", x=30, y=20),
        RawEvent(CLICK, "button_down", x=30, y=20, button=1),
        RawEvent(CLICK + 0.08, "button_up", x=30, y=20, button=1),
        RawEvent(next_key, "key_down", keycode=36, keysym="Return"),
        RawEvent(next_key + 0.08, "key_up", keycode=36, keysym="Return"),
    ]
    steps = stored(frames(next_key + 3.0), events).steps
    kinds = [s.action.action for s in steps]
    assert ("wait" in kinds) == (next_key > 5), kinds
    click = next(s for s in steps if s.action.action == "left_click")
    assert click.before_frame != click.after_frame, "the after-frame is the screen before it"
    assert click.after_settled is True

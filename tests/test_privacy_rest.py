"""--redact-typing and the look at rest: the frames a look at rest is taken from are older
than the step's after-frame, and may still show what was typed after that frame no longer
does (a password dialog closed by the click). They are cleaned like the stored frames, and
nothing typed reaches an anchor."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from deskreel.recorder.finisher import Finisher
from deskreel.recorder.jobs import JobQueue
from deskreel.recorder.pieces import Job
from deskreel.recorder.privacy import TypingRedaction
from deskreel.recorder.reduce import reduce_events
from deskreel.recorder.screen import FrameTimeline
from deskreel.storage import RawEvent
from deskreel.xsession.images import decode_image

W, H = 400, 200
GLYPHS = (slice(88, 102), slice(30, 120))  # where the typed text shows


def screen(typed: bool, hovered: bool, closed: bool = False) -> np.ndarray:
    """A dialog: an entry (with the typed text or not) and an OK button, lighter hovered."""
    s = np.full((H, W, 3), 200, np.uint8)
    if closed:
        return s
    s[80:111, 20:221] = 0
    s[81:110, 21:220] = 255
    if typed:
        s[88:102, 30:120:6] = 0
        s[88:102, 31:120:6] = 0
    s[80:111, 240:301] = 0
    s[81:110, 241:300] = 230 if hovered else 180
    s[92:98, 255:285] = 0
    return s


def bgra(rgb: np.ndarray) -> bytes:
    return np.dstack([rgb[:, :, ::-1], np.full((H, W), 255, np.uint8)]).tobytes()


class Store:
    def __init__(self) -> None:
        self.steps: list[Any] = []

    def put_frame(self, data: bytes, **kw: Any) -> str:
        return f"f{kw['pixel_hash'][:8]}"

    def add_steps(self, recording_id: int, steps: list[Any]) -> None:
        self.steps.extend(steps)


class Writes:
    def __init__(self) -> None:
        self.store, self.steps = Store(), 0

    def call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        return method(*args, **kwargs)


def test_the_look_at_rest_keeps_nothing_typed_under_redaction() -> None:
    timeline = FrameTimeline()
    shown = [
        (0.0, 1.0, screen(False, False)),
        (1.35, 1.95, screen(True, False)),  # typed, the pointer not yet on OK: at rest
        (2.05, 2.55, screen(True, True)),  # OK hovered
        (2.7, 5.0, screen(False, False, closed=True)),  # the click closed the dialog
    ]
    for crc, (first, last, rgb) in enumerate(shown):
        timeline.add(first, crc, W, H, bgra(rgb))
        timeline.add(last, crc, W, H, None)
    events = []
    for key, t in zip("abc", (1.0, 1.1, 1.2), strict=True):
        events += [
            RawEvent(t, "key_down", keycode=38, keysym=key, char=key),
            RawEvent(t + 0.05, "key_up", keycode=38, keysym=key, char=key),
        ]
    events += [
        RawEvent(1.32, "motion", x=350, y=150),
        RawEvent(1.5, "motion", x=350, y=150),
        RawEvent(1.8, "motion", x=330, y=140),
        RawEvent(2.0, "motion", x=270, y=95),
        RawEvent(2.5, "button_down", x=270, y=95, button=1),
        RawEvent(2.6, "button_up", x=270, y=95, button=1),
    ]
    reduced = reduce_events(events)
    writes = Writes()
    finisher = Finisher(
        JobQueue(time.monotonic),
        writes,  # type: ignore[arg-type]  # the finisher only calls store methods through it
        1,
        frames=True,
        settle=0.3,
        settle_cap=1.0,
        redaction=TypingRedaction(enabled=True),
    )
    finisher._store_steps(Job(list(enumerate(reduced, 1)), 0, timeline, 0.0, 6.0, True, events))
    (click,) = [s for s in writes.store.steps if s.anchor is not None]
    anchor = click.anchor
    assert anchor.hover_png is not None  # the look at rest was taken: the check bites
    clean = screen(False, False)
    for png in (anchor.png, anchor.hover_png):
        x, y, w, h = anchor.box
        canvas = clean.copy()
        canvas[y : y + h, x : x + w] = decode_image(png)
        assert (canvas[GLYPHS] == clean[GLYPHS]).all()

"""Frames no step can need are let go at once (recorder/retention.py, issue 39): on a busy
screen the finisher stores exactly what it stores with every frame held."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest

from deskreel.recorder.finisher import Finisher
from deskreel.recorder.jobs import JobQueue
from deskreel.recorder.pieces import Job
from deskreel.recorder.privacy import TypingRedaction
from deskreel.recorder.reduce import reduce_events
from deskreel.recorder.retention import AROUND, LOOK_BACK, needed_frames
from deskreel.recorder.screen import FrameTimeline
from deskreel.storage import RawEvent

W, H = 400, 200
BUTTON = (240, 80, 61, 31)  # x, y, w, h
FPS = 10
SECONDS = 46.0


def pointer_at(events: list[RawEvent], t: float) -> tuple[int, int]:
    where = (0, 0)
    for e in events:
        if e.t > t:
            break
        if e.x is not None and e.y is not None:
            where = (e.x, e.y)
    return where


def screen(t: float, events: list[RawEvent], *, busy: bool = True) -> np.ndarray:
    """A window with a button lit under the pointer, a clock that ticks every frame and a
    caret that blinks: a busy screen."""
    s = np.full((H, W, 3), 200, np.uint8)
    x, y, w, h = BUTTON
    px, py = pointer_at(events, t)
    s[y : y + h, x : x + w] = 0
    s[y + 1 : y + h - 1, x + 1 : x + w - 1] = 230 if x <= px < x + w and y <= py < y + h else 180
    s[y + 12 : y + 18, x + 15 : x + 45] = 0
    if not busy:
        return s
    tick = int(t * FPS)
    s[10:30, 340:390] = 255
    s[12:28, 342 + (tick % 40) : 348 + (tick % 40)] = 0  # the clock's hand
    if int(t * 2) % 2:
        s[88:102, 30:32] = 0  # the caret
    return s


def glide(t: float, start: tuple[int, int], end: tuple[int, int], seconds: float) -> list[RawEvent]:
    steps = round(seconds / 0.02)
    (x0, y0), (x1, y1) = start, end
    return [
        RawEvent(
            t + i * 0.02,
            "motion",
            x=round(x0 + (x1 - x0) * i / steps),
            y=round(y0 + (y1 - y0) * i / steps),
        )
        for i in range(1, steps + 1)
    ]


def person() -> list[RawEvent]:
    """Typing, a long glide, a hover, a glide onto the button, a click, a glide, Return."""
    events: list[RawEvent] = []
    for n, key in enumerate("abc"):
        t = 1.0 + 0.15 * n
        events += [
            RawEvent(t, "key_down", keycode=38 + n, keysym=key, char=key),
            RawEvent(t + 0.06, "key_up", keycode=38 + n, keysym=key, char=key),
        ]
    events += glide(2.0, (50, 150), (120, 160), 18.0)  # ends at 20.0, rests until 21.5
    events += glide(21.5, (120, 160), (270, 95), 3.0)
    events += [
        RawEvent(25.0, "button_down", x=270, y=95, button=1),
        RawEvent(25.08, "button_up", x=270, y=95, button=1),
    ]
    events += glide(25.5, (270, 95), (60, 170), 14.5)
    events += [
        RawEvent(42.0, "key_down", keycode=36, keysym="Return"),
        RawEvent(42.08, "key_up", keycode=36, keysym="Return"),
    ]
    return events


def timeline(events: list[RawEvent], fps: float = FPS, *, busy: bool = True) -> FrameTimeline:
    frames = FrameTimeline(max_frames=10_000)
    last = None
    for i in range(int(SECONDS * fps)):
        t = i / fps
        rgb = screen(t, events, busy=busy)
        raw = np.dstack([rgb[:, :, ::-1], np.full((H, W), 255, np.uint8)]).tobytes()
        crc = zlib.crc32(raw)
        frames.add(t, crc, W, H, None if crc == last else raw)
        last = crc
    return frames


class Store:
    def __init__(self) -> None:
        self.steps: list[Any] = []
        self.masks: list[Any] = []

    def put_frame(self, data: bytes, **kw: Any) -> str:
        return str(kw["pixel_hash"])

    def add_steps(self, recording_id: int, steps: list[Any]) -> None:
        self.steps.extend(steps)

    def add_mask(self, recording_id: int, box: Any, *, step: int) -> None:
        self.masks.append((step, box))


class Writes:
    def __init__(self) -> None:
        self.store, self.steps = Store(), 0

    def call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        return method(*args, **kwargs)


def stored(frames: FrameTimeline, events: list[RawEvent]) -> Store:
    writes = Writes()
    finisher = Finisher(
        JobQueue(lambda: 0.0),
        writes,  # type: ignore[arg-type]  # the finisher only calls store methods through it
        1,
        frames=True,
        settle=0.4,
        settle_cap=2.0,
        redaction=TypingRedaction(enabled=False),
    )
    numbered = list(enumerate(reduce_events(events), 1))
    finisher._store_steps(Job(numbered, 0, frames, 0.0, SECONDS, False, events))
    return writes.store


def needed(events: list[RawEvent]) -> Any:
    return lambda held: needed_frames(held, events, 0.0, hover_time=1.0, after=2.4)


@pytest.mark.parametrize("fps", [FPS, 2])  # 2: fewer frames within the settle cap than AROUND
def test_the_steps_are_stored_as_with_every_frame_held(fps: float) -> None:
    events = person()
    whole = timeline(events, fps)
    pruned = timeline(events, fps)
    dropped = pruned.prune(float("-inf"), needed(events))
    assert dropped >= 10 and len(pruned) == len(whole) - dropped, (dropped, len(whole))
    full, thin = stored(whole, events), stored(pruned, events)
    kinds = [s.action.action for s in full.steps if s.action.action != "wait"]
    assert kinds == ["type", "mouse_move", "left_click", "mouse_move", "key"], kinds
    assert all(s.before_frame and s.after_frame for s in full.steps if s.action.action != "wait")
    assert [s.anchor for s in full.steps if s.anchor] != []
    assert thin.steps == full.steps
    assert thin.masks == full.masks and full.masks


def test_a_long_glide_keeps_only_the_frames_at_its_ends() -> None:
    events = person()
    frames = timeline(events)
    held = [f for f in frames.shown_between(0.0, SECONDS)]
    keep = needed(events)(held)
    # the first glide, past the typing's settle cap and AROUND frames after it
    middle = [k for f, k in zip(held, keep) if 5.0 < f.t_first < 8.0]
    assert middle and not any(middle)
    before_click = [k for f, k in zip(held, keep) if 25.0 - LOOK_BACK / FPS < f.t_first <= 25.0]
    assert all(before_click)


def test_an_idle_time_keeps_its_first_frames_at_a_low_frame_rate() -> None:
    # animation.py compares the first AROUND frames of an idle time: at 2 fps they reach
    # past the settle cap
    events = person()
    held = timeline(events, 2).shown_between(0.0, SECONDS)
    keep = needed(events)(held)
    on_screen = max(i for i, f in enumerate(held) if f.t_first <= 25.08)  # at the click's end
    assert all(keep[on_screen : on_screen + AROUND])
    assert held[on_screen + AROUND - 1].t_first > 25.08 + 2.4

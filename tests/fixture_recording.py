"""A recording with every action kind, in a real SQLite file, with real frames and anchors.

Frames are small synthetic screens drawn with OpenCV and stored as lossless WebP, as the
recorder stores them. Step k (counting only steps that have frames) saw frame k before it
and frame k + 1 after it, so consecutive steps share frames as in a real recording.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from deskreel.xsession.images import encode_png, encode_webp, pixel_hash
from deskreel.storage import Action, Anchor, RawEvent, Step, Store, open_store

SCREEN = (320, 200)
SECRET_ENV = "DESKREEL_TEST_SECRET"
GAP = 0.8  # seconds between one step's end and the next one's start
TAP = 0.2  # seconds a step takes when it has no duration of its own

# (action object, disabled); the comments give the step number.
ACTIONS: list[tuple[dict[str, Any], bool]] = [
    ({"action": "mouse_move", "coordinate": [100, 50]}, False),  # 1: a hover
    ({"action": "left_click", "coordinate": [40, 30]}, False),  # 2
    ({"action": "type", "text": "hello world"}, False),  # 3
    ({"action": "key", "text": "Return"}, False),  # 4: directly after typing
    ({"action": "key", "text": "ctrl+s"}, False),  # 5
    ({"action": "key", "text": "shift", "duration": 0.8}, False),  # 6: a held key
    ({"action": "left_click", "coordinate": [60, 70], "with_key": "shift"}, False),  # 7
    ({"action": "right_click", "coordinate": [200, 100]}, False),  # 8
    ({"action": "middle_click", "coordinate": [210, 110]}, False),  # 9
    ({"action": "double_click", "coordinate": [120, 80]}, False),  # 10
    ({"action": "triple_click", "coordinate": [130, 90]}, False),  # 11
    (
        {"action": "left_click_drag", "start_coordinate": [10, 10], "coordinate": [150, 120]},
        False,
    ),  # 12
    (
        {
            "action": "scroll",
            "coordinate": [160, 100],
            "scroll_direction": "down",
            "scroll_amount": 3,
        },
        False,
    ),  # 13
    (
        {
            "action": "scroll",
            "coordinate": [160, 100],
            "scroll_direction": "up",
            "scroll_amount": 2,
        },
        False,
    ),  # 14
    (
        {
            "action": "scroll",
            "coordinate": [160, 100],
            "scroll_direction": "left",
            "scroll_amount": 1,
        },
        False,
    ),  # 15
    (
        {
            "action": "scroll",
            "coordinate": [300, 190],
            "scroll_direction": "right",
            "scroll_amount": 4,
            "with_key": "ctrl",
        },
        False,
    ),  # 16
    ({"action": "wait", "duration": 1.5}, False),  # 17: no frames, as the recorder does
    ({"action": "left_mouse_down", "coordinate": [50, 60]}, False),  # 18
    ({"action": "left_mouse_up"}, False),  # 19: where the pointer is
    ({"action": "screenshot", "region": [0, 0, 160, 100]}, False),  # 20
    ({"action": "cursor_position"}, False),  # 21
    ({"action": "key", "text": "Prior"}, False),  # 22
    ({"action": "type", "text": "{{env:" + SECRET_ENV + "}}"}, False),  # 23
    ({"action": "key", "text": "alt+Tab"}, True),  # 24: disabled
    ({"action": "type", "text": "café ✓"}, False),  # 25
    (
        {
            "action": "left_click_drag",
            "start_coordinate": [20, 180],
            "coordinate": [300, 20],
            "with_key": "shift",
        },
        False,
    ),  # 26
    ({"action": "key", "text": "Escape"}, False),  # 27
    (
        {
            "action": "scroll",
            "coordinate": [160, 100],
            "scroll_direction": "right",
            "scroll_amount": 2,
        },
        False,
    ),  # 28: without a modifier, unlike step 16
]


@dataclass(frozen=True)
class Fixture:
    db: Path
    recording_id: int
    name: str
    frames: list[str]  # frame hashes in capture order
    steps: list[Step]


def build_recording(db: Path, *, name: str = "every-kind") -> Fixture:
    """Write the recording into `db` (created if missing) and describe it."""
    with open_store(db) as store:
        rec_id = store.create_recording(name, source="recorder", screen=SCREEN)
        steps, events = _steps()
        frames = [_put_frame(store, i) for i in range(_frame_count(steps))]
        steps = [_with_frames(st, frames) for st in steps]
        store.add_events(rec_id, events, first_seq=0)
        store.add_steps(rec_id, steps)
        steps = store.steps(rec_id)
    return Fixture(db, rec_id, name, frames, steps)


def frame_of(step: int) -> int:
    """The index of step `step`'s before-frame (steps without frames are skipped)."""
    return sum(1 for obj, _ in ACTIONS[: step - 1] if obj["action"] != "wait")


def draw(index: int) -> np.ndarray:
    """Synthetic screen number `index`: a tinted desktop, a window and a label (BGR)."""
    w, h = SCREEN
    img = np.full((h, w, 3), (40 + 5 * index % 200, 60, 90), np.uint8)
    x, y = 10 + (index * 23) % (w - 120), 10 + (index * 17) % (h - 80)
    cv2.rectangle(img, (x, y), (x + 100, y + 60), (230, 230, 230), -1)
    cv2.putText(img, f"#{index}", (x + 8, y + 40), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 160), 2)
    return img


def _steps() -> tuple[list[Step], list[RawEvent]]:
    steps: list[Step] = []
    events: list[RawEvent] = []
    t = 0.5
    for number, (obj, disabled) in enumerate(ACTIONS, start=1):
        action = Action.from_json(obj)
        end = round(t + (action.duration or TAP), 3)
        span = None
        if action.action != "wait":
            first = len(events)
            events += _events(action, t, end)
            span = (first, len(events) - 1)
            events.append(RawEvent(round(end + GAP / 2, 3), "motion", x=1, y=1))  # no step's
        steps.append(
            Step(
                step=number,
                action=action,
                t_start=t,
                t_end=end,
                disabled=disabled,
                events=span,
                anchor=_anchor(action),
                window_class="Fixture",
                window_title=f"window {number}",
            )
        )
        t = round(end + GAP, 3)
    return steps, events


def _events(action: Action, start: float, end: float) -> list[RawEvent]:
    if action.action in ("key", "type"):
        return [
            RawEvent(start, "key_down", keycode=38, keysym="a", char="a"),
            RawEvent(end, "key_up", keycode=38, keysym="a", char="a"),
        ]
    x, y = action.target or (5, 5)
    return [
        RawEvent(start, "button_down", x=x, y=y, button=1),
        RawEvent(end, "button_up", x=x, y=y, button=1),
    ]


def _anchor(action: Action) -> Anchor | None:
    if not action.is_pointer or action.target is None:
        return None
    x, y = action.target
    left, top = max(0, x - 16), max(0, y - 16)
    crop = draw(0)[top : top + 32, left : left + 32, ::-1]  # draw() paints BGR
    return Anchor(
        png=encode_png(crop),
        box=(left, top, crop.shape[1], crop.shape[0]),
        offset=(x - left, y - top),
        score=1.0,
        margin=0.3,
    )


def _frame_count(steps: list[Step]) -> int:
    return sum(1 for st in steps if st.action.action != "wait") + 1


def _with_frames(step: Step, frames: list[str]) -> Step:
    if step.action.action == "wait":
        return step
    k = frame_of(step.step)
    return replace(step, before_frame=frames[k], after_frame=frames[k + 1])


def _put_frame(store: Store, index: int) -> str:
    rgb = np.ascontiguousarray(draw(index)[:, :, ::-1])  # draw() paints BGR
    return store.put_frame(
        encode_webp(rgb), width=SCREEN[0], height=SCREEN[1], fmt="webp", pixel_hash=pixel_hash(rgb)
    )

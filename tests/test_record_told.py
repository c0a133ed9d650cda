"""Which readings of what a window told a step keeps (recorder/told.py's told_for_step):
before it, once its effect was drawn, and last before the next step; of each, only the
objects whose pixels stood still from when they were asked to when they count. The frames
are real frames in a FrameTimeline; the readings are what a toolkit's tree told, as values
(tests/test_objects_live.py records a real GTK form)."""

from __future__ import annotations

import zlib

import numpy as np

from deskreel.recorder.screen import FrameTimeline
from deskreel.recorder.told import MOST_FRAMES, ToldSeen, told_for_step
from deskreel.storage.told import Told, ToldObject

W, H = 160, 100
WINDOW = (0, 0, W, H)
STATUS = (10, 60, 100, 16)  # the status line a press writes
BUTTON = (10, 20, 60, 20)  # the button pressed, which a hover redraws
POINT = (30, 30)


def screen(*, status: int = 230, button: int = 200) -> np.ndarray:
    rgb = np.full((H, W, 3), 230, np.uint8)
    for (x, y, w, h), grey in ((STATUS, status), (BUTTON, button)):
        rgb[y : y + h, x : x + w] = grey
    return rgb


def timeline(*shots: tuple[float, np.ndarray], told: tuple[ToldSeen, ...] = ()) -> FrameTimeline:
    out = FrameTimeline()
    for t, rgb in shots:
        bgra = np.dstack([rgb[:, :, ::-1], np.full((H, W), 255, np.uint8)])
        raw = np.ascontiguousarray(bgra).tobytes()
        out.add(t, zlib.crc32(raw), W, H, raw)
    for seen in told:
        out.note_told(seen)
    return out


def reading(status: str, *, asked: float, took: float = 0.05, window=WINDOW) -> ToldSeen:
    """A reading of the window: a button that tells its text (as a hover would redraw it)
    and the status line."""
    objects = (
        ToldObject((0, 0), "push button", "Apply", BUTTON, text="Apply", length=5),
        ToldObject((0, 1), "label", "", STATUS, text=status, length=len(status)),
    )
    return ToldSeen(asked, asked + took, window, Told(window, objects))


def texts(told: Told | None) -> dict[str, str | None]:
    assert told is not None
    return {o.role: o.text for o in told.objects}


# A press at 1.0 (released 1.1) writes "Saved…" at 1.2, "Saved" at 2.0; the next step at 3.0.
PRESS, END, NEXT = 1.0, 1.1, 3.0


def test_a_step_keeps_its_windows_objects_before_after_and_last_before_the_next_step():
    shots = timeline(
        (0.0, screen()),
        (1.2, screen(status=100)),
        (2.0, screen(status=50)),
        told=(reading("", asked=0.4), reading("Saving…", asked=1.5), reading("Saved", asked=2.3)),
    )
    kept = told_for_step(shots, PRESS, (1.2, 2.0), POINT, NEXT)
    assert kept is not None
    assert texts(kept.before)["label"] == ""
    assert texts(kept.after)["label"] == "Saving…"
    assert texts(kept.later)["label"] == "Saved"


def test_an_object_redrawn_after_it_was_read_is_left_out_of_that_reading():
    """The pointer came onto the button after the reading: its hover look may tell
    otherwise; the status line, unchanged, stays."""
    shots = timeline(
        (0.0, screen()),
        (0.7, screen(button=150)),  # hovered
        (1.2, screen(status=100, button=150)),
        told=(reading("", asked=0.4), reading("Saving…", asked=1.5)),
    )
    kept = told_for_step(shots, PRESS, (1.2, 3.0), POINT, NEXT)
    assert kept is not None and kept.before is not None
    assert texts(kept.before) == {"label": ""}
    assert set(texts(kept.after)) == {"push button", "label"}


def test_a_reading_answered_after_its_frame_was_replaced_is_not_the_after_reading():
    shots = timeline(
        (0.0, screen()),
        (1.2, screen(status=100)),
        (1.5, screen(status=50)),
        told=(reading("", asked=0.4), reading("Saving…", asked=1.3, took=0.4)),
    )
    kept = told_for_step(shots, PRESS, (1.2, 1.5), POINT, NEXT)
    assert kept is not None and kept.after is None


def test_nothing_is_kept_of_another_window_a_step_without_a_point_or_past_the_next_step():
    elsewhere = (200, 0, 100, 100)
    shots = timeline(
        (0.0, screen()),
        (1.2, screen(status=100)),
        told=(
            reading("", asked=0.4, window=elsewhere),
            reading("Saving…", asked=1.5, window=elsewhere),
            reading("Saved", asked=3.5),  # after the next step began: it may hold its typing
        ),
    )
    assert told_for_step(shots, PRESS, (1.2, 2.9), POINT, NEXT) is None
    assert told_for_step(shots, PRESS, (1.2, 2.9), None, NEXT) is None


def test_a_reading_that_would_need_too_many_frames_is_not_kept():
    """A spinner beside the status line between the reading and the press: past
    MOST_FRAMES frames the reading is not compared with them all."""
    shots = [(0.0, screen())] + [
        (0.5 + i * 0.01, screen(button=100 + i % 2)) for i in range(MOST_FRAMES + 2)
    ]
    kept = told_for_step(
        timeline(*shots, told=(reading("", asked=0.45),)), PRESS, None, POINT, NEXT
    )
    assert kept is None

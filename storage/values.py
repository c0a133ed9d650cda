"""The values stored in a recording, as small frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from .grouping import InputSettings
from .vocabulary import Action
from .told import StepTold
from .widgets import Widget

__all__ = [
    "RawEvent",
    "EVENT_KINDS",
    "Evidence",
    "INPUT_SETTINGS",
    "SHED",
    "RESULT_FRAME_KEYS",
    "Recording",
    "Step",
    "Anchor",
    "Run",
    "StepResult",
]

EVENT_KINDS = ("key_down", "key_up", "button_down", "button_up", "motion")
INPUT_SETTINGS = "input"  # the key of a recording's `InputSettings` in its `extra`
SHED = "shed"  # the key of what the recorder left out to keep up: {what: how many steps}
NESTED = "nested"  # the key of the nested server it was recorded in: {server, size, program}


@dataclass(frozen=True, slots=True)
class RawEvent:
    """One input event as captured: seconds since the recording began, and what happened.

    Buttons follow X: 1 left, 2 middle, 3 right, 4/5 wheel up/down, 6/7 wheel left/right.
    `keysym` is the X keysym name of the key at its base level, whatever modifiers are held
    (`a` for shift+a, `1` for `!` on a US layout, `Shift_L`, `Return`); `char` is the text
    the key typed under the shift, CapsLock and AltGr state ("" when none).
    """

    t: float
    kind: str
    x: int | None = None
    y: int | None = None
    button: int | None = None
    keycode: int | None = None
    keysym: str | None = None
    char: str | None = None


@dataclass(frozen=True, slots=True)
class Anchor:
    """An image crop around a pointer target, and where the target sits inside it: `png` is
    the target as it looked before the pointer came near it, `hover_png` the same box hovered."""

    png: bytes
    box: tuple[int, int, int, int]  # x, y, w, h of the crop in the before-frame
    offset: tuple[int, int]  # target position inside the crop
    score: float | None = None  # best match of the crop in its own frame (1.0 = exact)
    margin: float | None = None  # best minus runner-up, elsewhere in the frame
    hover_png: bytes | None = None  # the same box as it looked hovered, just before the press;
    # None when it looked the same or is unknown
    # where the object under the target was drawn on the recorded screen, its own place
    # included (2 or more: twins, matching/twins.py); 0 without an outline; None: unknown
    twins: int | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a recording, with where it came from and what the screen showed."""

    step: int
    action: Action
    t_start: float = 0.0
    t_end: float = 0.0
    disabled: bool = False
    events: tuple[int, int] | None = None  # first and last raw-event sequence numbers
    before_frame: str | None = None  # frame hashes
    after_frame: str | None = None
    anchor: Anchor | None = None
    window_class: str | None = None
    window_title: str | None = None
    widget: Widget | None = None  # what the pointer was on, where the toolkit told it
    note: str | None = None  # a person's note on the step
    # whether the screen was seen to settle in `after_frame`: False when the next step
    # began (or the recording ended) while it still changed, so that the frame may show the
    # step's effect half drawn; None where not known (an import, an older recording)
    after_settled: bool | None = None
    # what the objects of the step's window told before it and once its effect was drawn
    told: StepTold | None = None


@dataclass(frozen=True, slots=True)
class Recording:
    """A recording's header, with its size as the list command shows it."""

    id: int
    name: str
    created: datetime
    source: str  # "recorder" or "script"
    screen: tuple[int, int] | None = None
    dpi: float | None = None
    keyboard_layout: str | None = None
    host: str | None = None
    deskreel_version: str | None = None
    steps: int = 0
    duration: float = 0.0
    size: int = 0  # bytes of events, actions, frames and anchors it owns
    extra: dict[str, Any] = field(default_factory=dict)
    uid: str | None = None  # the same in every store it is pushed to or pulled from
    instruction: str | None = None  # the task the recording demonstrates

    @property
    def input_settings(self) -> InputSettings:
        """What X said about input when it was recorded (its defaults where it said nothing:
        an imported script, a recording older than the stored settings)."""
        extra = self.extra if isinstance(self.extra, dict) else {}  # damaged: defaults
        return InputSettings.from_json(extra.get(INPUT_SETTINGS))


@dataclass(frozen=True, slots=True)
class Run:
    """One replay of a recording."""

    id: int
    recording_id: int
    started: datetime
    ended: datetime | None
    status: str  # running, passed, failed, aborted, error
    mode: str  # replay, verify, dry-run
    steps_passed: int = 0
    steps_failed: int = 0


class Evidence(StrEnum):
    """The keys of a step result's `details`: what a run found out about the step. They are
    strings too, so details stay plain JSON."""

    LATE_MS = "late_ms"  # ms from the step's deadline to its start
    LOCATE_MS = "locate_ms"  # ms spent finding its target
    ATTEMPTS = "attempts"  # looks at the screen for its target
    SEARCHED = "searched"  # the rungs that looked ("window+coarse+scales"), for a person
    RUNG = "rung"  # the rung of the ladder whose answer it was ("object", "coarse")
    TRAIL = "trail"  # the rungs and checks tried, in order: each a JSON object (Tried)
    CHECKS = "checks"  # --verify's checks, each a JSON object
    BEFORE = "replay_before"  # the frame of today's screen before the step
    AFTER = "replay_after"  # and after it settled
    DIFF = "diff"  # the frame that shows where it differed
    BEST_MATCH = "best_match"  # [x, y, w, h] of a refused target's best match today
    CROPS = "crops"  # paths of its crops, relative to the report


# The evidence that names frames (a replay's screens and its diff image).
RESULT_FRAME_KEYS = (Evidence.BEFORE, Evidence.AFTER, Evidence.DIFF)


@dataclass(frozen=True, slots=True)
class StepResult:
    """What happened to one step in a run."""

    step: int
    status: str  # passed, failed, skipped, aborted
    message: str = ""
    t_start: float = 0.0
    t_end: float = 0.0
    score: float | None = None
    margin: float | None = None
    scale: float | None = None
    shift: tuple[int, int] | None = None
    details: dict[str, Any] = field(default_factory=dict)  # Evidence -> JSON value

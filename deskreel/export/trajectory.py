"""One recording as trajectory lines: the screen the person saw, paired with the action.

Each enabled step becomes one line; its image is the step's before-frame (the last visually
distinct frame before the action began). `--scale-to` scales coordinates here, before the
dialect sees them, so every dialect speaks of the exported screen. A step whose coordinates
lie off the recorded screen is unexpressed in every dialect.

Every line has every key, and what is absent is empty rather than null ("", and [] for an
unknown screen): `datasets` infers a column's type from the first 10 MB of lines, and
pyarrow from each block, and a column that is null there cannot hold text or a list
later. The after-frame is the exception: `datasets` reads an empty image path as the
dataset's folder, so a missing one is null.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from deskreel.storage import Action, Recording, Step
from deskreel.storage.edit import off_screen

from ..errors import UserError
from .dialect import Context, Dialect, NotExpressible, Translation

__all__ = ["Report", "Scale", "Trajectory", "enabled_actions", "off_screen_step", "trajectory"]


@dataclass(frozen=True, slots=True)
class Scale:
    """Screen pixels of the recording to pixels of the exported screen, per axis."""

    source: tuple[int, int]
    target: tuple[int, int]

    def point(self, point: tuple[int, int]) -> tuple[int, int]:
        # min(): the last pixel may round up to the target's size; off-screen points never
        # get here (see off_screen_step)
        (x, y), (sw, sh), (tw, th) = point, self.source, self.target
        return (min(_half_up(x * tw / sw), tw - 1), min(_half_up(y * th / sh), th - 1))

    def action(self, action: Action) -> Action:
        changes: dict[str, Any] = {}
        for name in ("coordinate", "start_coordinate"):
            if getattr(action, name) is not None:
                changes[name] = self.point(getattr(action, name))
        if action.region is not None:
            x, y, w, h = action.region
            (tw, th), (sw, sh) = self.target, self.source
            x0, y0 = self.point((x, y))
            x1, y1 = min(_half_up((x + w) * tw / sw), tw), min(_half_up((y + h) * th / sh), th)
            changes["region"] = (x0, y0, max(1, x1 - x0), max(1, y1 - y0))
        return dataclasses.replace(action, **changes) if changes else action


@dataclass
class Report:
    """Steps a dialect could not express (their line's action is null), or expressed lossily."""

    unexpressed: Counter[tuple[str, str]] = field(default_factory=Counter)
    losses: Counter[tuple[str, str]] = field(default_factory=Counter)

    def count(self, action: Action, translation: Translation) -> None:
        for loss in dict.fromkeys(translation.losses):
            self.losses[(action.action, loss)] += 1

    def lines(self, dialect: str) -> list[str]:
        """One line per kind and reason, most frequent first; [] when nothing was lost."""
        out = [
            f"{dialect} cannot express {n} {kind} step{'s' * (n != 1)}: {reason} (action null)"
            for (kind, reason), n in self.unexpressed.most_common()
        ]
        out += [
            f"{dialect} expressed {n} {kind} step{'s' * (n != 1)} without: {reason}"
            for (kind, reason), n in self.losses.most_common()
        ]
        return out


@dataclass
class Trajectory:
    """A recording's lines, the frames they name (in first-use order) and what they hold."""

    lines: list[dict[str, Any]]
    frames: list[str]
    kinds: Counter[str]
    screen: tuple[int, int] | None


def trajectory(
    recording: Recording,
    steps: list[Step],
    dialect: Dialect,
    *,
    scale_to: tuple[int, int] | None = None,
    with_after: bool = False,
    report: Report,
) -> Trajectory:
    """The lines of one recording in `dialect`; disabled steps are left out."""
    enabled, actions = enabled_actions(recording, steps, scale_to=scale_to)
    screen = scale_to or recording.screen
    lines: list[dict[str, Any]] = []
    frames: dict[str, None] = {}
    kinds: Counter[str] = Counter()
    pointer: tuple[int, int] | None = None
    i = 0
    while i < len(enabled):
        step, action = enabled[i], actions[i]
        following = actions[i + 1] if i + 1 < len(actions) else None
        line, folds = _line(
            recording, step, action, dialect, Context(screen, pointer, following), report
        )
        done = enabled[i : i + 1 + folds]
        line["screen"] = list(screen) if screen else []
        line["instruction"] = recording.instruction or ""
        line["note"] = "\n".join(st.note for st in done if st.note)
        line["file_name"] = _image(step.before_frame, frames)
        if with_after:  # null when missing: datasets reads "" as a path (the folder)
            line["image_after_file_name"] = _image(done[-1].after_frame, frames) or None
        lines.append(_ordered(line))
        for act in actions[i : i + 1 + folds]:
            kinds[act.action] += 1
            if line["action"] is not None:  # an unexpressed step moves no pointer
                pointer = _pointer_after(act, pointer)
        i += 1 + folds
    return Trajectory(lines, list(frames), kinds, screen)


def enabled_actions(
    recording: Recording, steps: list[Step], *, scale_to: tuple[int, int] | None = None
) -> tuple[list[Step], list[Action]]:
    """The steps that are exported (not disabled) and their actions, scaled to `scale_to`."""
    scale = _scale(recording, scale_to)
    enabled = [st for st in steps if not st.disabled]
    return enabled, [scale.action(st.action) if scale else st.action for st in enabled]


def off_screen_step(recording: Recording, step: Step) -> str | None:
    """Why a step's coordinates are off its recording's screen, which no line can pair with
    the screen it shows (nor scale or normalise); None when they are on it."""
    why = off_screen(step.action, recording.screen)
    return f"its {why} of the recording" if why else None


def _line(
    recording: Recording, step: Step, action: Action, dialect: Dialect, ctx: Context, report: Report
) -> tuple[dict[str, Any], int]:
    line: dict[str, Any] = {
        "recording": recording.name,
        "step": step.step,
        "t": float(round(step.t_start, 6)),
    }
    try:
        if off := off_screen_step(recording, step):
            raise NotExpressible(off)
        translation = dialect.translate(action, ctx)
    except NotExpressible as why:
        report.unexpressed[(action.action, str(why))] += 1
        line.update(action=None, unexpressed=str(why))
        return line, 0
    report.count(action, translation)
    line.update(action=dialect.render(translation.items), unexpressed="")
    return line, int(translation.folds_next)


# The keys of a line, in order; `file_name` and `*_file_name` are the images, as
# `datasets`' imagefolder reads them (image, image_after).
LINE_KEYS = (
    "recording",
    "step",
    "t",
    "screen",
    "instruction",
    "note",
    "file_name",
    "image_after_file_name",
    "action",
    "unexpressed",
)


def _ordered(line: dict[str, Any]) -> dict[str, Any]:
    return {key: line[key] for key in LINE_KEYS if key in line}


def _image(frame: str | None, frames: dict[str, None]) -> str:
    if frame is None:
        return ""
    frames[frame] = None
    return f"frames/{frame}.png"


def _pointer_after(action: Action, pointer: tuple[int, int] | None) -> tuple[int, int] | None:
    return action.coordinate if action.is_pointer and action.coordinate else pointer


def _scale(recording: Recording, scale_to: tuple[int, int] | None) -> Scale | None:
    if scale_to is None:
        return None
    if recording.screen is None:
        raise UserError(
            f"recording {recording.name!r} has no screen size (an imported "
            f"script), so --scale-to cannot scale it: export it without "
            f"--scale-to"
        )
    return Scale(recording.screen, scale_to)


def _half_up(value: float) -> int:
    return int(value + 0.5)

"""Whether today's screen can hold a recording's steps that are replayed where they were
recorded (no anchor and no object to find them by, or --no-anchor): a point off today's
screen would land where X clamps it, on whatever is at its edge. Checked before any input;
a step found on today's screen by its anchor or object is not asked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from deskreel.matching import PARAMS
from deskreel.storage import Step
from deskreel.storage.monitors import MONITORS, Box, Layout

from .errors import ReplayError

__all__ = ["DesktopChange", "check_layout", "desktop_change", "told_scale"]

Point = tuple[int, int]


@dataclass(frozen=True, slots=True)
class DesktopChange:
    """What re-anchoring takes from today's desktop against the recording's: the scale
    their settings tell (told_scale), and how far each recorded monitor that is there
    today under its RandR name moved (its recorded box, the move)."""

    scale: float | None = None
    moved: tuple[tuple[Box, Point], ...] = ()

    def shift_at(self, point: Point) -> Point:
        """How far the monitor that showed the recorded `point` moved; (0, 0) if none."""
        x, y = point
        for (mx, my, mw, mh), shift in self.moved:
            if mx <= x < mx + mw and my <= y < my + mh:
                return shift
        return (0, 0)

    def said(self) -> list[str]:
        """What the replay says of it before the first step, one line each."""
        lines = [
            f"this desktop draws at {self.scale:g}x the recording's scale, as their Xft.dpi "
            f"tell: targets are looked for at that scale first"
        ] if self.scale is not None else []  # fmt: skip
        lines += [
            f"a monitor moved by {list(shift)} since the recording (it showed {box[2]}x"
            f"{box[3]}+{box[0]}+{box[1]}): its targets are looked for there first"
            for box, shift in self.moved
        ]
        return lines


def desktop_change(extra: Any, today: Layout) -> DesktopChange:
    """How today's desktop differs from the recording's, as the stored layout tells (none
    for a recording without one)."""
    recorded = Layout.from_json(extra.get(MONITORS)) if isinstance(extra, dict) else None
    if recorded is None:
        return DesktopChange()
    now = {m.name: m.box for m in today.monitors}
    moved = tuple(
        (m.box, shift)
        for m in recorded.monitors
        if m.name in now and (shift := _between(m.box, now[m.name])) != (0, 0)
    )
    return DesktopChange(told_scale(extra, today), moved)


def told_scale(extra: Any, today: Layout) -> float | None:
    """Today's scale against the recording's, as the two desktops' settings tell it
    (Layout.scale): the scale re-anchoring searches first (matching's Hints.told). None
    where the recording stored no layout, the two agree, or the ratio is beyond any
    scale matching can place parts at."""
    recorded = Layout.from_json(extra.get(MONITORS)) if isinstance(extra, dict) else None
    if recorded is None:
        return None
    ratio = round(today.scale() / recorded.scale(), 3)
    low, high = PARAMS.sane_scales
    return ratio if ratio != 1.0 and low <= ratio <= high else None


def _between(before: Box, after: Box) -> Point:
    return (after[0] - before[0], after[1] - before[1])


def check_layout(
    steps: list[Step],
    extra: Any,
    today: Callable[[], Layout],
    size: tuple[int, int],
    *,
    anchored: bool,
) -> None:
    """Refuse, naming the first such step and the monitor it was on, when one of `steps`
    acts off today's screen (`size`: its width and height) or between its monitors
    (`today`, read only then)."""
    shown: list[Layout] = []  # today's, once asked

    def layout() -> Layout:
        if not shown:
            shown.append(today())
        return shown[0]

    def off(point: tuple[int, int]) -> bool:
        if not _on(point, size):
            return True
        monitors = layout()
        return bool(monitors.monitors) and monitors.monitor_at(*point) is None

    for step in steps:
        if anchored and (step.anchor is not None or step.widget is not None):
            continue  # looked for on today's screen
        point = next((p for p in _points(step) if off(p)), None)
        if point is not None:
            raise ReplayError(_off_screen(step, point, extra, layout(), size, anchored))


def _off_screen(
    step: Step, point: tuple[int, int], extra: Any, today: Layout, size: tuple[int, int],
    anchored: bool,
) -> str:  # fmt: skip
    recorded = Layout.from_json(extra.get(MONITORS)) if isinstance(extra, dict) else None
    monitor = recorded.monitor_at(*point) if recorded is not None else None
    on = f" on the recording's monitor {monitor.describe()}" if monitor else ""
    todo = (
        f"it has nothing deskreel can find it by: replay on a screen that holds "
        f"{list(point)} (Xvfb -screen 0 WxHx24 for a bigger one)"
        if anchored
        else "replay without --no-anchor, to find its target on today's screen"
    )
    return (
        f"step {step.step} ({step.action.action}) acts at {list(point)}{on}, off today's "
        f"{size[0]}x{size[1]} screen ({today.describe()}): {todo}"
    )


def _points(step: Step) -> list[tuple[int, int]]:
    action = step.action
    return [p for p in (action.start_coordinate, action.coordinate) if p is not None]


def _on(point: tuple[int, int], size: tuple[int, int]) -> bool:
    return 0 <= point[0] < size[0] and 0 <= point[1] < size[1]

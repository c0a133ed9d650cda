"""Whether today's screen can hold a recording's steps that are replayed where they were
recorded (no anchor and no object to find them by, or --no-anchor): a point off today's
screen would land where X clamps it, on whatever is at its edge. Checked before any input;
a step found on today's screen by its anchor or object is not asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deskreel.storage import Step
from deskreel.storage.monitors import MONITORS, Layout

from .desktop import desktop_change
from .errors import ReplayError

__all__ = ["check_layout"]


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
        moved = _on_moved_monitor(step, extra, layout)
        if moved is not None:
            raise ReplayError(moved + _todo(step, anchored))


def _on_moved_monitor(step: Step, extra: Any, layout: Callable[[], Layout]) -> str | None:
    """Why a step replayed at its recorded place would act on another monitor's content
    (its monitor stands elsewhere today), or None."""
    points = _points(step)
    if not points or not isinstance(extra, dict) or MONITORS not in extra:
        return None
    change = desktop_change(extra, layout())
    for point in points:
        moved = next((m for m in change.moved if m.box == change.monitor_of(point)), None)
        if moved is not None:
            return (
                f"step {step.step} ({step.action.action}) acts at {list(point)}, where "
                f"{moved.describe()}: "
            )
    return None


def _todo(step: Step, anchored: bool) -> str:
    """What to do about a step whose recorded place holds something else today."""
    if anchored:
        return (
            "it has nothing deskreel can find it by: put the monitors back as they were "
            "(xrandr), or record it again"
        )
    return "replay without --no-anchor, to find its target on today's screen"


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

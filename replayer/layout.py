"""Whether today's screen can hold a recording's steps that are replayed where they were
recorded (no anchor and no object to find them by, or --no-anchor): a point off today's
screen would land where X clamps it, on whatever is at its edge. Checked before any input;
a step found on today's screen by its anchor or object is not asked."""

from __future__ import annotations

from typing import Any

from deskreel.storage import Step
from deskreel.storage.monitors import MONITORS, Layout

from .errors import ReplayError

__all__ = ["check_layout"]


def check_layout(
    steps: list[Step], extra: Any, today: Layout, size: tuple[int, int], *, anchored: bool
) -> None:
    """Refuse, naming the first such step and the monitor it was on, when one of `steps`
    acts off today's screen (`size`: its width and height; `today`: its monitors)."""
    for step in steps:
        if anchored and (step.anchor is not None or step.widget is not None):
            continue  # looked for on today's screen
        point = next((p for p in _points(step) if not _on(p, size)), None)
        if point is None:
            continue
        recorded = Layout.from_json(extra.get(MONITORS)) if isinstance(extra, dict) else None
        monitor = recorded.monitor_at(*point) if recorded is not None else None
        on = f" on the recording's monitor {monitor.describe()}" if monitor else ""
        raise ReplayError(
            f"step {step.step} ({step.action.action}) acts at {list(point)}{on}, off today's "
            f"{size[0]}x{size[1]} screen ({today.describe()}): replay on a screen that holds "
            f"it, or on a recording whose steps deskreel can find (not --no-anchor)"
        )


def _points(step: Step) -> list[tuple[int, int]]:
    action = step.action
    return [p for p in (action.start_coordinate, action.coordinate) if p is not None]


def _on(point: tuple[int, int], size: tuple[int, int]) -> bool:
    return 0 <= point[0] < size[0] and 0 <= point[1] < size[1]

"""Today's desktop against the recording's, as their stored layouts tell (storage's
`Layout`): the scale their settings ask for, and where each recorded monitor went. Both only
order re-anchoring's search (matching's `Hints`); neither decides a target."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from deskreel.matching import PARAMS, Hints
from deskreel.storage.monitors import MONITORS, Box, Layout

__all__ = ["DesktopChange", "MonitorHints", "Moved", "desktop_change", "told_scale"]

Point = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Moved:
    """A recorded monitor that stands elsewhere today, under its RandR name."""

    name: str
    box: Box  # where it was when recorded
    shift: Point  # how far it moved

    def describe(self) -> str:
        x, y, _, _ = self.box
        now = (x + self.shift[0], y + self.shift[1])
        return f"monitor {self.name} is at {_place(now)} today, at {_place((x, y))} when recorded"


@dataclass(frozen=True, slots=True)
class DesktopChange:
    """What re-anchoring takes from today's desktop against the recording's: the scale
    their settings ask for (told_scale, with the two scales it comes from), the recorded
    monitors, and those of them that moved."""

    scale: float | None = None
    scales: tuple[float, float] = (1.0, 1.0)  # the recording's and today's (Layout.scale)
    monitors: tuple[Box, ...] = ()
    moved: tuple[Moved, ...] = ()

    def monitor_of(self, point: Point) -> Box | None:
        """The recorded monitor that showed `point`."""
        return next((box for box in self.monitors if _holds(box, point)), None)

    def shift_at(self, point: Point) -> Point:
        """How far the monitor that showed the recorded `point` moved; (0, 0) if none."""
        return next((m.shift for m in self.moved if _holds(m.box, point)), (0, 0))

    def said(self) -> list[str]:
        """What the replay says of it before the first step, one line each."""
        then, now = self.scales
        lines = [
            f"today's desktop settings ask for {now:g}x, the recording's for {then:g}x "
            f"(Xft.dpi over 96, or the window scale): targets are looked for at "
            f"{self.scale:g}x first"
        ] if self.scale is not None else []  # fmt: skip
        lines += [f"{m.describe()}: its targets are looked for there first" for m in self.moved]
        return lines


def desktop_change(extra: Any, today: Layout) -> DesktopChange:
    """How today's desktop differs from the recording's, as the stored layout tells (none
    for a recording without one)."""
    recorded = _recorded(extra)
    if recorded is None:
        return DesktopChange()
    now = {m.name: m.box for m in today.monitors}
    moved = tuple(
        Moved(m.name, m.box, shift)
        for m in recorded.monitors
        if m.name in now and (shift := _between(m.box, now[m.name])) != (0, 0)
    )
    return DesktopChange(
        told_scale(extra, today),
        (recorded.scale(), today.scale()),
        tuple(m.box for m in recorded.monitors),
        moved,
    )


def told_scale(extra: Any, today: Layout) -> float | None:
    """Today's scale against the recording's, as the two desktops' settings tell it
    (Layout.scale): the scale re-anchoring searches first (matching's Hints.told). None
    where the recording stored no layout, the two agree, or the ratio is beyond any
    scale matching can place parts at."""
    recorded = _recorded(extra)
    if recorded is None:
        return None
    ratio = round(today.scale() / recorded.scale(), 3)
    low, high = PARAMS.sane_scales
    return ratio if ratio != 1.0 and low <= ratio <= high else None


class MonitorHints:
    """The hints a replay gives each locate() where monitors moved: a target on a moved
    monitor is looked for first where the monitor went, and a window's shift learned from
    a target is kept for the targets of the same monitor (a window on another monitor did
    not move with it). Where no monitor moved, the hints are the learned ones, whole."""

    def __init__(self, change: DesktopChange, first: Hints) -> None:
        self.change, self.hints = change, first
        self._taught_on: Box | None = None  # the recorded monitor the shift was learned on

    def at(self, target: Point) -> Hints:
        """The hints for a target recorded at `target`."""
        change = self.change
        if not change.moved:
            return self.hints
        mx, my = change.shift_at(target)
        learned = self.hints.shift if change.monitor_of(target) == self._taught_on else (0, 0)
        return replace(self.hints, shift=(learned[0] + mx, learned[1] + my))

    def learn(self, learned: Hints, used: Hints, target: Point) -> None:
        """Keep what a locate() told (matching's hints_after of `used`): its shift made
        relative to the monitor of `target`; nothing where it told nothing."""
        if learned is used:
            return
        change = self.change
        if change.moved and learned.scale == 1.0:
            mx, my = change.shift_at(target)
            learned = replace(learned, shift=(learned.shift[0] - mx, learned.shift[1] - my))
            self._taught_on = change.monitor_of(target)
        self.hints = learned


def _recorded(extra: Any) -> Layout | None:
    return Layout.from_json(extra.get(MONITORS)) if isinstance(extra, dict) else None


def _holds(box: Box, point: Point) -> bool:
    x, y, w, h = box
    return x <= point[0] < x + w and y <= point[1] < y + h


def _between(before: Box, after: Box) -> Point:
    return (after[0] - before[0], after[1] - before[1])


def _place(point: Point) -> str:
    return f"{point[0]:+d}{point[1]:+d}"  # as X geometries write a place

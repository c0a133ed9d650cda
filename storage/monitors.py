"""The monitors a recording's X screen was shown on, and the scale the desktop told: facts
the X server and the desktop's settings give (xsession/monitors.py reads them), stored in
a recording's `extra` under MONITORS."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["MONITORS", "Layout", "Monitor"]

MONITORS = "monitors"  # the key of a recording's `Layout` in its `extra`

Box = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Monitor:
    """One monitor: its RandR name, its box on the X screen, whether it is the primary one,
    and its physical size in mm where the server knows it."""

    name: str
    box: Box
    primary: bool = False
    mm: tuple[int, int] | None = None

    def dpi(self) -> float | None:
        """Its pixels per inch across, where its physical width is known."""
        if self.mm is None or self.mm[0] <= 0:
            return None
        return round(self.box[2] / (self.mm[0] / 25.4), 1)

    def describe(self) -> str:
        x, y, w, h = self.box
        text = f"{self.name} {w}x{h}+{x}+{y}"
        return text + (" primary" if self.primary else "")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "box": list(self.box), "primary": self.primary} | (
            {"mm": list(self.mm)} if self.mm else {}
        )

    @classmethod
    def from_json(cls, data: Any) -> Monitor | None:
        """The monitor `to_json` wrote; None when it cannot be read as one."""
        try:
            box, mm, primary = data["box"], data.get("mm"), data.get("primary", False)
            if not isinstance(box, list) or not isinstance(primary, bool):
                return None
            x, y, w, h = (_whole(v) for v in box)
            size = (_whole(mm[0]), _whole(mm[1])) if isinstance(mm, list) and mm else None
            return cls(str(data["name"]), (x, y, w, h), primary, size)
        except (KeyError, TypeError, ValueError, IndexError, OverflowError):
            return None


DEFAULT_DPI = 96.0  # what Xft, GTK and Qt draw at where the desktop tells no Xft.dpi


@dataclass(frozen=True, slots=True)
class Layout:
    """The monitors (left to right, then top to bottom) and the desktop's scale: Xft.dpi
    (the X resources' or the XSETTINGS manager's, which GTK and Qt follow for text) and the
    settings manager's window scale (Gdk/WindowScalingFactor); None where nothing told."""

    monitors: tuple[Monitor, ...]
    xft_dpi: float | None = None
    window_scale: int | None = None
    # GNOME's settings manager's Gdk/UnscaledDPI: where it is told, Xft/DPI holds the window
    # scale already (gsd); where not (xfsettingsd), the window scale comes on top of it
    unscaled_dpi: float | None = None

    def monitor_at(self, x: int, y: int) -> Monitor | None:
        """The monitor showing the screen's point (x, y); None: none (between monitors)."""
        for monitor in self.monitors:
            mx, my, mw, mh = monitor.box
            if mx <= x < mx + mw and my <= y < my + mh:
                return monitor
        return None

    def scale(self) -> float:
        """How much bigger than at X's 96 dpi the desktop asks its toolkits to draw: Xft.dpi
        over 96 (96 where nothing told it), times the window scale where Xft.dpi does not
        hold it already (`unscaled_dpi`); 1 where nothing was told."""
        text = (self.xft_dpi or DEFAULT_DPI) / DEFAULT_DPI
        if self.window_scale is not None and self.unscaled_dpi is None:
            return text * self.window_scale
        return text

    def describe(self) -> str:
        """One line: `monitors: DUMMY0 1280x800+0+0 primary, DUMMY1 1280x800+1280+0; Xft.dpi
        96`."""
        text = "monitors: " + (", ".join(m.describe() for m in self.monitors) or "none told")
        if self.xft_dpi is not None:
            text += f"; Xft.dpi {self.xft_dpi:g}"
        if self.window_scale is not None:
            text += f"; window scale {self.window_scale}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "monitors": [m.to_json() for m in self.monitors],
            "xft_dpi": self.xft_dpi,
            "window_scale": self.window_scale,
            "unscaled_dpi": self.unscaled_dpi,
        }

    @classmethod
    def from_json(cls, data: Any) -> Layout | None:
        """The layout `to_json` wrote (by this or another deskreel); None when it cannot be
        read as one."""
        if not isinstance(data, dict) or not isinstance(data.get("monitors"), list):
            return None
        monitors = [Monitor.from_json(m) for m in data["monitors"]]
        dpi, scale = _finite(data.get("xft_dpi")), data.get("window_scale")
        unscaled = _finite(data.get("unscaled_dpi"))
        return cls(
            tuple(m for m in monitors if m is not None),
            dpi if dpi is not None and dpi > 0 else None,
            scale if isinstance(scale, int) and not isinstance(scale, bool) and scale > 0 else None,
            unscaled if unscaled is not None and unscaled > 0 else None,
        )


def _finite(value: Any) -> float | None:
    """A finite number from JSON as a float; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float
        return None
    return number if math.isfinite(number) else None


def _whole(value: Any) -> int:
    """An int from JSON: ValueError for anything else (a string, a float, a bool)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(value)
    return value

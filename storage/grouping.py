"""How raw input groups into actions: what the X server and the desktop say about input
(`InputSettings`, stored with each recording) and the thresholds that are our own choice.

The recorder reduces events with both; the replayer keeps what makes an action that action
at any speed (two separate clicks further apart than the multi-click time, a hover's rest).
Where X can tell us a fact (how long a key is held before it repeats, which keys repeat,
the desktop's double-click time) the fact decides, not a threshold standing in for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = [
    "DEFAULT_SETTINGS",
    "DEFAULT_THRESHOLDS",
    "InputSettings",
    "SERVER_TICK",
    "SETTING_LIMITS",
    "Thresholds",
    "fits",
]

# X server timestamps count milliseconds: events sharing one have one time (ClockSync), and
# events a tick apart are at least this far apart.
SERVER_TICK = 0.001
_KEYCODES = 256  # the per-key repeat mask: one bit per keycode, 32 bytes
# The numeric settings and the values they may take: what a desktop, a damaged recording
# or `deskreel reduce --NAME` gives outside these is not a keyboard or a mouse anyone has
# (a 20 s double-click time would hold every replay up between two clicks).
SETTING_LIMITS: dict[str, tuple[float, float]] = {
    "repeat_delay": (0.01, 10.0),  # s
    "repeat_interval": (0.001, 10.0),  # s
    "multi_click_time": (0.01, 5.0),  # s
    "multi_click_distance": (0.0, 100.0),  # px
}


@dataclass(frozen=True, slots=True)
class InputSettings:
    """What the X server (XKB) and the desktop (XSETTINGS) said about input when a recording
    began. Defaults are the X server's own (and Tk's multi-click rule, which holds where
    no settings manager runs); recordings made before deskreel stored these get them."""

    repeat_delay: float = 0.66  # s a key is held before the server repeats it
    repeat_interval: float = 0.04  # s between two repeats (the rate's inverse)
    repeat: bool = True  # XKB's RepeatKeys control (`xset r off` turns it off)
    repeating: frozenset[int] | None = None  # keycodes whose repeat bit is set; None: all
    # The server sends a release before each repeated press (X servers before XInput 2,
    # 2009); since then a repeat is a press alone, and a release is always a release.
    repeat_releases: bool = False
    multi_click_time: float = 0.5  # s press to press for a double click (Net/DoubleClickTime)
    multi_click_distance: float = 5.0  # px a double click's presses may stray
    sources: tuple[str, ...] = ()  # what told us: "xkb", "core", "xsettings"; () defaults

    def repeats(self, keycode: int | None) -> bool:
        """Whether the server autorepeats this key while it is held."""
        if not self.repeat:
            return False
        return self.repeating is None or keycode is None or keycode in self.repeating

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        data["repeating"] = None if self.repeating is None else _mask_hex(self.repeating)
        data["sources"] = list(self.sources)
        return data

    @classmethod
    def from_json(cls, data: Any) -> InputSettings:
        """The settings a recording stored; what is missing or unreadable keeps its default
        (a recording made before they were stored has none)."""
        if not isinstance(data, dict):
            return DEFAULT_SETTINGS
        settings = DEFAULT_SETTINGS.with_values(
            **{name: data[name] for name in SETTING_LIMITS if name in data}
        )
        for name in ("repeat", "repeat_releases"):
            if isinstance(data.get(name), bool):
                settings = replace(settings, **{name: data[name]})
        repeating = _hex_keys(data.get("repeating"))
        sources = data.get("sources")
        return replace(
            settings,
            repeating=repeating,
            sources=tuple(str(s) for s in sources) if isinstance(sources, list) else (),
        )

    def with_values(self, **values: Any) -> InputSettings:
        """These settings with those of `values` that are numbers within SETTING_LIMITS;
        any other value keeps the setting as it is."""
        # Any, not float: `fits` passes only the float settings' names, which mypy cannot see
        fit: dict[str, Any] = {
            name: float(value) for name, value in values.items() if fits(name, value)
        }
        return replace(self, **fit)

    def with_mask(self, mask: bytes) -> InputSettings:
        """These settings with the per-key repeat bits of a 32-byte mask (XKB and core)."""
        return replace(self, repeating=_mask_keys(mask))


DEFAULT_SETTINGS = InputSettings()


def fits(name: str, value: Any) -> bool:
    """Whether `value` may be the setting `name` (a number within its SETTING_LIMITS)."""
    low, high = SETTING_LIMITS[name]
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and low <= value <= high
    )


def _mask_hex(keys: frozenset[int]) -> str:
    mask = bytearray(_KEYCODES // 8)
    for code in keys:
        if 0 <= code < _KEYCODES:
            mask[code // 8] |= 1 << (code % 8)
    return mask.hex()


def _mask_keys(mask: bytes) -> frozenset[int]:
    return frozenset(
        code for code in range(min(len(mask) * 8, _KEYCODES)) if mask[code // 8] >> (code % 8) & 1
    )


def _hex_keys(text: Any) -> frozenset[int] | None:
    if not isinstance(text, str):
        return None
    try:
        return _mask_keys(bytes.fromhex(text))
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Our own choices of how raw events group, where X has no fact to tell: distances
    (pixels) and times (seconds). `deskreel reduce --NAME` overrides each."""

    drag_distance: float = 5  # px: a press and release further apart than this is a drag
    type_pause: float = 1.5  # s: a pause longer than this ends a typing burst
    hover_time: float = 1.0  # s: the pointer at rest this long (not clicked) is `mouse_move`
    scroll_gap: float = 0.5  # s: wheel ticks at most this far apart merge into one scroll
    scroll_distance: float = 10  # px: how far a scroll's ticks may stray from its first
    idle: float = 2.0  # s: a gap at least this long between actions becomes `wait`
    long_press: float = 1.0  # s: left button held still this long is mouse down + up


DEFAULT_THRESHOLDS = Thresholds()

"""Carry out one vocabulary action through an Injector.

Gesture timings here are fixed, not scaled by --speed: a double click must stay inside the
multi-click time and a drag must give the application motion to follow, at any speed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from deskreel.storage import Action
from deskreel.storage.vocabulary import SECRET

from .xinput import Injector

__all__ = ["BUTTONS", "WHEEL", "Gestures", "execute", "expand_env", "missing_env"]

# {{env:NAME}} in scripts; {{secret:N}} where `record --redact-typing` hid typed text
PLACEHOLDER = re.compile(r"\{\{env:([A-Za-z_][A-Za-z0-9_]*)\}\}|" + SECRET.pattern)

BUTTONS = {
    "left_click": 1,
    "middle_click": 2,
    "right_click": 3,
    "double_click": 1,
    "triple_click": 1,
}
CLICK_COUNT = {"double_click": 2, "triple_click": 3}
WHEEL = {"up": 4, "down": 5, "left": 6, "right": 7}


@dataclass(frozen=True, slots=True)
class Gestures:
    """Timings of the motions inside one action (seconds)."""

    click_hold: float = 0.02  # button down to up
    multi_click_gap: float = 0.06  # up to next down; well inside any multi-click time
    drag_steps: int = 12  # motion events between press and release
    drag_step_gap: float = 0.012
    scroll_gap: float = 0.015  # between wheel clicks
    typing_interval: float = 0.0  # between typed characters
    settle: float = 0.005  # after moving onto a target, before pressing


def execute(
    action: Action,
    injector: Injector,
    *,
    gestures: Gestures = Gestures(),
    target: tuple[int, int] | None = None,
    scale: float = 1.0,
    log: Callable[[str], None] = lambda message: None,
) -> str:
    """Perform `action`; `target` (and `scale`) come from re-anchoring. Returns a note."""
    kind = action.action
    point = target or action.target
    if kind in BUTTONS:
        with _modifiers(injector, action.with_key):
            _move(injector, point, gestures)
            for i in range(CLICK_COUNT.get(kind, 1)):
                if i:
                    injector.pause(gestures.multi_click_gap)
                _click(injector, BUTTONS[kind], gestures)
    elif kind == "left_click_drag":
        _drag(injector, action, point, gestures, scale)
    elif kind == "mouse_move":
        assert point is not None  # the vocabulary requires a mouse_move's coordinate
        injector.move(*point)
    elif kind in ("left_mouse_down", "left_mouse_up"):
        if action.coordinate is not None:
            _move(injector, target or action.coordinate, gestures)
        (injector.button_down if kind == "left_mouse_down" else injector.button_up)(1)
    elif kind == "scroll":
        with _modifiers(injector, action.with_key):
            _move(injector, point, gestures)
            for i in range(action.scroll_amount or 1):
                if i:
                    injector.pause(gestures.scroll_gap)
                _click(injector, WHEEL[action.scroll_direction or "down"], gestures, hold=0.0)
    elif kind == "key":
        held = injector.hold(injector.chord_keycodes(action.text or ""))
        try:
            injector.pause(action.duration or 0.0)
        finally:
            injector.let_go(held)
    elif kind == "type":
        injector.type_text(expand_env(action.text or ""), interval=gestures.typing_interval)
    elif kind == "cursor_position":
        x, y = injector.pointer()
        log(f"pointer at [{x}, {y}]")
        return f"pointer at [{x}, {y}]"
    # wait: its time is in the schedule; screenshot: a checkpoint, checked by --verify
    return ""


def expand_env(text: str) -> str:
    """Placeholders become their variables' values, at the moment of typing and nowhere
    else: `{{env:NAME}}` is $NAME, `{{secret:N}}` is $DESKREEL_SECRET_N."""
    return PLACEHOLDER.sub(lambda m: os.environ[_variable(m)], text)


def missing_env(text: str) -> list[str]:
    """The variables that `text`'s placeholders need and that are not set."""
    return [name for name in map(_variable, PLACEHOLDER.finditer(text)) if name not in os.environ]


def _variable(match: re.Match[str]) -> str:
    return match.group(1) or f"DESKREEL_SECRET_{match.group(2)}"


class _modifiers:
    """Hold a with_key chord around a gesture, releasing it on every exit path."""

    def __init__(self, injector: Injector, chord: str | None):
        self.injector, self.chord = injector, chord
        self.held: list[int] = []

    def __enter__(self) -> None:
        if self.chord:
            self.held = self.injector.hold(self.injector.chord_keycodes(self.chord))

    def __exit__(self, *exc: object) -> None:
        self.injector.let_go(self.held)


def _move(injector: Injector, point: tuple[int, int] | None, gestures: Gestures) -> None:
    if point is not None:
        injector.move(*point)
        injector.pause(gestures.settle)


def _click(
    injector: Injector, button: int, gestures: Gestures, *, hold: float | None = None
) -> None:
    injector.button_down(button)
    injector.pause(gestures.click_hold if hold is None else hold)
    injector.button_up(button)


def _drag(
    injector: Injector,
    action: Action,
    start: tuple[int, int] | None,
    gestures: Gestures,
    scale: float,
) -> None:
    """The end moves with the start: same vector, scaled with the anchor's scale."""
    assert start is not None and action.start_coordinate and action.coordinate
    dx = round((action.coordinate[0] - action.start_coordinate[0]) * scale)
    dy = round((action.coordinate[1] - action.start_coordinate[1]) * scale)
    with _modifiers(injector, action.with_key):
        _move(injector, start, gestures)
        injector.button_down(1)
        try:
            for i in range(1, gestures.drag_steps + 1):
                injector.pause(gestures.drag_step_gap)
                injector.move(
                    round(start[0] + dx * i / gestures.drag_steps),
                    round(start[1] + dy * i / gestures.drag_steps),
                )
            injector.pause(gestures.drag_step_gap)
        finally:
            injector.button_up(1)

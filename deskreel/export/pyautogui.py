"""The `pyautogui` dialect: OSWorld-style Python code strings.

OSWorld runs each string after `import pyautogui; import time`. Several statements in one
step are joined by "; ".
"""

from __future__ import annotations

from storage import Action, parse_chord

from .dialect import (
    Context,
    Dialect,
    NotExpressible,
    Translation,
    held,
    modifiers,
    one,
    python_args,
    seconds,
    xy,
)
from .keynames import pyautogui_key

DRAG_SECONDS = 0.5  # dragTo needs time for applications to see a drag, not a jump
_CLICKS = {
    "left_click": "click",
    "right_click": "click",
    "middle_click": "click",
    "double_click": "doubleClick",
    "triple_click": "tripleClick",
}
_DOWN, _UP = "pyautogui.keyDown({})", "pyautogui.keyUp({})"
_BUTTONS = {"right_click": "right", "middle_click": "middle"}
_SCROLLS = {
    "up": ("scroll", 1),
    "down": ("scroll", -1),
    "left": ("hscroll", -1),
    "right": ("hscroll", 1),
}


def translate(action: Action, ctx: Context) -> Translation:
    kind = action.action
    if kind == "key":
        return one(*_key(action))
    if kind == "type":
        return one(f"pyautogui.write({python_args(_ascii(action.text or ''))})")
    if kind == "wait":
        return one(f"time.sleep({seconds(action.duration or 0.0)})")
    if kind == "mouse_move":
        return one(f"pyautogui.moveTo({python_args(*xy(action.coordinate))})")
    if kind in _MISSING:
        raise NotExpressible(_MISSING[kind])
    # A drag starts with a plain move: modifiers are held from the press to the release.
    start = action.start_coordinate
    prelude = [f"pyautogui.moveTo({python_args(*start)})"] if start else []
    keys = [pyautogui_key(k) for k in modifiers(action.with_key)]
    return one(*prelude, *held(keys, _pointer(action), down=_DOWN, up=_UP))


def _pointer(action: Action) -> list[str]:
    kind, at = action.action, action.coordinate
    if kind in _CLICKS:
        button = {"button": _BUTTONS[kind]} if kind in _BUTTONS else {}
        return [f"pyautogui.{_CLICKS[kind]}({python_args(*xy(at), **button)})"]
    if kind == "left_click_drag":
        return [f"pyautogui.dragTo({python_args(*xy(at), duration=DRAG_SECONDS, button='left')})"]
    if kind in ("left_mouse_down", "left_mouse_up"):
        name = "mouseDown" if kind == "left_mouse_down" else "mouseUp"
        return [f"pyautogui.{name}({python_args(*(at or ()), button='left')})"]
    if kind == "scroll":
        name, sign = _SCROLLS[action.scroll_direction or "down"]
        x, y = xy(at)
        clicks = sign * (action.scroll_amount or 1)
        return [f"pyautogui.{name}({python_args(clicks, x=x, y=y)})"]
    raise NotExpressible(f"pyautogui has no {kind} action")


def _key(action: Action) -> list[str]:
    names = [pyautogui_key(k) for k in parse_chord(action.text or "").keys]
    if action.duration:
        return held(names, [f"time.sleep({seconds(action.duration)})"], down=_DOWN, up=_UP)
    if len(names) == 1:
        return [f"pyautogui.press({python_args(names[0])})"]
    return [f"pyautogui.hotkey({python_args(*names)})"]


def _ascii(text: str) -> str:
    for char in text:
        if not (" " <= char <= "~" or char in "\n\t"):
            raise NotExpressible("pyautogui.write types ASCII only")
    return text


_MISSING = {
    "screenshot": "the agent sees the screen after every action; there is no screenshot action",
    "cursor_position": "the code's return value never reaches the agent",
}

DIALECT = Dialect(
    name="pyautogui",
    translate=translate,
    join="; ",
    summary="an OSWorld-style Python code string: `pyautogui.click(x, y)` (`button='right'`/"
    "`'middle'`), `doubleClick`, `tripleClick`, `moveTo`, `moveTo(x0, y0); "
    "dragTo(x1, y1, duration=0.5, button='left')`, `mouseDown`/`mouseUp`, "
    "`scroll(n, x=, y=)` (positive up), `hscroll(n, x=, y=)` (positive right), "
    "`write('...')`, `press('enter')`, `hotkey('ctrl', 's')`, `keyDown`/`keyUp` with "
    "`time.sleep(s)` for held keys, `time.sleep(s)` for waits. Statements are joined "
    "by `; `; run them after `import pyautogui; import time`.",
    notes=(
        "Keys use pyautogui's names (`enter`, `esc`, `backspace`, `pageup`, `win` for "
        "super, `f5`); modifiers held during a click, drag or scroll are `keyDown`/`keyUp` "
        "around it.",
        f"Drags take {DRAG_SECONDS:g} s (`dragTo(..., duration={DRAG_SECONDS:g})`), "
        "whatever the recording took.",
        "`pyautogui.write` types ASCII only: text with other characters is not expressible "
        "(no clipboard fallback, which would overwrite the person's clipboard).",
    ),
)

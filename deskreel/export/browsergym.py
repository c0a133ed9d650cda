"""The `browsergym` dialect: BrowserGym's coordinate actions as Python call strings (seed 001).

Keys use Playwright's names; modifiers around a click, drag or scroll are held with
`keyboard_down`/`keyboard_up`. Several calls in one step are joined by newlines: BrowserGym
runs such a step only in its multiaction mode (`HighLevelActionSet(multiaction=True)`);
otherwise it refuses it ("Received a multi-action").
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
    xy,
)
from .keynames import playwright_key

PIXELS_PER_CLICK = 100  # one wheel click as scroll(delta_x, delta_y) pixels
_BUTTONS = {"left_click": "left", "right_click": "right", "middle_click": "middle"}
_DOWN, _UP = "keyboard_down({})", "keyboard_up({})"
_DELTAS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def translate(action: Action, ctx: Context) -> Translation:
    kind = action.action
    if kind == "key":
        return one(*_key(action))
    if kind == "type":
        return one(f"keyboard_type({python_args(action.text)})")
    if kind == "wait":
        return one(f"noop({_ms(action.duration or 0.0)})")
    if kind == "mouse_move":
        return one(f"mouse_move({python_args(*xy(action.coordinate))})")
    # The pointer goes to a scroll's place first: modifiers are held around the wheel only.
    move = kind == "scroll" and ctx.pointer != action.coordinate
    prelude = [f"mouse_move({python_args(*xy(action.coordinate))})"] if move else []
    keys = [playwright_key(k) for k in modifiers(action.with_key)]
    return one(*prelude, *held(keys, _pointer(action, ctx), down=_DOWN, up=_UP))


def _pointer(action: Action, ctx: Context) -> list[str]:
    kind = action.action
    if kind in _MISSING:
        raise NotExpressible(_MISSING[kind])
    if kind in ("left_mouse_down", "left_mouse_up"):
        at = action.coordinate or ctx.pointer
        if at is None:
            raise NotExpressible(
                f"{kind} without a coordinate needs the pointer position, "
                f"which no earlier step gives"
            )
        name = "mouse_down" if kind == "left_mouse_down" else "mouse_up"
        return [f"{name}({python_args(*at)})"]
    at = xy(action.coordinate)
    if kind in _BUTTONS:
        button = {} if kind == "left_click" else {"button": _BUTTONS[kind]}
        return [f"mouse_click({python_args(*at, **button)})"]
    if kind == "double_click":
        return [f"mouse_dblclick({python_args(*at)})"]
    if kind == "left_click_drag":
        return [f"mouse_drag_and_drop({python_args(*xy(action.start_coordinate), *at)})"]
    if kind == "scroll":
        dx, dy = _DELTAS[action.scroll_direction or "down"]
        pixels = (action.scroll_amount or 1) * PIXELS_PER_CLICK
        return [f"scroll({python_args(dx * pixels, dy * pixels)})"]
    raise NotExpressible(f"BrowserGym has no {kind} action")


def _key(action: Action) -> list[str]:
    names = [playwright_key(k) for k in parse_chord(action.text or "").keys]
    if not action.duration:
        return [f"keyboard_press({python_args('+'.join(names))})"]
    return held(names, [f"noop({_ms(action.duration)})"], down=_DOWN, up=_UP)


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


_MISSING = {
    "triple_click": "BrowserGym has no triple click (three mouse_click calls are three "
    "single clicks to the page)",
    "screenshot": "the agent sees the page after every action; there is no screenshot action",
    "cursor_position": "BrowserGym has no way to ask for the pointer position",
}

DIALECT = Dialect(
    name="browsergym",
    translate=translate,
    join="\n",
    summary="a BrowserGym coordinate action as a Python call string: `mouse_click(x, y, "
    "button=...)`, `mouse_dblclick`, `mouse_move`, `mouse_drag_and_drop(from_x, "
    "from_y, to_x, to_y)`, `mouse_down`/`mouse_up`, `scroll(delta_x, delta_y)`, "
    "`keyboard_press('Control+a')`, `keyboard_down`/`keyboard_up`, "
    "`keyboard_type('...')`, `noop(wait_ms)`. Several calls are joined by newlines.",
    notes=(
        "A step of several calls (newline-separated) needs BrowserGym's multiaction mode, "
        "`HighLevelActionSet(..., multiaction=True)`: without it BrowserGym refuses the "
        'step ("Received a multi-action, only single-actions are allowed").',
        f"`scroll` deltas are pixels: {PIXELS_PER_CLICK} per wheel click, positive right "
        "and down. BrowserGym scrolls where the pointer is, so a `mouse_move` comes first "
        "unless the pointer is already there.",
        "Coordinates are screen pixels; BrowserGym reads them as page (viewport) pixels, "
        "which match only when the page fills the screen.",
        "Keys use Playwright's names (`Enter`, `Backspace`, `ArrowLeft`, `PageUp`, "
        "`Control`, `Meta` for super); text is a Python string literal.",
        "A held key is `keyboard_down`, `noop(ms)`, `keyboard_up`; modifiers held during a "
        "click, drag or scroll wrap it in `keyboard_down`/`keyboard_up`.",
    ),
)

"""The `browsergym` dialect: BrowserGym's coordinate actions as Python call strings.

These calls are BrowserGym's `coord` action subset (`HighLevelActionSet(subsets=["coord"],
multiaction=True)`), not seed 001's default set, whose element-id actions need a page's
DOM. Keys use Playwright's names; modifiers around a click, drag or scroll are held with
`keyboard_down`/`keyboard_up`. Several calls in one step are joined by newlines, which
BrowserGym runs only in its multiaction mode.
"""

from __future__ import annotations

from deskreel.storage import Action

from .dialect import (
    Context,
    Dialect,
    NotExpressible,
    Translation,
    held,
    held_losses,
    one,
    python_args,
    xy,
)
from .keynames import PLAYWRIGHT, KeyNames

PIXELS_PER_CLICK = 100  # one wheel click as scroll_at(x, y, delta_x, delta_y) pixels
KEYS = KeyNames("Playwright", PLAYWRIGHT)
_BUTTONS = {"left_click": "left", "right_click": "right", "middle_click": "middle"}
_DOWN, _UP = "keyboard_down({})", "keyboard_up({})"
_DELTAS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


def translate(action: Action, ctx: Context) -> Translation:
    kind = action.action
    if kind == "key":
        return _key(action)
    if kind == "type":
        return one(f"keyboard_type({python_args(action.text)})")
    if kind == "wait":
        return one(f"noop({_ms(action.duration or 0.0)})")
    if kind == "mouse_move":
        return one(f"mouse_move({python_args(*xy(action.coordinate))})")
    keys = KEYS.chord(action.with_key)
    return one(*held(keys.names, _pointer(action, ctx), down=_DOWN, up=_UP), losses=keys.losses)


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
        return [f"scroll_at({python_args(*at, dx * pixels, dy * pixels)})"]
    raise NotExpressible(f"BrowserGym has no {kind} action")


def _key(action: Action) -> Translation:
    from deskreel.storage import parse_chord

    keysyms = parse_chord(action.text or "").keys
    keys = KEYS.keys(keysyms)
    if not action.duration:
        return one(f"keyboard_press({python_args('+'.join(keys.names))})", losses=keys.losses)
    calls = held(keys.names, [f"noop({_ms(action.duration)})"], down=_DOWN, up=_UP)
    return one(*calls, losses=keys.losses + held_losses(keysyms))


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
    summary="BrowserGym `coord` actions as a Python call string: `mouse_click(x, y, "
    "button=...)`, `mouse_dblclick`, `mouse_move`, `mouse_drag_and_drop(from_x, "
    "from_y, to_x, to_y)`, `mouse_down`/`mouse_up`, `scroll_at(x, y, delta_x, delta_y)`, "
    "`keyboard_press('Control+a')`, `keyboard_down`/`keyboard_up`, "
    "`keyboard_type('...')`, `noop(wait_ms)`. Several calls are joined by newlines.",
    notes=(
        "Run these with BrowserGym's coordinate action subset: "
        '`HighLevelActionSet(subsets=["coord"], multiaction=True)`. The default subsets '
        "(seed 001's element-id actions) have none of these calls but `noop`.",
        "A step of several calls (newline-separated) needs `multiaction=True`: without it "
        'BrowserGym refuses the step ("Received a multi-action, only single-actions are '
        'allowed").',
        f"`scroll_at` deltas are pixels: {PIXELS_PER_CLICK} per wheel click, positive right "
        "and down, at the step's point (`scroll_at` came with BrowserGym 0.14.1).",
        "Coordinates are screen pixels; BrowserGym reads them as page (viewport) pixels, "
        "which match only when the page fills the screen.",
        "Keys use Playwright's names (`Enter`, `Backspace`, `ArrowLeft`, `PageUp`, "
        "`Control`, `Meta` for super; `ControlRight`, `NumpadEnter` where the side "
        "matters); text is a Python string literal.",
        "A held key is `keyboard_down`, `noop(ms)`, `keyboard_up`: one keydown, which "
        "Playwright does not repeat, so a held key that typed repeatedly loses its "
        "repeats (reported); modifiers held during a click, drag or scroll wrap it in "
        "`keyboard_down`/`keyboard_up`.",
    ),
)

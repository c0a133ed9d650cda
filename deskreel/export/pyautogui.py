"""The `pyautogui` dialect: OSWorld-style Python code strings.

OSWorld runs each string after `import pyautogui; import time; pyautogui.FAILSAFE = False`.
Several statements in one step are joined by "; ". Coordinates are pixels
(`pyautogui.click(40, 30)`), or with `--coords normalized` fractions of the screen as
OpenCUA's AgentNet writes them (`pyautogui.click(x=0.125, y=0.15)`), which its harness
multiplies by the screen size before running them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deskreel.storage import Action, parse_chord

from .dialect import (
    Context,
    Dialect,
    NotExpressible,
    Translation,
    held,
    held_losses,
    one,
    python_args,
    seconds,
    xy,
)
from .keynames import PYAUTOGUI, PYAUTOGUI_SILENT, KeyNames

COORDS = ("pixels", "normalized")
DRAG_SECONDS = 0.5  # dragTo needs time for applications to see a drag, not a jump
PRELUDE = "import pyautogui; import time; pyautogui.FAILSAFE = False"
KEYS = KeyNames("pyautogui", PYAUTOGUI, chars=lambda c: " " <= c <= "~", silent=PYAUTOGUI_SILENT)
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
Where = Callable[[tuple[int, int] | None], dict[str, Any]]  # a point as keyword arguments


def translate_for(coords: str) -> Callable[[Action, Context], Translation]:
    """The translation with pixel or normalised coordinates."""

    def translate(action: Action, ctx: Context) -> Translation:
        def where(point: tuple[int, int] | None) -> dict[str, Any]:
            x, y = xy(point)
            if coords == "pixels":
                return {"x": x, "y": y}
            if ctx.screen is None:
                raise NotExpressible(
                    "the recording's screen size is unknown, so coordinates cannot be normalised"
                )
            return {"x": round(x / ctx.screen[0], 4), "y": round(y / ctx.screen[1], 4)}

        return _translate(action, where, positional=coords == "pixels")

    return translate


def _translate(action: Action, where: Where, *, positional: bool) -> Translation:
    kind = action.action
    if kind == "key":
        return _key(action)
    if kind == "type":
        return one(f"pyautogui.write({python_args(_ascii(action.text or ''))})")
    if kind == "wait":
        return one(f"time.sleep({seconds(action.duration or 0.0)})")

    def at(point: tuple[int, int] | None, *args: Any, keyword: bool = False, **kw: Any) -> str:
        place = where(point)
        if positional and not keyword:
            return python_args(*args, place["x"], place["y"], **kw)
        return python_args(*args, **place, **kw)

    if kind == "mouse_move":
        return one(f"pyautogui.moveTo({at(action.coordinate)})")
    if kind in _MISSING:
        raise NotExpressible(_MISSING[kind])
    # A drag starts with a plain move: modifiers are held from the press to the release.
    start = action.start_coordinate
    prelude = [f"pyautogui.moveTo({at(start)})"] if start else []
    keys = KEYS.chord(action.with_key)
    calls = held(keys.names, _pointer(action, at), down=_DOWN, up=_UP)
    return one(*prelude, *calls, losses=keys.losses)


def _pointer(action: Action, at: Callable[..., str]) -> list[str]:
    kind, point = action.action, action.coordinate
    if kind in _CLICKS:
        button = {"button": _BUTTONS[kind]} if kind in _BUTTONS else {}
        return [f"pyautogui.{_CLICKS[kind]}({at(point, **button)})"]
    if kind == "left_click_drag":
        return [f"pyautogui.dragTo({at(point, duration=DRAG_SECONDS, button='left')})"]
    if kind in ("left_mouse_down", "left_mouse_up"):
        name = "mouseDown" if kind == "left_mouse_down" else "mouseUp"
        args = at(point, button="left") if point else python_args(button="left")
        return [f"pyautogui.{name}({args})"]
    if kind == "scroll":
        name, sign = _SCROLLS[action.scroll_direction or "down"]
        clicks = sign * (action.scroll_amount or 1)
        return [f"pyautogui.{name}({at(point, clicks, keyword=True)})"]
    raise NotExpressible(f"pyautogui has no {kind} action")


def _key(action: Action) -> Translation:
    keysyms = parse_chord(action.text or "").keys
    keys = KEYS.keys(keysyms)
    if action.duration:
        calls = held(keys.names, [f"time.sleep({seconds(action.duration)})"], down=_DOWN, up=_UP)
        return one(*calls, losses=keys.losses + held_losses(keysyms))
    if len(keys.names) == 1:
        return one(f"pyautogui.press({python_args(keys.names[0])})", losses=keys.losses)
    return one(f"pyautogui.hotkey({python_args(*keys.names)})", losses=keys.losses)


def _ascii(text: str) -> str:
    for char in text:
        if not (" " <= char <= "~" or char in "\n\t"):
            raise NotExpressible("pyautogui.write types ASCII only")
    return text


_MISSING = {
    "screenshot": "the agent sees the screen after every action; there is no screenshot action",
    "cursor_position": "the code's return value never reaches the agent",
}


def dialect(coords: str = "pixels") -> Dialect:
    """The dialect with pixel or normalised coordinates (one of COORDS)."""
    if coords not in COORDS:
        raise ValueError(f"unknown coordinates {coords!r}")
    normalized = coords == "normalized"
    where = "`x=0.125, y=0.15` (fractions of the screen)" if normalized else "`x, y` in pixels"
    return Dialect(
        name="pyautogui",
        translate=translate_for(coords),
        join="; ",
        variant=f"coords {coords}",
        summary=f"an OSWorld-style Python code string, coordinates as {where}: "
        "`pyautogui.click` (`button='right'`/`'middle'`), `doubleClick`, `tripleClick`, "
        "`moveTo`, `moveTo` then `dragTo(..., duration=0.5, button='left')`, "
        "`mouseDown`/`mouseUp`, `scroll(n, x=, y=)` (positive up), `hscroll(n, x=, y=)` "
        "(positive right), `write('...')`, `press('enter')`, `hotkey('ctrl', 's')`, "
        "`keyDown`/`keyUp` with `time.sleep(s)` for held keys, `time.sleep(s)` for "
        "waits. Statements are joined by `; `.",
        notes=_notes(normalized),
    )


def _notes(normalized: bool) -> tuple[str, ...]:
    coords = (
        (
            "Coordinates are fractions of the exported screen, 4 decimals, as OpenCUA's "
            "AgentNet writes them: pyautogui itself reads pixels, so a harness multiplies "
            "x by the width and y by the height before it runs a line.",
        )
        if normalized
        else ()
    )
    return coords + (
        f"Run each line after `{PRELUDE}`, as OSWorld does: with pyautogui's failsafe "
        "on, an action at a screen corner (a click at 0, 0) stops the program.",
        "Keys use pyautogui's names as its X11 backend presses them (`enter`, `esc`, "
        "`pageup`, `win` for super, `ctrlright`, `num0` for KP_0, `f5`); modifiers held "
        "during a click, drag or scroll are `keyDown`/`keyUp` around it.",
        "pyautogui's X11 backend presses a key's keycode, and X decides the keysym: `num0` "
        "types 0 only with NumLock on (with it off the key is KP_Insert). Keys recorded "
        "with NumLock off (KP_Insert, KP_End...) are their main keys (`insert`, `end`), "
        "reported as renames, as is the keypad's Enter (`enter` presses Return).",
        "Media keys (volume, play/pause, next and previous track, stop) are not "
        "expressible: pyautogui's X11 key table maps their names to nothing, so `press` "
        "would silently do nothing.",
        f"Drags take {DRAG_SECONDS:g} s (`dragTo(..., duration={DRAG_SECONDS:g})`), "
        "whatever the recording took.",
        "`pyautogui.write` types ASCII only: text with other characters is not expressible "
        "(no clipboard fallback, which would overwrite the person's clipboard).",
        "A held key is one keyDown, which pyautogui does not repeat: a held key that "
        "typed repeatedly loses its repeats (reported).",
    )


DIALECT = dialect()

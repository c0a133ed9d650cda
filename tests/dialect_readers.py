"""Readers of every export dialect: what an agent family's harness would do with a line,
as vocabulary actions. They are written from each family's own documents (seed 000 and
the computer tool's versions, seed 004, BrowserGym's `coord` functions, pyautogui's X11
key table), not from deskreel's tables, so a faithful export reads back as the action it
came from, and a wrong one does not.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from deskreel.storage import Action, parse_chord

Obj = dict[str, Any]

# What each family's key names press, as X keysyms.
PLAYWRIGHT_PRESSES = {
    "Enter": "Return",
    "NumpadEnter": "KP_Enter",
    "Control": "Control_L",
    "ControlRight": "Control_R",
    "Shift": "Shift_L",
    "Alt": "Alt_L",
    "Meta": "Super_L",
    "Tab": "Tab",
    "Insert": "Insert",
    "Numpad0": "KP_0",
    "AudioVolumeUp": "XF86AudioRaiseVolume",
    "Escape": "Escape",
}
PYAUTOGUI_PRESSES = {  # pyautogui/_pyautogui_x11.py keyboardMapping
    "enter": "Return",
    "ctrl": "Control_L",
    "ctrlright": "Control_R",
    "shift": "Shift_L",
    "alt": "Alt_L",
    "win": "Super_L",
    "tab": "Tab",
    "insert": "Insert",
    "num0": "KP_0",
    "esc": "Escape",
}
SEED_PRESSES = {  # seed 004 names keys as people say them
    "enter": "Return",
    "ctrl": "Control_L",
    "shift": "Shift_L",
    "alt": "Alt_L",
    "super": "Super_L",
    "tab": "Tab",
    "insert": "Insert",
    "num0": "KP_0",
    "volumeup": "XF86AudioRaiseVolume",
    "esc": "Escape",
}


def keysym(name: str, presses: dict[str, str]) -> str:
    """What one key name presses: a named key, or the key of a character."""
    if name in presses:
        return presses[name]
    (key,) = parse_chord(name).keys  # a character, or an X name kept as is
    return key


def chord(names: list[str], presses: dict[str, str]) -> str:
    return "+".join(keysym(n, presses) for n in names)


def canonical(action: Action) -> Obj:
    """An action as comparable JSON: key chords as their keysyms."""
    obj = action.to_json()
    for field in ("text", "with_key"):
        if field in obj and (field == "with_key" or obj["action"] == "key"):
            obj[field] = "+".join(parse_chord(obj[field]).keys)
    return obj


# -- anthropic -----------------------------------------------------------------------------


FIRST_POINTED = ("mouse_move", "left_click_drag")  # seed 000: the only ones with coordinate


def read_anthropic(calls: list[Obj], version: str) -> Obj:
    """As the tool version's harness reads its calls: member-tool calls for a toolset, input
    objects otherwise; seed 000's shape for computer_20241022."""
    toolset = version.startswith("computer_toolset_")
    assert all(set(c) == {"name", "input"} for c in calls) == toolset, (version, calls)
    objs = [{"action": c["name"], **c["input"]} if toolset else dict(c) for c in calls]
    if version == "computer_20241022":
        for obj in objs:
            assert obj["action"] in FIRST_POINTED or "coordinate" not in obj, (version, obj)
            assert "start_coordinate" not in obj and obj["action"] != "zoom", (version, obj)
    if all(o["action"] == "wait" for o in objs):
        return {"action": "wait", "duration": sum(o["duration"] for o in objs)}
    if len(objs) == 2 and objs[0]["action"] == "mouse_move":  # move, then act there
        moved, then = objs
        field = "start_coordinate" if then["action"] == "left_click_drag" else "coordinate"
        objs = [{**then, field: moved["coordinate"]}]
    (obj,) = objs
    kind = obj.pop("action")
    if kind == "hold_key":
        return {"action": "key", "text": obj["text"], "duration": obj["duration"]}
    if kind == "zoom":
        x0, y0, x1, y1 = obj["region"]
        return {"action": "screenshot", "region": [x0, y0, x1 - x0, y1 - y0]}
    if kind != "key" and kind != "type" and "text" in obj:
        obj["with_key"] = obj.pop("text")
    return {"action": kind, **obj}


# -- seed 004 ------------------------------------------------------------------------------


def read_normalized(calls: list[Obj], screen: tuple[int, int]) -> Obj:
    def px(point: list[float]) -> list[int]:
        return [round(point[0] * screen[0]), round(point[1] * screen[1])]

    if len(calls) > 1:  # a long scroll, in parts of at most 30 clicks
        assert {c["action"] for c in calls} == {"scroll"}
        total = sum(c["scroll_amount"] for c in calls)
        calls = [{**calls[0], "scroll_amount": total}]
    (obj,) = calls
    kind = obj["action"]
    with_key = {"with_key": keysym(obj["with_key"], SEED_PRESSES)} if obj.get("with_key") else {}
    if kind == "key":
        held = {"duration": obj["with_duration"]} if obj["with_duration"] else {}
        return {"action": "key", "text": chord(obj["text"], SEED_PRESSES), **held}
    if kind == "type":
        assert obj["submit"] is False  # no Return follows a lone step
        return {"action": "type", "text": obj["text"]}
    if kind == "mouse_move":
        return {"action": kind, "coordinate": px(obj["to_coordinate"])}
    if kind == "left_click_drag":
        return {
            "action": kind,
            "start_coordinate": px(obj["from_coordinate"]),
            "coordinate": px(obj["to_coordinate"]),
            **with_key,
        }
    if kind == "scroll":
        return {
            "action": kind,
            "coordinate": px(obj["at_coordinate"]),
            "scroll_direction": obj["scroll_direction"],
            "scroll_amount": obj["scroll_amount"],
        }
    if kind == "wait":
        return dict(obj)
    return {"action": kind, "coordinate": px(obj["at_coordinate"]), **with_key}


# -- code dialects -------------------------------------------------------------------------


def calls_of(code: str) -> list[tuple[str, list[Any], Obj]]:
    """(function, positional arguments, keyword arguments) of each call statement."""
    out = []
    for stmt in ast.parse(code).body:
        assert isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call), code
        call = stmt.value
        func = call.func
        name = ast.unparse(func)
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
        out.append((name, args, kwargs))
    return out


def unwrap(
    calls: list[tuple[str, list[Any], Obj]], down: str, up: str
) -> tuple[list[Any], list[tuple[str, list[Any], Obj]]]:
    """The keys held around the calls (down in order, up in reverse), and the calls."""
    keys = []
    while calls and calls[0][0] == down:
        keys.append(calls[0][1][0])
        calls = calls[1:]
    for key in keys:  # released in reverse: the first pressed is the last released
        assert calls[-1][0] == up and calls[-1][1][0] == key
        calls = calls[:-1]
    return keys, calls


def read_browsergym(code: str) -> Obj:
    keys, calls = unwrap(calls_of(code), "keyboard_down", "keyboard_up")
    held = {"with_key": chord(keys, PLAYWRIGHT_PRESSES)} if keys else {}
    (name, args, kwargs), *rest = calls
    assert not rest, code
    if name == "noop":
        seconds = args[0] / 1000
        if keys:
            return {"action": "key", "text": chord(keys, PLAYWRIGHT_PRESSES), "duration": seconds}
        return {"action": "wait", "duration": seconds}
    if name == "keyboard_press":
        return {"action": "key", "text": chord(args[0].split("+"), PLAYWRIGHT_PRESSES)}
    if name == "keyboard_type":
        return {"action": "type", "text": args[0]}
    if name == "mouse_click":
        button = kwargs.get("button", "left")
        return {"action": f"{button}_click", "coordinate": args[:2], **held}
    if name == "mouse_dblclick":
        return {"action": "double_click", "coordinate": args[:2], **held}
    if name == "mouse_drag_and_drop":
        return {
            "action": "left_click_drag",
            "start_coordinate": args[:2],
            "coordinate": args[2:4],
            **held,
        }
    if name == "scroll_at":
        x, y, dx, dy = args
        direction = {(0, 1): "down", (0, -1): "up", (1, 0): "right", (-1, 0): "left"}[
            ((dx > 0) - (dx < 0), (dy > 0) - (dy < 0))
        ]
        amount = (abs(dx) + abs(dy)) // 100  # PIXELS_PER_CLICK, as the card says
        return {
            "action": "scroll",
            "coordinate": [x, y],
            "scroll_direction": direction,
            "scroll_amount": amount,
            **held,
        }
    if name in ("mouse_down", "mouse_up"):
        return {"action": f"left_{name}", "coordinate": args[:2]}
    assert name == "mouse_move", code
    return {"action": "mouse_move", "coordinate": args[:2]}


def read_pyautogui(code: str, screen: tuple[int, int] | None) -> Obj:
    calls = calls_of(code)

    def point(args: list[Any], kwargs: Obj) -> list[int]:
        x, y = (kwargs["x"], kwargs["y"]) if "x" in kwargs else args[-2:]
        if isinstance(x, float):  # fractions of the screen
            assert screen is not None
            return [round(x * screen[0]), round(y * screen[1])]
        return [x, y]

    start = None
    if len(calls) > 1 and calls[0][0] == "pyautogui.moveTo":  # a drag's start
        start = point(calls[0][1], calls[0][2])
        calls = calls[1:]
    keys, calls = unwrap(calls, "pyautogui.keyDown", "pyautogui.keyUp")
    held = {"with_key": chord(keys, PYAUTOGUI_PRESSES)} if keys else {}
    (name, args, kwargs), *rest = calls
    assert not rest, code
    name = name.removeprefix("pyautogui.")
    if name == "time.sleep":
        if keys:
            return {"action": "key", "text": chord(keys, PYAUTOGUI_PRESSES), "duration": args[0]}
        return {"action": "wait", "duration": args[0]}
    if name in ("press", "hotkey"):
        return {"action": "key", "text": chord(args, PYAUTOGUI_PRESSES)}
    if name == "write":
        return {"action": "type", "text": args[0]}
    if name == "dragTo":
        return {
            "action": "left_click_drag",
            "start_coordinate": start,
            "coordinate": point(args, kwargs),
            **held,
        }
    if name in ("scroll", "hscroll"):
        clicks = args[0]
        direction = {("scroll", True): "up", ("scroll", False): "down"}.get(
            (name, clicks > 0), "right" if clicks > 0 else "left"
        )
        return {
            "action": "scroll",
            "coordinate": point([], kwargs),
            "scroll_direction": direction,
            "scroll_amount": abs(clicks),
            **held,
        }
    if name in ("mouseDown", "mouseUp"):
        at = {"coordinate": point(args, kwargs)} if args or "x" in kwargs else {}
        return {"action": "left_mouse_" + name[5:].lower(), **at}
    if name == "moveTo":
        return {"action": "mouse_move", "coordinate": point(args, kwargs)}
    kind = {"click": f"{kwargs.get('button', 'left')}_click", "doubleClick": "double_click"}
    kind["tripleClick"] = "triple_click"
    return {"action": kind[name], "coordinate": point(args, kwargs), **held}


def read(dialect: str, variant: str | None, action: str, screen: tuple[int, int] | None) -> Action:
    """The vocabulary action a harness of the dialect performs for a line's `action`."""
    if dialect == "actions":
        (obj,) = json.loads(action)
    elif dialect == "anthropic":
        assert variant is not None
        obj = read_anthropic(json.loads(action), variant)
    elif dialect == "normalized":
        assert screen is not None
        obj = read_normalized(json.loads(action), screen)
    elif dialect == "browsergym":
        obj = read_browsergym(action)
    else:
        obj = read_pyautogui(action, screen)
    return Action.from_json(obj)

"""The `anthropic` dialect: the computer-use tool's input objects, tool version
computer_20250124.

Seed 000 describes an earlier version of the tool, whose clicks take no coordinate and which
has no scroll, hold_key, wait, triple_click or left_mouse_down/up; this export needs the
20250124 tool. Pixel `coordinate`, `start_coordinate` for drags, modifiers of clicks and
scrolls in `text`, keys in xdotool syntax, `hold_key` with `duration` for a held key.
"""

from __future__ import annotations

from typing import Any

from storage import CLICKS, Action

from .dialect import Context, Dialect, NotExpressible, Translation, one


def translate(action: Action, ctx: Context) -> Translation:
    kind = action.action
    if kind == "key":
        if action.duration:
            return one({"action": "hold_key", "text": action.text, "duration": action.duration})
        return one({"action": "key", "text": action.text})
    if kind in CLICKS or kind == "scroll":
        return one(_with_text(action.to_json(), action.with_key))
    if kind == "left_click_drag":
        if action.with_key:
            raise NotExpressible("the tool's left_click_drag takes no modifier keys")
        return one(action.to_json())
    if kind in ("left_mouse_down", "left_mouse_up"):
        # The reference tool refuses a coordinate here: move there first.
        press = {"action": kind}
        if action.coordinate is None:
            return one(press)
        return one({"action": "mouse_move", "coordinate": list(action.coordinate)}, press)
    if kind == "screenshot" and action.region:
        return one({"action": "screenshot"}, loss="screenshot region (the whole screen is taken)")
    return one(action.to_json())  # type, mouse_move, wait, screenshot, cursor_position


def _with_text(obj: dict[str, Any], with_key: str | None) -> dict[str, Any]:
    obj.pop("with_key", None)
    if with_key:
        obj["text"] = with_key
    return obj


DIALECT = Dialect(
    name="anthropic",
    translate=translate,
    join=None,
    summary="the computer-use tool's input object (computer_20250124): `action` with "
    "`coordinate` in pixels, `start_coordinate` for drags, `text` for keys, typed text "
    "and the modifiers held during a click or scroll, `scroll_direction`/"
    "`scroll_amount`, `duration` for `wait` and `hold_key`. A step that needs two "
    "tool calls holds a list of two objects.",
    notes=(
        "The objects are for the tool version `computer_20250124`: earlier versions "
        "have no `scroll`, `hold_key`, `wait`, `triple_click` or `left_mouse_down`/"
        "`left_mouse_up`, and no coordinate on clicks.",
        "Keys are in xdotool syntax (`ctrl+s`, `Return`, `alt+Tab`).",
        "`left_mouse_down`/`left_mouse_up` take no coordinate in the tool: a step that "
        "has one becomes `[mouse_move, left_mouse_down]`.",
        "A held key is `hold_key` with `text` and `duration`.",
    ),
)

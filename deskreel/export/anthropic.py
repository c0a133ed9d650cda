"""The `anthropic` dialect: the computer-use tool's inputs, for one tool version.

- `computer_20241022` is seed 000's shape: `coordinate` only on `mouse_move` and
  `left_click_drag` (which drags from where the pointer is), so a click is a `mouse_move`
  and then the click; no scroll, hold_key, wait, triple_click or button press and release.
- `computer_20250124` (the default) adds those, a `coordinate` on clicks and scrolls,
  modifiers in `text`, `start_coordinate` on drags.
- `computer_20251124` adds `zoom` with `region` [x0, y0, x1, y1] (the tool needs
  `enable_zoom`): a screenshot of a region is a zoom.
- `computer_toolset_20260801` makes each action a member tool: a call is `{"name":
  member, "input": {...}}`; its drags take modifiers, and its durations are whole seconds.

An action a version lacks is not expressible, never changed into another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deskreel.storage import CLICKS, Action

from .dialect import Context, Dialect, NotExpressible, Translation, one

VERSIONS = (
    "computer_20241022",
    "computer_20250124",
    "computer_20251124",
    "computer_toolset_20260801",
)
DEFAULT_VERSION = "computer_20250124"
WAIT_LIMIT = 100  # seconds of one `wait` (the tool's range is 0 to 100); longer are several
_FIRST = frozenset(
    {
        "key",
        "type",
        "mouse_move",
        "left_click",
        "left_click_drag",
        "right_click",
        "middle_click",
        "double_click",
        "screenshot",
        "cursor_position",
    }
)
Obj = dict[str, Any]


def translate_for(version: str) -> Callable[[Action, Context], Translation]:
    """The translation of one tool version."""
    first = version == "computer_20241022"
    toolset = version.startswith("computer_toolset_")
    zoom = version in ("computer_20251124", "computer_toolset_20260801")

    def translate(action: Action, ctx: Context) -> Translation:
        kind = action.action
        if first and (kind not in _FIRST or (kind == "key" and action.duration)):
            shown = "hold_key" if kind == "key" else kind
            raise NotExpressible(f"{version} has no {shown} action")
        if kind == "screenshot" and action.region:
            out = _region(action.region, zoom=zoom)
        else:
            out = _first(action) if first else _later(action, drag_keys=toolset)
        return _members(out) if toolset else out

    return translate


def _region(region: tuple[int, int, int, int], *, zoom: bool) -> Translation:
    """A screenshot of a region: `zoom` where the version has it, else the whole screen."""
    if not zoom:
        return one({"action": "screenshot"}, losses=["the region (the whole screen is taken)"])
    x, y, w, h = region
    return one({"action": "zoom", "region": [x, y, x + w, y + h]})


def _first(action: Action) -> Translation:
    """Seed 000's shape: clicks where the pointer is, drags from where it is."""
    kind = action.action
    if action.with_key:
        raise NotExpressible(f"computer_20241022's {kind} takes no modifier keys")
    if kind in CLICKS:
        return one(_move(action.coordinate), {"action": kind})
    if kind == "left_click_drag":
        return one(_move(action.start_coordinate), {"action": kind, **_at(action.coordinate)})
    return _later(action, drag_keys=False)


def _later(action: Action, *, drag_keys: bool) -> Translation:
    kind = action.action
    if kind == "key":
        if action.duration:
            return one({"action": "hold_key", "text": action.text, "duration": action.duration})
        return one({"action": "key", "text": action.text})
    if kind in CLICKS or kind == "scroll":
        return one(_with_text(action.to_json(), action.with_key))
    if kind == "left_click_drag":
        if action.with_key and not drag_keys:
            raise NotExpressible("the tool's left_click_drag takes no modifier keys")
        return one(_with_text(action.to_json(), action.with_key))
    if kind in ("left_mouse_down", "left_mouse_up"):
        # The tool refuses a coordinate here: move there first.
        press = {"action": kind}
        return one(press) if action.coordinate is None else one(_move(action.coordinate), press)
    if kind == "wait":
        left, waits = action.duration or 0.0, list[Obj]()
        while not waits or left > 0:
            waits.append({"action": "wait", "duration": min(left, WAIT_LIMIT)})
            left -= WAIT_LIMIT
        return one(*waits)
    return one(action.to_json())  # type, mouse_move, screenshot, cursor_position


def _members(translation: Translation) -> Translation:
    """Objects as member-tool calls: the action names the tool, the rest is its input;
    durations are whole seconds."""
    calls, losses = [], list(translation.losses)
    for obj in translation.items:
        fields = {k: v for k, v in obj.items() if k != "action"}
        if "duration" in fields:
            whole = round(fields["duration"])
            if whole != fields["duration"]:
                losses.append(f"a duration of {fields['duration']:g} s as {whole} (whole seconds)")
            fields["duration"] = whole
        calls.append({"name": obj["action"], "input": fields})
    return one(*calls, losses=losses)


def _move(point: tuple[int, int] | None) -> Obj:
    return {"action": "mouse_move", **_at(point)}


def _at(point: tuple[int, int] | None) -> Obj:
    assert point is not None  # the vocabulary requires it for these actions
    return {"coordinate": list(point)}


def _with_text(obj: Obj, with_key: str | None) -> Obj:
    obj.pop("with_key", None)
    if with_key:
        obj["text"] = with_key
    return obj


def dialect(version: str = DEFAULT_VERSION) -> Dialect:
    """The dialect for one tool version (one of VERSIONS)."""
    if version not in VERSIONS:
        raise ValueError(f"unknown computer tool version {version!r}")
    toolset = version.startswith("computer_toolset_")
    shape = (
        'a member-tool call `{"name": ..., "input": {...}}` of the computer toolset'
        if toolset
        else "the computer tool's input object, `action` and its fields"
    )
    return Dialect(
        name="anthropic",
        translate=translate_for(version),
        join=None,
        variant=version,
        summary=f"the JSON text of a list of tool calls for `{version}`, each {shape}: "
        "`coordinate` in pixels, `start_coordinate` for drags, `text` for keys, typed text "
        "and the modifiers held during a click or scroll, `scroll_direction`/"
        "`scroll_amount`, `duration` for `wait` and `hold_key`. Most steps are one call; "
        "some need two (`mouse_move` first).",
        notes=_NOTES[version] + (() if version == "computer_20241022" else _LATER) + _COMMON,
    )


_LATER = (
    f"A wait over {WAIT_LIMIT} s is several `wait` calls of at most {WAIT_LIMIT} s.",
    "Modifiers held during a click, scroll or drag are in `text`, as the API's input "
    "schema has them (Anthropic's reference harness, computer-use-demo, reads them from a "
    "`key` field instead).",
)
_COMMON = (
    "Keys are in xdotool syntax (`ctrl+s`, `Return`, `alt+Tab`, `KP_0`): the recorded "
    "keysyms, unchanged.",
    "`left_mouse_down`/`left_mouse_up` take no coordinate: a step that has one is a "
    "`mouse_move` and then the press.",
)
_NOTES = {
    "computer_20241022": (
        "Tool version `computer_20241022` (beta `computer-use-2024-10-22`), seed 000's "
        "shape: `coordinate` only on `mouse_move` and `left_click_drag`. A click is "
        "`mouse_move` and then the click; a drag is `mouse_move` to its start and then "
        "`left_click_drag`.",
        "This version has no `scroll`, `hold_key`, `wait`, `triple_click`, "
        "`left_mouse_down`/`left_mouse_up` and no modifier keys on clicks: such steps "
        "are not expressible (action null).",
        "Today's reference harness (computer-use-demo) wants `start_coordinate` on this "
        "version's `left_click_drag` too; seed 000 has none, and these lines follow it.",
    ),
    "computer_20250124": ("Tool version `computer_20250124` (beta `computer-use-2025-01-24`).",),
    "computer_20251124": (
        "Tool version `computer_20251124` (beta `computer-use-2025-11-24`), declared "
        "with `enable_zoom: true`: a screenshot of a region is `zoom` with `region` "
        "[x0, y0, x1, y1].",
    ),
    "computer_toolset_20260801": (
        "Tool type `computer_toolset_20260801`: every action is its own member tool, "
        "called by name with the fields as its input (`toolset_name` `computer`); "
        "`zoom` is enabled in the toolset's `configs`.",
        "Member tools take whole seconds: a `wait` or `hold_key` duration is rounded, "
        "and reported when that changed it.",
    ),
}

DIALECT = dialect()

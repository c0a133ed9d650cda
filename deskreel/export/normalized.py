"""The `normalized` dialect: the normalised-coordinate desktop agent of seed 004.

Coordinates are fractions of the screen in [0, 1] (x / width, 4 decimals); keys are lists
of names; `type` says whether Enter follows (`submit`), folding that Return step in.
`with_key` holds one key in the seed ("ctrl", "shift"): a chord of several is not
expressible.
"""

from __future__ import annotations

from typing import Any

from deskreel.storage import CLICKS, Action, parse_chord

from .dialect import Context, Dialect, NotExpressible, Translation, one
from .keynames import SEED, KeyNames, Named

MAX_SCROLL = 30  # the seed's range for scroll_amount; larger scrolls become several
SUBMIT_KEY = "Return"
KEYS = KeyNames("seed 004", SEED, unknown_as_x=True)


def translate(action: Action, ctx: Context) -> Translation:
    kind = action.action
    if kind == "type":
        submit = (
            ctx.following is not None
            and ctx.following.action == "key"
            and ctx.following.text == SUBMIT_KEY
            and not ctx.following.duration
        )
        return one({"action": "type", "text": action.text, "submit": submit}, folds_next=submit)
    if kind == "key":
        keys = KEYS.keys(parse_chord(action.text or "").keys)
        obj = {"action": "key", "text": list(keys.names), "with_duration": action.duration}
        return one(obj, losses=keys.losses)
    if kind == "wait":
        return one({"action": "wait", "duration": action.duration})
    if kind == "mouse_move":
        return one({"action": "mouse_move", "to_coordinate": _at(action.coordinate, ctx)})
    if kind in CLICKS:
        with_key = _with_key(action)
        click: dict[str, Any] = {"action": kind, "at_coordinate": _at(action.coordinate, ctx)}
        return one({**click, "with_key": _one(with_key)}, losses=with_key.losses)
    if kind == "left_click_drag":
        with_key = _with_key(action)
        drag: dict[str, Any] = {
            "action": kind,
            "from_coordinate": _at(action.start_coordinate, ctx),
            "to_coordinate": _at(action.coordinate, ctx),
            "with_key": _one(with_key),
        }
        return one(drag, losses=with_key.losses)
    if kind == "scroll":
        return _scroll(action, ctx)
    raise NotExpressible(_MISSING.get(kind, f"the seed has no {kind} action"))


def _with_key(action: Action) -> Named:
    keys = KEYS.chord(action.with_key)
    if len(keys.names) > 1:
        raise NotExpressible(
            f"the seed's with_key holds one key, and {action.with_key} is {len(keys.names)}"
        )
    return keys


def _one(keys: Named) -> str | None:
    return keys.names[0] if keys.names else None


def _scroll(action: Action, ctx: Context) -> Translation:
    if action.with_key:
        raise NotExpressible("the seed's scroll takes no modifier keys")
    at, left, items = _at(action.coordinate, ctx), action.scroll_amount or 1, []
    while left > 0:
        items.append(
            {
                "action": "scroll",
                "at_coordinate": at,
                "scroll_direction": action.scroll_direction,
                "scroll_amount": min(left, MAX_SCROLL),
            }
        )
        left -= MAX_SCROLL
    return one(*items)


def _at(point: tuple[int, int] | None, ctx: Context) -> list[float]:
    if ctx.screen is None:
        raise NotExpressible(
            "the recording's screen size is unknown, so coordinates cannot be normalised"
        )
    assert point is not None  # the vocabulary requires it for every pointer action here
    return [round(point[0] / ctx.screen[0], 4), round(point[1] / ctx.screen[1], 4)]


_MISSING: dict[str, str] = {
    "left_mouse_down": "the seed has no separate button press",
    "left_mouse_up": "the seed has no separate button release",
    "screenshot": "the agent sees the screen after every action; there is no screenshot action",
    "cursor_position": "the seed has no way to ask for the pointer position",
}

DIALECT = Dialect(
    name="normalized",
    translate=translate,
    join=None,
    summary="the JSON text of a list of seed 004 `computer` action objects (most steps "
    "are one): `mouse_move` with `to_coordinate`; clicks (incl. `triple_click`) with "
    "`at_coordinate` and `with_key` (null when none); `left_click_drag` with "
    "`from_coordinate`/`to_coordinate`; `type` with `text` and `submit`; `key` with "
    "`text` as a list of key names and `with_duration` (null for a tap); `scroll` with "
    "`at_coordinate`, `scroll_direction`, `scroll_amount`; `wait` with `duration`.",
    notes=(
        "Coordinates are [x / width, y / height] of the exported screen, 4 decimals: "
        "(0, 0) is the top-left corner; pixel x is round(fraction * width).",
        "A `type` directly followed by a Return key becomes one `type` with `submit: true`; "
        "its line's `image_after` is the screen after that Return.",
        f"Scrolls above {MAX_SCROLL} wheel clicks become a list of scrolls of at most "
        f"{MAX_SCROLL}.",
        "Key names are lower-case (`enter`, `esc`, `pageup`, `f5`); modifiers are `ctrl`, "
        "`shift`, `alt`, `super`, one name for either side's key: a right-hand modifier "
        "or the keypad's Enter is reported as a rename.",
        "`with_key` is one key: a click or drag with two modifiers held (ctrl+shift) is "
        "not expressible.",
    ),
)

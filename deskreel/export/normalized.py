"""The `normalized` dialect: the normalised-coordinate desktop agent of seed 004.

Coordinates are fractions of the screen in [0, 1] (x / width, 4 decimals); keys are lists
of names; `type` says whether Enter follows (`submit`), folding that Return step in.
"""

from __future__ import annotations

from storage import CLICKS, Action, parse_chord

from .dialect import Context, Dialect, NotExpressible, Translation, one
from .keynames import seed_key

MAX_SCROLL = 30  # the seed's range for scroll_amount; larger scrolls become several
SUBMIT_KEY = "Return"


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
        names = [seed_key(k) for k in parse_chord(action.text or "").keys]
        return one({"action": "key", "text": names, "with_duration": action.duration})
    if kind == "wait":
        return one({"action": "wait", "duration": action.duration})
    if kind == "mouse_move":
        return one({"action": "mouse_move", "to_coordinate": _at(action.coordinate, ctx)})
    if kind in CLICKS:
        return one(
            {
                "action": kind,
                "at_coordinate": _at(action.coordinate, ctx),
                "with_key": action.with_key,
            }
        )
    if kind == "left_click_drag":
        return one(
            {
                "action": kind,
                "from_coordinate": _at(action.start_coordinate, ctx),
                "to_coordinate": _at(action.coordinate, ctx),
                "with_key": action.with_key,
            }
        )
    if kind == "scroll":
        return _scroll(action, ctx)
    raise NotExpressible(_MISSING.get(kind, f"the seed has no {kind} action"))


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
    summary="seed 004's `computer` action object: `mouse_move` with `to_coordinate`; clicks "
    "(incl. `triple_click`) with `at_coordinate` and `with_key` (null when none); "
    "`left_click_drag` with `from_coordinate`/`to_coordinate`; `type` with `text` and "
    "`submit`; `key` with `text` as a list of key names and `with_duration` (null for "
    "a tap); `scroll` with `at_coordinate`, `scroll_direction`, `scroll_amount`; "
    "`wait` with `duration`.",
    notes=(
        "Coordinates are [x / width, y / height] of the exported screen, 4 decimals: "
        "(0, 0) is the top-left corner; pixel x is round(fraction * width).",
        "A `type` directly followed by a Return key becomes one `type` with `submit: true`; "
        "its line's `image_after` is the screen after that Return.",
        f"Scrolls above {MAX_SCROLL} wheel clicks become a list of scrolls of at most "
        f"{MAX_SCROLL}.",
        "Key names are lower-case (`enter`, `esc`, `pageup`, `f5`); modifiers are `ctrl`, "
        "`shift`, `alt`, `super`.",
    ),
)

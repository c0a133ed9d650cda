"""The reducer's pointer pass: button presses become clicks, multi-clicks, drags, long
presses and scrolls.

Pure: no X, no I/O, no clock.

Decisions the issue left to us:
- Right and middle drags have no vocabulary action: they become a click at the press.
- A long press under modifiers becomes the click with `with_key`: left_mouse_down and
  left_mouse_up have no `with_key`, and the modifiers usually matter more than the hold.
- Cut short by the recording's edges: a left button never released is left_mouse_down;
  releases of earlier presses are ignored.
- Buttons 8 and up make no action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from deskreel.storage.grouping import InputSettings, Thresholds
from deskreel.storage.values import RawEvent
from deskreel.storage.vocabulary import MAX_SCROLL, Action

from .reduced import Reduced, any_between, distance, position, reduced

__all__ = ["pointer_actions"]

_CLICKS = {1: "left_click", 2: "middle_click", 3: "right_click"}
_MULTI_CLICKS = {2: "double_click", 3: "triple_click"}
_WHEEL = {4: "up", 5: "down", 6: "left", 7: "right"}


@dataclass(frozen=True, slots=True)
class _ButtonPress:
    """One press of one button (a wheel tick is one too): its button_down and button_up."""

    button: int
    down: int
    up: int | None


def pointer_actions(
    events: Sequence[RawEvent],
    keys: list[int],
    held: list[tuple[str, ...]],
    settings: InputSettings,
    th: Thresholds,
) -> list[Reduced]:
    """Clicks, multi-clicks, drags, long presses and scrolls; `keys` are the positions of
    the key presses, in order: a key pressed between two button presses parts them."""
    runs: list[list[_ButtonPress]] = []  # presses that make one gesture: a multi-click, a scroll
    for press in _button_presses(events):
        if (
            runs
            and not any_between(keys, runs[-1][-1].down, press.down)
            and _joins(runs[-1], press, events, held, settings, th)
        ):
            runs[-1].append(press)
        else:
            runs.append([press])
    return [r for run in runs for r in _run_actions(run, events, held, th)]


def _button_presses(events: Sequence[RawEvent]) -> list[_ButtonPress]:
    """Every button press in order; unmatched button_ups are dropped."""
    presses: list[_ButtonPress] = []
    down: dict[int | None, int] = {}  # button -> position of its open press in `presses`
    for i, e in enumerate(events):
        if e.kind == "button_down" and e.button is not None:
            down[e.button] = len(presses)
            presses.append(_ButtonPress(e.button, i, None))
        elif e.kind == "button_up" and e.button in down:
            n = down.pop(e.button)
            presses[n] = replace(presses[n], up=i)
    return presses


def _joins(
    run: list[_ButtonPress],
    press: _ButtonPress,
    events: Sequence[RawEvent],
    held: list[tuple[str, ...]],
    settings: InputSettings,
    th: Thresholds,
) -> bool:
    """Whether `press` continues the multi-click or scroll that `run` began."""
    first, previous = run[0], run[-1]
    if press.button != first.button or held[press.down] != held[first.down]:
        return False
    gap = events[press.down].t - events[previous.down].t
    stray = distance(events[first.down], events[press.down])
    if press.button in _WHEEL:
        return gap <= th.scroll_gap and stray <= th.scroll_distance and len(run) < MAX_SCROLL
    return (
        press.button == 1
        and len(run) < 3
        and gap <= settings.multi_click_time
        and stray <= settings.multi_click_distance
        and _is_click(previous, events, th)
        and _is_click(press, events, th)
    )


def _is_click(press: _ButtonPress, events: Sequence[RawEvent], th: Thresholds) -> bool:
    """Released in place, and not held long enough to be a long press."""
    if press.up is None:
        return False
    down, up = events[press.down], events[press.up]
    return distance(down, up) <= th.drag_distance and up.t - down.t < th.long_press


def _run_actions(
    run: list[_ButtonPress], events: Sequence[RawEvent], held: list[tuple[str, ...]], th: Thresholds
) -> list[Reduced]:
    first, final = run[0], run[-1]
    at = position(events[first.down])
    with_key = "+".join(held[first.down]) or None
    last = final.up if final.up is not None else final.down
    if first.button in _WHEEL:
        scroll = Action(
            "scroll",
            coordinate=at,
            scroll_direction=_WHEEL[first.button],
            scroll_amount=len(run),
            with_key=with_key,
        )
        return [reduced(scroll, events, first.down, last)]
    if len(run) > 1:
        clicks = Action(_MULTI_CLICKS[len(run)], coordinate=at, with_key=with_key)
        return [reduced(clicks, events, first.down, last)]
    return _press_actions(first, events, with_key, th)


def _press_actions(
    press: _ButtonPress, events: Sequence[RawEvent], with_key: str | None, th: Thresholds
) -> list[Reduced]:
    """A single press: a click, a drag, a long press, or a press the recording cut short."""
    if press.button not in _CLICKS:
        return []
    down = events[press.down]
    up = events[press.up] if press.up is not None else None
    last = press.up if press.up is not None else press.down
    click = Action(_CLICKS[press.button], coordinate=position(down), with_key=with_key)
    if press.button != 1:
        return [reduced(click, events, press.down, last)]
    if up is not None and distance(down, up) > th.drag_distance:
        drag = Action(
            "left_click_drag",
            start_coordinate=position(down),
            coordinate=position(up),
            with_key=with_key,
        )
        return [reduced(drag, events, press.down, last)]
    if with_key is not None or (up is not None and up.t - down.t < th.long_press):
        return [reduced(click, events, press.down, last)]
    pressed = reduced(
        Action("left_mouse_down", coordinate=position(down)), events, press.down, press.down
    )
    if up is None:
        return [pressed]
    return [pressed, reduced(Action("left_mouse_up", coordinate=position(up)), events, last, last)]

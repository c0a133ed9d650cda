"""The reducer: raw input events in, vocabulary actions out. Pure: no X, no I/O, no clock.

It works in passes: key presses (autorepeat folded in) become typing bursts and `key`
actions; button presses become clicks, drags, long presses and scrolls; resting motion
becomes hovers; the three are merged by time, and long gaps between them become `wait`.

Decisions the issue left to us:
- Right and middle drags have no vocabulary action: they become a click at the press.
- A long press under modifiers becomes the click with `with_key`: left_mouse_down and
  left_mouse_up have no `with_key`, and the modifiers usually matter more than the hold.
- Hover: a motion event followed by at least hover_time without pointer events, with no
  button held, not ended by a press at that place sooner than `idle` (that rest was the
  click's approach; a longer one gets a `wait`, and the hover keeps the pointer where the
  person left it during that wait), and further than drag_distance from where the last
  pointer action left the pointer. A rest is timed up to the next pointer event, or to
  the last event of the recording.
- Piece by piece (`reduce_piece`, how the live recorder reduces): pieces cut at quiet
  moments (nothing held, and a gap longer than every threshold) give the actions the
  whole recording gives, when each piece is given what the one before left (`Carry`)
  and, unless it is the last, the time of the first event after it.
- Idle is measured between emitted actions (end of one, start of the next), so motion
  that makes no action counts as idle; hovers are actions. No wait before the first
  action or after the last.
- Autorepeat is what the X server does, told by the recording's `InputSettings`: a
  key_down of a key still down is a repeat (servers with XInput 2 send repeats so, and
  RECORD sees them so, and then a release always ends a press). Where the server sends
  the release-and-press pairs of older servers, a key_down at the very timestamp of the
  same key's key_up is a repeat too, but only for a key whose repeat bit is set, held at
  least the repeat delay (less one repeat interval, for our clock's mapping of server
  times): no server repeats sooner, while xdotool and fast typists re-press a key within
  a millisecond of its release. Repeats lengthen the hold and never add characters.
- A printable key that repeats, held at least the repeat delay, is `key` with `duration`:
  it repeated, so the application saw more than one press. Held shorter, or a key that
  does not repeat, it typed its character once, and joins the typing. Any other key (a
  chord, Return, a modifier alone) held at least the repeat delay keeps its `duration`.
- Cut short by the recording's edges: a key never released counts as tapped, a left
  button never released is left_mouse_down; releases of earlier presses are ignored.
- Chords and with_key spell modifiers in one fixed order (ctrl, alt, shift, super, ...),
  whatever order they were pressed in, so one gesture always reads the same.
- Keys without a keysym name X knows, and buttons 8 and up, make no action.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from storage.grouping import (
    DEFAULT_SETTINGS,
    DEFAULT_THRESHOLDS,
    SERVER_TICK,
    InputSettings,
    Thresholds,
)
from storage.keys import is_modifier, parse_chord
from storage.values import RawEvent
from storage.vocabulary import MAX_KEY_HOLD, MAX_SCROLL, MAX_WAIT, Action, ActionError

__all__ = [
    "DEFAULT_SETTINGS",
    "DEFAULT_THRESHOLDS",
    "Carry",
    "InputSettings",
    "Reduced",
    "Thresholds",
    "reduce_events",
    "reduce_piece",
]


@dataclass(frozen=True, slots=True)
class Reduced:
    """One action, and the span of raw events it was reduced from."""

    action: Action
    t_start: float  # time of its first raw event (for `wait`: when the idle gap began)
    t_end: float  # time of its last raw event
    first: int  # index into the events of its first raw event (-1 for wait)
    last: int  # index of its last raw event (-1 for wait)


def reduce_events(
    events: Sequence[RawEvent],
    *,
    settings: InputSettings = DEFAULT_SETTINGS,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    pointer_at: tuple[int, int] | None = None,
    until: float | None = None,
) -> list[Reduced]:
    """Reduce one recording's raw events to vocabulary actions, sorted by start time.

    `settings` are those the recording stored (the X server's defaults for one made before
    deskreel stored them). For a piece of a recording: `pointer_at` is where the pointer was
    left before it (by the last pointer action or hover), `until` the time of the first
    event after it.
    """
    held = _modifiers_held(events)
    keys = _key_presses(events, settings)
    actions = [
        *_keyboard_actions(events, keys, held, settings, thresholds),
        *_pointer_actions(events, [p.down for p in keys], held, settings, thresholds),
        *_hovers(events, thresholds, pointer_at, until),
    ]
    actions.sort(key=lambda r: (r.t_start, r.first))
    return _with_waits(actions, thresholds.idle)


@dataclass(frozen=True, slots=True)
class Carry:
    """What the pieces of a recording reduced so far leave for the next piece."""

    pointer_at: tuple[int, int] | None = None  # where the last pointer action or hover left it
    end: float | None = None  # when every action so far had ended


def reduce_piece(
    events: Sequence[RawEvent],
    *,
    carry: Carry = Carry(),
    until: float | None = None,
    settings: InputSettings = DEFAULT_SETTINGS,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> tuple[list[Reduced], Carry]:
    """Reduce a piece of a recording cut at a quiet moment, and what it leaves for the next.

    `until` is the time of the first event after the piece (None for the last piece). The
    pieces' actions together are those of the whole recording; indices are the piece's.
    """
    reduced = reduce_events(
        events, settings=settings, thresholds=thresholds, pointer_at=carry.pointer_at, until=until
    )
    if reduced and carry.end is not None and reduced[0].t_start - carry.end >= thresholds.idle:
        reduced.insert(0, _wait(carry.end, reduced[0].t_start))
    ends = [r.t_end for r in reduced] + ([carry.end] if carry.end is not None else [])
    return reduced, Carry(
        _pointer_left_at(events, reduced, carry.pointer_at), max(ends, default=None)
    )


# --- modifiers ---------------------------------------------------------------------------

# A fixed order, so one gesture always spells the same (`ctrl+shift+s`, whoever went first).
_MODIFIER_ORDER = (
    "ctrl",
    "alt",
    "shift",
    "super",
    "meta",
    "hyper",
    "ISO_Level3_Shift",
    "Mode_switch",
)
# Held while typing, these choose which character a key types; they make no chord.
_TYPING_MODIFIERS = frozenset({"shift", "ISO_Level3_Shift", "Mode_switch"})


def _modifiers_held(events: Sequence[RawEvent]) -> list[tuple[str, ...]]:
    """For each event, the modifiers held just before it, by their chord names."""
    down: dict[object, str] = {}
    held = []
    for e in events:
        held.append(tuple(sorted(set(down.values()), key=_MODIFIER_ORDER.index)))
        if e.kind == "key_down" and e.keysym and is_modifier(e.keysym):
            down[_key_id(e)] = parse_chord(e.keysym).names[0]
        elif e.kind == "key_up":
            down.pop(_key_id(e), None)
    return held


def _key_id(e: RawEvent) -> object:
    return e.keycode if e.keycode is not None else e.keysym


# --- keyboard ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _KeyPress:
    """One press of one key, autorepeat folded in: its key_down and its final key_up."""

    down: int
    up: int | None
    keysym: str | None
    char: str
    keycode: int | None


def _keyboard_actions(
    events: Sequence[RawEvent],
    presses: list[_KeyPress],
    held: list[tuple[str, ...]],
    settings: InputSettings,
    th: Thresholds,
) -> list[Reduced]:
    buttons = [i for i, e in enumerate(events) if e.kind == "button_down"]
    starts = sorted([p.down for p in presses] + buttons)  # what makes a modifier not alone
    out: list[Reduced] = []
    burst: list[_KeyPress] = []
    for press in presses:
        typed = _is_typed(press, events, held, settings)
        action = None if typed else _key_action(press, events, held, settings, starts=starts)
        if burst and (action or typed and _ends_burst(burst[-1], press, events, buttons, th)):
            out.append(_typed(burst, events))
            burst = []
        if typed:
            burst.append(press)
        elif action:  # None for a modifier that served a chord, a click or a typed character
            out.append(_reduced(action, events, press.down, _last(press)))
    if burst:
        out.append(_typed(burst, events))
    return out


def _key_presses(events: Sequence[RawEvent], settings: InputSettings) -> list[_KeyPress]:
    """Every key press in order of its key_down, autorepeat folded in; unmatched key_ups
    are dropped."""
    presses: list[_KeyPress] = []
    latest: dict[object, int] = {}  # key -> position of its latest press in `presses`
    for i, e in enumerate(events):
        if e.kind not in ("key_down", "key_up"):
            continue
        n = latest.get(_key_id(e))
        if e.kind == "key_up":
            if n is not None:
                presses[n] = replace(presses[n], up=i)
        elif n is not None and _repeats(presses[n], e, events, settings):
            presses[n] = replace(presses[n], up=None)  # autorepeat: the same hold goes on
        else:
            latest[_key_id(e)] = len(presses)
            presses.append(_KeyPress(i, None, e.keysym, e.char or "", e.keycode))
    return presses


def _repeats(
    press: _KeyPress, down: RawEvent, events: Sequence[RawEvent], settings: InputSettings
) -> bool:
    """Whether `down`, a key_down of the key `press` pressed, is the server repeating it."""
    if press.up is None:
        return True  # still down: only autorepeat presses a key that is down
    if not settings.repeat_releases:
        return False  # this server's repeats are presses alone: a release ended the press
    released, began = events[press.up].t, events[press.down].t
    return (
        settings.repeats(down.keycode)
        and abs(down.t - released) < SERVER_TICK / 2
        and down.t - began >= settings.repeat_delay - settings.repeat_interval
    )


def _is_typed(
    press: _KeyPress,
    events: Sequence[RawEvent],
    held: list[tuple[str, ...]],
    settings: InputSettings,
) -> bool:
    """A character typed once: a held key that repeats typed more, and is a `key`."""
    return (
        press.char.isprintable()
        and press.char != ""
        and set(held[press.down]) <= _TYPING_MODIFIERS
        and (_hold(press, events) < settings.repeat_delay or not settings.repeats(press.keycode))
    )


def _ends_burst(
    previous: _KeyPress,
    press: _KeyPress,
    events: Sequence[RawEvent],
    buttons: list[int],
    th: Thresholds,
) -> bool:
    pause = events[press.down].t - events[_last(previous)].t
    return pause > th.type_pause or _any_between(buttons, previous.down, press.down)


def _typed(burst: list[_KeyPress], events: Sequence[RawEvent]) -> Reduced:
    text = "".join(p.char for p in burst)
    return _reduced(Action("type", text=text), events, burst[0].down, max(_last(p) for p in burst))


def _key_action(
    press: _KeyPress,
    events: Sequence[RawEvent],
    held: list[tuple[str, ...]],
    settings: InputSettings,
    *,
    starts: list[int],
) -> Action | None:
    """The `key` action of a non-typing press; a modifier gets one only when pressed alone.
    A hold of at least the repeat delay is its `duration`; a shorter one is a tap."""
    if press.keysym is None:
        return None
    if is_modifier(press.keysym):
        end = press.up if press.up is not None else len(events)
        if _any_between(starts, press.down, end):
            return None
    hold = _hold(press, events)
    duration = round(min(hold, MAX_KEY_HOLD), 3) if hold >= settings.repeat_delay else None
    return _key(held[press.down], press.keysym, duration)


def _key(modifiers: tuple[str, ...], keysym: str, duration: float | None = None) -> Action | None:
    try:
        return Action("key", text="+".join([*modifiers, keysym]), duration=duration)
    except ActionError:
        return None  # a keysym X has no name for cannot be replayed by name


def _hold(press: _KeyPress, events: Sequence[RawEvent]) -> float:
    return events[press.up].t - events[press.down].t if press.up is not None else 0.0


def _last(press: _KeyPress) -> int:
    return press.up if press.up is not None else press.down


def _any_between(sorted_indices: list[int], start: int, end: int) -> bool:
    """Whether any index lies strictly between start and end."""
    n = bisect_right(sorted_indices, start)
    return n < len(sorted_indices) and sorted_indices[n] < end


# --- pointer -----------------------------------------------------------------------------

_CLICKS = {1: "left_click", 2: "middle_click", 3: "right_click"}
_MULTI_CLICKS = {2: "double_click", 3: "triple_click"}
_WHEEL = {4: "up", 5: "down", 6: "left", 7: "right"}


@dataclass(frozen=True, slots=True)
class _ButtonPress:
    """One press of one button (a wheel tick is one too): its button_down and button_up."""

    button: int
    down: int
    up: int | None


def _pointer_actions(
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
            and not _any_between(keys, runs[-1][-1].down, press.down)
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
    stray = _distance(events[first.down], events[press.down])
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
    return _distance(down, up) <= th.drag_distance and up.t - down.t < th.long_press


def _run_actions(
    run: list[_ButtonPress], events: Sequence[RawEvent], held: list[tuple[str, ...]], th: Thresholds
) -> list[Reduced]:
    first, final = run[0], run[-1]
    at = _position(events[first.down])
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
        return [_reduced(scroll, events, first.down, last)]
    if len(run) > 1:
        clicks = Action(_MULTI_CLICKS[len(run)], coordinate=at, with_key=with_key)
        return [_reduced(clicks, events, first.down, last)]
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
    click = Action(_CLICKS[press.button], coordinate=_position(down), with_key=with_key)
    if press.button != 1:
        return [_reduced(click, events, press.down, last)]
    if up is not None and _distance(down, up) > th.drag_distance:
        drag = Action(
            "left_click_drag",
            start_coordinate=_position(down),
            coordinate=_position(up),
            with_key=with_key,
        )
        return [_reduced(drag, events, press.down, last)]
    if with_key is not None or (up is not None and up.t - down.t < th.long_press):
        return [_reduced(click, events, press.down, last)]
    pressed = _reduced(
        Action("left_mouse_down", coordinate=_position(down)), events, press.down, press.down
    )
    if up is None:
        return [pressed]
    return [
        pressed,
        _reduced(Action("left_mouse_up", coordinate=_position(up)), events, last, last),
    ]


def _hovers(
    events: Sequence[RawEvent],
    th: Thresholds,
    pointer_at: tuple[int, int] | None,
    until: float | None,
) -> list[Reduced]:
    """Places the pointer moved to and rested at, without a press there."""
    pointer = [i for i, e in enumerate(events) if e.kind in _POINTER_KINDS]
    out: list[Reduced] = []
    buttons: set[int | None] = set()
    left_at = pointer_at  # where the last pointer action or hover left the pointer
    end = events[-1].t if events else 0.0
    if until is not None:
        end = max(end, until)  # the recording goes on: a rest at the end lasts until then
    for n, i in enumerate(pointer):
        e = events[i]
        if e.kind == "button_down":
            buttons.add(e.button)
        elif e.kind == "button_up":
            buttons.discard(e.button)
        if e.kind != "motion":
            left_at = _position(e)
            continue
        after = events[pointer[n + 1]] if n + 1 < len(pointer) else None
        rest = (after.t if after is not None else end) - e.t
        if (
            buttons
            or rest < th.hover_time
            or (
                after is not None
                and after.kind == "button_down"
                and rest < th.idle
                and _distance(e, after) <= th.drag_distance
            )
            or (left_at is not None and math.dist(_position(e), left_at) <= th.drag_distance)
        ):
            continue
        out.append(_reduced(Action("mouse_move", coordinate=_position(e)), events, i, i))
        left_at = _position(e)
    return out


def _pointer_left_at(
    events: Sequence[RawEvent], reduced: Sequence[Reduced], before: tuple[int, int] | None
) -> tuple[int, int] | None:
    """Where `events` (reduced to `reduced`) left the pointer for the hover rule: at their
    last press, release or hover; `before` when they have none."""
    last = max(
        (i for i, e in enumerate(events) if e.kind in ("button_down", "button_up")), default=-1
    )
    hover = max((r.first for r in reduced if r.action.action == "mouse_move"), default=-1)
    if max(last, hover) < 0:
        return before
    return _position(events[max(last, hover)])


_POINTER_KINDS = frozenset({"motion", "button_down", "button_up"})


def _position(e: RawEvent) -> tuple[int, int]:
    return (e.x or 0, e.y or 0)  # the recorder sets x and y on every pointer event


def _distance(a: RawEvent, b: RawEvent) -> float:
    return math.dist(_position(a), _position(b))


# --- merging -----------------------------------------------------------------------------


def _with_waits(actions: Iterable[Reduced], idle: float) -> list[Reduced]:
    """The actions with a `wait` in each gap of at least `idle` seconds between them."""
    out: list[Reduced] = []
    end: float | None = None  # when the actions so far have all ended
    for r in actions:
        if end is not None and r.t_start - end >= idle:
            out.append(_wait(end, r.t_start))
        out.append(r)
        end = r.t_end if end is None else max(end, r.t_end)
    return out


def _wait(start: float, end: float) -> Reduced:
    return Reduced(
        Action("wait", duration=round(min(end - start, MAX_WAIT), 3)), start, end, -1, -1
    )


def _reduced(action: Action, events: Sequence[RawEvent], first: int, last: int) -> Reduced:
    return Reduced(action, events[first].t, events[last].t, first, last)

"""The reducer's keyboard pass: key presses, autorepeat folded in, become typing and `key`s.

Pure: no X, no I/O, no clock.

Decisions the issue left to us:
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
- Cut short by the recording's edges: a key never released counts as tapped; releases
  of earlier presses are ignored.
- Keys without a keysym name X knows make no action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from deskreel.storage.grouping import SERVER_TICK, InputSettings, Thresholds
from deskreel.storage.keys import is_modifier
from deskreel.storage.values import RawEvent
from deskreel.storage.vocabulary import MAX_KEY_HOLD, Action, ActionError

from .reduced import TYPING_MODIFIERS, Reduced, any_between, key_id, reduced

__all__ = ["KeyPress", "key_presses", "keyboard_actions"]


@dataclass(frozen=True, slots=True)
class KeyPress:
    """One press of one key, autorepeat folded in: its key_down and its final key_up."""

    down: int
    up: int | None
    keysym: str | None
    char: str
    keycode: int | None


def keyboard_actions(
    events: Sequence[RawEvent],
    presses: list[KeyPress],
    held: list[tuple[str, ...]],
    settings: InputSettings,
    th: Thresholds,
) -> list[Reduced]:
    """Typing bursts and `key` actions, in order of their first press."""
    buttons = [i for i, e in enumerate(events) if e.kind == "button_down"]
    starts = sorted([p.down for p in presses] + buttons)  # what makes a modifier not alone
    out: list[Reduced] = []
    burst: list[KeyPress] = []
    for press in presses:
        typed = _is_typed(press, events, held, settings)
        action = None if typed else _key_action(press, events, held, settings, starts=starts)
        if burst and (action or typed and _ends_burst(burst[-1], press, events, buttons, th)):
            out.append(_typed(burst, events))
            burst = []
        if typed:
            burst.append(press)
        elif action:  # None for a modifier that served a chord, a click or a typed character
            out.append(reduced(action, events, press.down, _last(press)))
    if burst:
        out.append(_typed(burst, events))
    return out


def key_presses(events: Sequence[RawEvent], settings: InputSettings) -> list[KeyPress]:
    """Every key press in order of its key_down, autorepeat folded in; unmatched key_ups
    are dropped."""
    presses: list[KeyPress] = []
    latest: dict[object, int] = {}  # key -> position of its latest press in `presses`
    for i, e in enumerate(events):
        if e.kind not in ("key_down", "key_up"):
            continue
        n = latest.get(key_id(e))
        if e.kind == "key_up":
            if n is not None:
                presses[n] = replace(presses[n], up=i)
        elif n is not None and _repeats(presses[n], e, events, settings):
            presses[n] = replace(presses[n], up=None)  # autorepeat: the same hold goes on
        else:
            latest[key_id(e)] = len(presses)
            presses.append(KeyPress(i, None, e.keysym, e.char or "", e.keycode))
    return presses


def _repeats(
    press: KeyPress, down: RawEvent, events: Sequence[RawEvent], settings: InputSettings
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
    press: KeyPress,
    events: Sequence[RawEvent],
    held: list[tuple[str, ...]],
    settings: InputSettings,
) -> bool:
    """A character typed once: a held key that repeats typed more, and is a `key`."""
    return (
        press.char.isprintable()
        and press.char != ""
        and set(held[press.down]) <= TYPING_MODIFIERS
        and (_hold(press, events) < settings.repeat_delay or not settings.repeats(press.keycode))
    )


def _ends_burst(
    previous: KeyPress,
    press: KeyPress,
    events: Sequence[RawEvent],
    buttons: list[int],
    th: Thresholds,
) -> bool:
    pause = events[press.down].t - events[_last(previous)].t
    return pause > th.type_pause or any_between(buttons, previous.down, press.down)


def _typed(burst: list[KeyPress], events: Sequence[RawEvent]) -> Reduced:
    text = "".join(p.char for p in burst)
    return reduced(Action("type", text=text), events, burst[0].down, max(_last(p) for p in burst))


def _key_action(
    press: KeyPress,
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
        if any_between(starts, press.down, end):
            return None
    hold = _hold(press, events)
    duration = round(min(hold, MAX_KEY_HOLD), 3) if hold >= settings.repeat_delay else None
    return _key(held[press.down], press.keysym, duration)


def _key(modifiers: tuple[str, ...], keysym: str, duration: float | None = None) -> Action | None:
    try:
        return Action("key", text="+".join([*modifiers, keysym]), duration=duration)
    except ActionError:
        return None  # a keysym X has no name for cannot be replayed by name


def _hold(press: KeyPress, events: Sequence[RawEvent]) -> float:
    return events[press.up].t - events[press.down].t if press.up is not None else 0.0


def _last(press: KeyPress) -> int:
    return press.up if press.up is not None else press.down

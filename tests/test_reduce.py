"""The reducer: raw input events in, vocabulary actions out; no X server needed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from deskreel.recorder.reduce import DEFAULT_THRESHOLDS, Thresholds, reduce_events
from deskreel.storage.grouping import DEFAULT_SETTINGS, InputSettings
from deskreel.storage.keys import char_keysym, keysym_name, keysym_of
from deskreel.storage.values import RawEvent
from deskreel.storage.vocabulary import Action

# --- builders: event lists that read like a person's input -------------------------------

US_SHIFTED = dict(zip('!@#$%^&*()_+{}|:"<>?~', "1234567890-=[]\\;',./`", strict=True))
HOLD = 0.08  # s a key or button stays down in an ordinary press


def events(*parts: list[RawEvent]) -> list[RawEvent]:
    """The parts merged into one time-ordered list, as the recorder would store them."""
    return sorted((e for part in parts for e in part), key=lambda e: e.t)


def key_down(t: float, keysym: str, char: str = "") -> list[RawEvent]:
    # The keysym number serves as keycode: unique per key, which is all the reducer needs.
    return [RawEvent(t, "key_down", keycode=keysym_of(keysym), keysym=keysym, char=char)]


def key_up(t: float, keysym: str) -> list[RawEvent]:
    return [RawEvent(t, "key_up", keycode=keysym_of(keysym), keysym=keysym)]


def tap(t: float, keysym: str, char: str = "", *, hold: float = HOLD) -> list[RawEvent]:
    return key_down(t, keysym, char) + key_up(t + hold, keysym)


def chord(t: float, *keysyms: str, char: str = "") -> list[RawEvent]:
    """Modifiers down in order, the last key tapped, then the modifiers up in reverse."""
    *mods, key = keysyms
    downs = [e for n, m in enumerate(mods) for e in key_down(t + 0.02 * n, m)]
    tapped = tap(t + 0.1, key, char)
    ups = [e for n, m in enumerate(reversed(mods)) for e in key_up(t + 0.2 + 0.02 * n, m)]
    return downs + tapped + ups


def typing(
    t: float, text: str, *, gap: float = 0.15, hold: float = HOLD, shift_lead: float = 0.03
) -> list[RawEvent]:
    """`text` typed on a US layout, Shift_L held around each shifted character."""
    out: list[RawEvent] = []
    for n, char in enumerate(text):
        at = t + n * gap
        base = US_SHIFTED.get(char, char.lower())
        name = keysym_name(char_keysym(base)) or base
        if char in US_SHIFTED or char != char.lower():
            out += (
                key_down(at - shift_lead, "Shift_L")
                + tap(at, name, char, hold=hold)
                + key_up(at + hold + shift_lead / 3, "Shift_L")
            )
        else:
            out += tap(at, name, char, hold=hold)
    return out


def button(t: float, kind: str, x: int, y: int, number: int = 1) -> list[RawEvent]:
    return [RawEvent(t, kind, x=x, y=y, button=number)]


def click(
    t: float,
    x: int,
    y: int,
    *,
    number: int = 1,
    hold: float = HOLD,
    to: tuple[int, int] | None = None,
) -> list[RawEvent]:
    """A press at (x, y) and a release after `hold`, at `to` when the pointer moved."""
    tx, ty = to or (x, y)
    moves = move(t + hold / 2, tx, ty) if to else []
    return (
        button(t, "button_down", x, y, number)
        + moves
        + button(t + hold, "button_up", tx, ty, number)
    )


def move(t: float, x: int, y: int) -> list[RawEvent]:
    return [RawEvent(t, "motion", x=x, y=y)]


def wheel(
    t: float, x: int, y: int, number: int = 5, *, ticks: int = 1, gap: float = 0.05
) -> list[RawEvent]:
    return [e for n in range(ticks) for e in click(t + n * gap, x, y, number=number, hold=0)]


def spans(evs: list[RawEvent]) -> list[tuple[Action, float, float, int, int]]:
    """Each action with its times (rounded to µs, to compare exactly) and event indices."""
    return [
        (r.action, round(r.t_start, 6), round(r.t_end, 6), r.first, r.last)
        for r in reduce_events(evs)
    ]


def actions(
    evs: list[RawEvent], settings: InputSettings = DEFAULT_SETTINGS, **thresholds: float
) -> list[Action]:
    return [
        r.action for r in reduce_events(evs, settings=settings, thresholds=Thresholds(**thresholds))
    ]


def key(text: str, duration: float | None = None) -> Action:
    return Action("key", text=text, duration=duration)


def typed(text: str) -> Action:
    return Action("type", text=text)


def at(name: str, x: int, y: int, **fields: Any) -> Action:
    return Action(name, coordinate=(x, y), **fields)


def wait(duration: float) -> Action:
    return Action("wait", duration=duration)


# --- pointer -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("evs", "expected"),
    [
        (click(0, 10, 20), [at("left_click", 10, 20)]),
        (click(0, 10, 20, number=3), [at("right_click", 10, 20)]),
        (click(0, 10, 20, number=2), [at("middle_click", 10, 20)]),
        (click(0, 10, 20, to=(13, 20)), [at("left_click", 10, 20)]),  # a 3 px drag is a click
        (
            click(0, 10, 20, to=(110, 220)),
            [Action("left_click_drag", start_coordinate=(10, 20), coordinate=(110, 220))],
        ),
        (click(0, 10, 20, number=3, to=(110, 220)), [at("right_click", 10, 20)]),
        (click(0, 10, 20, hold=1.5), [at("left_mouse_down", 10, 20), at("left_mouse_up", 10, 20)]),
        (
            click(0, 10, 20, hold=1.5, to=(60, 20)),  # a slow drag is still a drag
            [Action("left_click_drag", start_coordinate=(10, 20), coordinate=(60, 20))],
        ),
        (click(0, 10, 20, number=3, hold=1.5), [at("right_click", 10, 20)]),
    ],
    ids=[
        "left",
        "right",
        "middle",
        "3px-drag",
        "drag",
        "right-drag",
        "long-press",
        "slow-drag",
        "long-right",
    ],
)
def test_single_presses(evs: list[RawEvent], expected: list[Action]) -> None:
    assert actions(evs) == expected


@pytest.mark.parametrize(
    ("evs", "expected"),
    [
        (events(click(0, 10, 20), click(0.3, 11, 21)), [at("double_click", 10, 20)]),
        (
            events(click(0, 10, 20), click(0.3, 10, 20), click(0.6, 10, 20)),
            [at("triple_click", 10, 20)],
        ),
        (
            events(*(click(0.2 * n, 10, 20) for n in range(4))),
            [at("triple_click", 10, 20), at("left_click", 10, 20)],
        ),
        (
            events(click(0, 10, 20), click(0.8, 10, 20)),  # slow: press to press > 0.5 s
            [at("left_click", 10, 20), at("left_click", 10, 20)],
        ),
        (
            events(click(0, 10, 20), click(0.3, 30, 20)),  # too far apart
            [at("left_click", 10, 20), at("left_click", 30, 20)],
        ),
        (
            events(click(0, 10, 20, number=3), click(0.3, 10, 20, number=3)),
            [at("right_click", 10, 20), at("right_click", 10, 20)],
        ),
        (
            events(click(0, 10, 20, number=2), click(0.3, 10, 20, number=2)),
            [at("middle_click", 10, 20), at("middle_click", 10, 20)],
        ),
        (
            events(click(0, 10, 20), click(0.3, 10, 20, to=(90, 20))),
            [
                at("left_click", 10, 20),
                Action("left_click_drag", start_coordinate=(10, 20), coordinate=(90, 20)),
            ],
        ),
        (
            events(click(0, 10, 20), click(0.3, 10, 20, hold=1.2)),
            [at("left_click", 10, 20), at("left_mouse_down", 10, 20), at("left_mouse_up", 10, 20)],
        ),
        (
            events(
                click(0, 10, 20),
                key_down(0.1, "Shift_L"),
                click(0.3, 10, 20),
                key_up(0.5, "Shift_L"),
            ),  # the modifiers changed between the clicks
            [at("left_click", 10, 20), at("left_click", 10, 20, with_key="shift")],
        ),
    ],
    ids=[
        "double",
        "triple",
        "four",
        "slow-double",
        "far-double",
        "right-double",
        "middle-double",
        "click-then-drag",
        "click-then-long-press",
        "then-shift-click",
    ],
)
def test_multi_clicks(evs: list[RawEvent], expected: list[Action]) -> None:
    assert actions(evs) == expected


def test_a_multi_click_spans_all_its_events() -> None:
    evs = events(click(1.0, 10, 20), click(1.3, 10, 20), click(1.6, 10, 20))
    assert spans(evs) == [(at("triple_click", 10, 20), 1.0, 1.68, 0, 5)]


@pytest.mark.parametrize(
    ("evs", "expected"),
    [
        (
            wheel(0, 50, 60, 5, ticks=5),
            [at("scroll", 50, 60, scroll_direction="down", scroll_amount=5)],
        ),
        (
            wheel(0, 50, 60, 4, ticks=2),
            [at("scroll", 50, 60, scroll_direction="up", scroll_amount=2)],
        ),
        (
            wheel(0, 50, 60, 6, ticks=3),
            [at("scroll", 50, 60, scroll_direction="left", scroll_amount=3)],
        ),
        (wheel(0, 50, 60, 7), [at("scroll", 50, 60, scroll_direction="right", scroll_amount=1)]),
        (
            events(wheel(0, 50, 60, ticks=3), wheel(1.5, 50, 60, ticks=2)),  # far apart in time
            [
                at("scroll", 50, 60, scroll_direction="down", scroll_amount=3),
                at("scroll", 50, 60, scroll_direction="down", scroll_amount=2),
            ],
        ),
        (
            events(wheel(0, 50, 60, ticks=2), wheel(0.2, 90, 60)),  # somewhere else
            [
                at("scroll", 50, 60, scroll_direction="down", scroll_amount=2),
                at("scroll", 90, 60, scroll_direction="down", scroll_amount=1),
            ],
        ),
        (
            events(wheel(0, 50, 60, 5, ticks=2), wheel(0.2, 50, 60, 4)),  # direction changed
            [
                at("scroll", 50, 60, scroll_direction="down", scroll_amount=2),
                at("scroll", 50, 60, scroll_direction="up", scroll_amount=1),
            ],
        ),
        (
            events(wheel(0, 50, 60, ticks=2), move(0.1, 56, 62), wheel(0.2, 56, 62)),  # jitter
            [at("scroll", 50, 60, scroll_direction="down", scroll_amount=3)],
        ),
    ],
    ids=["five-down", "up", "left", "right", "slow", "elsewhere", "reversed", "jitter"],
)
def test_scrolls(evs: list[RawEvent], expected: list[Action]) -> None:
    assert actions(evs) == expected


@pytest.mark.parametrize(
    ("mods", "evs", "expected"),
    [
        (["Shift_L"], click(0.1, 10, 20), at("left_click", 10, 20, with_key="shift")),
        (
            ["Control_R", "Shift_L"],
            click(0.1, 10, 20),
            at("left_click", 10, 20, with_key="ctrl+shift"),
        ),
        (
            ["Shift_L", "Control_L"],
            click(0.1, 10, 20),  # the order pressed does not matter
            at("left_click", 10, 20, with_key="ctrl+shift"),
        ),
        (
            ["Control_L"],
            events(click(0.1, 10, 20), click(0.3, 10, 20)),
            at("double_click", 10, 20, with_key="ctrl"),
        ),
        (
            ["Alt_L"],
            click(0.1, 10, 20, to=(90, 20)),
            Action(
                "left_click_drag", start_coordinate=(10, 20), coordinate=(90, 20), with_key="alt"
            ),
        ),
        (
            ["Shift_L"],
            wheel(0.1, 50, 60, 5, ticks=3),  # shift+wheel stays vertical
            at("scroll", 50, 60, scroll_direction="down", scroll_amount=3, with_key="shift"),
        ),
        (
            ["Super_L"],
            click(0.1, 10, 20, hold=1.5),  # long press under a modifier: the click
            at("left_click", 10, 20, with_key="super"),
        ),
    ],
    ids=[
        "shift",
        "ctrl-shift",
        "shift-ctrl",
        "ctrl-double",
        "alt-drag",
        "shift-wheel",
        "super-long-press",
    ],
)
def test_modifiers_held_on_the_pointer_make_with_key(
    mods: list[str], evs: list[RawEvent], expected: Action
) -> None:
    downs = [e for n, m in enumerate(mods) for e in key_down(0.01 * n, m)]
    ups = [e for m in mods for e in key_up(3.0, m)]
    assert actions(events(downs, evs, ups)) == [expected]


def test_hover_is_a_rest_without_a_click() -> None:
    evs = events(move(0.0, 10, 10), move(0.1, 200, 150), move(1.4, 210, 150), click(1.5, 210, 150))
    assert actions(evs) == [at("mouse_move", 200, 150), at("left_click", 210, 150)]


@pytest.mark.parametrize(
    ("evs", "expected"),
    [
        (events(move(0.0, 200, 150), click(1.5, 200, 150)), [at("left_click", 200, 150)]),
        (
            events(move(0.0, 200, 150), move(0.5, 300, 150), click(0.9, 300, 150)),
            [at("left_click", 300, 150)],
        ),
        (
            events(click(0, 10, 10, to=(200, 10)), move(0.5, 300, 10)),  # last event: no rest
            [Action("left_click_drag", start_coordinate=(10, 10), coordinate=(200, 10))],
        ),
        (
            events(
                button(0, "button_down", 10, 10),
                move(0.1, 200, 10),
                move(1.5, 210, 10),
                button(3, "button_up", 210, 10),
            ),  # a drag's pauses are part of the drag
            [Action("left_click_drag", start_coordinate=(10, 10), coordinate=(210, 10))],
        ),
        (
            events(click(0, 10, 10), move(0.1, 12, 11), tap(1.5, "Return")),  # jitter after a click
            [at("left_click", 10, 10), key("Return")],
        ),
    ],
    ids=["rest-then-click", "short-rests", "motion-at-end", "drag-pause", "jitter"],
)
def test_motion_that_is_not_a_hover(evs: list[RawEvent], expected: list[Action]) -> None:
    assert actions(evs) == expected


def test_a_rest_ended_by_a_press_elsewhere_is_a_hover() -> None:
    # An application warped the pointer: the press is not "there", so the rest was a hover.
    evs = events(move(0.0, 200, 150), click(1.5, 600, 400))
    assert actions(evs) == [at("mouse_move", 200, 150), at("left_click", 600, 400)]


def test_hover_ends_at_a_key_and_recording_end() -> None:
    evs = events(move(0.0, 400, 300), tap(1.2, "Escape"))
    assert spans(evs) == [
        (at("mouse_move", 400, 300), 0.0, 0.0, 0, 0),
        (key("Escape"), 1.2, 1.28, 1, 2),
    ]


# --- keyboard ------------------------------------------------------------------------------


def test_shift_inside_typed_words_is_one_type_action() -> None:
    text = "Hello, World 42!"
    assert actions(typing(0, text)) == [typed(text)]


def test_typed_burst_spans_its_events() -> None:
    evs = typing(1.0, "ab")
    assert spans(evs) == [(typed("ab"), 1.0, 1.23, 0, 3)]


def test_altgr_typing() -> None:
    # German layout: AltGr+q types "@", AltGr+e types the euro sign.
    evs = events(
        typing(0, "a"),
        key_down(0.2, "ISO_Level3_Shift"),
        tap(0.25, "q", "@"),
        tap(0.4, "e", "€"),
        key_up(0.5, "ISO_Level3_Shift"),
        tap(0.6, "udiaeresis", "ü"),
    )
    assert actions(evs) == [typed("a@€ü")]


@pytest.mark.parametrize(
    ("evs", "expected"),
    [
        (
            events(typing(0, "hi"), tap(0.5, "Return"), typing(0.7, "yo")),
            [typed("hi"), key("Return"), typed("yo")],
        ),
        (
            events(
                typing(0, "ab"),
                tap(0.4, "BackSpace"),
                tap(0.6, "Tab", "\t"),
                tap(0.8, "Escape"),
                tap(1.0, "F5"),
            ),
            [typed("ab"), key("BackSpace"), key("Tab"), key("Escape"), key("F5")],
        ),
        (
            events(typing(0, "ab"), click(0.5, 10, 10), typing(0.8, "cd")),
            [typed("ab"), at("left_click", 10, 10), typed("cd")],
        ),
        (events(typing(0, "ab"), typing(1.5, "cd")), [typed("abcd")]),  # a 1.27 s pause
        (events(typing(0, "ab"), typing(3.23, "cd")), [typed("ab"), wait(3.0), typed("cd")]),
    ],
    ids=["return", "non-printables", "click", "short-pause", "long-pause"],
)
def test_typing_bursts_end(evs: list[RawEvent], expected: list[Action]) -> None:
    assert actions(evs) == expected


def test_a_pause_longer_than_type_pause_but_shorter_than_idle() -> None:
    assert actions(events(typing(0, "ab"), typing(1.9, "cd"))) == [typed("ab"), typed("cd")]


@pytest.mark.parametrize(
    ("evs", "expected"),
    [
        (
            events(chord(0, "Control_L", "a", char="a"), tap(0.5, "Return")),
            [key("ctrl+a"), key("Return")],
        ),
        (chord(0, "Control_L", "Shift_L", "s", char="S"), [key("ctrl+shift+s")]),
        (chord(0, "Shift_R", "Control_R", "s", char="S"), [key("ctrl+shift+s")]),
        (chord(0, "Alt_L", "Tab", char="\t"), [key("alt+Tab")]),
        (chord(0, "Shift_L", "Tab"), [key("shift+Tab")]),
        (chord(0, "Super_L", "Left"), [key("super+Left")]),
        (
            events(
                key_down(0, "Control_L"),
                key_down(0.1, "a", "a"),
                key_up(0.2, "Control_L"),
                key_up(0.3, "a"),
            ),
            [key("ctrl+a")],
        ),
        (
            events(
                key_down(0, "Control_L"),
                key_down(0.1, "Shift_L"),
                key_down(0.2, "s", "S"),
                key_up(0.3, "Control_L"),
                key_up(0.35, "Shift_L"),
                key_up(0.4, "s"),
            ),
            [key("ctrl+shift+s")],
        ),
        (
            events(
                key_down(0, "Control_L"),
                tap(0.1, "a", "a"),
                tap(0.3, "s", "s"),
                key_up(0.5, "Control_L"),
            ),
            [key("ctrl+a"), key("ctrl+s")],
        ),
        (
            events(
                key_down(0, "Control_L"),
                key_down(0.1, "a", "a"),
                key_up(0.2, "Control_L"),
                key_down(0.25, "s", "s"),
                key_up(0.3, "a"),
                key_up(0.35, "s"),
            ),
            [key("ctrl+a"), typed("s")],
        ),
    ],
    ids=[
        "ctrl-a-return",
        "ctrl-shift-s",
        "right-hand",
        "alt-tab",
        "shift-tab",
        "super-left",
        "ctrl-up-first",
        "two-mods-out-of-order",
        "ctrl-held-across",
        "rollover",
    ],
)
def test_chords(evs: list[RawEvent], expected: list[Action]) -> None:
    assert actions(evs) == expected


@pytest.mark.parametrize(
    ("evs", "expected"),
    [
        (tap(0, "Super_L"), [key("Super_L")]),
        (tap(0, "Control_R"), [key("Control_R")]),
        (tap(0, "Shift_L", hold=1.5), [key("Shift_L", 1.5)]),
        (
            events(key_down(0, "Control_L"), tap(0.1, "Shift_L"), key_up(0.3, "Control_L")),
            [key("ctrl+Shift_L")],
        ),
        (
            events(key_down(0, "Control_L"), move(0.1, 50, 50), key_up(0.3, "Control_L")),
            [key("Control_L")],
        ),
    ],
    ids=["super", "right-ctrl", "long-shift", "ctrl-then-shift", "motion-between"],
)
def test_a_modifier_pressed_alone_is_a_key(evs: list[RawEvent], expected: list[Action]) -> None:
    assert actions(evs) == expected


# A keyboard that repeats after 500 ms, every 30 ms (the X server's own are 660 and 40),
# on a server with XInput 2 (repeats are presses alone) and on an older one (each repeat
# comes after a release at its own timestamp).
REPEAT = InputSettings(repeat_delay=0.5, repeat_interval=0.03)
REPEAT_PAIRS = InputSettings(repeat_delay=0.5, repeat_interval=0.03, repeat_releases=True)


def repeat_down_only(keysym: str, char: str, hold: float) -> list[RawEvent]:
    """Autorepeat as XI2 servers send it (and RECORD sees it): key_downs alone, every
    30 ms after the 500 ms delay."""
    repeats = [
        e for n in range(int((hold - 0.5) / 0.03)) for e in key_down(0.5 + 0.03 * n, keysym, char)
    ]
    return key_down(0, keysym, char) + repeats + key_up(hold, keysym)


def repeat_up_down(keysym: str, char: str, hold: float) -> list[RawEvent]:
    """Autorepeat as older servers send it: a key_up and a key_down with one timestamp."""
    repeats = [
        e
        for n in range(int((hold - 0.5) / 0.03))
        for e in key_up(0.5 + 0.03 * n, keysym) + key_down(0.5 + 0.03 * n, keysym, char)
    ]
    return key_down(0, keysym, char) + repeats + key_up(hold, keysym)


Autorepeat = Callable[[str, str, float], list[RawEvent]]


@pytest.mark.parametrize(
    ("autorepeat", "settings"), [(repeat_down_only, REPEAT), (repeat_up_down, REPEAT_PAIRS)]
)
@pytest.mark.parametrize(
    ("keysym", "char", "expected"),
    [("a", "a", key("a", 1.2)), ("BackSpace", "", key("BackSpace", 1.2))],
)
def test_a_held_key_is_one_key_with_duration(
    autorepeat: Autorepeat, settings: InputSettings, keysym: str, char: str, expected: Action
) -> None:
    evs = autorepeat(keysym, char, 1.2)
    assert len([e for e in evs if e.kind == "key_down"]) > 10  # the test does repeat
    assert actions(events(evs, typing(1.5, "b")), settings) == [expected, typed("b")]


def test_a_held_chord_keeps_its_modifiers() -> None:
    evs = events(
        key_down(0, "Control_L"), repeat_down_only("z", "z", 0.9), key_up(1.0, "Control_L")
    )
    assert actions(evs, REPEAT) == [key("ctrl+z", 0.9)]


def test_a_fast_double_letter_is_not_autorepeat() -> None:
    assert actions(typing(0, "ll", gap=0.1)) == [typed("ll")]


def xdotool_type(t: float, text: str, *, delay: float) -> list[RawEvent]:
    """`xdotool type --delay`: each key held half the delay, the next pressed the other
    half later (shifted characters inside Shift_L)."""
    return typing(t, text, gap=delay, hold=delay / 2, shift_lead=0.0)


@pytest.mark.parametrize("settings", [REPEAT, REPEAT_PAIRS], ids=["xinput2", "older"])
@pytest.mark.parametrize("delay", [0.012, 0.001, 0.0])
@pytest.mark.parametrize(
    "text", ["Hello balloon 1000: aa bb ccc!", "Mississippi  committee 7788", "aaaa    zz"]
)
def test_fast_typing_keeps_every_doubled_letter(
    text: str, delay: float, settings: InputSettings
) -> None:
    # xdotool --delay 1 re-presses a key within a millisecond of releasing it, at the very
    # timestamp with --delay 0: held far shorter than any repeat delay, each is a press.
    assert actions(xdotool_type(0, text, delay=delay), settings) == [typed(text)]


def test_a_release_and_press_at_one_timestamp_is_a_repeat_only_after_the_delay() -> None:
    early = tap(0, "a", "a", hold=0.3) + key_down(0.3, "a", "a") + key_up(0.35, "a")
    assert actions(early, REPEAT_PAIRS) == [typed("aa")]
    late = key_down(0, "a", "a") + key_up(0.5, "a") + key_down(0.5, "a", "a") + key_up(0.6, "a")
    assert actions(late, REPEAT_PAIRS) == [key("a", 0.6)]
    apart = (
        key_down(0, "a", "a") + key_up(0.5, "a") + key_down(0.502, "a", "a") + key_up(0.6, "a")
    )  # two ticks apart: a release and a new press
    assert actions(apart, REPEAT_PAIRS) == [key("a", 0.5), typed("a")]


def test_on_a_server_whose_repeats_are_presses_a_release_always_ends_a_press() -> None:
    # a key held 1.12 s, released and pressed again within the millisecond (a replay of
    # two held keys back to back): two holds, though one timestamp follows the delay
    evs = key_down(0, "1", "1") + key_up(1.12, "1") + key_down(1.12, "1", "1") + key_up(2.24, "1")
    assert actions(evs, REPEAT) == [key("1", 1.12), key("1", 1.12)]


@pytest.mark.parametrize(
    "settings",
    [
        InputSettings(repeat_delay=0.5, repeat_interval=0.03, repeat=False, repeat_releases=True),
        InputSettings(
            repeat_delay=0.5,
            repeat_interval=0.03,
            repeating=frozenset({1, 2, 3}),
            repeat_releases=True,
        ),
    ],
    ids=["repeat-off", "no-repeat-bit"],
)
def test_a_key_that_does_not_repeat_is_pressed_again(settings: InputSettings) -> None:
    # the same timestamp after a long hold, but the server never repeats this key: two
    # presses, each typing its character once
    evs = key_down(0, "a", "a") + key_up(0.5, "a") + key_down(0.5, "a", "a") + key_up(0.6, "a")
    assert actions(evs, settings) == [typed("aa")]


@pytest.mark.parametrize(
    ("delay", "expected"),
    [
        (0.66, [typed("a")]),  # X's default: held 0.6 s, one character
        (0.25, [key("a", 0.6)]),  # a quick keyboard: held 0.6 s it repeated
    ],
)
def test_a_hold_is_a_duration_from_the_repeat_delay_on(
    delay: float, expected: list[Action]
) -> None:
    settings = InputSettings(repeat_delay=delay)
    assert actions(tap(0, "a", "a", hold=0.6), settings) == expected
    assert actions(tap(0, "Return", hold=0.6), settings) == [
        key("Return", 0.6 if delay < 0.6 else None)
    ]


def test_rolled_keys_type_in_the_order_they_went_down() -> None:
    # t-down, h-down, t-up, h-up; then Shift rolled over into the next letters
    evs = events(
        key_down(0, "t", "t"),
        key_down(0.03, "h", "h"),
        key_up(0.05, "t"),
        key_up(0.08, "h"),
        key_down(0.2, "Shift_L"),
        key_down(0.22, "i", "I"),
        key_down(0.25, "s", "S"),
        key_up(0.26, "Shift_L"),
        key_up(0.27, "i"),
        key_down(0.28, "t", "t"),
        key_up(0.29, "s"),
        key_up(0.3, "t"),
    )
    assert actions(evs) == [typed("thISt")]


def test_a_chord_pressed_within_one_millisecond() -> None:
    evs = events(
        key_down(0, "Control_L"),
        tap(0, "s", "s", hold=0),
        key_up(0, "Control_L"),
        key_down(0, "Control_L"),
        tap(0, "s", "s", hold=0),
        key_up(0, "Control_L"),
    )
    assert actions(evs) == [key("ctrl+s"), key("ctrl+s")]


@pytest.mark.parametrize(
    ("multi_click_time", "expected"),
    [
        (0.5, [at("double_click", 10, 20)]),
        (0.4, [at("left_click", 10, 20), at("left_click", 10, 20)]),
    ],
)
def test_the_desktops_multi_click_time_decides(
    multi_click_time: float, expected: list[Action]
) -> None:
    evs = events(click(0, 10, 20), click(0.45, 10, 20))
    settings = InputSettings(multi_click_time=multi_click_time)
    assert actions(evs, settings) == expected


def test_input_settings_survive_json() -> None:
    settings = InputSettings(
        repeat_delay=0.25,
        repeat_interval=0.03,
        repeat=False,
        repeating=frozenset({9, 38, 255}),
        repeat_releases=True,
        multi_click_time=0.4,
        multi_click_distance=3,
        sources=("xkb", "xsettings"),
    )
    assert InputSettings.from_json(settings.to_json()) == settings
    assert InputSettings.from_json(None) == DEFAULT_SETTINGS
    assert (
        InputSettings.from_json({"repeat_delay": -1, "repeating": "zz", "multi_click_time": "x"})
        == DEFAULT_SETTINGS
    )


# --- waits, edges, thresholds --------------------------------------------------------------


def test_an_idle_gap_becomes_a_wait_between_the_actions() -> None:
    # motion that makes no action (rests shorter than hover_time) counts as idle
    evs = events(
        click(0, 10, 10),
        move(1.0, 300, 300),
        move(1.9, 350, 250),
        move(2.8, 400, 200),
        click(3.58, 400, 200),
    )
    assert spans(evs) == [
        (at("left_click", 10, 10), 0.0, 0.08, 0, 1),
        (wait(3.5), 0.08, 3.58, -1, -1),
        (at("left_click", 400, 200), 3.58, 3.66, 5, 6),
    ]


def test_a_rest_longer_than_idle_before_a_click_there_is_a_hover() -> None:
    # shorter than idle it is the click's approach ("rest-then-click"); longer, the hover
    # keeps the pointer where the person left it during the wait
    evs = events(click(0, 10, 10), move(0.5, 400, 200), click(3.0, 400, 200))
    assert actions(evs) == [
        at("left_click", 10, 10),
        at("mouse_move", 400, 200),
        wait(2.5),
        at("left_click", 400, 200),
    ]


def test_a_hover_breaks_an_idle_gap() -> None:
    # The wait runs from the hover's rest to the next click, not from the first click.
    evs = events(click(0, 10, 10), move(1.0, 300, 300), move(3.5, 400, 200), click(4.0, 400, 200))
    assert actions(evs) == [
        at("left_click", 10, 10),
        at("mouse_move", 300, 300),
        wait(3.0),
        at("left_click", 400, 200),
    ]


def test_a_long_press_longer_than_idle_waits_between_down_and_up() -> None:
    assert actions(click(0, 10, 10, hold=2.5)) == [
        at("left_mouse_down", 10, 10),
        wait(2.5),
        at("left_mouse_up", 10, 10),
    ]


def test_unmatched_releases_at_the_start_are_ignored() -> None:
    evs = events(
        key_up(0, "a"),
        key_up(0.05, "Shift_L"),
        button(0.1, "button_up", 5, 5),
        button(0.15, "button_up", 5, 5, 5),
        typing(0.3, "ok"),
    )
    assert spans(evs) == [(typed("ok"), 0.3, 0.53, 4, 7)]


@pytest.mark.parametrize(
    ("evs", "expected"),
    [
        (key_down(0, "Return"), [key("Return")]),
        (key_down(0, "a", "a"), [typed("a")]),
        (events(key_down(0, "Control_L"), key_down(0.1, "c", "c")), [key("ctrl+c")]),
        (key_down(0, "Super_L"), [key("Super_L")]),
        (button(0, "button_down", 10, 10), [at("left_mouse_down", 10, 10)]),
        (button(0, "button_down", 10, 10, 3), [at("right_click", 10, 10)]),
    ],
    ids=["return", "char", "chord", "modifier", "left-button", "right-button"],
)
def test_presses_cut_short_by_the_recording_end(
    evs: list[RawEvent], expected: list[Action]
) -> None:
    assert actions(evs) == expected


def test_nothing_in_nothing_out() -> None:
    assert reduce_events([]) == []
    assert actions(move(0, 5, 5) + move(0.2, 50, 50)) == []


def test_unknown_buttons_and_keysyms_make_no_action() -> None:
    evs = events(click(0, 10, 10, number=8), tap(0.2, "NoSuchKey"))
    assert actions(evs) == []


@pytest.mark.parametrize(
    ("thresholds", "expected"),
    [
        ({}, [at("left_click", 10, 20), wait(2.5), at("left_click", 10, 20)]),
        ({"idle": 3}, [at("left_click", 10, 20), at("left_click", 10, 20)]),
        (
            {"drag_distance": 2, "idle": 3},
            [
                Action("left_click_drag", start_coordinate=(10, 20), coordinate=(13, 20)),
                at("left_click", 10, 20),
            ],
        ),
    ],
)
def test_thresholds_change_the_grouping(
    thresholds: dict[str, float], expected: list[Action]
) -> None:
    evs = events(click(0, 10, 20, to=(13, 20)), click(2.58, 10, 20))
    assert actions(evs, DEFAULT_SETTINGS, **thresholds) == expected


def test_output_is_sorted_and_spans_are_consistent() -> None:
    evs = events(
        typing(0, "Hi there"),
        click(1.5, 10, 10),
        wheel(1.8, 10, 10, ticks=4),
        chord(2.2, "Control_L", "s", char="s"),
        move(2.8, 300, 300),
        typing(6.0, "bye"),
    )
    reduced = reduce_events(evs)
    assert [r.action.action for r in reduced] == [
        "type",
        "left_click",
        "scroll",
        "key",
        "mouse_move",
        "wait",
        "type",
    ]
    assert [r.t_start for r in reduced] == sorted(r.t_start for r in reduced)
    for r in reduced:
        if r.first >= 0:
            assert (evs[r.first].t, evs[r.last].t) == (r.t_start, r.t_end)


def test_defaults() -> None:
    assert (
        Thresholds(
            drag_distance=5,
            type_pause=1.5,
            hover_time=1.0,
            scroll_gap=0.5,
            scroll_distance=10,
            idle=2.0,
            long_press=1.0,
        )
        == DEFAULT_THRESHOLDS
    )
    assert (
        InputSettings(
            repeat_delay=0.66,
            repeat_interval=0.04,
            repeat=True,
            repeating=None,
            repeat_releases=False,
            multi_click_time=0.5,
            multi_click_distance=5,
        )
        == DEFAULT_SETTINGS
    )


# --- piece by piece, as the live recorder reduces -------------------------------------------


def in_pieces(evs: list[RawEvent], quiet: float) -> list[list[RawEvent]]:
    """`evs` cut wherever the next event comes more than `quiet` s later."""
    pieces = [[evs[0]]]
    for previous, e in zip(evs, evs[1:]):
        if e.t - previous.t > quiet:
            pieces.append([])
        pieces[-1].append(e)
    return pieces


def reduced_in_pieces(pieces: list[list[RawEvent]]) -> list[tuple[Action, float, float, int, int]]:
    from deskreel.recorder.reduce import Carry, reduce_piece

    out, carry, offset = [], Carry(), 0
    for n, piece in enumerate(pieces):
        until = pieces[n + 1][0].t if n + 1 < len(pieces) else None
        reduced, carry = reduce_piece(piece, carry=carry, until=until)
        out += [
            (
                r.action,
                round(r.t_start, 6),
                round(r.t_end, 6),
                r.first + offset if r.first >= 0 else -1,
                r.last + offset if r.last >= 0 else -1,
            )
            for r in reduced
        ]
        offset += len(piece)
    return out


@pytest.mark.parametrize(
    "evs",
    [
        # a rest at a piece's end, then a click elsewhere: the hover the live recorder lost
        events(click(0, 100, 100), move(0.5, 400, 300), click(4.0, 700, 500)),
        # a rest at a piece's end, then typing, then a click there
        events(click(0, 100, 100), move(0.5, 400, 300), typing(3.5, "hi"), click(6.0, 400, 300)),
        # a rest, then a click there: longer than idle, a hover with a wait
        events(click(0, 100, 100), move(0.5, 400, 300), click(3.0, 400, 300)),
        # jitter after a click, across a cut: no hover (the click left the pointer there)
        events(click(0, 100, 100), move(2.8, 102, 101), tap(4.5, "Return")),
        # a rest at the very end of the recording is timed to its last event
        events(click(0, 100, 100), move(3.0, 400, 300), tap(3.2, "Escape")),
        # a held key with typing inside it: the next piece's wait starts at the latest end
        events(tap(1.5, "Escape", hold=1.0), typing(1.6, "a"), tap(4.7, "Return")),
    ],
    ids=[
        "hover-then-click-elsewhere",
        "hover-typing-click-there",
        "long-rest-click-there",
        "jitter-across-cut",
        "rest-at-end",
        "wait-after-hold",
    ],
)
def test_pieces_cut_at_quiet_moments_reduce_like_the_whole(evs: list[RawEvent]) -> None:
    pieces = in_pieces(evs, quiet=2.1)  # the recorder's cut: past every threshold
    assert len(pieces) > 1
    assert reduced_in_pieces(pieces) == spans(evs)


def test_a_piece_alone_loses_the_hover_at_its_end() -> None:
    # what the recorder did before pieces carried on: the rest counted as nothing
    from deskreel.recorder.reduce import reduce_piece

    piece = events(click(0, 100, 100), move(0.5, 400, 300))
    alone = [r.action for r in reduce_piece(piece)[0]]
    carried_on = [r.action for r in reduce_piece(piece, until=4.0)[0]]
    assert alone == [at("left_click", 100, 100)]
    assert carried_on == [at("left_click", 100, 100), at("mouse_move", 400, 300)]


@pytest.mark.parametrize(
    ("between", "expected"),
    [(typing(0.15, "hi", gap=0.05), [typed("hi")]), (tap(0.15, "Shift_L"), [key("Shift_L")])],
    ids=["typing", "a-modifier-alone"],
)
def test_a_key_pressed_between_two_button_presses_parts_them(
    between: list[RawEvent], expected: list[Action]
) -> None:
    # the second scroll or click came after the keys: one gesture across them would put
    # it before them
    scrolls = events(wheel(0, 10, 20, ticks=2), between, wheel(0.3, 10, 20, ticks=2))
    assert actions(scrolls) == [
        at("scroll", 10, 20, scroll_direction="down", scroll_amount=2),
        *expected,
        at("scroll", 10, 20, scroll_direction="down", scroll_amount=2),
    ]
    clicks = events(click(0, 10, 20), between, click(0.3, 10, 20))
    assert actions(clicks) == [at("left_click", 10, 20), *expected, at("left_click", 10, 20)]


@pytest.mark.parametrize(
    "settings",
    [InputSettings(repeat=False), InputSettings(repeating=frozenset({1, 2}))],
    ids=["repeat-off", "no-repeat-bit"],
)
def test_a_long_hold_of_a_key_that_does_not_repeat_types_it_once(settings: InputSettings) -> None:
    assert actions(tap(0, "a", "a", hold=0.9), settings) == [typed("a")]
    assert actions(tap(0, "Return", hold=0.9), settings) == [key("Return", 0.9)]


# --- cut while the pointer glides (issue 39) -----------------------------------------------


def glide(t: float, start: tuple[int, int], end: tuple[int, int], seconds: float) -> list[RawEvent]:
    """The pointer moved from `start` to `end`, a motion event every 20 ms."""
    steps = max(1, round(seconds / 0.02))
    (x0, y0), (x1, y1) = start, end
    return [
        RawEvent(
            t + i * 0.02,
            "motion",
            x=round(x0 + (x1 - x0) * i / steps),
            y=round(y0 + (y1 - y0) * i / steps),
        )
        for i in range(1, steps + 1)
    ]


def cut_as_recorded(evs: list[RawEvent]) -> tuple[list[list[RawEvent]], int]:
    """`evs` cut where the recorder cuts them (recorder/cuts.py): after quiet, or before a
    motion while the pointer glides; and how many cuts were gliding ones."""
    from deskreel.recorder.chunk import Chunk
    from deskreel.recorder.cuts import Glide, quiet_after

    quiet = quiet_after(DEFAULT_SETTINGS, DEFAULT_THRESHOLDS, settle_cap=2.0)
    pieces: list[list[RawEvent]] = []
    chunk, glider, gliding = Chunk(), Glide(DEFAULT_THRESHOLDS.hover_time, quiet), 0
    for e in evs:
        held = bool(chunk.held)
        quiet_cut = bool(chunk.events) and not held and e.t - chunk.events[-1].t >= quiet
        glide_cut = glider.may_cut_before(e, held=held)
        if chunk.events and (quiet_cut or glide_cut):
            gliding += glide_cut and not quiet_cut
            pieces.append(chunk.events)
            chunk, glider = Chunk(), Glide(DEFAULT_THRESHOLDS.hover_time, quiet)
        chunk.add(e)
        glider.see(e)
    return [*pieces, chunk.events], gliding


GESTURES: dict[str, Callable[[float, Any], list[RawEvent]]] = {
    "glide": lambda t, r: glide(
        t,
        (r.randrange(800), r.randrange(600)),
        (r.randrange(800), r.randrange(600)),
        r.uniform(0.1, 3.0),
    ),
    "click": lambda t, r: click(t, r.randrange(800), r.randrange(600)),
    "double": lambda t, r: click(t, 50, 60) + click(t + 0.2, 50, 60),
    "type": lambda t, r: typing(t, "hi there", gap=r.uniform(0.05, 0.4)),
    "key": lambda t, r: tap(t, "Return", hold=r.choice([HOLD, 0.9])),
    "scroll": lambda t, r: wheel(t, 300, 200, ticks=3),
    "drag": lambda t, r: click(t, 100, 100, hold=0.5, to=(300, 250)),
}


def test_a_glide_cut_reduces_like_the_whole() -> None:
    # a click, 3 s of gliding, a rest of 1.5 s, a click there and typing: cut in the glide
    evs = events(
        click(0, 100, 100),
        glide(0.1, (100, 100), (600, 400), 3.0),
        click(4.6, 600, 400),
        glide(4.7, (600, 400), (200, 300), 2.5),
        typing(5.0, "ok"),
    )
    pieces, gliding = cut_as_recorded(evs)
    assert gliding >= 1 and len(pieces) >= 2
    assert reduced_in_pieces(pieces) == spans(evs)


@pytest.mark.parametrize(
    "evs",
    [
        # typing, the pointer moved a moment, typing again within type_pause: one burst
        events(typing(0, "hi"), glide(0.4, (10, 10), (300, 200), 1.4), typing(1.75, "ok")),
        # a press, a glide, a release: a drag is never cut
        events(
            button(0, "button_down", 100, 100),
            glide(0.05, (100, 100), (400, 300), 3.0),
            button(3.2, "button_up", 400, 300),
        ),
        # a modifier held while the pointer glides, then a click: ctrl+click
        events(
            key_down(0, "Control_L"),
            glide(0.1, (0, 0), (300, 300), 2.6),
            click(2.8, 300, 300),
            key_up(3.0, "Control_L"),
        ),
    ],
    ids=["typing-across-a-glide", "drag", "with-key"],
)
def test_what_spans_a_glide_is_not_cut(evs: list[RawEvent]) -> None:
    pieces, _ = cut_as_recorded(evs)
    assert reduced_in_pieces(pieces) == spans(evs)


def test_a_rest_of_hover_time_is_decisive() -> None:
    # the finisher takes a hover's after-frame up to the settle cap later: no cut before
    from deskreel.recorder.cuts import Glide

    glider = Glide(hover_time=1.0, quiet=2.1)
    # rested 1.1 s at 1.0, then on the move
    for e in [*click(0, 10, 10), *move(1.0, 50, 50), *glide(2.1, (50, 50), (60, 60), 0.4)]:
        glider.see(e)
    assert not glider.may_cut_before(move(2.52, 61, 61)[0], held=False)
    for e in glide(2.52, (60, 60), (70, 70), 0.6):
        glider.see(e)
    assert glider.may_cut_before(move(3.14, 70, 70)[0], held=False)
    assert not glider.may_cut_before(move(3.14, 70, 70)[0], held=True)
    assert not glider.may_cut_before(tap(3.14, "a")[0], held=False)  # only before a motion


@pytest.mark.parametrize("seed", range(60))
def test_pieces_cut_where_the_recorder_cuts_reduce_like_the_whole(seed: int) -> None:
    import random

    rnd = random.Random(seed)
    parts, t = [], 0.0
    for _ in range(rnd.randrange(4, 14)):
        part = GESTURES[rnd.choice(list(GESTURES))](t, rnd)
        parts.append(part)
        t = part[-1].t + rnd.choice([0.05, 0.3, 0.8, 1.2, 2.0, 2.5])
    evs = events(*parts)
    pieces, _ = cut_as_recorded(evs)
    assert reduced_in_pieces(pieces) == spans(evs)

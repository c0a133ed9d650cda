"""xcalc (X11's calculator, Xt and the Athena widgets, from Debian's x11-apps): a sum and a
product keyed in on its buttons. Xt has no AT-SPI: its truth is the X window tree (every
Athena widget has an X window), and its 55 keys, alike but for their labels, are told apart
by their place on the keypad.

The scenarios change it through Xt's own resources: bigger fonts and keys (`-xrm`), the
colour customization Debian ships (XCalc-color: a TI-30's colours and rounded keys),
reverse video (`-rv`), and a key bound to another digit (a wrong effect: --verify must fail
it)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from realapps.catalog.app import App, Pick, Scenario, Step
from realapps.desktop import Desktop
from realapps.truth import Element, windows

NAME = "xcalc"
CLASS = "XCalc"
# The keypad of xcalc's TI-30 mode (its default), row by row as it shows.
KEYPAD = (
    ("1/x", "x²", "√", "CE/C", "AC"),
    ("INV", "sin", "cos", "tan", "DRG"),
    ("e", "EE", "log", "ln", "y^x"),
    ("not", "and", "or", "xor", "trunc"),
    ("π", "x!", "(", ")", "base"),
    ("shl", "D", "E", "F", "shr"),
    ("mod", "A", "B", "C", "÷"),
    ("STO", "7", "8", "9", "*"),
    ("RCL", "4", "5", "6", "-"),
    ("SUM", "1", "2", "3", "+"),
    ("EXC", "0", ".", "+/-", "="),
)
# Bigger fonts, 1.25x the 8x13 of XCalc's app-defaults across (the bitmap fonts Xvfb has go
# from 8x13 to 10x20), and keys and display 1.25x as large to hold them.
BIGGER = (
    "XCalc*Font: 10x20",
    "XCalc*Command.width: 50",
    "XCalc*Command.height: 33",
    "XCalc*ti.bevel.screen.LCD.width: 232",
    *(
        f"XCalc*ti.button{n}.font: -adobe-symbol-*-*-*-*-*-150-*-*-*-*-*-*"
        for n in (3, 21, 35)  # √, π and ÷ are in the Symbol font
    ),
)


# The "wrong effect" scenario's key 4 (ti.button42), bound to enter a 5 instead
WRONG_FOUR = "XCalc*ti.button42.translations: #override<Btn1Down>,<Btn1Up>:digit(5)unset()"


def command(scenario: Scenario) -> list[str]:
    return ["xcalc", *scenario.argv]


def _xrm(*resources: str) -> tuple[str, ...]:
    return tuple(arg for resource in resources for arg in ("-xrm", resource))


def _form(elements: Sequence[Element]) -> Element | None:
    """The form holding the keypad and the display: the top-level shell's only child."""
    shell = next((e for e in elements if len(e.path) == 1), None)
    if shell is None:
        return None
    return next((e for e in elements if e.path == (*shell.path, 0)), None)


def _children(elements: Sequence[Element], parent: Element) -> list[Element]:
    return [e for e in elements if e.path[:-1] == parent.path]


def keys(elements: Sequence[Element]) -> dict[str, Element]:
    """The keypad's keys by label: the form's children that hold no windows (the display's
    bevel does), in rows top to bottom, each left to right."""
    form = _form(elements)
    if form is None:
        return {}
    parents = {e.path[:-1] for e in elements}
    buttons = [e for e in _children(elements, form) if e.path not in parents]
    rows: dict[int, list[Element]] = {}
    for button in buttons:
        rows.setdefault(button.box[1], []).append(button)
    grid = [sorted(rows[y], key=lambda e: e.box[0]) for y in sorted(rows)]
    if [len(row) for row in grid] != [len(row) for row in KEYPAD]:
        return {}
    return {
        label: button for labels, row in zip(KEYPAD, grid) for label, button in zip(labels, row)
    }


def key(label: str) -> Pick:
    """The key of this label, by its place on the keypad."""
    return lambda elements: keys(elements).get(label)


def display(elements: Sequence[Element]) -> Element | None:
    """The display's number (the LCD label): the widest window of the display's screen."""
    form = _form(elements)
    if form is None:
        return None
    parents = {e.path[:-1] for e in elements}
    bevel = next((e for e in _children(elements, form) if e.path in parents), None)
    screen = _children(elements, bevel)[0] if bevel is not None else None
    labels = _children(elements, screen) if screen is not None else []
    return max(labels, key=lambda e: e.box[2], default=None)


def final_state(desktop: Desktop) -> str:
    """The number on the display, e.g. "72": xcalc selects it when the display is clicked
    (its `selection()` action), and the PRIMARY selection is read; "" when there is none."""
    lcd = display(windows(desktop.display.display, CLASS))
    if lcd is None:
        return ""
    x, y, w, h = lcd.box
    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2), "click", "1")
    time.sleep(0.3)
    return desktop.primary_selection()


APP = App(
    name=NAME,
    toolkit="Xt/Athena",
    truth="xtree",
    key=CLASS,
    command=command,
    ready=lambda elements: len(keys(elements)) == 55,
    settle=0.4,
    steps=(
        Step("left_click", key("1"), label="1"),
        Step("left_click", key("2"), label="2"),
        Step("left_click", key("+"), label="plus"),
        Step("left_click", key("3"), label="3"),
        Step("left_click", key("4"), label="4"),
        Step("left_click", key("="), label="equals: 46"),
        Step("left_click", key("AC"), label="all clear"),
        Step("left_click", key("9"), label="9"),
        Step("left_click", key("*"), label="times"),
        Step("left_click", key("8"), label="8"),
        Step("left_click", key("="), label="equals: 72"),
    ),
    scenarios=(
        Scenario("unchanged"),
        Scenario("pointer elsewhere", pointer_elsewhere=True),
        Scenario("moved", position=(520, 300)),
        Scenario("resized", size=(300, 480)),
        Scenario("font 1.25x", argv=_xrm(*BIGGER), told=1.25),
        Scenario("theme", argv=_xrm("*customization: -color")),
        Scenario("reverse video", argv=("-rv",)),
        # the 4 key enters 5 (its Xt translation changed): after step 4 the display reads
        # 35, not 34, and after step 5 "47", not "46"
        Scenario("wrong effect", argv=_xrm(WRONG_FOUR), wrong=frozenset({4, 5})),
    ),
    final_state=final_state,
)

"""Qt 5's calculator example (Debian's qtbase5-examples): a sum and a product keyed in on
its 27 buttons, on a desktop without an accessibility bus, as Qt runs on many: deskreel sees
its pixels and its X windows only. Qt draws every widget of a window in that one X window, so
the X tree cannot tell the keys apart; the truth is the AT-SPI tree of the same calculator in
a twin session that has the bus (bench/realapps/twin.py). The keys never move during the
task, so the twin's tree at start holds for every step.

The scenarios change it through Qt's own knobs: the font DPI (the screen's is 96), the qt5ct
platform theme with its "darker" colour scheme, and a style sheet that relabels one key or
shrinks another to nothing."""

from __future__ import annotations

import os
import time
from pathlib import Path

from realapps.catalog.app import App, Scenario, Step, by_role
from realapps.desktop import Desktop
from realapps.truth import accessibles

CALCULATOR = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/widgets/calculator/calculator"
KEY = "calculator"  # its AT-SPI application name
KEYS = 27
FILES = Path("/tmp/deskreel-qt-calculator")  # the scenarios' settings, written at each start
DARK = FILES / "dark"  # an XDG_CONFIG_HOME holding qt5ct's settings
# qt5ct's settings: its "darker" colours on Qt's own Fusion style, and the fonts Qt uses
# without a platform theme (qt5ct's own are larger), so that only the colours change.
QT5CT = """\
[Appearance]
color_scheme_path=/usr/share/qt5ct/colors/darker.conf
custom_palette=true
style=Fusion
icon_theme=

[Fonts]
general="Sans Serif,9,-1,5,50,0,0,0,0,0"
fixed="Monospace,9,-1,5,50,0,0,0,0,0"
"""
# Style sheets: "Clear All" relabelled; the times key shrunk to nothing in its cell.
RENAMED = ("Clear All", "Reset")
STYLE_SHEETS = {
    "renamed.qss": f'QToolButton[text="{RENAMED[0]}"] {{ qproperty-text: "{RENAMED[1]}"; }}\n',
    "removed.qss": 'QToolButton[text="×"] { max-width: 0px; max-height: 0px; min-width: 0px; '
    "min-height: 0px; border: none; padding: 0px; }\n",
}


def command(scenario: Scenario) -> list[str]:
    _write(DARK / "qt5ct" / "qt5ct.conf", QT5CT)
    for name, text in STYLE_SHEETS.items():
        _write(FILES / name, text)
    return [CALCULATOR, *scenario.argv]


def _write(path: Path, text: str) -> None:
    """Write `text` to `path` unless it holds it already (through a temporary file: another
    build may be reading it)."""
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(text)
    temporary.replace(path)


def key(label: str, said: str = "") -> Step:
    """A click on the key of this label."""
    return Step("left_click", by_role("push button", label), label=said or label)


def final_state(desktop: Desktop) -> str:
    """The number on the display, e.g. "72": a double click selects it (a word) and the
    PRIMARY selection is read; "" when there is none. The display's box is the twin's."""
    source = desktop.twin or desktop
    display = by_role("text", "")(accessibles(source.env, KEY))
    if display is None:
        return ""
    x, y, w, h = display.box
    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2))
    desktop.xdotool("click", "--repeat", "2", "--delay", "80", "1")
    time.sleep(0.3)
    return desktop.primary_selection()


CLEAR_ALL = 6  # the pointer-step number of the click on Clear All
TIMES = 8  # the pointer-step number of the click on the times key

APP = App(
    name="qt-calculator",
    toolkit="Qt 5, no AT-SPI",
    truth="atspi",
    key=KEY,
    accessibility=False,
    command=command,
    ready=lambda elements: sum(e.role == "push button" for e in elements) == KEYS,
    settle=0.4,
    steps=(
        key("1"),
        key("2"),
        key("+"),
        key("3"),
        key("4"),
        key("=", "equals: 46"),
        key("Clear All"),
        key("9"),
        key("×", "times"),
        key("8"),
        key("=", "equals: 72"),
    ),
    scenarios=(
        Scenario("unchanged"),
        Scenario("pointer elsewhere", pointer_elsewhere=True),
        Scenario("moved", position=(520, 300)),
        Scenario("resized", size=(420, 400)),
        Scenario("font 1.25x", env={"QT_FONT_DPI": "120"}, told=1.25),
        Scenario("theme", env={"QT_QPA_PLATFORMTHEME": "qt5ct", "XDG_CONFIG_HOME": str(DARK)}),
        Scenario(
            "renamed",
            argv=("-stylesheet", str(FILES / "renamed.qss")),
            absent=frozenset({CLEAR_ALL}),
        ),
        Scenario(
            "removed", argv=("-stylesheet", str(FILES / "removed.qss")), absent=frozenset({TIMES})
        ),
    ),
    final_state=final_state,
)

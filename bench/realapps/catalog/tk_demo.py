"""Tk's widget demo (`/usr/share/doc/tk8.6-doc/demos/widget`, Debian's tk8.6-doc, run by
wish8.6): a text widget listing the demos as links, each opening a window of its own. Tk has
no AT-SPI: its truth is the X window tree (every Tk widget has an X window), and its windows
are told apart by their place in that tree.

The demo starts through a small Tcl wrapper (written to /tmp) that sets Tk's own knobs for a
scenario before it sources the demo: `tk scaling` for bigger fonts, `tk_setPalette` and a ttk
theme for another look. Then it

- scrolls the list to its checkbutton demo, so that the two links the task clicks are the
  list's first lines however the window is sized and the text wrapped (a click lands at a
  fraction of the text widget's box: lines near its top stay under it);
- places each demo's window beside the main window (the demo's own `positionWindow` hook;
  without a window manager it would sit at +300+300 whatever the scenario);
- writes the demos' variables to a file whenever one changes, for the end-to-end check.

A link is a run of text, not a window: the truth of a click on one is the whole text widget.

The application is started as `-name Toplevel`: Tk gives the main window the WM_CLASS
(name, capitalised name) and every other top-level (its name, "Toplevel"), and the truth
lists the windows of one WM_CLASS, so the main window's class is made the others'.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from realapps.catalog.app import App, Pick, Scenario, Step
from realapps.desktop import Desktop
from realapps.truth import Element

DEMO = "/usr/share/doc/tk8.6-doc/demos/widget"
WRAPPERS = Path("/tmp/deskreel-tk-demo")
CLASS = "Toplevel"
MAIN = "Widget Demonstration"
CHECK = "Checkbutton Demonstration"
RADIO = "Radiobutton Demonstration"
VARIABLES = "Variable values"
# The demos' variables the task sets, and the file (in the application's working directory,
# the desktop's logs) the wrapper writes their values to whenever one changes.
VARIABLE_NAMES = ("wipers", "brakes", "safety", "size", "color", "align")
STATE = "tk-demo-state.txt"

# What a scenario sets before the demo starts (Tcl, run by the wrapper).
DARK = """
tk_setPalette background gray22 foreground gray88 selectColor gray30 \\
    activeBackground gray35 activeForeground white highlightBackground gray22 \\
    troughColor gray30 selectBackground SteelBlue4 selectForeground white \\
    insertBackground white disabledForeground gray55
ttk::style theme use clam
ttk::style configure . -background gray22 -foreground gray88 -fieldbackground gray28 \\
    -bordercolor gray10 -lightcolor gray35 -darkcolor gray15 -troughcolor gray30
ttk::style map . -background {disabled gray22 active gray35 pressed gray40} \\
    -foreground {disabled gray55}
"""
# What the "wrong effect" scenario sets: the Brakes OK checkbutton never stays checked (a
# handler gone wrong), so the step that checks it, and the list of values after it, show
# another thing than was recorded
UNCHECKED = """
trace add variable ::brakes write {apply {args {
    if {$::brakes} { after idle {set ::brakes 0} }
}}}
"""
WRAPPER = """\
# Tk's widget demo, as a scenario of deskreel's corpus changes it.
tk scaling [expr {[tk scaling] * %(scale)s}]
%(look)s
source -encoding utf-8 %(demo)s
%(wrong)s
# The demo's windows open beside the main window, as a window manager might put them.
proc positionWindow w {
    wm geometry $w +[expr {[winfo rootx .] + [winfo width .] + 24}]+[expr {[winfo rooty .] + 40}]
}
# The list starts at its checkbutton demo.
update idletasks
.t yview [lindex [.t tag ranges demo-check] 0]
# What the task sets, written to a file in the working directory whenever it changes.
proc deskreelState {args} {
    set values {}
    foreach name {%(variables)s} {
        lappend values [expr {[info exists ::$name] ? [set ::$name] : "-"}]
    }
    set file [open %(state)s w]
    puts $file [join $values " "]
    close $file
}
foreach name {%(variables)s} {
    trace add variable ::$name write deskreelState
}
deskreelState
"""


def command(scenario: Scenario) -> list[str]:
    """wish8.6 on a wrapper for this scenario; its `argv` is `scale=1.25`, `dark` and/or
    `wrong` (the wrapper's settings), the rest goes to wish."""
    scale, look, wrong, rest = "1.0", "", "", []
    for arg in scenario.argv:
        if arg.startswith("scale="):
            scale = arg.removeprefix("scale=")
        elif arg == "dark":
            look = DARK
        elif arg == "wrong":
            wrong = UNCHECKED
        else:
            rest.append(arg)
    WRAPPERS.mkdir(parents=True, exist_ok=True)
    wrapper = WRAPPERS / f"demo-{scale}{'-dark' if look else ''}{'-wrong' if wrong else ''}.tcl"
    text = WRAPPER % {
        "scale": scale,
        "look": look,
        "wrong": wrong,
        "demo": DEMO,
        "variables": " ".join(VARIABLE_NAMES),
        "state": STATE,
    }
    if not wrapper.exists() or wrapper.read_text() != text:
        temporary = wrapper.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(text)
        temporary.replace(wrapper)
    return ["wish8.6", str(wrapper), "-name", CLASS, *rest]


def top(elements: Sequence[Element], title: str) -> Element | None:
    """The top-level window of this title (its WM_NAME)."""
    return next((e for e in elements if len(e.path) == 1 and e.name == title), None)


def child(title: str, *indexes: int) -> Pick:
    """The window at these child indexes below the top-level of this title: Tk stacks a
    window's children in the order the application created them."""

    def pick(elements: Sequence[Element]) -> Element | None:
        window = top(elements, title)
        if window is None:
            return None
        path = (*window.path, *indexes)
        return next((e for e in elements if e.path == path), None)

    return pick


# Below a top-level window: its toplevel widget's window (0), and in it the widgets in the
# order the demo created them.
LIST = child(MAIN, 0, 3)  # the text widget listing the demos
DISMISS = (0, 1, 1)  # addSeeDismiss's frame: separator, Dismiss, See Code, See Variables
SEE_VARIABLES = (0, 1, 3)
OK = (0, 0, 1)  # showVars's frame: the values' labelframe, OK
# The list's first two lines, as fractions of the text widget's height (17 px lines under a
# 3 px margin, in a widget 754 px high): near its top, so under the same link however tall
# the widget or its lines are.
FIRST_LINE = 0.016
SECOND_LINE = 0.038


def final_state(desktop: Desktop) -> str:
    """The values the task left in the demos' variables, e.g. "1 1 partial 18 blue left"
    (wipers, brakes, safety, size, color, align; "-" for one never set); "" when the demo
    never started."""
    state = desktop.logs / STATE
    return state.read_text().strip() if state.exists() else ""


def ready(elements: Sequence[Element]) -> bool:
    return top(elements, MAIN) is not None and len(elements) > 5


APP = App(
    name="tk-demo",
    toolkit="Tk 8.6",
    truth="xtree",
    key=CLASS,
    command=command,
    ready=ready,
    steps=(
        Step("left_click", LIST, at=(0.18, FIRST_LINE), label="open the checkbutton demo"),
        # the checkbutton demo: its message, buttons' frame, then Safety Check, Wipers OK,
        # Brakes OK, Driver Sober
        Step("left_click", child(CHECK, 0, 3), label="check Wipers OK"),
        Step("left_click", child(CHECK, 0, 4), label="check Brakes OK"),
        Step("left_click", child(CHECK, *SEE_VARIABLES), label="See Variables"),
        Step("left_click", child(VARIABLES, *OK), label="close the variables"),
        Step("left_click", child(CHECK, *DISMISS), label="dismiss the checkbutton demo"),
        Step("left_click", LIST, at=(0.18, SECOND_LINE), label="open the radiobutton demo"),
        # the radiobutton demo: its message, buttons' frame, then the Point Size (10, 12, 14,
        # 18, 24), Color (Red, Green, Blue, ...) and Alignment (its label, Top, Left, ...)
        # labelframes
        Step("left_click", child(RADIO, 0, 2, 3), label="Point Size 18"),
        Step("left_click", child(RADIO, 0, 3, 2), label="Blue"),
        Step("left_click", child(RADIO, 0, 4, 2), label="align Left"),
        Step("left_click", child(RADIO, *SEE_VARIABLES), label="See Variables"),
        Step("left_click", child(VARIABLES, *OK), label="close the variables"),
        Step("left_click", child(RADIO, *DISMISS), label="dismiss the radiobutton demo"),
    ),
    scenarios=(
        Scenario("unchanged"),
        Scenario("pointer elsewhere", pointer_elsewhere=True),
        Scenario("moved", position=(520, 220)),
        Scenario("resized", size=(900, 760)),
        Scenario("font 1.25x", argv=("scale=1.25",), told=1.25),
        Scenario("theme", argv=("dark",)),
        # steps 2 (Brakes OK) and 3 (the values it set) show another thing than recorded
        Scenario("wrong effect", argv=("wrong",), wrong=frozenset({2, 3})),
    ),
    final_state=final_state,
)

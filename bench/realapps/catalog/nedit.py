"""NEdit (Motif, from Debian's nedit): two lines typed, then its Find dialog opened with
ctrl+f, three search options and Keep Dialog toggled, a word looked for, and the dialog
cancelled. Motif has no AT-SPI: its truth is the X window tree (every Motif widget the task
presses has an X window of its own; a gadget would not, and none is pressed), and its
widgets, unnamed there, are told apart by their place in that tree.

The Find dialog is a transient DialogShell, a top-level of the same WM_CLASS class ("NEdit";
its instance is findDialog_popup), titled "Find". NEdit opens it centred on the pointer. No
window manager gives it the keyboard focus: the shell that starts NEdit waits for it to show
and focuses it, as one would.

The scenarios change it through Xt's resources: bigger fonts (`Xft.dpi` for Motif's
render tables; for the text, the bitmap Courier of 17 px for the default 14: the nearest the
server has, 1.21x), dark colours (`-bg`/`-fg` and NEdit's text colours), and the Whole Word
toggle left unmapped. NEdit sets its labels in code, so no resource renames one, and it takes
no `-rv`."""

from __future__ import annotations

from collections.abc import Sequence

from realapps.catalog.app import App, Pick, Scenario, Step
from realapps.desktop import Desktop
from realapps.truth import Element

CLASS = "NEdit"
MAIN = "Untitled"  # the editor's title; "Untitled (modified)" once typed in
FIND = "Find"
# Below a top-level window: its shell's child (0), then the widgets' windows in the order
# Motif stacks them. In the editor the text is the first child of the first child, five
# levels down: main window, work area, text pane, the text's frame, the text. In the Find
# dialog's form: the form of the Find and Cancel buttons (0), Keep Dialog (1), the box of
# Search Backward (2), the row of search types (3), the field (4).
TEXT = (0, 0, 0, 0, 0)
BUTTONS = (0, 0)  # Find, Cancel, left to right
KEEP_DIALOG = (0, 1)
DIRECTION = (0, 2)  # Search Backward
SEARCH_TYPES = (0, 3)  # Regular Expression, Case Sensitive, Whole Word, left to right
FIELD = (0, 4)
# The shell focuses the Find dialog once it shows (xdotool, in the background), then becomes
# NEdit (same pid).
SHELL = (
    "(until w=$(xdotool search --onlyvisible --classname findDialog_popup); "
    'do sleep 0.05; done; xdotool windowfocus "$w") 2>/dev/null & exec "$@"'
)
# Bigger fonts: Motif's (Xft) at 120 dpi for the screen's 96, the text's Courier 17 px.
BIGGER = ("Xft.dpi: 120", "nedit.textFont: -*-courier-medium-r-normal--17-*-*-*-*-iso8859-1")
DARK = (
    "nedit.textBgColor: gray12",
    "nedit.textFgColor: gray90",
    "nedit.cursorFgColor: white",
    "*XmText.background: gray12",
    "*XmText.foreground: gray90",
    "*XmTextField.background: gray12",
    "*XmTextField.foreground: gray90",
)


def command(scenario: Scenario) -> list[str]:
    return ["sh", "-c", SHELL, "sh", "nedit", *scenario.argv]


def _xrm(*resources: str) -> tuple[str, ...]:
    return tuple(arg for resource in resources for arg in ("-xrm", resource))


def top(elements: Sequence[Element], title: str) -> Element | None:
    """The top-level window of this title (its WM_NAME, maybe followed by a state)."""
    return next(
        (
            e
            for e in elements
            if len(e.path) == 1 and (e.name == title or e.name.startswith(f"{title} "))
        ),
        None,
    )


def child(title: str, indexes: tuple[int, ...]) -> Pick:
    """The window at these child indexes below the top-level of this title."""

    def pick(elements: Sequence[Element]) -> Element | None:
        window = top(elements, title)
        if window is None:
            return None
        path = (*window.path, *indexes)
        return next((e for e in elements if e.path == path), None)

    return pick


def in_row(title: str, indexes: tuple[int, ...], place: int) -> Pick:
    """The `place`-th window, left to right, of those in the window at these indexes."""
    parent = child(title, indexes)

    def pick(elements: Sequence[Element]) -> Element | None:
        row = parent(elements)
        if row is None:
            return None
        inside = [e for e in elements if e.path[:-1] == row.path]
        inside.sort(key=lambda e: e.box[0])
        return inside[place] if len(inside) > place else None

    return pick


def final_state(desktop: Desktop) -> str:
    """The text the search selected, e.g. "lazy" (the PRIMARY selection); "" when none."""
    return desktop.primary_selection()


WHOLE_WORD = 2  # the pointer-step number of the click on Whole Word

APP = App(
    name="nedit",
    toolkit="Motif",
    truth="xtree",
    key=CLASS,
    command=command,
    ready=lambda elements: child(MAIN, TEXT)(elements) is not None,
    steps=(
        Step("left_click", child(MAIN, TEXT), at=(0.3, 0.3), label="the text"),
        Step("type", text="the quick brown fox\njumps over the lazy dog"),
        Step("key", text="ctrl+f"),
        Step("left_click", in_row(FIND, SEARCH_TYPES, 1), label="Case Sensitive"),
        Step("left_click", in_row(FIND, SEARCH_TYPES, 2), label="Whole Word"),
        Step("left_click", in_row(FIND, DIRECTION, 0), label="Search Backward"),
        Step("left_click", child(FIND, KEEP_DIALOG), label="Keep Dialog"),
        Step("left_click", child(FIND, FIELD), label="the search field"),
        Step("type", text="lazy"),
        Step("left_click", in_row(FIND, BUTTONS, 0), label="Find"),
        Step("left_click", in_row(FIND, BUTTONS, 1), label="Cancel"),
    ),
    scenarios=(
        Scenario("unchanged"),
        Scenario("pointer elsewhere", pointer_elsewhere=True),
        Scenario("moved", position=(520, 300)),
        Scenario("resized", size=(1000, 600)),
        Scenario("font 1.25x", argv=_xrm(*BIGGER), told=1.25),
        Scenario("theme", argv=("-bg", "gray20", "-fg", "gray85", *_xrm(*DARK))),
        Scenario(
            "removed",
            argv=_xrm("*findDialog*wholeWord.mappedWhenManaged: False"),
            absent=frozenset({WHOLE_WORD}),
        ),
    ),
    final_state=final_state,
)

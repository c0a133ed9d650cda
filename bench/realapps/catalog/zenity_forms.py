"""zenity's forms (`zenity --forms`, GTK 3, from Debian's zenity): an order form of two text
entries, a combo and a calendar, filled in and submitted. Its entries, combo and calendar
have no accessible names: they are told apart by their order in the form."""

from __future__ import annotations

from realapps.catalog.app import App, Scenario, Step, by_role
from realapps.desktop import Desktop

NAME = "zenity-forms"
OUT = f"{NAME}.out"  # what zenity prints, in the folder it runs in (the Desktop's logs)
SIZES = ("Small", "Medium", "Large")
FORM = (
    "--forms",
    "--title=Order",
    "--text=Order details",
    "--add-entry=Name",
    "--add-entry=Email",
    "--add-combo=Size",
    "--add-calendar=Date",
    "--forms-date-format=%Y-%m-%d",
    "--separator=|",
)
# The shell gives its window the keyboard focus once it shows (xdotool, in the background),
# then becomes zenity (same pid), its stdout in OUT, emptied at each start. Without a window
# manager the focus otherwise follows the pointer: the form would look unfocused whenever
# the pointer is outside it (at the start, or "pointer elsewhere"), unlike when recorded.
SHELL = (
    '(w=$(xdotool search --sync --onlyvisible --pid "$$" | head -n 1) && '
    'xdotool windowfocus "$w" &) 2>/dev/null; '
    f'exec "$@" >"{OUT}"'
)


def command(scenario: Scenario) -> list[str]:
    """The form; a scenario's argv comes last, and may carry its own `--combo-values`."""
    values = [] if any(a.startswith("--combo-values") for a in scenario.argv) else [_values()]
    return ["sh", "-c", SHELL, "sh", "zenity", *FORM, *values, *scenario.argv]


def _values(sizes: tuple[str, ...] = SIZES) -> str:
    return "--combo-values=" + "|".join(sizes)


def final_state(desktop: Desktop) -> str:
    """What the form printed when submitted: its values joined by "|" in the form's order,
    e.g. "Ada Lovelace King|ada@example.org|Medium|2026-12-16" (the date: the day the task
    clicked in the calendar, which opens on today's month); "" when it printed nothing
    (cancelled, or still open). Read from OUT in the Desktop's logs, which each start of
    the form empties."""
    out = desktop.logs / OUT
    lines = out.read_text(errors="replace").split("\n") if out.exists() else []
    return next((line for line in reversed(lines) if line.strip()), "")


OK = 6  # the pointer-step number of the click on OK
MEDIUM = 4  # the pointer-step number of the choice of Medium

APP = App(
    name=NAME,
    toolkit="GTK 3",
    truth="atspi",
    key="zenity",
    command=command,
    ready=lambda elements: any(e.role == "calendar" for e in elements),
    steps=(
        Step("left_click", by_role("text", "", 0), label="the Name entry"),
        Step("type", text="Ada Lovelace"),
        Step("left_click", by_role("text", "", 1), label="the Email entry"),
        Step("type", text="ada@example.org"),
        # the Name entry again, at its end, to finish the name
        Step("left_click", by_role("text", "", 0), at=(0.85, 0.5), label="back to Name"),
        Step("key", text="End"),
        Step("type", text=" King"),
        Step("left_click", by_role("combo box", ""), label="open the Size combo"),
        Step("left_click", by_role("menu item", "Medium"), label="choose Medium"),
        Step("left_click", by_role("calendar", ""), at=(0.5, 0.62), label="a day of the month"),
        Step("left_click", by_role("push button", "OK"), label="submit the form"),
    ),
    scenarios=(
        Scenario("unchanged"),
        Scenario("pointer elsewhere", pointer_elsewhere=True),
        Scenario("moved", position=(520, 300)),
        Scenario("resized", size=(640, 560)),
        Scenario("font 1.25x", env={"GDK_DPI_SCALE": "1.25"}, told=1.25),
        Scenario("theme", env={"GTK_THEME": "Adwaita:dark"}),
        # the OK button is labelled otherwise: clicking it must be refused
        Scenario("renamed", argv=("--ok-label=Submit",), absent=frozenset({OK})),
        # the shop no longer sells the medium size: choosing it must be refused
        Scenario("removed", argv=(_values(("Small", "Large")),), absent=frozenset({MEDIUM})),
    ),
    final_state=final_state,
)

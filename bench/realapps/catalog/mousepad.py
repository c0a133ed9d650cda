"""Mousepad (GTK 3, Xfce's text editor, from Debian's mousepad): two lines typed, then
made upper case through the Edit menu and its Convert submenu, line numbers shown from the
View menu, and a word looked for in the search bar, whose buttons are clicked.

Its menu items' accessible names end in spaces (the room GTK keeps for their shortcuts):
`item` compares names without them. The editor runs with GSettings in memory, so that no
setting a task toggles (line numbers, session) outlives it into the next start."""

from __future__ import annotations

from collections.abc import Sequence

from realapps.catalog.app import App, Pick, Scenario, Step, by_role
from realapps.truth import Element


# The shell gives the editor's window the keyboard focus once it shows (xdotool, in the
# background), then becomes the editor (same pid), with GSettings in memory. Without a window
# manager the focus otherwise follows the pointer: the window would look unfocused whenever
# the pointer is outside it (at the start, or "pointer elsewhere"), unlike when recorded.
SHELL = (
    '(w=$(xdotool search --sync --onlyvisible --pid "$$" | head -n 1) && '
    'xdotool windowfocus "$w" &) 2>/dev/null; '
    'GSETTINGS_BACKEND=memory; export GSETTINGS_BACKEND; exec "$@"'
)


def command(scenario: Scenario) -> list[str]:
    return ["sh", "-c", SHELL, "sh", "mousepad", "--disable-server", *scenario.argv]


def item(role: str, name: str, index: int = 0) -> Pick:
    """As `by_role`, with the names' trailing spaces ignored."""

    def pick(elements: Sequence[Element]) -> Element | None:
        found = sorted(
            (
                e
                for e in elements
                if e.role == role and e.name.strip() == name and e.box[2] > 0 and e.box[3] > 0
            ),
            key=lambda e: (e.box[1], e.box[0]),
        )
        return found[index] if len(found) > index else None

    return pick


APP = App(
    name="mousepad",
    toolkit="GTK 3",
    truth="atspi",
    key="mousepad",
    command=command,
    ready=lambda elements: (
        any(e.role == "text" for e in elements)
        and any(e.role == "menu" and e.name == "Edit" for e in elements)
    ),
    # The person glides straight from one point to the next: with a menu open, a glide
    # across another title of the menu bar would open that menu instead. So each item is
    # clicked near its left end, below its menu's title, and Convert near its right end,
    # so that the glide to its submenu's second item leaves the Edit menu before it
    # reaches the next row.
    steps=(
        Step("left_click", by_role("text", ""), at=(0.3, 0.3), label="the text"),
        Step("type", text="the quick brown fox\njumps over the lazy dog"),
        Step("left_click", item("menu", "Edit"), label="open Edit"),
        Step("left_click", item("menu item", "Select All"), at=(0.1, 0.5), label="Select All"),
        Step("left_click", item("menu", "Edit"), label="open Edit again"),
        Step("left_click", item("menu", "Convert"), at=(0.95, 0.5), label="its Convert submenu"),
        Step("left_click", item("menu item", "To Uppercase"), at=(0.1, 0.5), label="uppercase"),
        Step("left_click", item("menu", "View"), label="open View"),
        Step("left_click", item("menu item", "Line Numbers"), at=(0.1, 0.5), label="line numbers"),
        Step("left_click", item("menu", "Search"), label="open Search"),
        Step("left_click", item("menu item", "Find"), at=(0.1, 0.5), label="the search bar"),
        Step("type", text="LAZY"),
        Step("left_click", item("check box", "Match case"), label="match case"),
        Step("left_click", item("push button", "Up"), label="the previous match"),
        Step("left_click", item("push button", "Close"), label="close the search bar"),
    ),
    scenarios=(
        Scenario("unchanged"),
        Scenario("pointer elsewhere", pointer_elsewhere=True),
        Scenario("moved", position=(520, 300)),
        Scenario("resized", size=(1100, 760)),
        Scenario("font 1.25x", env={"GDK_DPI_SCALE": "1.25"}, told=1.25),
        Scenario("theme", env={"GTK_THEME": "Adwaita:dark"}),
    ),
)

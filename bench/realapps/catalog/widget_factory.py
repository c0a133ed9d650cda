"""GTK 3's widget factory (gtk3-widget-factory, from gtk-3-examples): a page of every GTK
widget, among them rows of identical check, radio and toggle buttons."""

from __future__ import annotations

from realapps.catalog.app import App, Scenario, Step, by_role


def command(scenario: Scenario) -> list[str]:
    return ["gtk3-widget-factory", *scenario.argv]


APP = App(
    name="widget-factory",
    toolkit="GTK 3",
    truth="atspi",
    key="gtk3-widget-factory",
    command=command,
    ready=lambda elements: any(e.role == "check box" for e in elements),
    steps=(
        Step("left_click", by_role("check box", "checkbutton", 1), label="the second check box"),
        Step("left_click", by_role("radio button", "radiobutton", 3), label="a radio button"),
        Step("left_click", by_role("toggle button", "togglebutton", 2), label="a toggle"),
        Step("left_click", by_role("combo box", "Left"), label="open the Left combo"),
        Step("left_click", by_role("menu item", "Right"), label="choose Right"),
        Step("left_click", by_role("spin button", ""), at=(0.9, 0.5), label="spin up"),
        Step("left_click", by_role("radio button", "Page 2"), label="page 2"),
        Step("left_click", by_role("radio button", "Page 1"), label="back to page 1"),
    ),
    scenarios=(
        Scenario("unchanged"),
        Scenario("pointer elsewhere", pointer_elsewhere=True),
        Scenario("moved", position=(520, 300)),
        Scenario("resized", size=(1600, 900)),
        Scenario("font 1.25x", env={"GDK_DPI_SCALE": "1.25"}, told=1.25),
        Scenario("theme", env={"GTK_THEME": "Adwaita:dark"}),
    ),
)

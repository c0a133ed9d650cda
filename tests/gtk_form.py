"""A GTK 3 form of two rows, each a label and an identical "Apply" button: the twins of
tests/test_objects_live.py, as a toolkit that publishes its accessibility tree draws them.
Run by the system Python (python3-gi). It prints "ready NAME X Y" for each button (its
centre on the screen) once shown, then "applied NAME" for each press of one.

--swap puts the rows in the other order; --rename names the buttons "Save";
--grid lays both rows out in one grid (the buttons then share a parent); --at X Y places
the window; --font SCALE scales the text, as a desktop's font setting does; --menu adds a
menu bar whose "Tools" menu (its title's centre printed as "ready Tools X Y") opens a
popup of two items inside an 8 px border, printed as "item NAME X Y" each time it opens.
A press shows "NAME applied" in the status line below the rows; with --wrong-effect,
"nothing applied"; with --quiet, nothing.
--notebook puts the rows on the page of a notebook tab ("Servers"), whose accessible is
boxed as its tab's label while it holds the page. --check adds a check box "Keep a copy"
below the rows (printed as "ready Keep_a_copy X Y"); with --wrong-effect it does not stay
checked. --text CONTENT adds a multi-line text area holding CONTENT ("ready Notes X Y").
--pulse adds a progress bar above the status line that pulses every 100 ms, as an
application shows work whose length it does not know.
"""

from __future__ import annotations

import argparse
import functools

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

ROWS = ("Proxy server", "Mail server")


def pressed(name: str, status: Gtk.Label, args: argparse.Namespace, _button: Gtk.Button) -> None:
    if not args.quiet:
        status.set_text("nothing applied" if args.wrong_effect else f"{name} applied")
    print("applied", name, flush=True)


def build(args: argparse.Namespace) -> tuple[Gtk.Window, dict[str, Gtk.Button]]:
    window = Gtk.Window(title="twin form")
    window.move(*args.at)
    outer = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin=12)
    window.add(outer)
    if args.menu:
        outer.pack_start(menu_bar(), False, False, 0)
    outer.pack_start(Gtk.Label(label="Servers", xalign=0), False, False, 0)
    status = Gtk.Label(label="", xalign=0)
    if args.notebook:
        notebook, page = Gtk.Notebook(), Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
        notebook.append_page(page, Gtk.Label(label="Servers"))
        outer.pack_start(notebook, False, False, 0)
        outer = page
    grid = Gtk.Grid(column_spacing=12, row_spacing=8) if args.grid else None
    if grid is not None:
        outer.pack_start(grid, False, False, 0)
    buttons = {}
    rows = tuple(reversed(ROWS)) if args.swap else ROWS
    for n, name in enumerate(rows):
        text = "Save" if args.rename else "Apply"
        button = Gtk.Button(label=text)
        button.connect("clicked", functools.partial(pressed, name, status, args))
        label = Gtk.Label(label=name, xalign=0, width_chars=16)
        if grid is not None:
            grid.attach(label, 0, n, 1, 1)
            grid.attach(button, 1, n, 1, 1)
        else:
            row = Gtk.Box(spacing=12)
            row.pack_start(label, False, False, 0)
            row.pack_start(button, False, False, 0)
            outer.pack_start(row, False, False, 0)
        buttons[name] = button
    if args.check:
        check = Gtk.CheckButton(label="Keep a copy")
        if args.wrong_effect:
            check.connect("toggled", lambda box: box.get_active() and box.set_active(False))
        outer.pack_start(check, False, False, 0)
        buttons["Keep a copy"] = check
    if args.text is not None:  # a multi-line text area, its centre printed as "Notes"
        notes = Gtk.TextView()
        notes.set_size_request(300, 120)
        notes.get_buffer().set_text(args.text)
        outer.pack_start(notes, False, False, 0)
        buttons["Notes"] = notes
    if args.pulse:
        bar = Gtk.ProgressBar(text="working", show_text=True)
        bar.set_size_request(300, -1)
        bar.set_pulse_step(0.05)
        GLib.timeout_add(100, lambda: bar.pulse() or True)
        outer.pack_start(bar, False, False, 0)
    outer.pack_start(status, False, False, 0)
    return window, buttons


def menu_bar() -> Gtk.MenuBar:
    bar = Gtk.MenuBar()
    title = Gtk.MenuItem(label="Tools")
    menu = Gtk.Menu()
    css = Gtk.CssProvider()
    css.load_from_data(b"menu { padding: 8px; }")  # a border no item holds, as themes draw
    menu.get_style_context().add_provider(css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
    for name in ("Clear", "Select All"):
        menu.append(Gtk.MenuItem(label=name))
    menu.connect("map", lambda shown: GLib.timeout_add(300, report_items, shown))
    title.set_submenu(menu)
    bar.append(title)
    bar.title = title
    return bar


def centre(widget: Gtk.Widget) -> tuple[int, int]:
    box = widget.get_allocation()
    origin = widget.get_toplevel().get_window().get_origin()
    x, y = widget.translate_coordinates(widget.get_toplevel(), box.width // 2, box.height // 2)
    return origin.x + x, origin.y + y


def report_items(menu: Gtk.Menu) -> bool:
    for item in menu.get_children():
        x, y = centre(item)
        print("item", item.get_label().replace(" ", "_"), x, y, flush=True)
    return False


def report_ready(window: Gtk.Window, buttons: dict[str, Gtk.Button]) -> bool:
    origin = window.get_window().get_origin()
    for name, button in buttons.items():
        box = button.get_allocation()
        x, y = button.translate_coordinates(window, box.width // 2, box.height // 2)
        print("ready", name.replace(" ", "_"), origin.x + x, origin.y + y, flush=True)
    for bar in window.menu_bars:
        print("ready", "Tools", *centre(bar.title), flush=True)
    return False


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--swap", action="store_true")
    parser.add_argument("--rename", action="store_true")
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--at", type=int, nargs=2, default=(40, 40))
    parser.add_argument("--font", type=float, default=1.0)
    parser.add_argument("--menu", action="store_true")
    parser.add_argument("--wrong-effect", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--notebook", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--text", default=None, help="a text area below, holding this")
    parser.add_argument("--pulse", action="store_true")
    args = parser.parse_args()
    if args.font != 1.0:
        Gtk.Settings.get_default().set_property("gtk-xft-dpi", round(96 * 1024 * args.font))
    window, buttons = build(args)
    window.menu_bars = [w for w in window.get_child().get_children() if isinstance(w, Gtk.MenuBar)]
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    GLib.timeout_add(500, report_ready, window, buttons)
    Gtk.main()


if __name__ == "__main__":
    main()

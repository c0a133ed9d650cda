"""Sample Tk application for deskreel tests: logs every input event it sees as JSON lines."""

from __future__ import annotations

import argparse
import json
import re
import time
import tkinter as tk
from typing import IO, Any

WINDOW_WIDTH, WINDOW_HEIGHT = 800, 600
FONT = ("DejaVu Sans", -14)  # negative size = pixels, so the look does not depend on dpi
MONO_FONT = ("DejaVu Sans Mono", -13)
SCROLL_UNITS = 3  # lines (or characters) per wheel notch
LISTBOX_ITEMS = [
    f"Item {i:02d}" + (" - a long line so the list can also scroll sideways" if i % 5 == 0 else "")
    for i in range(1, 51)
]

# Widget name -> (x, y, width, height) inside the window.
NORMAL_LAYOUT: dict[str, tuple[int, int, int, int]] = {
    "button:Save": (20, 20, 100, 32),
    "button:Open": (130, 20, 100, 32),
    "button:Delete": (240, 20, 100, 32),
    "button:OK": (350, 20, 100, 32),
    "label:name": (20, 70, 60, 28),
    "entry": (85, 70, 365, 28),
    "text": (20, 110, 430, 150),
    "label:double": (20, 272, 140, 44),
    "label:triple": (165, 272, 140, 44),
    "label:context": (310, 272, 140, 44),
    "listbox": (480, 20, 300, 296),
    "canvas": (20, 330, 760, 220),
    "label:status": (20, 562, 560, 26),
    "label:clock": (620, 562, 160, 26),
}
# The same widgets elsewhere, so an image-matching replayer has to search for them.
REORDERED_LAYOUT: dict[str, tuple[int, int, int, int]] = {
    "canvas": (20, 20, 760, 200),
    "listbox": (20, 240, 260, 310),
    "label:name": (300, 240, 60, 28),
    "entry": (365, 240, 255, 28),
    "text": (300, 280, 320, 270),
    "button:OK": (680, 240, 100, 32),
    "button:Delete": (680, 282, 100, 32),
    "button:Open": (680, 324, 100, 32),
    "button:Save": (680, 366, 100, 32),
    "label:context": (640, 410, 140, 44),
    "label:triple": (640, 458, 140, 44),
    "label:double": (640, 506, 140, 44),
    "label:status": (300, 562, 480, 26),
    "label:clock": (20, 562, 160, 26),
}
# X modifier mask bits; Mod2 (NumLock) is left out because it says nothing about intent.
MODIFIERS = (("shift", 0x1), ("lock", 0x2), ("ctrl", 0x4), ("alt", 0x8),
             ("super", 0x40), ("altgr", 0x80))
KEYBOARD_STATE_MASK = 0xFF  # pointer button bits differ between press and release


class EventLog:
    """Writes one JSON object per line and flushes it, so tests can tail the file."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, event: str, **fields: Any) -> None:
        record = {"t": time.monotonic(), "event": event, **fields}
        self._stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._stream.flush()


class SampleApp:
    """The widgets, their bindings and the JSON log they feed."""

    def __init__(self, root: tk.Tk, log: EventLog, *, layout: str, clock: bool) -> None:
        self.root = root
        self.log = log
        self.names: dict[str, str] = {str(root): "window"}
        self.widgets: dict[str, tk.Widget] = {}
        self._press_modifiers: list[str] = []
        self._drag_from: tuple[int, int] | None = None
        self._counts = {"double": 0, "triple": 0, "context": 0}
        places = dict(REORDERED_LAYOUT if layout == "reordered" else NORMAL_LAYOUT)
        if layout == "renamed":
            places["button:Store"] = places.pop("button:Save")
        if not clock:
            del places["label:clock"]
        for name, (x, y, width, height) in places.items():
            widget = self._make(name)
            widget.place(x=x, y=y, width=width, height=height)
            self._register(name, widget)
        self._bind_logging()
        if clock:
            self._tick()

    def _make(self, name: str) -> tk.Widget:
        kind, _, label = name.partition(":")
        if kind == "button":
            return tk.Button(self.root, text=label, command=lambda: self._clicked(name))
        if name == "entry":
            self.entry_value = tk.StringVar(self.root)
            self.entry_value.trace_add("write", lambda *_: self.log.write(
                "text_changed", widget="entry", value=self.entry_value.get()))
            # No cursor blinking and no cross-widget selection: screenshots stay stable.
            return tk.Entry(self.root, textvariable=self.entry_value, insertofftime=0,
                            exportselection=False)
        if name == "text":
            return self._make_text()
        if name == "listbox":
            self.listbox = tk.Listbox(self.root, exportselection=False, activestyle="none")
            self.listbox.insert("end", *LISTBOX_ITEMS)
            self.listbox.bind("<<ListboxSelect>>", self._listbox_selected)
            return self.listbox
        if name == "canvas":
            return self._make_canvas()
        return self._make_label(name)

    def _make_text(self) -> tk.Text:
        self.text = tk.Text(self.root, font=MONO_FONT, insertofftime=0, undo=False,
                            exportselection=False)
        # <<Modified>> is queued and coalesces keystrokes, so logs would differ run to run;
        # a tag right after the class bindings sees each edit as soon as it happens.
        tags = list(self.text.bindtags())
        tags.insert(tags.index("Text") + 1, "TextEdited")
        self.text.bindtags(tuple(tags))
        self.text.bind_class("TextEdited", "<KeyPress>", self._text_edited)
        self.text.bind_class("TextEdited", "<ButtonRelease>", self._text_edited)
        self._text_value = ""
        return self.text

    def _make_label(self, name: str) -> tk.Label:
        texts = {"label:name": "Name:", "label:double": "Double-click me",
                 "label:triple": "Triple-click me", "label:context": "Right-click me",
                 "label:status": "Ready", "label:clock": ""}
        boxed = name in ("label:double", "label:triple", "label:context")
        label_widget = tk.Label(self.root, text=texts[name], anchor="center" if boxed else "w",
                                relief="groove" if boxed else "flat", bd=2)
        if name == "label:double":
            label_widget.bind("<Double-Button-1>", lambda e: self._label_event(e, "double"))
        elif name == "label:triple":
            label_widget.bind("<Triple-Button-1>", lambda e: self._label_event(e, "triple"))
        elif name == "label:context":
            label_widget.bind("<Button-3>", lambda e: self._label_event(e, "context"))
        return label_widget

    def _make_canvas(self) -> tk.Canvas:
        # No border or highlight ring, so canvas coordinates equal widget coordinates.
        self.canvas = tk.Canvas(self.root, background="white", highlightthickness=0, bd=0)
        self.canvas.create_text(10, 10, text="Drag the blue box", anchor="nw", font=FONT)
        self.canvas.create_rectangle(40, 40, 140, 100, fill="#3060c0", outline="black",
                                     width=2, tags=("rect",))
        # A widget binding, not tag_bind: item bindings run before the "Log" tag, which
        # would put drag_start ahead of its button_press in the log.
        self.canvas.bind("<ButtonPress-1>", self._drag_start)
        self.canvas.bind("<B1-Motion>", self._drag_motion)
        self.canvas.bind("<ButtonRelease-1>", self._drag_end)
        return self.canvas

    def _register(self, name: str, widget: tk.Widget) -> None:
        self.names[str(widget)] = name
        self.widgets[name] = widget

    def _bind_logging(self) -> None:
        # A "Log" tag in front of every widget's own tags sees each event first, even
        # when a later binding stops it with "break".
        for widget in [self.root, *self.widgets.values()]:
            widget.bindtags(("Log", *widget.bindtags()))
        self.root.bind_class("Log", "<ButtonPress>", self._button_press)
        self.root.bind_class("Log", "<ButtonRelease>", lambda e: self._button("button_release", e))
        self.root.bind_class("Log", "<KeyPress>", lambda e: self._key("key", e))
        self.root.bind_class("Log", "<KeyRelease>", lambda e: self._key("key_release", e))
        self.root.bind("<Control-s>", lambda e: self._shortcut("save"))
        self.root.bind("<Escape>", lambda e: self._shortcut("escape"))
        # Wheel notches are buttons 4/5; Tk 8.6 reports horizontal buttons 6/7 as Shift-4/5.
        for sequence, axis, delta in (("<Button-4>", "y", -1), ("<Button-5>", "y", 1),
                                      ("<Shift-Button-4>", "x", -1),
                                      ("<Shift-Button-5>", "x", 1)):
            self.listbox.bind(sequence, lambda e, a=axis, d=delta: self._scroll(a, d))

    def _name(self, event: tk.Event) -> str:
        widget = str(event.widget)
        return self.names.get(widget, widget)

    def _button_press(self, event: tk.Event) -> None:
        self._press_modifiers = modifiers(event.state)
        self._button("button_press", event)

    def _button(self, kind: str, event: tk.Event) -> None:
        self.log.write(kind, widget=self._name(event), button=event.num, x=event.x, y=event.y,
                       modifiers=modifiers(event.state),
                       state=event.state & KEYBOARD_STATE_MASK)

    def _key(self, kind: str, event: tk.Event) -> None:
        self.log.write(kind, widget=self._name(event), keysym=event.keysym, char=event.char,
                       modifiers=modifiers(event.state),
                       state=event.state & KEYBOARD_STATE_MASK)

    def _clicked(self, name: str) -> None:
        self.log.write("click", widget=name, modifiers=self._press_modifiers)
        self._status(f"{name.partition(':')[2]} clicked")

    def _shortcut(self, shortcut: str) -> None:
        self.log.write("shortcut", name=shortcut)
        self._status(f"Shortcut: {shortcut}")

    def _label_event(self, event: tk.Event, which: str) -> None:
        kinds = {"double": "double_click", "triple": "triple_click", "context": "right_click"}
        self._counts[which] += 1
        self.log.write(kinds[which], widget=f"label:{which}", x=event.x, y=event.y,
                       modifiers=modifiers(event.state))
        self.widgets[f"label:{which}"].configure(
            text=f"{kinds[which].replace('_', '-')} x{self._counts[which]}")

    def _text_edited(self, _event: tk.Event) -> None:
        value = self.text.get("1.0", "end-1c")
        if value != self._text_value:
            self._text_value = value
            self.log.write("text_changed", widget="text", value=value)

    def _listbox_selected(self, _event: tk.Event) -> None:
        for index in self.listbox.curselection():
            self.log.write("select", widget="listbox", index=index,
                           value=self.listbox.get(index))

    def _scroll(self, axis: str, delta: int) -> str:
        if axis == "y":
            self.listbox.yview_scroll(delta * SCROLL_UNITS, "units")
        else:
            self.listbox.xview_scroll(delta * SCROLL_UNITS, "units")
        self.log.write("scroll", widget="listbox", axis=axis, delta=delta,
                       first_visible=self.listbox.nearest(0),
                       x_offset=round(self.listbox.xview()[0], 4))
        return "break"  # replaces Tk's own 5-line wheel step with ours

    def _drag_start(self, event: tk.Event) -> None:
        under = self.canvas.find_overlapping(event.x, event.y, event.x, event.y)
        if not any("rect" in self.canvas.gettags(item) for item in under):
            return
        self._drag_from = (event.x, event.y)
        self.log.write("drag_start", widget="canvas", x=event.x, y=event.y,
                       item_pos=self._rect_pos())

    def _drag_motion(self, event: tk.Event) -> None:
        # Motion is not logged: how many events arrive depends on speed, not intent.
        if self._drag_from is not None:
            self.canvas.move("rect", event.x - self._drag_from[0], event.y - self._drag_from[1])
            self._drag_from = (event.x, event.y)

    def _drag_end(self, event: tk.Event) -> None:
        if self._drag_from is not None:
            self._drag_motion(event)
            self._drag_from = None
            self.log.write("drag_end", widget="canvas", x=event.x, y=event.y,
                           item_pos=self._rect_pos())

    def _rect_pos(self) -> list[int]:
        x1, y1, _, _ = self.canvas.coords("rect")
        return [round(x1), round(y1)]

    def _status(self, text: str) -> None:
        self.widgets["label:status"].configure(text=text)

    def _tick(self) -> None:
        self.widgets["label:clock"].configure(text=time.strftime("%H:%M:%S"))
        # Wake up just after the next second boundary so the display never lags.
        self.root.after(1000 - int(time.time() * 1000) % 1000 + 5, self._tick)

    def report_ready(self) -> None:
        """Log the window geometry and every widget's screen rectangle."""
        root = self.root
        widgets = {name: [w.winfo_rootx(), w.winfo_rooty(), w.winfo_width(), w.winfo_height()]
                   for name, w in self.widgets.items()}
        x1, y1, x2, y2 = (round(c) for c in self.canvas.coords("rect"))
        widgets["canvas:rect"] = [self.canvas.winfo_rootx() + x1, self.canvas.winfo_rooty() + y1,
                                  x2 - x1, y2 - y1]
        size = f"{root.winfo_width()}x{root.winfo_height()}"
        self.log.write("ready", geometry=f"{size}+{root.winfo_rootx()}+{root.winfo_rooty()}",
                       title=root.title(), widgets=widgets)


def modifiers(state: int) -> list[str]:
    """Names of the modifiers held in an X event state, e.g. ["ctrl", "shift"]."""
    return [name for name, mask in MODIFIERS if state & mask]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; see samples/README.md."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--log", required=True, help="file to write JSON-lines events to")
    parser.add_argument("--geometry", default="+0+0", help="window position as +X+Y")
    parser.add_argument("--layout", choices=("normal", "reordered", "renamed"),
                        default="normal")
    parser.add_argument("--title", default="deskreel sample")
    parser.add_argument("--clock", action="store_true", help="show a HH:MM:SS clock")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[+-]\d+[+-]\d+", args.geometry):
        parser.error(f"--geometry must look like +X+Y, not {args.geometry!r}")
    return args


def main(argv: list[str] | None = None) -> None:
    """Build the window, wait until it is on screen, log "ready", run."""
    args = parse_args(argv)
    with open(args.log, "w", encoding="utf-8") as stream:
        root = tk.Tk(className="DeskreelSample")
        root.title(args.title)
        root.geometry(f"{WINDOW_WIDTH}x{WINDOW_HEIGHT}{args.geometry}")
        root.resizable(False, False)
        root.option_add("*Font", FONT)
        app = SampleApp(root, EventLog(stream), layout=args.layout, clock=args.clock)
        root.wait_visibility(root)
        # There is usually no window manager, so take the keyboard focus ourselves.
        root.focus_force()
        root.update()
        root.winfo_pointerxy()  # a round trip: the server has drawn everything we sent
        app.report_ready()
        root.mainloop()


if __name__ == "__main__":
    main()

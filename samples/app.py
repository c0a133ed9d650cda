"""Sample Tk application for deskreel tests: logs every input event it sees as JSON lines."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import tkinter as tk
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

if __package__ in (None, ""):  # run as a script: samples/ is on sys.path, the repository not
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from samples.layouts import (
    BANNER_FONT,
    BANNER_HEIGHT,
    BANNER_TEXT,
    FONT,
    LAYOUTS,
    LISTBOX_ITEMS,
    MONO_FONT,
    PIXEL_OPTIONS,
    Box,
    layout_places,
    scaled,
    scaled_font,
    text_of,
    window_size,
)

CHANGED_OK_STATUS = "Something else happened"  # what OK shows with --effect changed
SCROLL_UNITS = 3  # lines (or characters) per wheel notch

# X modifier mask bits; Mod2 (NumLock) is left out because it says nothing about intent.
MODIFIERS = (
    ("shift", 0x1),
    ("lock", 0x2),
    ("ctrl", 0x4),
    ("alt", 0x8),
    ("super", 0x40),
    ("altgr", 0x80),
)
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

    def __init__(
        self,
        root: tk.Tk,
        log: EventLog,
        *,
        places: dict[str, Box],
        scale: float = 1.0,
        late: float | None = None,
        effect: str = "normal",
        log_status: bool = False,
        blink: int = 0,
    ) -> None:
        self.root = root
        self.log = log
        self.names: dict[str, str] = {str(root): "window"}
        self.widgets: dict[str, tk.Widget] = {}
        self.places = places
        self._scale = scale
        self._late = late
        self._late_name = next((n for n in ("button:Save", "button:Store") if n in places), None)
        self._effect = effect
        self._log_status = log_status
        self._blink = blink  # ms the text caret shows, then hides; 0: it never blinks
        self._press_modifiers: list[str] = []
        self._drag_from: tuple[int, int] | None = None
        self._counts = {"double": 0, "triple": 0, "context": 0}
        for name, (x, y, width, height) in places.items():
            widget = self._make(name)
            if scale != 1.0:
                self._scale_pixel_options(widget)
            if not (late is not None and name == self._late_name):
                widget.place(x=x, y=y, width=width, height=height)
            self._register(name, widget)
        self._bind_logging()
        if "label:clock" in places:
            self._tick()

    def _make(self, name: str) -> tk.Widget:
        kind = name.partition(":")[0]
        if kind == "button":
            return tk.Button(self.root, text=text_of(name), command=lambda: self._clicked(name))
        if kind == "frame":
            return tk.Frame(self.root, relief="groove", bd=2)
        if name == "label:banner":
            return tk.Label(
                self.root,
                text=BANNER_TEXT,
                anchor="w",
                padx=16,
                bd=0,
                background="#2f6db5",
                foreground="white",
                font=scaled_font(BANNER_FONT, self._scale),
            )
        if name == "entry":
            self.entry_value = tk.StringVar(self.root)
            self.entry_value.trace_add(
                "write",
                lambda *_: self.log.write(
                    "text_changed", widget="entry", value=self.entry_value.get()
                ),
            )
            # No cursor blinking (unless --blink) and no cross-widget selection: screenshots
            # stay stable.
            return tk.Entry(
                self.root,
                textvariable=self.entry_value,
                insertontime=self._blink or 600,
                insertofftime=self._blink,
                exportselection=False,
            )
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
        self.text = tk.Text(
            self.root,
            font=scaled_font(MONO_FONT, self._scale),
            insertontime=self._blink or 600,
            insertofftime=self._blink,
            undo=False,
            exportselection=False,
        )
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
        texts = {
            "label:name": "Name:",
            "label:double": "Double-click me",
            "label:triple": "Triple-click me",
            "label:context": "Right-click me",
            "label:status": "Ready",
            "label:clock": "",
        }
        if name not in texts:  # a row label of the duplicate layouts: "label:Refund"
            return tk.Label(self.root, text=text_of(name), anchor="e")
        boxed = name in ("label:double", "label:triple", "label:context")
        label_widget = tk.Label(
            self.root,
            text=texts[name],
            anchor="center" if boxed else "w",
            relief="groove" if boxed else "flat",
            bd=2,
        )
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
        px = self._px
        self.canvas.create_text(
            px(10),
            px(10),
            text="Drag the blue box",
            anchor="nw",
            font=scaled_font(FONT, self._scale),
        )
        self.canvas.create_rectangle(
            px(40),
            px(40),
            px(140),
            px(100),
            fill="#3060c0",
            outline="black",
            width=px(2),
            tags=("rect",),
        )
        # A widget binding, not tag_bind: item bindings run before the "Log" tag, which
        # would put drag_start ahead of its button_press in the log.
        self.canvas.bind("<ButtonPress-1>", self._drag_start)
        self.canvas.bind("<B1-Motion>", self._drag_motion)
        self.canvas.bind("<ButtonRelease-1>", self._drag_end)
        return self.canvas

    def _px(self, pixels: float) -> int:
        return scaled(pixels, self._scale)

    def _scale_pixel_options(self, widget: tk.Widget) -> None:
        for option in PIXEL_OPTIONS:
            if option in widget.configure():
                value = str(widget.cget(option))
                if value.isdigit():
                    widget.configure({option: self._px(int(value))})

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
        for sequence, axis, delta in (
            ("<Button-4>", "y", -1),
            ("<Button-5>", "y", 1),
            ("<Shift-Button-4>", "x", -1),
            ("<Shift-Button-5>", "x", 1),
        ):
            self.listbox.bind(sequence, self._scroller(axis, delta))

    def _scroller(self, axis: str, delta: int) -> Callable[[tk.Event], str]:
        return lambda _event: self._scroll(axis, delta)

    def _label(self, name: str) -> tk.Label:
        label = self.widgets[name]
        assert isinstance(label, tk.Label)
        return label

    def _name(self, event: tk.Event) -> str:
        widget = str(event.widget)
        return self.names.get(widget, widget)

    def _button_press(self, event: tk.Event) -> None:
        self._press_modifiers = modifiers(state_of(event))
        self._button("button_press", event)

    def _button(self, kind: str, event: tk.Event) -> None:
        self.log.write(
            kind,
            widget=self._name(event),
            button=event.num,
            x=event.x,
            y=event.y,
            modifiers=modifiers(state_of(event)),
            state=state_of(event) & KEYBOARD_STATE_MASK,
        )

    def _key(self, kind: str, event: tk.Event) -> None:
        self.log.write(
            kind,
            widget=self._name(event),
            keysym=event.keysym,
            char=event.char,
            modifiers=modifiers(state_of(event)),
            state=state_of(event) & KEYBOARD_STATE_MASK,
        )

    def _clicked(self, name: str) -> None:
        self.log.write("click", widget=name, modifiers=self._press_modifiers)
        if self._effect == "changed" and text_of(name) == "OK":
            self._status(CHANGED_OK_STATUS)
        else:
            self._status(f"{name.partition(':')[2]} clicked")

    def _shortcut(self, shortcut: str) -> None:
        self.log.write("shortcut", name=shortcut)
        self._status(f"Shortcut: {shortcut}")

    def _label_event(self, event: tk.Event, which: str) -> None:
        kinds = {"double": "double_click", "triple": "triple_click", "context": "right_click"}
        self._counts[which] += 1
        self.log.write(
            kinds[which],
            widget=f"label:{which}",
            x=event.x,
            y=event.y,
            modifiers=modifiers(state_of(event)),
        )
        self._label(f"label:{which}").configure(
            text=f"{kinds[which].replace('_', '-')} x{self._counts[which]}"
        )

    def _text_edited(self, _event: tk.Event) -> None:
        value = self.text.get("1.0", "end-1c")
        if value != self._text_value:
            self._text_value = value
            self.log.write("text_changed", widget="text", value=value)

    def _listbox_selected(self, _event: tk.Event) -> None:
        for index in self.listbox.curselection():
            self.log.write("select", widget="listbox", index=index, value=self.listbox.get(index))

    def _scroll(self, axis: str, delta: int) -> str:
        if axis == "y":
            self.listbox.yview_scroll(delta * SCROLL_UNITS, "units")
        else:
            self.listbox.xview_scroll(delta * SCROLL_UNITS, "units")
        self.log.write(
            "scroll",
            widget="listbox",
            axis=axis,
            delta=delta,
            first_visible=self.listbox.nearest(0),
            x_offset=round(self.listbox.xview()[0], 4),
        )
        return "break"  # replaces Tk's own 5-line wheel step with ours

    def _drag_start(self, event: tk.Event) -> None:
        under = self.canvas.find_overlapping(event.x, event.y, event.x, event.y)
        if not any("rect" in self.canvas.gettags(item) for item in under):
            return
        self._drag_from = (event.x, event.y)
        self.log.write(
            "drag_start", widget="canvas", x=event.x, y=event.y, item_pos=self._rect_pos()
        )

    def _drag_motion(self, event: tk.Event) -> None:
        # Motion is not logged: how many events arrive depends on speed, not intent.
        if self._drag_from is not None:
            self.canvas.move("rect", event.x - self._drag_from[0], event.y - self._drag_from[1])
            self._drag_from = (event.x, event.y)

    def _drag_end(self, event: tk.Event) -> None:
        if self._drag_from is not None:
            self._drag_motion(event)
            self._drag_from = None
            self.log.write(
                "drag_end", widget="canvas", x=event.x, y=event.y, item_pos=self._rect_pos()
            )

    def _rect_pos(self) -> list[int]:
        x1, y1, _, _ = self.canvas.coords("rect")
        return [round(x1), round(y1)]

    def _status(self, text: str) -> None:
        self._label("label:status").configure(text=text)
        if self._log_status:
            self.log.write("status", text=text)

    def _tick(self) -> None:
        self._label("label:clock").configure(text=time.strftime("%H:%M:%S"))
        # Wake up just after the next second boundary so the display never lags.
        self.root.after(1000 - int(time.time() * 1000) % 1000 + 5, self._tick)

    def report_ready(self) -> None:
        """Log the window geometry and every widget's screen rectangle; start a --late timer."""
        root = self.root
        widgets = {
            name: [w.winfo_rootx(), w.winfo_rooty(), w.winfo_width(), w.winfo_height()]
            for name, w in self.widgets.items()
        }
        x1, y1, x2, y2 = (round(c) for c in self.canvas.coords("rect"))
        widgets["canvas:rect"] = [
            self.canvas.winfo_rootx() + x1,
            self.canvas.winfo_rooty() + y1,
            x2 - x1,
            y2 - y1,
        ]
        late: dict[str, float] = {}
        if self._late is not None and self._late_name is not None:
            # Not on screen yet: report where it will be.
            x, y, width, height = self.places[self._late_name]
            widgets[self._late_name] = [
                root.winfo_rootx() + x,
                root.winfo_rooty() + y,
                width,
                height,
            ]
            late["late"] = self._late
        # The list's rows on screen (None for a row scrolled out of view): its font does not
        # scale like the widgets, so a benchmark at another scale needs them to know which
        # row a point falls on.
        listbox = self.listbox if "listbox" in self.widgets else None
        rows = (
            {}
            if listbox is None
            else {
                "listbox": [
                    None
                    if box is None
                    else [
                        listbox.winfo_rootx() + box[0],
                        listbox.winfo_rooty() + box[1],
                        box[2],
                        box[3],
                    ]
                    for box in (listbox.bbox(i) for i in range(listbox.size()))
                ]
            }
        )
        size = f"{root.winfo_width()}x{root.winfo_height()}"
        self.log.write(
            "ready",
            geometry=f"{size}+{root.winfo_rootx()}+{root.winfo_rooty()}",
            title=root.title(),
            widgets=widgets,
            rows=rows,
            **late,
        )
        if late:
            # Started once "ready" is written, so that the button appears `late` seconds
            # after the time "ready" gives, never a few ms before it.
            root.after(round(late["late"] * 1000), self._appear)

    def _appear(self) -> None:
        assert self._late_name is not None
        widget = self.widgets[self._late_name]
        x, y, width, height = self.places[self._late_name]
        widget.place(x=x, y=y, width=width, height=height)
        widget.wait_visibility(widget)
        self.root.update_idletasks()
        self.root.winfo_pointerxy()  # a round trip: the button is mapped and drawn
        self.log.write("appeared", widget=self._late_name)


def state_of(event: tk.Event) -> int:
    """The X modifier state of a key or button event (Tk gives a string for other events)."""
    return event.state if isinstance(event.state, int) else 0


def modifiers(state: int) -> list[str]:
    """Names of the modifiers held in an X event state, e.g. ["ctrl", "shift"]."""
    return [name for name, mask in MODIFIERS if state & mask]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; see samples/README.md."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--log", required=True, help="file to write JSON-lines events to")
    parser.add_argument("--geometry", default="+0+0", help="window position as +X+Y")
    parser.add_argument("--layout", choices=LAYOUTS, default="normal")
    parser.add_argument("--title", default="deskreel sample")
    parser.add_argument("--clock", action="store_true", help="show a HH:MM:SS clock")
    parser.add_argument(
        "--banner",
        action="store_true",
        help=f"a {BANNER_HEIGHT} px banner on top pushes everything down",
    )
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="draw the whole window this many times bigger (0.5 to 2)",
    )
    parser.add_argument(
        "--late",
        type=float,
        metavar="SECONDS",
        help="show the Save button only SECONDS after ready",
    )
    parser.add_argument(
        "--effect",
        choices=("normal", "changed"),
        default="normal",
        help=f"'changed': clicking OK shows {CHANGED_OK_STATUS!r}",
    )
    parser.add_argument(
        "--blink",
        type=int,
        default=0,
        metavar="MS",
        help="the text caret blinks: MS on, MS off (default 0: it never blinks)",
    )
    parser.add_argument(
        "--log-status",
        action="store_true",
        help="log a 'status' event whenever the status line changes",
    )
    args = parser.parse_args(argv)
    if not re.fullmatch(r"[+-]\d+[+-]\d+", args.geometry):
        parser.error(f"--geometry must look like +X+Y, not {args.geometry!r}")
    if not 0.5 <= args.scale <= 2.0:
        parser.error(f"--scale must be between 0.5 and 2, not {args.scale:g}")
    if args.late is not None and args.late < 0:
        parser.error(f"--late must be 0 or more seconds, not {args.late:g}")
    if args.late is not None and args.layout == "removed":
        parser.error("--late delays the Save button, which --layout removed has not got")
    return args


def main(argv: list[str] | None = None) -> None:
    """Build the window, wait until it is on screen, log "ready", run."""
    args = parse_args(argv)
    with open(args.log, "w", encoding="utf-8") as stream:
        root = tk.Tk(className="DeskreelSample")
        root.title(args.title)
        width, height = window_size(banner=args.banner, scale=args.scale)
        root.geometry(f"{width}x{height}{args.geometry}")
        root.resizable(False, False)
        if args.scale != 1.0:
            # Sizes given in units ("3m" button padding) follow tk scaling; pixels we scale.
            root.tk.call("tk", "scaling", float(root.tk.call("tk", "scaling")) * args.scale)
        root.option_add("*Font", scaled_font(FONT, args.scale))
        places = layout_places(args.layout, clock=args.clock, banner=args.banner, scale=args.scale)
        app = SampleApp(
            root,
            EventLog(stream),
            places=places,
            scale=args.scale,
            late=args.late,
            effect=args.effect,
            log_status=args.log_status,
            blink=args.blink,
        )
        root.wait_visibility(root)
        # There is usually no window manager, so take the keyboard focus ourselves.
        root.focus_force()
        root.update()
        root.winfo_pointerxy()  # a round trip: the server has drawn everything we sent
        app.report_ready()
        root.mainloop()


if __name__ == "__main__":
    main()

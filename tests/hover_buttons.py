"""A Tk window of three buttons drawn inverted while the pointer is on them (as Athena's
thick border or GTK's prelight change a control's look): the hover states of
tests/test_hover.py. It prints "ready NAME X Y" per button (its centre on the screen), then
"pressed NAME" per press. With --status, a status bar far below the buttons tells what the
button under the pointer does (as Qt's status tips and a browser's link address do)."""

from __future__ import annotations

import argparse
import functools
import tkinter as tk

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: tests/ is on sys.path, the repository not
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.tk_buttons import report_ready

NAMES = ("Save", "Open", "Quit")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--geometry", default="+60+60")
    parser.add_argument("--status", action="store_true", help="a status bar telling the hovered")
    args = parser.parse_args()
    root = tk.Tk(className="Hoverbuttons")
    root.title("hover buttons")
    root.geometry(args.geometry)
    buttons = {}
    for column, name in enumerate(NAMES):
        button = tk.Button(
            root,
            text=name,
            width=8,
            activebackground="#202020",
            activeforeground="#ffffff",
            command=functools.partial(print, "pressed", name, flush=True),
        )
        button.grid(row=0, column=column, padx=16, pady=16)
        buttons[name] = button
    if args.status:
        status = tk.Label(root, text="", anchor="w", width=30)
        status.grid(row=1, column=0, columnspan=len(NAMES), pady=(200, 8), sticky="w")
        for name, button in buttons.items():
            button.bind("<Enter>", functools.partial(_tell, status, f"{name} the document"))
            button.bind("<Leave>", functools.partial(_tell, status, ""))

    report_ready(root, buttons)
    root.mainloop()


def _tell(status: tk.Label, text: str, _event: object) -> None:
    status.configure(text=text)


if __name__ == "__main__":
    main()

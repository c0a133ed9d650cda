"""A Tk window of three buttons drawn inverted while the pointer is on them (as Athena's
thick border or GTK's prelight change a control's look): the hover states of
tests/test_hover.py. It prints "ready NAME X Y" per button (its centre on the screen), then
"pressed NAME" per press."""

from __future__ import annotations

import argparse
import functools
import tkinter as tk

NAMES = ("Save", "Open", "Quit")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--geometry", default="+60+60")
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

    def ready() -> None:
        root.update_idletasks()
        for name, b in buttons.items():
            x = b.winfo_rootx() + b.winfo_width() // 2
            y = b.winfo_rooty() + b.winfo_height() // 2
            print("ready", name, x, y, flush=True)

    root.after(300, ready)
    root.mainloop()


if __name__ == "__main__":
    main()

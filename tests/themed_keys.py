"""A Tk keypad in a light or a dark theme (tests/test_edges.py): the same buttons in the
same places, each face, border and label given other grey levels, the way a desktop theme
recolours a toolkit. The dark theme draws the buttons lighter than their window, the light
one darker, so no one line of grey levels maps one onto the other. It prints "ready NAME X
Y" per key (tk_buttons.py)."""

from __future__ import annotations

import argparse
import sys
import tkinter as tk
from pathlib import Path

if __package__ in (None, ""):  # run as a script: tests/ is on sys.path, the repository not
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.tk_buttons import report_ready

KEYS = ("7", "8", "9", "4", "5", "6", "1", "2", "3")
# window, face, label (Tk shades each raised bevel from its face)
THEMES = {"light": ("#dcdcdc", "#c4c4c4", "#101010"), "dark": ("#262626", "#5a5a5a", "#f0f0f0")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--theme", choices=sorted(THEMES), default="light")
    parser.add_argument("--rename", default="", help="KEY=LABEL: draw KEY with another label")
    args = parser.parse_args()
    window, face, label = THEMES[args.theme]
    renamed = dict([args.rename.split("=", 1)]) if args.rename else {}
    root = tk.Tk(className="Themedkeys")
    root.geometry("+80+80")
    root.configure(background=window)
    buttons = {}
    for i, key in enumerate(KEYS):
        button = tk.Button(
            root, text=renamed.get(key, key), width=4, height=2, font=("DejaVu Sans", 14),
            background=face, foreground=label, activebackground=face, borderwidth=2,
        )  # fmt: skip
        button.grid(row=i // 3, column=i % 3, padx=6, pady=6)
        buttons[key] = button
    report_ready(root, buttons)
    root.mainloop()


if __name__ == "__main__":
    main()

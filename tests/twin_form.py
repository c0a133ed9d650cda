"""A Tk form of two rows, each a label and an identical "Apply" button: the twins of
tests/test_twins.py. It prints "ready NAME X Y" for each button (its centre on the screen),
then "applied NAME" for each press of one. --swap puts the rows in the other order."""

from __future__ import annotations

import argparse
import functools
import tkinter as tk

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: tests/ is on sys.path, the repository not
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.tk_buttons import report_ready

ROWS = ("Proxy server", "Mail server")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--geometry", default="+40+40")
    parser.add_argument("--swap", action="store_true")
    args = parser.parse_args()
    root = tk.Tk(className="Twinform")
    root.title("twin form")
    root.geometry(args.geometry)
    tk.Label(root, text="Servers", font=("DejaVu Sans", 12, "bold")).grid(
        row=0, column=0, sticky="w", padx=12, pady=(10, 4)
    )
    buttons = {}
    for row, name in enumerate(reversed(ROWS) if args.swap else ROWS, start=1):
        tk.Label(root, text=name, font=("DejaVu Sans", 11)).grid(
            row=row, column=0, sticky="w", padx=12, pady=6
        )
        tk.Entry(root, width=24).grid(row=row, column=1, padx=12)
        button = tk.Button(
            root, text="Apply", command=functools.partial(print, "applied", name, flush=True)
        )
        button.grid(row=row, column=2, padx=12)
        buttons[name] = button

    report_ready(root, buttons)
    root.mainloop()


if __name__ == "__main__":
    main()

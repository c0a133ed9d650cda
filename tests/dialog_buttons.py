"""A Tk window whose "Settings" button opens a dialog at the screen's corner (+0+0, where a
window manager or Tk's default places it, whatever the window that opened it), whose
"Done" closes it: the windows a step opens, for tests/test_verify_windows.py. The main
window starts beside the dialog's place, 4 px off it.
It prints "ready NAME X Y" for Settings (its centre on the screen) once shown, the same for
Done each time the dialog shows, then "pressed NAME" per press. With --wrong, the dialog
says another thing."""

from __future__ import annotations

import argparse
import sys
import tkinter as tk
from pathlib import Path

if __package__ in (None, ""):  # run as a script: tests/ is on sys.path, the repository not
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.tk_buttons import report_ready


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--geometry", default="+244+0")
    parser.add_argument("--wrong", action="store_true", help="the dialog says another thing")
    args = parser.parse_args()
    root = tk.Tk(className="Dialogbuttons")
    root.title("dialog buttons")
    root.geometry(args.geometry)
    tk.Label(root, text="Printer: Office, second floor", font=("DejaVu Sans", 11)).pack(
        padx=16, pady=(16, 4)
    )
    tk.Label(root, text="Paper: A4, both sides", font=("DejaVu Sans", 11)).pack(padx=16)

    def settings() -> None:
        print("pressed Settings", flush=True)
        dialog = tk.Toplevel(root)
        dialog.title("Settings")
        dialog.geometry("240x150+0+0")
        text = "Margins: 12 mm" if args.wrong else "Margins: 20 mm"
        tk.Label(dialog, text=text, font=("DejaVu Sans", 12)).pack(padx=24, pady=(20, 8))
        tk.Label(dialog, text="Orientation: portrait", font=("DejaVu Sans", 12)).pack(padx=24)

        def done() -> None:
            print("pressed Done", flush=True)
            dialog.destroy()

        button = tk.Button(dialog, text="Done", width=8, command=done)
        button.pack(pady=16)
        report_ready(dialog, {"Done": button})

    button = tk.Button(root, text="Settings", width=10, command=settings)
    button.pack(pady=16)
    report_ready(root, {"Settings": button})
    root.mainloop()


if __name__ == "__main__":
    main()

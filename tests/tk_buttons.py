"""Small Tk windows of buttons for tests that replay real toolkit drawing (twin_form.py,
hover_buttons.py): each prints "ready NAME X Y" per button once it is shown (its centre on
the screen, spaces in NAME as underscores), then one line per press; the tests start one
with `shown` and read its presses with `stopped`."""

from __future__ import annotations

import subprocess
import sys
import time
import tkinter as tk
from pathlib import Path
from typing import Any

Places = dict[str, tuple[int, int]]


def report_ready(root: tk.Tk | tk.Toplevel, buttons: dict[str, tk.Button]) -> None:
    """Print each button's centre once the window is shown (in the script)."""

    def ready() -> None:
        root.update_idletasks()
        for name, b in buttons.items():
            x = b.winfo_rootx() + b.winfo_width() // 2
            y = b.winfo_rooty() + b.winfo_height() // 2
            print("ready", name.replace(" ", "_"), x, y, flush=True)

    root.after(300, ready)


def shown(xvfb: Any, script: Path, count: int, *args: str) -> tuple[subprocess.Popen[str], Places]:
    """Start `script` on the test display; it and its `count` buttons' centres once shown."""
    proc = subprocess.Popen(
        [sys.executable, str(script), *args], env=xvfb.env(), stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    places: Places = {}
    while len(places) < count:
        line = proc.stdout.readline()
        assert line, f"{script.name} never became ready"
        _, name, x, y = line.split()
        places[name] = (int(x), int(y))
    time.sleep(0.3)
    return proc, places


def stopped(proc: subprocess.Popen[str], word: str) -> list[str]:
    """Stop the window; the lines it printed that start with `word` (its presses)."""
    proc.terminate()
    out, _ = proc.communicate(timeout=10)
    return [line for line in out.splitlines() if line.startswith(word)]

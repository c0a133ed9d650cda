"""The window tree a replay keeps between steps (xsession/xtree.py): asked again, it costs
one round trip; after each change an application makes to its windows (a widget hidden,
shown, grown, restacked, its top-level moved, resized, retitled, closed and started again)
it answers as a tree asked from scratch does. On a real Xvfb with a real Tk application."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from deskreel.storage.widgets import Widget
from deskreel.xsession.xvfb import VirtualDisplay
from deskreel.xsession.xwindows import WindowTree, window_object, windows_at

# A row of four buttons that changes as told on stdin, one command a line
ROW = """
import sys, tkinter as tk
root = tk.Tk(className="Xtreerow")
root.title("row")
root.geometry("+100+100")
row = tk.Frame(root)
row.pack(padx=10, pady=10)
buttons = [tk.Button(row, text=t, highlightthickness=0) for t in ("Open", "Apply", "Keep", "Close")]
for b in buttons:
    b.pack(side="left", padx=4)
def do(line):
    word, *rest = line.split()
    if word == "hide":
        buttons[0].pack_forget()
    elif word == "show":
        buttons[0].pack(side="left", padx=4, before=buttons[1])
    elif word == "grow":
        buttons[1].configure(text="Apply all of it")
    elif word == "lower":
        buttons[1].lower()  # stacked under its siblings: another index among them
    elif word == "move":
        root.geometry("+300+250")
    elif word == "wider":
        root.geometry("600x200")
    elif word == "title":
        root.title("row, retitled")
    elif word == "titles":  # more notices than a refresh handles one by one
        for i in range(600):
            root.title(f"row {i}")
            root.update_idletasks()
    root.update()
    print("done", flush=True)
def read():
    line = sys.stdin.readline()
    if line:
        do(line)
        root.after(10, read)
root.update()
print("ready", flush=True)
root.after(10, read)
root.mainloop()
"""


@pytest.fixture
def row(xvfb: VirtualDisplay) -> Iterator[Any]:
    """Starts the row; `row.tell(word)` has it change; every one started is stopped."""
    started: list[subprocess.Popen[str]] = []

    class Row:
        def start(self) -> None:
            proc = subprocess.Popen(
                [sys.executable, "-c", ROW], env=xvfb.env(), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            started.append(proc)
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
            time.sleep(0.3)

        def tell(self, word: str) -> None:
            proc = started[-1]
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(word + "\n")
            proc.stdin.flush()
            assert proc.stdout.readline().strip() == "done"
            time.sleep(0.2)  # the server has done what the toolkit asked

        def stop(self) -> None:
            for proc in started:
                proc.terminate()
                proc.wait(5)
            started.clear()
            time.sleep(0.2)

    it = Row()
    yield it
    it.stop()


def _apply(xdisplay: Any) -> Widget:
    """The Apply button's window, found by walking across the row."""
    for x in range(110, 500, 3):
        w = window_object(xdisplay, x, 125)
        if w is not None and w.rank == 1:
            return w
    raise AssertionError("no Apply button")


def _sent(xdisplay: Any) -> int:
    return int(xdisplay.display.request_serial)


def test_asked_again_a_kept_tree_costs_one_round_trip(xdisplay: Any, row: Any) -> None:
    row.start()
    recorded = _apply(xdisplay)
    tree = WindowTree.of(xdisplay, kept=True)
    first = _sent(xdisplay)
    (found,) = windows_at(tree, recorded)
    asked = _sent(xdisplay) - first
    assert asked > 10 and found.box == recorded.box and found.layout == recorded.layout
    again = _sent(xdisplay)
    assert windows_at(tree, recorded) == [found]
    assert _sent(xdisplay) - again == 1  # the round trip that brings the server's notices
    fresh = _sent(xdisplay)
    assert windows_at(WindowTree.of(xdisplay), recorded) == [found]
    assert _sent(xdisplay) - fresh > 10  # a tree not kept asks it all again


CHANGES = ("grow", "hide", "show", "lower", "move", "wider", "title", "titles")


def test_a_kept_tree_answers_as_a_fresh_one_after_each_change(xdisplay: Any, row: Any) -> None:
    row.start()
    recorded = _apply(xdisplay)
    tree = WindowTree.of(xdisplay, kept=True)
    assert windows_at(tree, recorded) == windows_at(WindowTree.of(xdisplay), recorded)
    seen = [windows_at(tree, recorded)]
    for word in CHANGES:
        row.tell(word)
        today = windows_at(tree, recorded)
        assert today == windows_at(WindowTree.of(xdisplay), recorded), word
        assert today != seen[-1], f"{word}: the change shows in the answer"
        seen.append(today)
    row.stop()
    assert windows_at(tree, recorded) == []  # closed
    row.start()
    (back,) = windows_at(tree, recorded)  # started again: other windows, the same path
    assert [back] == seen[0]
    # the server gives it the slot the first one had, and Tk the same window ids: the
    # notices selected on the old windows went with them, and are selected again
    for word in ("grow", "hide", "title"):
        row.tell(word)
        today = windows_at(tree, recorded)
        assert today == windows_at(WindowTree.of(xdisplay), recorded), f"{word}, started again"

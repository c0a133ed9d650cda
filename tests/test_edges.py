"""The edges look (matching/looks.py): a target recorded in one theme is found in another
by where its borders and letters step in grey level, which a theme does not move, and a
target drawn with another label there is not taken for it."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from deskreel.matching import Query, choose_anchor, locate, with_looks
from deskreel.matching.looks import EDGES, edges
from deskreel.xsession.grab import Grabber
from deskreel.xsession.xvfb import VirtualDisplay
from tests.themed_keys import KEYS
from tests.tk_buttons import Places, shown

KEYPAD = Path(__file__).resolve().parent / "themed_keys.py"


def test_edges_are_the_same_either_way_round_and_nothing_where_nothing_steps() -> None:
    rng = np.random.default_rng(7)
    grey = rng.integers(0, 256, (40, 60, 1), dtype=np.uint8)
    image = np.repeat(grey, 3, axis=2)  # grey already: turned over, it stays exact
    assert (edges(image) == edges(255 - image)).all()
    assert edges(image).shape == image.shape
    assert not edges(np.full((20, 30, 3), 93, np.uint8)).any()


def _keypad(xvfb: VirtualDisplay, *args: str) -> tuple[Any, Places]:
    proc, places = shown(xvfb, KEYPAD, len(KEYS), *args)
    grabber = Grabber(xvfb.display)
    try:
        return grabber.rgb(), places
    finally:
        grabber.close()
        proc.terminate()
        proc.wait(5)


@pytest.fixture(scope="module")
def keypads(xvfb: VirtualDisplay) -> dict[str, tuple[Any, Places]]:
    return {
        "light": _keypad(xvfb),
        "dark": _keypad(xvfb, "--theme", "dark"),
        "renamed": _keypad(xvfb, "--theme", "dark", "--rename", "1=7"),
    }


def _query(screen: Any, target: tuple[int, int]) -> Query:
    choice = choose_anchor(screen, target)
    crop = choice.crop(screen)
    query = Query(crop, choice.offset, target, choice.distinctive, twins=choice.twins)
    return with_looks(query, None, choice.box, lambda: screen)


def test_every_key_recorded_light_is_found_in_the_dark_theme(keypads) -> None:
    light, places = keypads["light"]
    dark, today = keypads["dark"]
    by_edges = []
    for key in KEYS:
        query = _query(light, places[key])
        found = locate(dark, query)
        assert found.found and found.point == today[key], (key, found.trail)
        if [t.name for t in found.trail if t.outcome == "found"][-1] == EDGES:
            by_edges.append(key)
            others = replace(query, looks=tuple(k for k in query.looks if k.name != EDGES))
            assert not locate(dark, others).found, key  # no other look finds it
    assert by_edges, "every key was found without its edges: the test shows nothing"


SWATCHES = """
import sys, tkinter as tk
root = tk.Tk(className="Swatches")
root.geometry("+100+100")
root.configure(bg="#dddddd")
row = tk.Frame(root, bg="#dddddd")
row.pack(padx=10, pady=10)
for colour in sys.argv[1].split(","):
    tk.Button(row, width=4, height=2, bg=colour, activebackground=colour, relief="flat", bd=0,
              highlightthickness=0).pack(side="left", padx=4)
root.update()
print("ready", flush=True)
root.mainloop()
"""


def _swatches(xvfb: VirtualDisplay, colours: str) -> Any:
    proc = subprocess.Popen(
        [sys.executable, "-c", SWATCHES, colours], env=xvfb.env(), stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        grabber = Grabber(xvfb.display)
        try:
            return grabber.rgb()
        finally:
            grabber.close()
    finally:
        proc.terminate()
        proc.wait(5)


def test_a_swatch_that_alone_changed_colour_is_no_theme(xvfb: VirtualDisplay) -> None:
    # Told apart from its neighbours by its colour only: where it alone changed colour, its
    # edges stand where they stood, but nothing around it changed as a theme changes it.
    recorded = _swatches(xvfb, "#ff0000,#00aa00,#0000ff")
    green = np.argwhere((recorded == (0, 170, 0)).all(axis=2))
    (y0, x0), (y1, x1) = green.min(axis=0), green.max(axis=0)
    target = ((x0 + x1) // 2, (y0 + y1) // 2)
    query = _query(recorded, target)
    again = locate(recorded, query).point  # (a flat face: a pixel off is the same place)
    assert again is not None and abs(again[0] - target[0]) + abs(again[1] - target[1]) <= 2
    today = _swatches(xvfb, "#ff0000,#ffff00,#0000ff")
    found = locate(today, query)
    assert not found.found, found.trail
    (check,) = [t for t in found.trail if t.name == f"{EDGES}-check"]
    assert check.refusal is not None and check.refusal.rule == "recoloured-alone", check


def test_a_key_drawn_with_another_label_is_not_taken_for_it(keypads) -> None:
    light, places = keypads["light"]
    renamed, today = keypads["renamed"]
    gone = locate(renamed, _query(light, places["1"]))  # drawn "7" now: two 7s
    assert not gone.found, gone.trail
    for key in ("3", "9"):  # the others still are found
        found = locate(renamed, _query(light, places[key]))
        assert found.found and found.point == today[key], (key, found.trail)

"""The test harness itself: Xvfb, the sample app, and real XTest input reaching it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from Xlib import XK, X
from Xlib.display import Display
from Xlib.ext import xtest

from deskreel.xvfb import VirtualDisplay, set_keyboard_layout

if TYPE_CHECKING:
    from conftest import SampleApp


def test_xvfb_has_record_and_xtest(xdisplay: Display) -> None:
    assert xdisplay.has_extension("RECORD")
    assert xdisplay.has_extension("XTEST")


def test_xvfb_is_not_the_developers_display(xvfb: VirtualDisplay) -> None:
    assert xvfb.display not in (":0", os.environ.get("DISPLAY"))
    assert xvfb.env()["DISPLAY"] == xvfb.display
    assert os.environ.get("DISPLAY") != xvfb.display


def test_virtual_display_stop_cleans_up(xvfb: VirtualDisplay) -> None:
    extra = VirtualDisplay(width=640, height=480).start()
    number = extra.display.lstrip(":")
    pid = extra.pid
    assert extra.display != xvfb.display
    assert os.path.exists(f"/tmp/.X11-unix/X{number}")
    extra.stop()
    extra.stop()  # idempotent
    assert not os.path.exists(f"/proc/{pid}")  # reaped, not a zombie
    assert not os.path.exists(f"/tmp/.X{number}-lock")
    with pytest.raises(RuntimeError, match="not started"):
        _ = extra.display


def test_missing_xvfb_binary_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match=r"Xvfb not found: install it \(apt-get install xvfb\)"):
        VirtualDisplay().start()


def test_xtest_click_reaches_save_button(sample_app: SampleApp, xdisplay: Display) -> None:
    _click(xdisplay, *sample_app.center("button:Save"))
    event = sample_app.wait_for({"event": "click", "widget": "button:Save"})
    assert event["modifiers"] == []


def test_xtest_key_types_into_entry(sample_app: SampleApp, xdisplay: Display) -> None:
    _click(xdisplay, *sample_app.center("entry"))
    sample_app.wait_for({"event": "button_release", "widget": "entry"})
    _tap(xdisplay, "a")
    sample_app.wait_for({"event": "text_changed", "widget": "entry", "value": "a"})
    assert sample_app.events("key")[-1]["keysym"] == "a"


def test_reordered_layout_moves_save_button(launch_app: Callable[..., SampleApp],
                                            xdisplay: Display) -> None:
    normal = launch_app()
    normal.stop()
    reordered = launch_app(layout="reordered")
    before, after = normal.widgets["button:Save"], reordered.widgets["button:Save"]
    assert before[:2] != after[:2]
    assert before[2:] == after[2:]  # same size, so a template from one matches the other
    _click(xdisplay, *reordered.center("button:Save"))
    reordered.wait_for({"event": "click", "widget": "button:Save"})


def test_renamed_layout_calls_save_store(launch_app: Callable[..., SampleApp],
                                         xdisplay: Display) -> None:
    app = launch_app(layout="renamed")
    assert "button:Save" not in app.widgets
    _click(xdisplay, *app.center("button:Store"))
    app.wait_for({"event": "click", "widget": "button:Store"})


def test_same_input_gives_same_log(launch_app: Callable[..., SampleApp],
                                   xdisplay: Display) -> None:
    runs = []
    for _ in range(2):
        app = launch_app(geometry="+30+40")
        _script(app, xdisplay)
        app.wait_for({"event": "shortcut", "name": "save"})
        app.stop()
        runs.append(app.comparable_events())
    assert runs[0] == runs[1]
    kinds = {e["event"] for e in runs[0]}
    assert {"click", "text_changed", "scroll", "drag_start", "drag_end", "shortcut"} <= kinds


def _script(app: SampleApp, d: Display) -> None:
    """A little of everything: a click, typing, wheel, a drag and a shortcut."""
    _click(d, *app.center("button:Open"))
    _click(d, *app.center("entry"))
    for key in "hi":
        _tap(d, key)
    _move(d, *app.center("listbox"))
    for _ in range(2):
        _click_button(d, 5)
    x, y = app.center("canvas:rect")
    _move(d, x, y)
    xtest.fake_input(d, X.ButtonPress, 1)
    for step in range(1, 6):
        _move(d, x + 20 * step, y + 10 * step)
    xtest.fake_input(d, X.ButtonRelease, 1)
    control = d.keysym_to_keycode(XK.string_to_keysym("Control_L"))
    xtest.fake_input(d, X.KeyPress, control)
    _tap(d, "s")
    xtest.fake_input(d, X.KeyRelease, control)
    d.sync()


def _move(d: Display, x: int, y: int) -> None:
    xtest.fake_input(d, X.MotionNotify, x=x, y=y)
    d.sync()


def _click_button(d: Display, button: int) -> None:
    xtest.fake_input(d, X.ButtonPress, button)
    xtest.fake_input(d, X.ButtonRelease, button)
    d.sync()


def _click(d: Display, x: int, y: int) -> None:
    _move(d, x, y)
    _click_button(d, 1)


def _tap(d: Display, keysym_name: str) -> None:
    keycode = d.keysym_to_keycode(XK.string_to_keysym(keysym_name))
    xtest.fake_input(d, X.KeyPress, keycode)
    xtest.fake_input(d, X.KeyRelease, keycode)
    d.sync()


def test_set_keyboard_layout_switches_to_german() -> None:
    # A display of its own: the session display must keep its US layout for other tests.
    with VirtualDisplay(width=320, height=240) as extra:
        set_keyboard_layout(extra.display, "de")
        connection = Display(extra.display)
        try:
            assert connection.keysym_to_keycode(XK.string_to_keysym("adiaeresis")) != 0
        finally:
            connection.close()

"""The test harness itself: Xvfb, the sample app, and real XTest input reaching it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import mss
import numpy as np
import pytest
from Xlib import XK, X
from Xlib.display import Display
from Xlib.ext import xtest

from deskreel.xsession.display import connect
from deskreel.xsession.xvfb import VirtualDisplay, set_keyboard_layout

if TYPE_CHECKING:
    from tests.conftest import SampleApp


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


def test_reordered_layout_moves_save_button(
    launch_app: Callable[..., SampleApp], xdisplay: Display
) -> None:
    normal = launch_app()
    normal.stop()
    reordered = launch_app(layout="reordered")
    before, after = normal.widgets["button:Save"], reordered.widgets["button:Save"]
    assert before[:2] != after[:2]
    assert before[2:] == after[2:]  # same size, so a template from one matches the other
    _click(xdisplay, *reordered.center("button:Save"))
    reordered.wait_for({"event": "click", "widget": "button:Save"})


def test_renamed_layout_calls_save_store(
    launch_app: Callable[..., SampleApp], xdisplay: Display
) -> None:
    app = launch_app(layout="renamed")
    assert "button:Save" not in app.widgets
    _click(xdisplay, *app.center("button:Store"))
    app.wait_for({"event": "click", "widget": "button:Store"})


def test_same_input_gives_same_log(launch_app: Callable[..., SampleApp], xdisplay: Display) -> None:
    runs = []
    for _ in range(2):
        app = launch_app(geometry="+30+40")
        _script(app, xdisplay)
        # The script's last event is Ctrl's release, after the shortcut: stopping the app
        # at the shortcut would race the releases and cut the log short.
        app.wait_for({"event": "key_release", "keysym": "Control_L"})
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
        connection = connect(extra.display)
        try:
            assert connection.keysym_to_keycode(XK.string_to_keysym("adiaeresis")) != 0
        finally:
            connection.close()


# Variants of the sample app, for re-anchoring and verification tests of the replayer.

SAMPLE_APP = Path(__file__).resolve().parent.parent / "samples" / "app.py"
BANNER_HEIGHT = 60  # samples/app.py's BANNER_HEIGHT
NORMAL_SAVE_CENTER = (70, 36)  # button:Save of the normal layout at +0+0
OFF_WINDOW = (1279, 799)  # a screen corner no variant's window reaches


def test_banner_pushes_every_widget_down(
    launch_app: Callable[..., SampleApp], xdisplay: Display
) -> None:
    normal = launch_app()
    normal.stop()
    app = launch_app(banner=True)
    assert app.ready["geometry"] == f"800x{600 + BANNER_HEIGHT}+0+0"
    assert app.widgets["label:banner"] == [0, 0, 800, BANNER_HEIGHT]
    for name, (x, y, width, height) in normal.widgets.items():
        assert app.widgets[name] == [x, y + BANNER_HEIGHT, width, height], name
    _click(xdisplay, *app.center("button:Save"))
    app.wait_for({"event": "click", "widget": "button:Save"})


@pytest.mark.parametrize("scale", [1.25, 0.8])
def test_scale_looks_like_the_normal_window_resized(
    launch_app: Callable[..., SampleApp], xdisplay: Display, xvfb: VirtualDisplay, scale: float
) -> None:
    _move(xdisplay, *OFF_WINDOW)  # a button under the pointer is drawn lighter
    normal = launch_app()
    normal_shot = _screenshot(xvfb)
    normal.stop()
    app = launch_app(scale=scale)
    shot = _screenshot(xvfb)
    assert app.ready["geometry"] == f"{round(800 * scale)}x{round(600 * scale)}+0+0"
    for name, box in normal.widgets.items():
        assert app.widgets[name] == pytest.approx([c * scale for c in box], abs=1), name
    # Tk only has whole-pixel fonts, so text never matches exactly: 0.71 (0.8x) and 0.85
    # (1.25x) here, about 0.55 when the fonts are left unscaled.
    margin = 8
    x, y, width, height = normal.widgets["button:Save"]
    crop = normal_shot[y - margin : y + height + margin, x - margin : x + width + margin]
    template = cv2.resize(
        crop,
        None,
        fx=scale,
        fy=scale,
        interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
    )
    _, score, _, (found_x, found_y) = cv2.minMaxLoc(
        cv2.matchTemplate(shot, template, cv2.TM_CCOEFF_NORMED)
    )
    assert score > 0.65
    save_x, save_y = app.widgets["button:Save"][:2]
    offset = round(margin * scale)
    assert abs(found_x + offset - save_x) <= 2 and abs(found_y + offset - save_y) <= 2
    _click(xdisplay, *app.center("button:Save"))
    app.wait_for({"event": "click", "widget": "button:Save"})


@pytest.mark.parametrize(
    "layout, labels",
    [
        ("duplicate", ("label:Confirm", "label:Confirm#2")),
        ("duplicate-context", ("label:Invoice", "label:Refund")),
    ],
)
def test_duplicate_layouts_have_two_identical_ok_buttons(
    launch_app: Callable[..., SampleApp],
    xdisplay: Display,
    xvfb: VirtualDisplay,
    layout: str,
    labels: tuple[str, str],
) -> None:
    _move(xdisplay, *OFF_WINDOW)  # a button under the pointer is drawn lighter
    app = launch_app(layout=layout)
    shot = _screenshot(xvfb)
    first, second = app.widgets["button:OK"], app.widgets["button:OK#2"]
    assert first[2:] == second[2:] and first[:2] != second[:2]
    assert {"frame:row", "frame:row#2", *labels} <= app.widgets.keys()
    assert np.array_equal(_crop(shot, first, margin=8), _crop(shot, second, margin=8))
    # 40 px more on the left reach the end of the label beside each button.
    with_label = [_crop(shot, box, margin=8, left=48) for box in (first, second)]
    assert np.array_equal(with_label[0], with_label[1]) == (layout == "duplicate")
    for name in ("button:OK#2", "button:OK"):
        _click(xdisplay, *app.center(name))
        app.wait_for({"event": "click", "widget": name})


def test_late_save_button_takes_clicks_only_once_it_appears(
    launch_app: Callable[..., SampleApp], xdisplay: Display, xvfb: VirtualDisplay
) -> None:
    late = 1.5
    app = launch_app(late=late)
    assert app.ready["late"] == late
    save = app.widgets["button:Save"]
    assert save == [20, 20, 100, 32]  # where it will be, as in the normal layout
    assert np.ptp(_crop(_screenshot(xvfb), save)) == 0  # only window background so far
    _click(xdisplay, *app.center("button:Save"))
    press = app.wait_for({"event": "button_release", "widget": "window"})
    assert press["t"] < app.ready["t"] + late, "the machine is too slow for this test"
    appeared = app.wait_for({"event": "appeared", "widget": "button:Save"})
    assert appeared["t"] >= app.ready["t"] + late
    assert app.events("click") == []
    assert np.ptp(_crop(_screenshot(xvfb), save)) > 0
    _click(xdisplay, *app.center("button:Save"))
    app.wait_for({"event": "click", "widget": "button:Save"})


def test_changed_effect_shows_another_status(
    launch_app: Callable[..., SampleApp], xdisplay: Display, xvfb: VirtualDisplay
) -> None:
    crops = []
    for effect, status in (("normal", "OK clicked"), ("changed", "Something else happened")):
        app = launch_app(effect=effect, log_status=True)
        box = app.widgets["label:status"]
        before = _crop(_screenshot(xvfb), box)
        _click(xdisplay, *app.center("button:OK"))
        app.wait_for({"event": "click", "widget": "button:OK"})
        app.wait_for({"event": "status", "text": status})
        assert [e["text"] for e in app.events("status")] == [status]
        crops.append(_wait_for_change(xvfb, box, before))
        app.stop()
    assert not np.array_equal(crops[0], crops[1])


def test_status_is_logged_only_when_asked(sample_app: SampleApp, xdisplay: Display) -> None:
    _click(xdisplay, *sample_app.center("button:OK"))
    sample_app.wait_for({"event": "click", "widget": "button:OK"})
    assert sample_app.events("status") == []


def test_removed_layout_has_no_save_button(
    launch_app: Callable[..., SampleApp], xdisplay: Display
) -> None:
    app = launch_app(layout="removed")
    assert "button:Save" not in app.widgets
    assert {"button:Open", "button:Delete", "button:OK"} <= app.widgets.keys()
    _click(xdisplay, *NORMAL_SAVE_CENTER)
    app.wait_for({"event": "button_release", "widget": "window"})
    assert app.events("click") == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["--scale", "3"], "--scale must be between 0.5 and 2, not 3"),
        (["--late", "-1"], "--late must be 0 or more seconds"),
        (["--late", "1", "--layout", "removed"], "--late delays the Save button"),
    ],
)
def test_sample_app_refuses_bad_options(tmp_path: Path, args: list[str], message: str) -> None:
    result = subprocess.run(
        [sys.executable, str(SAMPLE_APP), "--log", str(tmp_path / "log"), *args],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert message in result.stderr


def _screenshot(display: VirtualDisplay) -> np.ndarray:
    """The whole screen, in grayscale."""
    with mss.MSS(display=display.display) as screen:
        shot = screen.grab(screen.monitors[1])
    return cv2.cvtColor(np.asarray(shot), cv2.COLOR_BGRA2GRAY)


def _crop(shot: np.ndarray, box: list[int], *, margin: int = 0, left: int = 0) -> np.ndarray:
    x, y, width, height = box
    return shot[y - margin : y + height + margin, x - margin - left : x + width + margin]


def _wait_for_change(
    display: VirtualDisplay, box: list[int], before: np.ndarray, timeout: float = 2.0
) -> np.ndarray:
    """The pixels of `box` once they differ from `before` (Tk redraws when idle)."""
    deadline = time.monotonic() + timeout
    while True:
        crop = _crop(_screenshot(display), box)
        if not np.array_equal(crop, before):
            return crop
        if time.monotonic() > deadline:
            pytest.fail(f"the screen at {box} did not change within {timeout:g}s")
        time.sleep(0.02)

"""Which process shows the window at a point (xsession/toplevel.py), on a real Xvfb: as the
window says, or, for a popup that says nothing of itself, as the X server knows its
client."""

from __future__ import annotations

import os
import time

import pytest

from deskreel.xsession.toplevel import toplevel_at


def _window(xdisplay, x, y, *, override_redirect, pid=None):
    from Xlib import X

    root = xdisplay.screen().root
    window = root.create_window(
        x, y, 120, 80, 0, X.CopyFromParent, override_redirect=override_redirect
    )
    if pid is not None:
        window.change_property(
            xdisplay.intern_atom("_NET_WM_PID"), xdisplay.intern_atom("CARDINAL"), 32, [pid]
        )
    window.map()
    xdisplay.sync()
    return window


def _top_at(xdisplay, x, y):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        top = toplevel_at(xdisplay, x, y)
        if top is not None and top.box is not None and top.box[:2] == (x - 10, y - 10):
            return top
        time.sleep(0.05)
    pytest.fail(f"no window of ours at {(x, y)}")


def test_a_popup_that_says_nothing_is_known_by_its_client(xdisplay):
    popup = _window(xdisplay, 300, 200, override_redirect=True)
    try:
        top = _top_at(xdisplay, 310, 210)
        assert top.pid == os.getpid() and top.window_class is None
    finally:
        popup.destroy()
        xdisplay.sync()


def test_a_window_that_names_its_process_is_taken_at_its_word(xdisplay):
    window = _window(xdisplay, 500, 300, override_redirect=False, pid=4242)
    try:
        assert _top_at(xdisplay, 510, 310).pid == 4242
    finally:
        window.destroy()
        xdisplay.sync()

"""The X window tree as an object source (issue 32): the window under a press, found again at
its path today (xsession/xwindows.py, matching/xwindows.py, the ladder's "xwindow" rung), on a
real Xvfb with a real Tk application, whose widgets are X windows."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from deskreel.matching import Query, Recorded, TextReader, choose_anchor, locate
from deskreel.storage.widgets import XWINDOW, Widget, widget_from_json, widget_to_json
from deskreel.xsession.grab import Grabber
from deskreel.xsession.xvfb import VirtualDisplay
from deskreel.xsession.xwindows import WindowTree, window_object, windows_at

# A row of three buttons and an entry under it, in the colours and font given
FORM = """
import sys, tkinter as tk
bg, fg, size, first, label, x, y, content = sys.argv[1:9]
root = tk.Tk(className="Xwform")
root.geometry(f"+{x}+{y}")
root.configure(bg=bg)
row = tk.Frame(root, bg=bg)
row.pack(padx=10, pady=10)
for text in (first, label, "Close"):
    tk.Button(row, text=text, bg=bg, fg=fg, activebackground=bg, font=("DejaVu Sans", int(size)),
              highlightthickness=0).pack(side="left", padx=4)
entry = tk.Entry(root, bg=bg, fg=fg, font=("DejaVu Sans", int(size)), highlightthickness=0)
entry.insert(0, content)
entry.pack(padx=10, pady=(0, 10))
root.update()
print("ready", flush=True)
root.mainloop()
"""


@pytest.fixture
def form(xvfb: VirtualDisplay) -> Iterator[Any]:
    """Starts the form (colours, font size, middle label, place); stops every one started."""
    started: list[subprocess.Popen[str]] = []

    def start(
        bg: str = "#dddddd", fg: str = "#000000", size: int = 11, label: str = "Apply",
        at: tuple[int, int] = (100, 100), first: str = "Open", text: str = "",
    ) -> None:  # fmt: skip
        proc = subprocess.Popen(
            [sys.executable, "-c", FORM, bg, fg, str(size), first, label, *map(str, at), text],
            env=xvfb.env(),
            stdout=subprocess.PIPE,
            text=True,
        )
        started.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(0.3)  # mapped and drawn

    def stop() -> None:
        for proc in started:
            proc.terminate()
            proc.wait(5)
        started.clear()
        time.sleep(0.2)

    start.stop = stop  # type: ignore[attr-defined]
    yield start
    stop()


_KEPT: list[tuple[Any, WindowTree]] = []


def kept(xdisplay: Any) -> WindowTree:
    """The tree a replay keeps, one per connection: kept between the questions of a test,
    as applications start, stop and change, it must answer as a fresh one would."""
    if not _KEPT or _KEPT[0][0] is not xdisplay:
        _KEPT[:] = [(xdisplay, WindowTree.of(xdisplay, kept=True))]  # the last test's: closed
    return _KEPT[0][1]


def _grab(xvfb: VirtualDisplay) -> Any:
    grabber = Grabber(xvfb.display)
    try:
        return grabber.rgb()
    finally:
        grabber.close()


def _recorded_then(
    xdisplay: Any, xvfb: VirtualDisplay, form: Any, then: dict[str, Any], today: dict[str, Any]
) -> tuple[Widget, Query, Widget]:
    """The middle button's window recorded on the form started as `then` (and the query a
    replay asks), and its window on the form started again as `today`."""
    form(**then)
    widget = window_object(xdisplay, *_middle_button(xdisplay))
    assert widget is not None
    query = _query(widget, _grab(xvfb))
    form.stop()
    form(**today)
    (window,) = windows_at(kept(xdisplay), widget)
    return widget, query, window


def _query(widget: Widget, screen: Any) -> Query:
    x, y, _, _ = widget.box
    target = (x + widget.point[0], y + widget.point[1])
    choice = choose_anchor(screen, target)
    bx, by, bw, bh = choice.box
    crop = screen[by : by + bh, bx : bx + bw]
    return Query(crop, choice.offset, target, choice.distinctive, widget=widget,
                 context=Recorded(screen))  # fmt: skip


def _middle_button(xdisplay: Any) -> tuple[int, int]:
    """The middle of the form's second button, found by walking across its row."""
    for x in range(110, 400, 4):
        w = window_object(xdisplay, x, 125)
        if w is not None and w.rank == 1 and len(w.layout) == 3:
            return w.box[0] + w.box[2] // 2, w.box[1] + w.box[3] // 2
    raise AssertionError("no middle button")


def test_the_window_under_a_point_is_an_object(xdisplay: Any, xvfb: VirtualDisplay, form: Any):
    form()
    point = _middle_button(xdisplay)
    widget = window_object(xdisplay, *point)
    assert widget is not None and widget.source == XWINDOW and widget.app == "Xwform"
    assert widget.rank == 1 and len(widget.layout) == 3 and len(widget.path) >= 2
    x, y, w, h = widget.box
    assert (x + widget.point[0], y + widget.point[1]) == point and w > 20 and h > 10
    assert widget_from_json(widget_to_json(widget)) == widget
    assert window_object(xdisplay, 5, 5) is None  # the bare root
    (today,) = windows_at(kept(xdisplay), widget)
    assert today.box == widget.box and today.layout == widget.layout
    # its top-level's box: where a look-alike would be a twin (90 px below: the entry)
    assert widget.top is not None and today.top == widget.top
    tx, ty, tw, th = widget.top
    assert tx <= x and ty <= y and x + w <= tx + tw and y + h + 20 <= ty + th


def test_a_button_in_other_colours_is_found_by_its_window(
    xdisplay: Any, xvfb: VirtualDisplay, form: Any
) -> None:
    dark = {"bg": "#202020", "fg": "#f0f0f0", "at": (400, 300)}  # dark, and elsewhere
    widget, query, window = _recorded_then(xdisplay, xvfb, form, {}, dark)
    found = locate(_grab(xvfb), query, windows=lambda w: windows_at(kept(xdisplay), w))
    assert found.found and found.point is not None, found.trail
    assert found.rung == "xwindow" and found.by_object
    x, y, w, h = window.box
    assert x <= found.point[0] < x + w and y <= found.point[1] < y + h
    assert found.point == (x + widget.point[0], y + widget.point[1])


def test_a_window_that_reads_another_label_is_refused(
    xdisplay: Any, xvfb: VirtualDisplay, form: Any
) -> None:
    # as wide, another word
    widget, query, window = _recorded_then(xdisplay, xvfb, form, {}, {"label": "Erase"})
    assert window.box[2:] == widget.box[2:], "the test wants a label of the same width"
    today = _grab(xvfb)
    windows = lambda w: windows_at(kept(xdisplay), w)  # noqa: E731
    renamed = locate(today, query, windows=windows, read=TextReader())
    assert not renamed.found and renamed.rule == "renamed" and renamed.rung == "xwindow"
    # without names, the window rung cannot tell: it leaves the step to the pixels
    unread = locate(today, query, windows=windows)
    tried = unread.tried("xwindow")
    assert tried is not None and tried.outcome == "next" and tried.why == "xwindow-shows"
    assert unread.rung != "xwindow"


def test_a_grown_window_is_found_by_its_name_and_a_lost_path_is_not(
    xdisplay: Any, xvfb: VirtualDisplay, form: Any
) -> None:
    widget, query, window = _recorded_then(xdisplay, xvfb, form, {}, {"size": 15})
    x, y, w, h = window.box
    assert w > widget.box[2] and h > widget.box[3], "the font grew the button"
    windows = lambda w: windows_at(kept(xdisplay), w)  # noqa: E731
    found = locate(_grab(xvfb), query, windows=windows, read=TextReader())
    assert found.found and found.rung == "xwindow", found.trail
    assert found.tried("xwindow").why == "xwindow-name"  # type: ignore[union-attr]
    assert found.point is not None and x <= found.point[0] < x + w and y <= found.point[1] < y + h
    unread = locate(_grab(xvfb), query, windows=windows)
    tried = unread.tried("xwindow")
    assert tried is not None and tried.why == "xwindow-resized" and unread.rung != "xwindow"
    lost = replace(widget, path=(*widget.path[:-1], ("window", 40)))
    assert windows_at(kept(xdisplay), lost) == []
    gone = locate(_grab(xvfb), replace(query, widget=lost), windows=lambda w: [])
    lost_path = gone.tried("xwindow")
    assert lost_path is not None and lost_path.why == "xwindow-path"


def _entry(xdisplay: Any) -> tuple[int, int]:
    """The middle of the form's entry (its root's second child), found walking down."""
    for y in range(110, 400, 4):
        w = window_object(xdisplay, 200, y)
        if w is not None and len(w.layout) == 2 and w.rank == 1:
            return w.box[0] + w.box[2] // 3, w.box[1] + w.box[3] // 2
    raise AssertionError("no entry")


def test_a_blank_window_grown_is_found_and_one_that_shows_text_is_not(
    xdisplay: Any, xvfb: VirtualDisplay, form: Any
) -> None:
    # An empty entry (an empty editor, a bare canvas) shows nothing but its face: no place
    # in it is told from another but its corner, so at a bigger font it is found at its
    # path, pressed at its distance from that corner; one that shows text is not blank.
    from deskreel.matching.objects import box_scale

    form()
    widget = window_object(xdisplay, *_entry(xdisplay))
    assert widget is not None
    query = _query(widget, _grab(xvfb))
    form.stop()
    for today, why in (({"size": 16}, "xwindow-blank"), ({"text": "a word"}, "xwindow-shows")):
        form(**today)
        (window,) = windows_at(kept(xdisplay), widget)
        found = locate(_grab(xvfb), query, windows=lambda w: windows_at(kept(xdisplay), w))
        tried = found.tried("xwindow")
        assert tried is not None and tried.why == why, found.trail
        if why == "xwindow-blank":
            x, y, w, h = window.box
            assert (w, h) != widget.box[2:], "the font grew the entry"
            grew = box_scale(window, widget)  # its distance from the corner, scaled alike
            at = (x + round(widget.point[0] * grew), y + round(widget.point[1] * grew))
            assert found.found and found.rung == "xwindow" and found.point == at, found
        form.stop()


def test_a_box_is_blank_but_for_where_the_recording_kept_changing() -> None:
    # A caret blinking in an empty editor is no content, where the recorder saw it blink
    # (its animation mask); a label of a few pixels ("1" on a key) is content.
    from deskreel.matching.blank import _skipped, blank

    box = (100, 50, 200, 80)  # on the screen; its rim of 3 px is not looked at
    screen = np.full((300, 400, 3), 230, np.uint8)
    assert blank(screen[53:127, 103:297])
    screen[60:72, 106:107] = 0  # a caret, 1 px wide and one line tall
    inside = screen[53:127, 103:297]
    assert not blank(inside)
    assert blank(inside, _skipped(box, [(104, 58, 6, 16)]))  # where it blinked
    assert not blank(inside, _skipped(box, [(200, 58, 6, 16)]))  # it blinked elsewhere
    assert _skipped(box, [(0, 0, 50, 50)]) is None  # nowhere in the box


def test_a_blank_window_is_the_same_only_with_its_face_its_title_and_a_caret_masked() -> None:
    # Found blank then and now only where it is the same face in a top-level of the same
    # title, and the masks hide no more than a caret: a control whose whole box kept
    # changing (a hover transition, a live list) is not blank, whatever its label.
    from deskreel.matching.blank import blank_both

    then = np.full((300, 400, 3), 230, np.uint8)
    then[60:72, 106:107] = 0  # a caret
    recorded = Widget(XWINDOW, "App", "window", "", (100, 50, 200, 80), (20, 10),
                      (("window", 0),), "", (), 0, window="window 'Untitled'")  # fmt: skip
    grown = replace(recorded, box=(100, 50, 240, 90))
    today = np.full((300, 400, 3), 230, np.uint8)
    caret = [(104, 58, 6, 16)]
    assert blank_both(grown, recorded, today, then, caret)
    assert not blank_both(grown, recorded, today, then, [])  # the caret is content then
    assert not blank_both(replace(grown, window="window 'Find'"), recorded, today, then, caret)
    swatch = today.copy()
    swatch[..., 2] = 40  # another colour, as flat
    assert not blank_both(grown, recorded, swatch, then, caret)
    label = today.copy()
    label[80:95, 180:190] = 0  # a word today, under a mask that hides the whole box
    assert not blank_both(grown, recorded, label, then, [(90, 40, 260, 110)])
    assert not blank_both(grown, recorded, label, then, caret)


def test_siblings_laid_out_otherwise_are_another_place() -> None:
    from deskreel.matching.xwindows import layout_agrees  # the rung's own rule

    row = ((0, 0, 50, 20), (54, 0, 50, 20), (108, 0, 50, 20))
    recorded = Widget(XWINDOW, "App", "window", "", (0, 0, 50, 20), (5, 5), (("window", 1),),
                      "", (), 1, layout=row)  # fmt: skip
    assert layout_agrees(replace(recorded, layout=tuple((x, y, w + 9, h) for x, y, w, h in row)),
                         recorded)  # fmt: skip
    column = tuple((0, 24 * i, 50, 20) for i in range(3))
    swapped = (row[1], row[0], row[2])  # the same boxes, the window now first in reading order
    assert not layout_agrees(replace(recorded, layout=swapped), recorded)
    assert layout_agrees(replace(recorded, layout=column), recorded)  # still second of three
    assert not layout_agrees(replace(recorded, layout=row[:2]), recorded)
    assert np.array_equal(np.array(row), np.array(recorded.layout))


def test_a_press_on_a_tk_button_keeps_its_window(launch_app, run_deskreel, xvfb, tmp_path):
    """Recorded without an accessibility bus, the press on a button of the sample app (Tk)
    keeps the window the X server showed there, and a replay finds it by that window."""
    from deskreel.storage import open_store
    from tests.test_record import record

    app = launch_app()
    db = tmp_path / "rec.db"
    save = app.center("button:Save")

    def drive(person: Any) -> None:
        person.aim_delay = 0.4  # a person who rests on a target before pressing it
        person.click(*save)

    record(run_deskreel, xvfb, db, drive, "--name", "press")
    with open_store(db, create=False) as store:
        (step,) = store.steps(store.recording("press").id)
    widget = step.widget
    assert widget is not None and widget.source == XWINDOW, widget
    assert widget.box == tuple(app.widgets["button:Save"])  # the widget is the window
    assert widget.point == (save[0] - widget.box[0], save[1] - widget.box[1])
    shown = subprocess.run(
        [sys.executable, "-m", "deskreel", "show", str(db), "-r", "press"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    x, y, w, h = widget.box
    path = "/".join(str(i) for _, i in widget.path)
    assert f"xwindow {path} of {widget.app} {x},{y} {w}x{h}" in shown


def test_a_recogniser_slip_is_no_rename_and_another_word_is() -> None:
    from deskreel.matching.reading import Reading, renamed, same_name

    sure = lambda text: Reading(text, 0.99)  # noqa: E731
    # read at 1.25x, sure of it, one letter lost: neither the same name nor another one
    slip = (sure("Double-click me"), sure("Double-lick me"))
    assert not renamed(*slip) and same_name(*slip) is None
    assert renamed(sure("Save"), sure("Store")) and same_name(sure("Save"), sure("Store")) is False
    assert same_name(sure("Search  backward"), sure("search backward")) is True
    assert not renamed(sure("Save"), Reading("Store", 0.3))  # one unsure reading says nothing
    assert same_name(Reading("", 0.0), Reading("", 0.0)) is True


def test_an_object_found_grown_alike_both_ways_tells_the_scale() -> None:
    from deskreel.matching.objects import box_scale

    recorded = Widget(XWINDOW, "App", "window", "", (10, 10, 100, 32), (50, 16), (("window", 0),),
                      "", (), 0)  # fmt: skip
    assert box_scale(replace(recorded, box=(0, 0, 125, 40)), recorded) == pytest.approx(1.25)
    assert box_scale(replace(recorded, box=(0, 0, 80, 26)), recorded) == pytest.approx(0.8, 0.02)
    # stretched one way by its layout (a window made wider): no scale told
    assert box_scale(replace(recorded, box=(0, 0, 300, 32)), recorded) == 1.0
    assert box_scale(replace(recorded, box=(0, 0, 100, 32)), recorded) == 1.0
    # a 200% HiDPI desktop, its box a pixel over twice: told (drags and --verify scale by
    # it); three times and more is no scale a desktop asks for
    assert box_scale(replace(recorded, box=(0, 0, 201, 65)), recorded) == pytest.approx(2.01, 0.01)
    assert box_scale(replace(recorded, box=(0, 0, 300, 96)), recorded) == 1.0


def test_a_window_with_a_twin_is_left_to_the_pixels(
    xdisplay: Any, xvfb: VirtualDisplay, form: Any
) -> None:
    # the middle button reads "Open" like the first: only the order Tk made them tells them
    # apart by their paths, so the window rung leaves them to the pixels
    widget, query, _ = _recorded_then(xdisplay, xvfb, form, {"label": "Open"}, {"label": "Open"})
    windows = lambda w: windows_at(kept(xdisplay), w)  # noqa: E731
    for read in (None, TextReader()):  # reading them does not tell them apart either
        found = locate(_grab(xvfb), query, windows=windows, read=read)
        tried = found.tried("xwindow")
        assert tried is not None and tried.outcome == "next" and tried.why == "xwindow-twins"
        assert found.rung != "xwindow"


# Two buttons that look alike but for one digit, as a group of radio buttons does
SIZES = {"first": "Point Size 10", "label": "Point Size 18"}


@pytest.mark.parametrize(
    "today", [SIZES, {**SIZES, "bg": "#202020", "fg": "#f0f0f0"}, {**SIZES, "size": 14}],
    ids=["unchanged", "dark", "bigger font"],
)  # fmt: skip
def test_look_alike_windows_are_told_apart_by_what_they_read(
    xdisplay: Any, xvfb: VirtualDisplay, form: Any, today: dict[str, Any]
) -> None:
    widget, query, window = _recorded_then(xdisplay, xvfb, form, SIZES, today)
    windows = lambda w: windows_at(kept(xdisplay), w)  # noqa: E731
    unread = locate(_grab(xvfb), query, windows=windows)
    assert unread.tried("xwindow").why == "xwindow-twins"  # type: ignore[union-attr]
    found = locate(_grab(xvfb), query, windows=windows, read=TextReader())
    assert found.found and found.rung == "xwindow", found.trail
    assert found.tried("xwindow").why == "xwindow-told"  # type: ignore[union-attr]
    x, y, w, h = window.box
    assert found.point is not None and x <= found.point[0] < x + w and y <= found.point[1] < y + h


def test_look_alikes_that_swapped_names_are_refused(
    xdisplay: Any, xvfb: VirtualDisplay, form: Any
) -> None:
    # today the window at the recorded path reads "Point Size 10", which its look-alike read
    # then: the path leads to the other button. The pixels would press it (one digit of the
    # anchor differs), so the window rung refuses.
    swapped = {"first": SIZES["label"], "label": SIZES["first"]}
    widget, query, window = _recorded_then(xdisplay, xvfb, form, SIZES, swapped)
    found = locate(_grab(xvfb), query, windows=lambda w: windows_at(kept(xdisplay), w),
                   read=TextReader())  # fmt: skip
    assert not found.found and found.rule == "renamed" and found.rung == "xwindow", found.trail
    assert found.tried("xwindow").why == "xwindow-renamed"  # type: ignore[union-attr]


def test_an_x_window_is_named_by_its_path_and_the_x_server() -> None:
    from deskreel.report.outcome import aimed_at

    widget = Widget(XWINDOW, "XCalc", "window", "", (0, 0, 40, 30), (5, 5),
                    (("window", 0), ("window", 3)), "", (), 3)  # fmt: skip
    assert widget.label == "X window 0/3 of 'XCalc'"
    assert aimed_at(widget) == "on X window 0/3 of 'XCalc', as the X server said"

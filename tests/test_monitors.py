"""Several monitors (issue 34): every grab covers the whole X screen, a recording stores the
monitors RandR tells, and a press on each monitor is recorded and replayed there. On Xorg
with the dummy driver and two heads side by side (tests/xorg_dummy.py): Xvfb has one CRTC."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from deskreel.storage import open_store
from deskreel.storage.monitors import MONITORS, Layout, Monitor
from deskreel.xsession.display import connect
from deskreel.xsession.grab import Grabber
from deskreel.xsession.monitors import read_layout
from deskreel.xsession.xvfb import VirtualDisplay
from tests.commands import deskreel
from tests.conftest import SAMPLE_APP, SampleApp
from tests.test_record import assert_anchor_is_on_its_before_frame, record
from tests.xorg_dummy import DummyXorg, dummy_xorg_missing

TWO = ["DUMMY0 1280x800+0+0 primary", "DUMMY1 1280x800+1280+0"]


@pytest.fixture(scope="module")
def xvfb() -> Iterator[DummyXorg]:
    """This module's X server (the name the sample app's and deskreel's fixtures ask for):
    two monitors of 1280x800 side by side."""
    why = dummy_xorg_missing()
    if why is not None:
        if os.environ.get("DESKREEL_REQUIRE_X"):
            pytest.fail(f"{why}; DESKREEL_REQUIRE_X is set")
        pytest.skip(why)
    with DummyXorg(2) as server:
        yield server


def test_the_layout_names_each_monitor_and_the_grab_covers_them_all(xvfb):
    conn = connect(xvfb.display)
    try:
        layout = read_layout(conn)
    finally:
        conn.close()
    assert [m.describe() for m in layout.monitors] == TWO, layout
    assert layout.monitor_at(2000, 400) == layout.monitors[1]
    with Grabber(xvfb.display) as grabber:
        assert grabber.rgb().shape == (800, 2560, 3)


def test_a_press_on_each_monitor_is_recorded_and_replayed_there(
    launch_app, run_deskreel, xvfb, tmp_path
):
    def apps():  # not twins: the same app twice at one size would be refused, rightly
        return launch_app(geometry="+100+100"), launch_app(geometry="+1400+40", scale=1.25)

    left, right = apps()
    db = tmp_path / "two.db"

    def drive(person):
        person.click(*left.center("button:Save"))
        person.click(*right.center("button:Save"))
        person.click(*right.center("button:Open"))

    record(run_deskreel, xvfb, db, drive, "--name", "two")
    expected = [app.comparable_events() for app in (left, right)]
    for app in (left, right):
        app.stop()
    assert expected[1] and all(e for e in expected), expected
    with open_store(db, create=False) as store:
        rec = store.recording("two")
        steps = [s for s in store.steps(rec.id) if s.action.action == "left_click"]
    layout = Layout.from_json(rec.extra[MONITORS])
    assert layout is not None and [m.describe() for m in layout.monitors] == TWO
    assert rec.screen == (2560, 800)
    assert [layout.monitor_at(*s.action.target).name for s in steps] == [
        "DUMMY0",
        "DUMMY1",
        "DUMMY1",
    ]
    for step in steps:  # each anchor cut from where its press was, on its own monitor
        assert_anchor_is_on_its_before_frame(db, step)
    shown = deskreel("show", db)
    assert f"monitors: {TWO[0]}, {TWO[1]}" in shown.stdout, shown.stdout
    exported = deskreel("export", db, "--format", "browsergym", "--out", tmp_path / "out")
    assert exported.returncode == 0, exported.stderr
    assert f"| {TWO[0]}, {TWO[1]}" in (tmp_path / "out" / "README.md").read_text()

    replayed = apps()
    done = deskreel("replay", db, "--verify", env=xvfb.env())
    assert done.returncode == 0, done.stderr
    time.sleep(0.5)
    assert [app.comparable_events() for app in replayed] == expected

    # one monitor today: a step replayed where it was recorded would land off the screen
    with VirtualDisplay(width=1280, height=800) as one:
        done = deskreel("replay", db, "--no-anchor", env=one.env())
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"deskreel: step {steps[1].step} (left_click) acts at {list(steps[1].action.target)} "
        f"on the recording's monitor {TWO[1]}, off today's 1280x800 screen (monitors: screen "
        "1280x800+0+0): replay without --no-anchor, to find its target on today's screen"
    ), done.stderr


def test_a_layout_is_read_back_as_written_and_said_in_one_line():
    layout = Layout(
        (
            Monitor("DP-1", (0, 0, 2560, 1440), True, (597, 336)),
            Monitor("HDMI-1", (2560, 0, 1920, 1080)),
        ),
        144.0,
        2,
    )
    assert Layout.from_json(layout.to_json()) == layout
    assert layout.describe() == (
        "monitors: DP-1 2560x1440+0+0 primary, HDMI-1 1920x1080+2560+0; Xft.dpi 144; window scale 2"
    )
    assert layout.monitors[0].dpi() == 108.9
    assert Layout.from_json({"monitors": "none"}) is None
    assert Layout.from_json({"monitors": [{"name": "x"}], "xft_dpi": -1}) == Layout(())
    odd = [
        {"name": "a", "box": [0, 0, float("inf"), 1]},
        {"name": "b", "box": "1234"},
        {"name": "c", "box": [0, 0, 1, 1], "primary": "false"},
        {"name": "d", "box": [0, 0, 1, 1], "mm": [10**400, 1]},
    ]
    assert Layout.from_json({"monitors": odd, "xft_dpi": 10**400, "window_scale": True}) == (
        Layout((Monitor("d", (0, 0, 1, 1), False, (10**400, 1)),))
    )


def test_a_step_with_nothing_to_find_it_by_is_refused_off_screen_or_between_monitors():
    from deskreel.replayer.errors import ReplayError
    from deskreel.replayer.layout import check_layout
    from deskreel.storage import Action, Step

    two = Layout((Monitor("A", (0, 0, 1920, 1080)), Monitor("B", (1920, 0, 1280, 800))))
    click = Step(1, Action("left_click", coordinate=(2000, 900)))  # below B: no monitor
    asked = []

    def today():
        asked.append(1)
        return two

    with pytest.raises(ReplayError, match=r"acts at \[2000, 900\], off today's 3200x1080"):
        check_layout([click], {}, today, (3200, 1080), anchored=True)
    inside = Step(1, Action("left_click", coordinate=(2000, 700)))
    check_layout([inside], {}, today, (3200, 1080), anchored=True)
    with pytest.raises(ReplayError, match="replay without --no-anchor"):
        check_layout([Step(2, Action("left_click", coordinate=(4000, 10)))], {}, today,
                     (3200, 1080), anchored=False)  # fmt: skip
    asked.clear()
    check_layout([Step(3, Action("key", text="a"))], {}, today, (3200, 1080), anchored=True)
    assert asked == []  # nothing to place: today's monitors are not asked


def test_the_scale_told_is_todays_xft_dpi_over_the_recordings():
    from deskreel.replayer.desktop import told_scale

    def extra(dpi: float | None, window_scale: int | None = None) -> dict:
        return {MONITORS: Layout((), dpi, window_scale).to_json()}

    def today(dpi: float | None, window_scale: int | None = None) -> Layout:
        return Layout((), dpi, window_scale)

    assert told_scale(extra(None), today(120)) == 1.25  # nothing told then: X's 96
    assert told_scale(extra(192), today(96)) == 0.5
    assert told_scale(extra(96), today(None, 2)) == 2.0  # a window scale without Xft.dpi
    # GNOME's Xft/DPI holds its window scale (it tells Gdk/UnscaledDPI); Xfce's does not
    gnome_2x = {MONITORS: Layout((), 192, 2, 96).to_json()}
    assert told_scale(gnome_2x, Layout((), 96, 1, 96)) == 0.5
    assert told_scale(gnome_2x, Layout((), 96, 2)) is None  # Xfce at 2x: the same scale
    for same in ((extra(120), today(120)), (extra(None), today(96)), (extra(None), today(None))):
        assert told_scale(*same) is None
    assert told_scale({}, today(120)) is None  # a recording older than its layout
    assert told_scale(extra(96), today(288)) is None  # 3x: beyond what parts are placed at


def test_a_target_is_looked_for_first_where_its_monitor_went(
    launch_app, run_deskreel, xvfb, tmp_path
):
    app = launch_app(geometry="+1400+40")  # on DUMMY1, the right-hand monitor
    db = tmp_path / "moved.db"

    def drive(person):
        person.click(*app.center("button:Save"))
        person.click(*app.center("button:Open"))

    record(run_deskreel, xvfb, db, drive, "--name", "moved")
    expected = app.comparable_events()
    app.stop()
    # its targets by their pixels alone (as where no toolkit tells its widgets): the X
    # window rung, before the pixels', would find them on any monitor
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET widget = NULL")
    conn.close()
    # today DUMMY1 is the left-hand monitor: the app stands where it stood on it
    with DummyXorg(2, order=(1, 0)) as swapped:
        log, stderr = tmp_path / "today.jsonl", tmp_path / "today.stderr"
        argv = [sys.executable, str(SAMPLE_APP), "--log", str(log), "--geometry", "+120+40"]
        with stderr.open("wb") as err:
            proc = subprocess.Popen(argv, env=swapped.env(), stderr=err)
        today = SampleApp(proc, log, stderr)
        try:
            today.ready = today.wait_for({"event": "ready"}, timeout=15)
            done = deskreel("replay", db, "--verify", env=swapped.env())
            time.sleep(0.5)
            assert today.comparable_events() == expected
        finally:
            today.stop()
    assert done.returncode == 0, done.stderr
    assert "monitor DUMMY1 is at +0+0 today, at +1280+0 when recorded" in done.stderr
    with open_store(db, create=False) as store:
        run = store.runs()[-1]
        rungs = [r.details.get("rung") for r in store.step_results(run.id) if r.details]
    assert rungs[0] == "shifted", rungs  # the first target too, before any was found


def _row(*monitors: tuple[str, int]) -> Layout:
    """Monitors of 1280x800 in a row, each named and at its x."""
    return Layout(tuple(Monitor(name, (x, 0, 1280, 800)) for name, x in monitors))


def test_the_change_of_desktop_names_each_monitor_that_moved():
    from deskreel.replayer.desktop import DesktopChange, Moved, desktop_change

    recorded = {MONITORS: _row(("DUMMY0", 0), ("DUMMY1", 1280)).to_json()}
    swapped = desktop_change(recorded, _row(("DUMMY1", 0), ("DUMMY0", 1280)))
    assert swapped.moved == (
        Moved("DUMMY0", (0, 0, 1280, 800), (1280, 0)),
        Moved("DUMMY1", (1280, 0, 1280, 800), (-1280, 0)),
    )
    assert swapped.shift_at((1400, 40)) == (-1280, 0) and swapped.shift_at((5, 5)) == (1280, 0)
    assert swapped.said()[1] == (
        "monitor DUMMY1 is at +0+0 today, at +1280+0 when recorded: its targets are looked "
        "for there first"
    )
    # a monitor gone, or one that kept its place, moves nothing; nor does an old recording
    assert desktop_change(recorded, _row(("DUMMY0", 0))).moved == ()
    assert desktop_change({}, _row(("DUMMY1", 0))) == DesktopChange()
    assert DesktopChange().shift_at((1400, 40)) == (0, 0) and not DesktopChange().said()


def test_a_shift_learned_on_one_monitor_is_kept_for_its_targets_alone():
    from deskreel.matching import Hints
    from deskreel.replayer.desktop import MonitorHints, desktop_change

    # A and B swapped, C where it was
    recorded = {MONITORS: _row(("A", 0), ("B", 1280), ("C", 2560)).to_json()}
    change = desktop_change(recorded, _row(("B", 0), ("A", 1280), ("C", 2560)))
    hints = MonitorHints(change, Hints())
    on_a, on_c = (100, 100), (2600, 100)
    assert hints.at(on_a).shift == (1280, 0) and hints.at(on_c).shift == (0, 0)
    # a target on A found where it was recorded: its window did not follow A (-1280 on A)
    used = hints.at(on_a)
    hints.learn(Hints(1.0, (0, 0)), used, on_a)
    assert hints.at((200, 300)).shift == (0, 0)  # A's next target: where that one was
    assert hints.at(on_c).shift == (0, 0)  # C's: nothing learned there
    # a target on C found 40 px right: C's next target is looked for there, A's not
    used = hints.at(on_c)
    hints.learn(Hints(1.0, (40, 0)), used, on_c)
    assert hints.at((2700, 50)).shift == (40, 0) and hints.at(on_a).shift == (1280, 0)
    # what told nothing changes nothing; where no monitor moved, the hints go whole
    hints.learn(used, used, on_c)
    assert hints.at((2700, 50)).shift == (40, 0)
    same = MonitorHints(desktop_change(recorded, _row(("A", 0), ("B", 1280))), Hints())
    same.learn(Hints(1.0, (7, 7)), Hints(), on_a)
    assert same.at(on_c).shift == (7, 7)


def test_a_step_replayed_where_it_was_recorded_is_refused_when_its_monitor_moved():
    from deskreel.replayer.errors import ReplayError
    from deskreel.replayer.layout import check_layout
    from deskreel.storage import Action, Step

    recorded = {MONITORS: _row(("DUMMY0", 0), ("DUMMY1", 1280)).to_json()}
    swapped = _row(("DUMMY1", 0), ("DUMMY0", 1280))
    click = Step(4, Action("left_click", coordinate=(1400, 40)))
    for anchored, todo in ((True, "put the monitors back"), (False, "without --no-anchor")):
        with pytest.raises(ReplayError) as refused:
            check_layout([click], recorded, lambda: swapped, (2560, 800), anchored=anchored)
        said = str(refused.value)
        assert (
            said.startswith(
                "step 4 (left_click) acts at [1400, 40], where monitor DUMMY1 is at +0+0 today, "
                "at +1280+0 when recorded: "
            )
            and todo in said
        ), said
    check_layout([click], recorded, lambda: _row(("DUMMY0", 0), ("DUMMY1", 1280)),
                 (2560, 800), anchored=True)  # fmt: skip


def test_the_scale_is_read_as_gnome_and_xfce_tell_it(xvfb):
    from tests.test_record_exact import settings_manager

    def scale(**told: int) -> tuple[float, Layout]:
        with settings_manager(xvfb.display, **told):
            conn = connect(xvfb.display)
            try:
                layout = read_layout(conn)
            finally:
                conn.close()
        return layout.scale(), layout

    dpi = 1024  # XSETTINGS' unit: 1024ths of a dot per inch
    gnome = {"Xft/DPI": 192 * dpi, "Gdk/WindowScalingFactor": 2, "Gdk/UnscaledDPI": 96 * dpi}
    xfce = {"Xft/DPI": 96 * dpi, "Gdk/WindowScalingFactor": 2}
    value, layout = scale(**gnome)
    assert value == 2.0 and (layout.xft_dpi, layout.window_scale, layout.unscaled_dpi) == (
        192.0, 2, 96.0
    )  # fmt: skip
    value, layout = scale(**xfce)
    assert value == 2.0 and layout.unscaled_dpi is None
    assert scale(**{"Xft/DPI": 120 * dpi})[0] == 1.25


def test_a_recorded_place_on_a_moved_monitor_is_refused_when_pixels_cannot_decide(xvfb):
    # what Locator.find answers for a step with no anchor whose object left it to the
    # pixels: pressed at its recorded place, unless another monitor's content is there now
    from deskreel.replayer.anchoring import AnchorOptions, Locator
    from deskreel.replayer.desktop import desktop_change

    recorded = {MONITORS: _row(("DUMMY0", 0), ("DUMMY1", 1280)).to_json()}
    change = desktop_change(recorded, _row(("DUMMY1", 0), ("DUMMY0", 1280)))
    locator = Locator(xvfb.display, options=AnchorOptions(desktop=change))
    try:
        shape = (800, 2560, 3)
        moved = locator._misplaced((1400, 40), shape)
        assert moved is not None and moved.refusal is not None
        assert (moved.refusal.rule, moved.refusal.measured) == ("monitor-moved", 1280)
        off = locator._misplaced((2600, 40), shape)
        assert off is not None and off.refusal is not None and off.refusal.rule == "off-screen"
    finally:
        locator.close()
    unmoved = Locator(xvfb.display)
    try:
        assert unmoved._misplaced((1400, 40), shape) is None  # no monitor moved
    finally:
        unmoved.close()

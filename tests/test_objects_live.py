"""The object stage on a real accessibility bus: a GTK form (tests/gtk_form.py) of two rows,
each a label and an identical "Apply" button, on a private Xvfb with its own D-Bus and AT-SPI
buses. The recorder keeps the object each press was on; a replay finds it again by what the
toolkit says of it, presses the same row's button whatever the order, place or font of the
rows, and refuses a renamed one."""

from __future__ import annotations

import dataclasses
import functools
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest

from samples.person import Person
from deskreel.storage import Evidence, open_store
from deskreel.storage.widgets import After
from tests.commands import deskreel
from deskreel.xsession.a11y_bus import AccessibilityBus, stop_group
from deskreel.xsession.atspi import Accessibility
from deskreel.xsession.xvfb import VirtualDisplay

FORM = Path(__file__).resolve().parent / "gtk_form.py"
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, with python3-gi: the form is a GTK program


def _gtk_ready() -> bool:
    if not (AccessibilityBus.available() and os.access(SYSTEM_PYTHON, os.X_OK)):
        return False
    probe = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import gi; gi.require_version('Gtk', '3.0')"], capture_output=True
    )
    return probe.returncode == 0


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AccessibilityBus]:
    """A private Xvfb with a session bus and an accessibility bus."""
    if shutil.which("Xvfb") is None or not _gtk_ready():
        if os.environ.get("DESKREEL_REQUIRE_X"):
            pytest.fail("AT-SPI tests need at-spi2-core, dbus-daemon and python3-gi: make deps")
        pytest.skip("no AT-SPI bus launcher, dbus-daemon or GTK for the system Python")
    with (
        VirtualDisplay() as display,
        AccessibilityBus(display.display, home=tmp_path_factory.mktemp("a11y-home")) as buses,
    ):
        yield buses


class Form:
    """The GTK form, started with `args`; `places` are its buttons' centres (and its menu's
    title, with --menu)."""

    def __init__(self, desktop: AccessibilityBus, *args: str, env: dict[str, str] | None = None):
        self.proc = subprocess.Popen(
            [SYSTEM_PYTHON, str(FORM), *args],
            env={**desktop.env, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        self.lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.said: list[str] = []
        stdout = self.proc.stdout

        def read() -> None:
            for line in stdout:
                self.said.append(line)
                self.lines.put(line)
            self.lines.put("")

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()
        extra = sum(option in args for option in ("--menu", "--check", "--text"))
        self.places = self.wait_for("ready", 2 + extra)
        time.sleep(0.3)

    def wait_for(self, kind: str, count: int) -> dict[str, tuple[int, int]]:
        """The next `count` lines of `kind` (NAME X Y each), by name."""
        places: dict[str, tuple[int, int]] = {}
        while len(places) < count:
            try:
                line = self.lines.get(timeout=30)
            except queue.Empty:
                line = ""
            if not line:
                stop_group(self.proc)  # type: ignore[arg-type]
                pytest.fail(f"the GTK form never said {kind}")
            said, name, x, y = line.split()
            if said == kind:
                places[name] = (int(x), int(y))
        return places

    def pressed(self) -> list[str]:
        """Stop the form; the rows whose button was pressed."""
        stop_group(self.proc)  # type: ignore[arg-type]
        self._reader.join(timeout=10)
        return [line.split(" ", 1)[1].strip() for line in self.said if line.startswith("applied")]


def recorded_steps(
    desktop: AccessibilityBus,
    db: Path,
    person_does: Callable[[Person], None],
    record_args: tuple[str, ...] = (),
) -> list[Any]:
    """`deskreel record` into `db` while a person does `person_does`; the steps recorded."""
    recorder = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "record", str(db), *record_args],
        env=desktop.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(2.0)  # the recorder and its accessibility watch start
        with closing(Person(desktop.display, aim_delay=0.4)) as person:
            person_does(person)
        time.sleep(1.5)
        recorder.send_signal(2)
        _, err = recorder.communicate(timeout=60)
    finally:
        stop_group(recorder)  # type: ignore[arg-type]
    assert recorder.returncode == 0, err
    with open_store(db, create=False) as store:
        return list(store.steps(store.recording().id))


def record_press(
    desktop: AccessibilityBus, db: Path, *form_args: str, record_args: tuple[str, ...] = ()
) -> Any:
    """`deskreel record` while a person presses the Mail server row's Apply; the step."""
    form = Form(desktop, *form_args)
    try:
        steps = recorded_steps(
            desktop, db, lambda person: person.click(*form.places["Mail_server"]), record_args
        )
    finally:
        pressed = form.pressed()
    assert pressed == ["Mail server"]
    return next(s for s in steps if s.action.action == "left_click")


def replay(
    desktop: AccessibilityBus,
    db: Path,
    *form_args: str,
    extra: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> tuple[Any, list[str]]:
    form = Form(desktop, *form_args, env=env)
    done = deskreel("replay", db, "--timeout", "2", *extra, env=desktop.env)
    return done, form.pressed()


def decided_by(db: Path) -> str:
    """The rung that found (or refused) the press in the last replay of `db`."""
    with open_store(db, create=False) as store:
        run = store.runs()[-1]
        click = next(r for r in store.step_results(run.id) if r.details.get(Evidence.RUNG))
    return str(click.details[Evidence.RUNG])


@pytest.fixture(scope="module")
def recorded(desktop: AccessibilityBus, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("objects") / "form.db"
    step = record_press(desktop, db)
    widget = step.widget
    assert widget is not None, "the recorder kept no object for the press"
    assert (widget.role, widget.name, widget.parent) == ("push button", "Apply", "")
    assert widget.siblings == (("label", "Mail server"), ("push button", "Apply"))
    assert widget.rank == 1 and (widget.alike, widget.placed) == (2, 1)
    assert widget.window == "frame 'twin form'"
    x, y, w, h = widget.box
    assert (x + widget.point[0], y + widget.point[1]) == step.action.coordinate
    assert 0 <= widget.point[0] < w and 0 <= widget.point[1] < h
    return db


def test_the_press_lands_on_the_same_rows_twin_after_the_rows_swap(desktop, recorded, tmp_path):
    db = tmp_path / "copy.db"
    shutil.copyfile(recorded, db)
    done, pressed = replay(desktop, db, "--swap", "--at", "300", "220")
    assert pressed == ["Mail server"], done.stderr
    assert done.returncode == 0, done.stderr
    assert decided_by(db) == "object"  # its object found it, not its pixels


def test_a_bigger_font_is_no_obstacle(desktop, recorded, tmp_path):
    db = tmp_path / "copy.db"
    shutil.copyfile(recorded, db)
    done, pressed = replay(desktop, db, "--font", "1.5", "--at", "200", "100")
    assert pressed == ["Mail server"], done.stderr
    assert done.returncode == 0
    assert decided_by(db) == "object"


def test_a_renamed_button_is_refused_by_its_name_and_nothing_is_pressed(
    desktop, recorded, tmp_path
):
    db = tmp_path / "copy.db"
    shutil.copyfile(recorded, db)
    junit = tmp_path / "junit.xml"
    done, pressed = replay(desktop, db, "--rename", extra=("--verify", "--junit", junit))
    assert pressed == [], done.stderr
    assert done.returncode == 1
    assert "accessibles of its role and name in its application today: 0" in done.stderr
    # the verdict names the object the step was aimed at
    assert "on push button &apos;Apply&apos; beside &apos;Mail server&apos;" in (
        junit.read_text().replace("'", "&apos;")
    )


def test_twins_in_one_grid_with_the_rows_swapped_are_never_confused(desktop, tmp_path):
    """Both buttons share a parent: the rows' order among its children is all that tells
    them apart, and swapping the rows changes it. The object stage leaves the step to the
    pixels, whose twin rules must not press the Proxy server row."""
    db = tmp_path / "grid.db"
    step = record_press(desktop, db, "--grid")
    assert step.widget is not None and step.widget.alike == 2
    done, pressed = replay(desktop, db, "--grid", "--swap", "--at", "260", "200")
    assert "Proxy server" not in pressed, done.stderr
    assert pressed in ([], ["Mail server"])
    assert decided_by(db) != "object"  # the object rung did not decide


@contextmanager
def tree_of(desktop: AccessibilityBus) -> Iterator[Accessibility]:
    """The accessibility tree of the test display, through a connection of its own."""
    from deskreel.xsession.display import connect

    conn = connect(desktop.display)
    tree = Accessibility.open(conn)
    assert tree is not None
    with closing(conn), tree:
        yield tree


def test_the_tree_answers_the_point_and_the_name(desktop):
    form = Form(desktop)
    try:
        with tree_of(desktop) as tree:
            here = tree.at_point(*form.places["Proxy_server"], pid=form.proc.pid)
            assert here is not None and here.label == "push button 'Apply'"
            assert here.siblings[0] == ("label", "Proxy server")
            named = tree.named("push button", "Apply", pid=form.proc.pid)
            assert named is not None and len(named) == 2
            assert tree.named("push button", "Apply", app="no such application") is None
    finally:
        form.pressed()


def test_the_application_finds_every_object_of_a_role_that_a_walk_finds(desktop):
    # named() asks the application to search itself (Collection.GetMatches): one round
    # trip, where a walk takes one per level. It must miss nothing a walk finds.
    from deskreel.xsession.atspi_collection import showing_of_role
    from deskreel.xsession.atspi_names import role_number

    form = Form(desktop, "--notebook")
    try:
        with tree_of(desktop) as tree:
            tops, _ = tree._tops(tree.apps_of(form.proc.pid))
            walked, whole = tree.walk_from(tops)
            assert whole and len({n.role for n in walked}) > 5
            for role in {n.role for n in walked}:
                number = role_number(role)
                assert number is not None, role
                found = showing_of_role(tree, tops, number)
                assert found is not None, f"{role}: the application did not search"
                assert found[1], role
                of_role = {n.ref for n in found[0] if n.role == role}
                assert of_role == {n.ref for n in walked if n.role == role}, role
            gone = [
                dataclasses.replace(
                    tops[0], ref=(tops[0].ref[0], "/org/a11y/atspi/accessible/999999")
                )
            ]
            assert showing_of_role(tree, gone, role_number("push button") or 0) is None
    finally:
        form.pressed()


def test_a_button_on_a_notebook_page_is_found_through_its_tab(desktop):
    # GTK boxes a notebook's page tab as its label, and the tab holds the page: no child of
    # the notebook holds a point on the page, so the search looks one level further down.
    form = Form(desktop, "--notebook")
    try:
        with tree_of(desktop) as tree:
            here = tree.at_point(*form.places["Mail_server"], pid=form.proc.pid)
            assert here is not None and here.label == "push button 'Apply'", here
            assert here.siblings[0] == ("label", "Mail server")
            roles = [role for role, _ in here.path]
            assert roles.index("page tab") == roles.index("page tab list") + 1, roles
    finally:
        form.pressed()


def test_verify_passes_the_press_in_a_dark_theme_by_its_object_and_colours(
    desktop, recorded, tmp_path
):
    db = tmp_path / "dark.db"
    shutil.copyfile(recorded, db)
    done, pressed = replay(desktop, db, extra=("--verify",), env={"GTK_THEME": "Adwaita:dark"})
    assert done.returncode == 0, done.stderr
    assert pressed == ["Mail server"]
    with open_store(db, create=False) as store:
        results = store.step_results(store.runs()[-1].id)
    checks = [c for r in results for c in r.details.get("checks", [])]
    [found] = [c for c in checks if c["kind"] == "object"]
    assert found["label"] == "push button 'Apply'" and found["passed"], found
    effects = [c for c in checks if c["kind"] == "effect"]
    assert effects and all(c["passed"] for c in effects), effects
    assert any(c["match"] == "recoloured" for c in effects), effects  # light on dark


def test_verify_names_the_object_of_a_step_whose_effect_differs(desktop, recorded, tmp_path):
    for theme in ("Adwaita", "Adwaita:dark"):
        db = tmp_path / f"wrong-{theme}.db"
        shutil.copyfile(recorded, db)
        done, pressed = replay(
            desktop, db, "--wrong-effect", extra=("--verify",), env={"GTK_THEME": theme}
        )
        assert done.returncode == 1 and pressed == ["Mail server"], (theme, done.stderr)
        assert (
            "(left_click) on push button 'Apply': the screen differs from the recording: effect"
            in done.stderr
        ), (theme, done.stderr)


def test_verify_fails_a_step_that_changed_what_the_recording_shows_unchanged(desktop, tmp_path):
    """Recorded where Apply wrote nothing; replayed where it writes its status line: the
    line changed where the recording shows no change, and the step fails saying so. Where
    it still writes nothing, the step passes."""
    db = tmp_path / "quiet.db"
    record_press(desktop, db, "--quiet")
    for form_args, fails in (((), True), (("--quiet",), False)):
        copy = tmp_path / f"quiet-{fails}.db"
        shutil.copyfile(db, copy)
        done, pressed = replay(desktop, copy, *form_args, extra=("--verify",))
        assert pressed == ["Mail server"], done.stderr
        if not fails:
            assert done.returncode == 0, done.stderr
            continue
        assert done.returncode == 1, done.stderr
        assert "where the recording shows no change" in done.stderr, done.stderr


def test_verify_compares_what_a_check_box_says_after_the_step(desktop, tmp_path):
    """The recorder keeps what the pressed check box said of itself once checked; a replay
    asks it again: checked passes under another theme, left unchecked fails, saying both."""
    db = tmp_path / "check.db"
    form = Form(desktop, "--check")
    try:
        steps = recorded_steps(
            desktop, db, lambda person: person.click(*form.places["Keep_a_copy"])
        )
    finally:
        form.pressed()
    [click] = [s for s in steps if s.action.action == "left_click"]
    assert click.widget is not None and click.widget.label == "check box 'Keep a copy'"
    assert click.widget.after == After("Keep a copy", ("checked",)), click.widget
    shown = deskreel("show", db)
    assert "check box 'Keep a copy' of" in shown.stdout, shown.stdout
    assert "after: 'Keep a copy' (checked)" in shown.stdout, shown.stdout
    for theme, wrong in (("Adwaita:dark", ()), ("Adwaita", ("--wrong-effect",))):
        copy = tmp_path / f"check-{theme}-{bool(wrong)}.db"
        shutil.copyfile(db, copy)
        done, _ = replay(
            desktop, copy, "--check", *wrong, extra=("--verify",), env={"GTK_THEME": theme}
        )
        with open_store(copy, create=False) as store:
            results = store.step_results(store.runs()[-1].id)
        checks = [c for r in results for c in r.details.get("checks", [])]
        [meant] = [c for c in checks if c["kind"] == "meaning"]
        if not wrong:
            assert done.returncode == 0, done.stderr
            assert meant["passed"] and meant["said"][1] == "'Keep a copy' (checked)", meant
            continue
        assert done.returncode == 1 and not meant["passed"], done.stderr
        assert (
            "(left_click) on check box 'Keep a copy': its object differs from the recording: "
            "check box 'Keep a copy' after the step: recorded 'Keep a copy' (checked), today "
            "'Keep a copy' (none set)" in done.stderr
        ), done.stderr


def test_verify_compares_what_the_windows_objects_tell_after_the_step(desktop, recorded, tmp_path):
    """The recorder keeps what the form's objects told before the press and after it: the
    status line was empty, then read "Mail server applied". A replay at a bigger font, where
    the line's pixels differ, passes by what it tells; one whose press writes another line
    fails, naming the line and both texts."""
    with open_store(recorded, create=False) as store:
        [click] = [s for s in store.steps(store.recording().id) if s.action.action == "left_click"]
    assert click.told is not None and click.told.before and click.told.after, click.told
    [line] = [o for o in click.told.after.objects if o.text == "Mail server applied"]
    before = click.told.before.at(line.path, "label")
    assert before is not None and before.text == "", click.told.before
    shown = deskreel("show", recorded)
    assert (
        "step 1 changed what its window's objects tell: label: '' -> 'Mail server applied'"
        in shown.stdout
    ), shown.stdout
    for args, wrong in ((("--font", "1.25"), False), (("--wrong-effect",), True)):
        copy = tmp_path / f"told-{wrong}.db"
        shutil.copyfile(recorded, copy)
        done, pressed = replay(desktop, copy, *args, extra=("--verify",))
        assert pressed == ["Mail server"], done.stderr
        with open_store(copy, create=False) as store:
            results = store.step_results(store.runs()[-1].id)
        checks = [c for r in results for c in r.details.get("checks", [])]
        [told] = [c for c in checks if c["kind"] == "meaning" and c["label"] == "label"]
        if not wrong:
            assert done.returncode == 0, done.stderr
            assert told["passed"] and told["said"] == ["'Mail server applied'"] * 2, told
            assert told["match"] == "vouches", told  # a label draws its text alone
            # the line's pixels differ at the bigger font: its text passed them
            assert any(c["kind"] == "effect" and c["match"] == "meaning" for c in checks), checks
            continue
        assert done.returncode == 1 and not told["passed"], done.stderr
        assert (
            "label after the step: recorded 'Mail server applied', today 'nothing applied'"
            in done.stderr
        ), done.stderr


def test_an_item_of_an_open_menu_is_what_its_popup_shows(desktop):
    # GTK draws an open menu's items in a popup window of their own, while its tree keeps
    # them under the menu, whose box is its title in the menu bar
    from deskreel.xsession.atspi_popups import popup_searched
    from deskreel.xsession.display import connect
    from deskreel.xsession.toplevel import toplevel_at

    form = Form(desktop, "--menu")
    try:
        conn = connect(desktop.display)
        tree = Accessibility.open(conn)
        assert tree is not None
        with closing(conn), tree, closing(Person(desktop.display, aim_delay=0.2)) as person:
            person.click(*form.places["Tools"])
            items = form.wait_for("item", 2)
            x, y = items["Select_All"]
            top = toplevel_at(conn, x, y)
            assert top is not None and top.pid == form.proc.pid
            here = tree.at_point(x, y, pid=top.pid, window=top.box)
            assert here is not None and here.label == "menu item 'Select All'", here
            assert tree.shows(here, x, y, pid=top.pid, window=top.box)
            # the popup's owner, found by the application's own search, not by a walk
            tops, _ = tree._tops(tree.apps_of(top.pid))
            owner = popup_searched(tree, tops, top.box)
            assert owner is not None and tree.describe(owner[1]).label == "menu 'Tools'"
            # the menu's title is not in the popup: the popup's items are not asked for it
            tx, ty = form.places["Tools"]
            title = toplevel_at(conn, tx, ty)
            assert title is not None
            assert tree.at_point(tx, ty, pid=top.pid, window=title.box).label == "menu 'Tools'"
            # the popup's own border, above its first item: no item is there, and the menu
            # (its box the title in the menu bar) is not what is there either
            px, py, _, _ = top.box
            assert all(iy > py + 2 for _, iy in items.values())
            assert tree.at_point(px + 2, py + 1, pid=top.pid, window=top.box) is None
    finally:
        form.pressed()


def _move_windows(desktop: AccessibilityBus, pid: int, place: tuple[int, int]) -> None:
    for window in _xdotool(desktop, "search", "--onlyvisible", "--pid", str(pid)).split():
        _xdotool(desktop, "windowmove", window, *map(str, place))


def _resize_windows(desktop: AccessibilityBus, pid: int, size: tuple[int, int]) -> None:
    for window in _xdotool(desktop, "search", "--onlyvisible", "--pid", str(pid)).split():
        _xdotool(desktop, "windowsize", window, *map(str, size))


def _xdotool(desktop: AccessibilityBus, *args: str) -> str:
    done = subprocess.run(["xdotool", *args], env=desktop.env, capture_output=True, text=True)
    return done.stdout


def _showing(tree, role, name, pid, timeout=30.0):
    """The showing accessible of `role` and `name` in process `pid`, once there is one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [w for w in tree.named(role, name, pid=pid) or () if w.box[2] > 0]
        if found:
            return found[0]
        time.sleep(0.3)
    pytest.fail(f"no {role} {name!r} showed")


@contextmanager
def chromium_form(desktop, tmp_path: Path, scale: float) -> Iterator[tuple[Any, Any, int]]:
    """bench/realapps' Chromium form at device scale `scale`, in a window of 900x820 px at
    (80, 60) once its select shows: the tree, an X connection, and the browser's pid."""
    from deskreel.xsession.display import connect

    if shutil.which("chromium") is None:
        if os.environ.get("DESKREEL_REQUIRE_X"):
            pytest.fail("this test needs chromium: make deps")
        pytest.skip("no chromium")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    from realapps.catalog.chromium_form import page as form_page

    page = tmp_path / "form.html"
    page.write_text(form_page(""))  # the form of bench/realapps: its select is far down
    size = (round(900 / scale), round(820 / scale))
    browser = subprocess.Popen(
        [
            "chromium", "--no-sandbox", "--test-type", "--no-first-run", "--disable-gpu",
            "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}",
            "--force-renderer-accessibility", "--window-position=80,60",
            f"--force-device-scale-factor={scale}", f"--window-size={size[0]},{size[1]}",
            f"--app={page.as_uri()}",
        ],
        env=desktop.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        conn = connect(desktop.display)
        tree = Accessibility.open(conn)
        assert tree is not None
        with closing(conn), tree:
            _showing(tree, "combo box", "T-shirt size", browser.pid)
            _move_windows(desktop, browser.pid, (80, 60))  # as a window manager would
            time.sleep(0.5)
            yield tree, conn, browser.pid
    finally:
        stop_group(browser)


@pytest.mark.parametrize("scale", [1.0, 1.25])
def test_an_option_of_chromiums_select_is_what_its_popup_shows(desktop, tmp_path, scale):
    # Chromium shows an open select's options in a popup window whose own accessible (a
    # frame of that box) holds nothing: the options are kept under the select. At another
    # device scale, in a window moved since it started, it reports that frame in unscaled
    # pixels: no accessible has the popup's box, and its options are found all the same.
    from deskreel.xsession.toplevel import toplevel_at

    with (
        chromium_form(desktop, tmp_path, scale) as (tree, conn, pid),
        closing(Person(desktop.display, aim_delay=0.2)) as person,
    ):
        x, y, w, h = _showing(tree, "combo box", "T-shirt size", pid).box
        person.click(x + w // 2, y + h // 2)
        option = _showing(tree, "menu item", "L", pid)
        x, y, w, h = option.box
        point = (x + w // 2, y + h // 2)
        top = toplevel_at(conn, *point)
        assert top is not None and top.pid == pid
        assert top.window_class is None, top  # the popup, which says nothing of itself
        here = tree.at_point(*point, pid=top.pid, window=top.box)
        assert here is not None and here.label == "menu item 'L'", here
        assert tree.shows(option, *point, pid=top.pid, window=top.box)


def test_a_button_beyond_chromiums_unscaled_frame_is_what_its_window_shows(desktop, tmp_path):
    # At device scale 1.25 Chromium reports its frame in unscaled pixels (720x656 for its
    # 900x820 px window), its page's objects in screen pixels. A button far right in the
    # window lies outside that frame's box: the X server's window on top there, not the
    # frame's box, tells that the application shows it.
    from deskreel.xsession.toplevel import toplevel_at

    with chromium_form(desktop, tmp_path, 1.25) as (tree, conn, pid):
        button = _showing(tree, "push button", "Register", pid)
        x, y, w, h = button.box
        point = (x + w // 2, y + h // 2)
        (frame,) = [f for f in tree.named("frame", "Workshop registration", pid=pid) or ()]
        fx, fy, fw, fh = frame.box
        assert not (fx <= point[0] < fx + fw and fy <= point[1] < fy + fh), (frame, point)
        top = toplevel_at(conn, *point)
        assert top is not None and top.pid == pid
        walks: list[int] = []
        whole = tree.walk_from
        tree.walk_from = lambda tops: walks.append(1) or whole(tops)
        here = tree.at_point(*point, pid=top.pid, window=top.box)
        assert here is not None and "Register" in here.label, here
        assert tree.shows(button, *point, pid=top.pid, window=top.box)
        # no object's box is the window but the page's: found by reading the whole tree
        # once, then asked again by its box for the next questions about that window
        assert walks == [1]
        again = tree.at_point(*point, pid=top.pid, window=top.box)
        assert again is not None and "Register" in again.label and walks == [1], again
        # a window of another size is read again
        _resize_windows(desktop, pid, (860, 820))
        time.sleep(1.0)
        top = toplevel_at(conn, *point)
        assert top is not None and top.box[2] == 860
        button = _showing(tree, "push button", "Register", pid)
        x, y, w, h = button.box
        point = (x + w // 2, y + h // 2)
        later = tree.at_point(*point, pid=top.pid, window=top.box)
        assert later is not None and "Register" in later.label and walks == [1, 1], later


def test_a_press_on_an_item_of_an_open_menu_keeps_the_item(desktop, tmp_path):
    form = Form(desktop, "--menu")

    def choose(person: Person) -> None:
        person.click(*form.places["Tools"])
        person.click(*form.wait_for("item", 2)["Select_All"])

    try:
        steps = recorded_steps(desktop, tmp_path / "menu.db", choose)
    finally:
        form.pressed()
    clicks = [s for s in steps if s.action.action == "left_click"]
    assert [s.widget.label if s.widget else None for s in clicks] == [
        "menu 'Tools'",
        "menu item 'Select All'",
    ], clicks


def test_a_closed_menu_passes_verify_by_what_it_revealed_today(desktop, tmp_path):
    """The Tools menu hangs over the rows; choosing Clear closes it. Replayed with the rows
    swapped, what the closed menu reveals is today's layout, not the recording's: the step
    passes where it brought back what today's screen showed before the menu opened
    (matching/compare/restored.py)."""
    db = tmp_path / "closed.db"
    form = Form(desktop, "--menu")

    def choose(person: Person) -> None:
        person.click(*form.places["Tools"])
        person.click(*form.wait_for("item", 2)["Clear"])

    try:
        recorded_steps(desktop, db, choose)
    finally:
        form.pressed()
    done, _ = replay(desktop, db, "--menu", "--swap", extra=("--verify",))
    assert done.returncode == 0, done.stderr
    with open_store(db, create=False) as store:
        results = store.step_results(store.runs()[-1].id)
    checks = [c for r in results for c in r.details.get("checks", [])]
    assert any(c["kind"] == "effect" and c["match"] == "restored" for c in checks), checks


def test_doctor_says_which_sources_a_display_offers(desktop, xvfb):
    form = Form(desktop)
    try:
        done = deskreel("doctor", env=desktop.env)
        assert done.returncode == 0, done.stderr
        assert "RECORD and XTEST present" in done.stdout
        assert "accessibility (AT-SPI): 1 application(s) publish their widgets" in done.stdout
    finally:
        form.pressed()
    bare = deskreel("doctor", env=xvfb.env())  # the tests' shared Xvfb: no buses
    assert bare.returncode == 0, bare.stderr
    assert "no accessibility bus on this display" in bare.stdout
    assert deskreel("doctor", "--repair", env=xvfb.env()).returncode == 2


def test_record_says_when_a_display_has_no_accessibility(run_deskreel, tmp_path):
    """The tests' shared Xvfb has no buses: the recorder says its targets will be found by
    their pixels alone, and records as before."""
    recorder = run_deskreel("record", tmp_path / "bare.db")
    recorder.wait_for_output("recording into")
    recorder.wait_for_output("no accessibility bus on this display")
    recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr


def test_redacted_typing_keeps_no_object(desktop, tmp_path):
    step = record_press(desktop, tmp_path / "secret.db", record_args=("--redact-typing",))
    assert step.widget is None
    assert step.told is None  # what its window told may hold what was typed


def test_an_empty_text_area_is_found_blank_at_a_bigger_font_and_not_with_text(desktop):
    # A press into an empty GTK text view: its content decides, but it has none. Where the
    # screen shows it, in its place, blank again at a bigger font, the object finds it;
    # where it holds text today, its content decides and the pixels have it.
    from deskreel.matching import ObjectAnswer, Query, Recorded, acts_on_whole, locate
    from deskreel.replayer.objects import shown_in_place
    from deskreel.xsession.display import connect
    from deskreel.xsession.grab import Grabber

    def screen() -> Any:
        grabber = Grabber(desktop.display)
        try:
            return grabber.rgb()
        finally:
            grabber.close()

    form = Form(desktop, "--text", "")
    try:
        point = form.places["Notes"]
        with tree_of(desktop) as tree:
            recorded = tree.at_point(*point, pid=form.proc.pid)
        assert recorded is not None and recorded.role == "text", recorded
        assert "multi-line" in recorded.states and not acts_on_whole(recorded)
        query = Query(None, recorded=point, widget=recorded, context=Recorded(screen()))
    finally:
        form.pressed()
    content = ObjectAnswer(None, None, "content")
    for args, blank in ((("--text", "", "--font", "1.25"), True), (("--text", "a word"), False)):
        form = Form(desktop, *args)
        try:
            conn = connect(desktop.display)
            with closing(conn), tree_of(desktop) as tree:
                today = tree.at_point(*form.places["Notes"], pid=form.proc.pid)
                assert today is not None and today.box != recorded.box or not blank
                shown = functools.partial(shown_in_place, tree, conn)
                found = locate(screen(), query, ask=lambda _: content, shown=shown)
        finally:
            form.pressed()
        tried = found.tried("object")
        assert tried is not None and tried.why == ("blank" if blank else "content"), found
        if blank:
            x, y, w, h = today.box
            assert found.found and found.rung == "object", found
            assert found.point is not None and x <= found.point[0] < x + w
            assert y <= found.point[1] < y + h
        else:
            assert not found.decided


def test_a_pulsing_progress_bar_is_masked_whole_and_verify_passes(desktop, tmp_path):
    """The recorder sees a pulsing bar's block at a few places in the frames it grabbed; the
    tree tells the bar's whole box, which the step's mask holds (recorder/animating.py), so
    a replay whose grab catches the block elsewhere passes --verify. The screen never stands
    still, yet the step's after-frame settled but for the bar (recorder/still.py)."""
    db = tmp_path / "pulse.db"
    form = Form(desktop, "--pulse")
    try:
        steps = recorded_steps(
            desktop, db, lambda person: person.click(*form.places["Mail_server"])
        )
        with tree_of(desktop) as tree:
            bar = _showing(tree, "progress bar", "", form.proc.pid)
    finally:
        form.pressed()
    [click] = [s for s in steps if s.action.action == "left_click"]
    assert click.after_settled, click
    with open_store(db, create=False) as store:
        masks = store.masks(store.recording().id).get(click.step, [])
    bx, by, bw, bh = bar.box

    def holds(box):
        x, y, w, h = box
        return x <= bx and y <= by and bx + bw <= x + w and by + bh <= y + h

    assert any(holds(m) for m in masks), (bar.box, masks)
    for run in range(2):
        copy = tmp_path / f"pulse-{run}.db"
        shutil.copyfile(db, copy)
        done, pressed = replay(desktop, copy, "--pulse", extra=("--verify",))
        assert pressed == ["Mail server"] and done.returncode == 0, done.stderr

"""Hover states: a control drawn otherwise while the pointer is on it is anchored in two
looks, at rest (the frame from when the pointer came into it) and hovered (just before the
press), and a replay that starts with the pointer elsewhere finds it at rest."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from deskreel.recorder.rest import calm_since, pointer_path
from samples.person import Person
from deskreel.storage import RawEvent, open_store
from tests.commands import deskreel
from tests.test_record import record
from tests.tk_buttons import shown, stopped
from deskreel.xsession.images import decode_image

BUTTONS = Path(__file__).resolve().parent / "hover_buttons.py"


def motion(t: float, x: int, y: int) -> RawEvent:
    return RawEvent(t, "motion", x=x, y=y)


def test_only_the_pointer_moved_from_the_last_other_event_to_the_press() -> None:
    press = RawEvent(1.0, "button_down", x=140, y=115, button=1)
    glide = [motion(0.1, 20, 20), motion(0.2, 90, 110), motion(0.5, 140, 115)]
    key = RawEvent(0.15, "key_down", keycode=38)
    assert calm_since([*glide, press], 3, 3) == (0.1, 1.0)
    assert calm_since([glide[0], key, *glide[1:], press], 4, 4) == (0.15, 1.0)
    assert calm_since([press], 0, 0) is None  # warped onto it with the press
    assert pointer_path([*glide, press], 0.3, 0.9) == [(90, 110), (140, 115)]


def test_a_hovered_button_is_anchored_at_rest_and_found_so(run_deskreel, xvfb, tmp_path):
    hovered_and_found(run_deskreel, xvfb, tmp_path)


def test_a_hover_that_tells_of_the_button_elsewhere_keeps_its_look_at_rest(
    run_deskreel, xvfb, tmp_path
):
    """The hover also writes the button's tip in a status bar 200 px below: the frame from
    before the hover differs there too, and still shows the button at rest."""
    hovered_and_found(run_deskreel, xvfb, tmp_path, "--status")


def hovered_and_found(run_deskreel: Any, xvfb: Any, tmp_path: Path, *args: str) -> None:
    """Open, pressed in tests/hover_buttons.py (started with `args`) as a person aims, is
    anchored in two looks, and a replay from a fresh start finds it at rest."""
    app, places = shown(xvfb, BUTTONS, 3, *args)
    db = tmp_path / "hover.db"

    def drive(person: Person) -> None:
        person.move_to(5, 5)
        time.sleep(0.3)
        person.move_to(*places["Open"])
        time.sleep(0.4)  # resting on it, as a person aims: the hovered look is grabbed
        person.click(*places["Open"])
        time.sleep(0.3)
        person.move_to(5, 5)

    record(run_deskreel, xvfb, db, drive, "--name", "hover")
    assert stopped(app, "pressed") == ["pressed Open"]
    with open_store(db, create=False) as store:
        (step,) = [s for s in store.steps(store.recording("hover").id) if s.anchor]
    anchor = step.anchor
    assert anchor is not None and anchor.hover_png is not None
    at_rest, hovered = decode_image(anchor.png), decode_image(anchor.hover_png)
    assert at_rest.shape == hovered.shape and (at_rest != hovered).any()

    app, _ = shown(xvfb, BUTTONS, 3, *args)  # a fresh start, the pointer in the corner
    done = deskreel("replay", db, "--timeout", "2", env=xvfb.env())
    assert stopped(app, "pressed") == ["pressed Open"], done.stderr
    assert done.returncode == 0, done.stderr


MENUS = Path(__file__).resolve().parent / "data" / "menus"


def zenity(name: str) -> np.ndarray:
    """A GTK combo box's popup in zenity's forms (bench/realapps), as grabbed."""
    import cv2

    bgr = cv2.imread(str(MENUS / f"zenity-size-{name}.png"))
    assert bgr is not None, name
    return bgr[:, :, ::-1].copy()


def test_a_menu_row_at_rest_is_told_by_its_name_not_by_the_highlight_beside_it() -> None:
    """The popup opens with "Small" lit under the pointer; the pointer moves down to
    "Medium", which lights instead. At rest the anchor holds Medium's own row; with Medium
    removed from the menu it is not taken for "Large", the row now in its place."""
    from deskreel.matching import Query, locate, with_looks
    from deskreel.recorder.rest import anchor_in_two_looks

    target = (151, 76)  # Medium's row, right of its name
    rest, hovered = zenity("rest"), zenity("hovered")
    anchor = anchor_in_two_looks(hovered, rest, target)
    unique = anchor.margin is not None and anchor.margin >= 0.1
    query = with_looks(
        Query(decode_image(anchor.png), anchor.offset, target, unique),
        None if anchor.hover_png is None else decode_image(anchor.hover_png),
        anchor.box,
        lambda: hovered,
    )
    again = locate(rest, query)
    assert again.found and again.point == target, again
    assert not locate(zenity("removed"), query).found


def test_a_row_drawn_in_reverse_video_is_found_by_its_look_turned_over() -> None:
    """A dark theme or reverse video draws the recorded shapes with the contrast the other
    way round; the anchor's last look, its grey levels turned over, finds the row there, and
    does not take another row for it. (The anchor at rest only: GTK lights a row under the
    pointer in light text on dark, which its hovered look would find too.)"""
    from deskreel.matching import Query, locate, with_looks
    from deskreel.matching.looks import EDGES, INVERTED
    from deskreel.recorder.rest import anchor_in_two_looks

    target = (151, 76)  # Medium's row
    rest = zenity("rest")
    anchor = anchor_in_two_looks(zenity("hovered"), rest, target)
    query = with_looks(
        Query(decode_image(anchor.png), anchor.offset, target, True), None, anchor.box,
        lambda: rest,
    )  # fmt: skip
    assert [look.name for look in query.looks] == [INVERTED, EDGES]
    assert not query.looks[0].unique  # its negatives were never judged: no fast path
    turned = locate(255 - rest, query)
    assert turned.found and turned.point == target, turned.trail
    assert [t.outcome for t in turned.trail if t.name == INVERTED] == ["found"]
    assert not locate(255 - zenity("removed"), query).found
    # nor is it taken for another row at another scale, turned over or as edges, where
    # the row was removed and the colours are the recorded ones: a few letters of "Small"
    # turned over, or of "Large" as edges, fit some scale part by part
    assert not locate(zenity("removed"), query).found
    assert not locate(255 - rest, replace(query, looks=())).found  # without it: not found


def _frame(t0: float, t1: float, rgb: np.ndarray) -> Any:
    import zlib

    from deskreel.recorder.screen import Frame

    h, w = rgb.shape[:2]
    bgra = np.dstack([rgb[:, :, ::-1], np.full((h, w), 255, np.uint8)])
    return Frame(t0, t1, 0, w, h, zlib.compress(bgra.tobytes()))


def _panel(button: int, status: bool = False, others: int = 0) -> np.ndarray:
    """A grey window: a button (its face `button`, a label of letters 3 px apart), a status
    line 300 px below it (shown or not), and `others` small marks far away."""
    s = np.full((480, 640, 3), 220, np.uint8)
    s[100:130, 100:200] = button
    s[110:120, 120:180:3] = 0
    if status:
        s[440:452, 10:90:4] = 0
    for i in range(others):
        s[20:30, 300 + 60 * i : 320 + 60 * i] = 0
    return s


BUTTON = (100, 100, 100, 30)


def test_the_regions_a_hover_changed_are_told_apart() -> None:
    from deskreel.recorder.rest import changed_regions

    rest, hovered = _panel(200), _panel(240, status=True)
    assert changed_regions(rest, hovered) == [(100, 100, 100, 30), (10, 440, 77, 12)]
    assert changed_regions(rest, rest) == []


def test_a_look_at_rest_is_taken_where_the_hover_also_shows_a_status_tip() -> None:
    from deskreel.recorder.rest import at_rest

    def path(start: float, end: float) -> list[tuple[int, int]]:
        return [(400, 300)] if start < 0.9 else [(150, 115)]  # on the button from 0.9 s

    frames = [_frame(0.0, 1.0, _panel(200))]
    found = at_rest(frames, _panel(240, status=True), (150, 115), path, lambda x: x, 0.0, BUTTON)
    assert found is not None and found.region == BUTTON
    assert found.apart == ((10, 440, 77, 12),)
    # three changes beside the target's: another screen, not a hover
    more = _panel(240, status=True, others=2)
    assert at_rest(frames, more, (150, 115), path, lambda x: x, 0.0, BUTTON) is None


def test_a_look_shown_on_while_the_pointer_waited_on_the_target_is_no_look_at_rest() -> None:
    """A button enabled while the pointer waited on it: the frame before showed it greyed,
    with the pointer off it only long before that frame gave way."""
    from deskreel.recorder.rest import HOVER_LAG, at_rest

    def path(start: float, end: float) -> list[tuple[int, int]]:
        return [(400, 300)] if start < 1.0 else [(150, 115)]  # on the button from 1.0 s

    hovered = _panel(240, status=True)
    waited = [_frame(0.0, 1.0 + 2 * HOVER_LAG, _panel(190))]
    assert at_rest(waited, hovered, (150, 115), path, lambda x: x, 0.0, BUTTON) is None
    came = [_frame(0.0, 1.0 + HOVER_LAG / 2, _panel(190))]
    assert at_rest(came, hovered, (150, 115), path, lambda x: x, 0.0, BUTTON) is not None

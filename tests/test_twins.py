"""Twins: two rows of a form, each a label and an identical "Apply" button. A recording
that pressed the second row's button must never press the first row's, however the rows are
ordered and wherever the window is: what tells the twins apart is their row's label, not
their place (issue 20's red line)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from deskreel.matching import Query, Recorded, choose_anchor, locate
from deskreel.matching.choice import AnchorChoice
from tests.commands import deskreel
from tests.test_record import record
from tests.tk_buttons import shown, stopped

FORM = Path(__file__).resolve().parent / "twin_form.py"


def drawn_form(rows: list[str], origin: tuple[int, int]) -> np.ndarray:
    """A 1024x600 screen with a form: a title, then per row a label and an "Apply" button."""
    import cv2

    img = np.full((600, 1024, 3), 70, np.uint8)
    ox, oy = origin
    cv2.rectangle(img, (ox, oy), (ox + 520, oy + 40 + 50 * len(rows)), (236, 236, 236), -1)
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(img, "Settings", (ox + 14, oy + 26), font, 0.6, (20, 20, 20), 1, cv2.LINE_AA)
    for i, label in enumerate(rows):
        y = oy + 50 + 50 * i
        cv2.putText(img, label, (ox + 14, y + 20), font, 0.55, (20, 20, 20), 1, cv2.LINE_AA)
        bx = ox + 400
        cv2.rectangle(img, (bx, y), (bx + 90, y + 30), (215, 215, 215), -1)
        cv2.rectangle(img, (bx, y), (bx + 90, y + 30), (120, 120, 120), 1)
        cv2.putText(img, "Apply", (bx + 20, y + 21), font, 0.55, (0, 0, 0), 1, cv2.LINE_AA)
    return img


def apply_of(row: int, origin: tuple[int, int]) -> tuple[int, int]:
    return origin[0] + 445, origin[1] + 65 + 50 * row


RECORDED = drawn_form(["Proxy server", "Mail server"], (100, 80))
SWAPPED = drawn_form(["Mail server", "Proxy server"], (300, 200))
TARGET = apply_of(1, (100, 80))  # the Mail server row's Apply


def test_the_anchor_of_a_twin_holds_its_rows_label() -> None:
    choice = choose_anchor(RECORDED, TARGET)
    x, y, w, h = choice.box
    assert choice.distinctive
    assert x <= 100 + 14 and h < 50  # reaches the label, stays in the row
    found = locate(
        SWAPPED, Query(choice.crop(RECORDED), choice.offset, recorded=TARGET, unique=True)
    )
    assert found.found and found.point is not None, found.reason
    assert abs(found.point[0] - apply_of(0, (300, 200))[0]) <= 2
    assert abs(found.point[1] - apply_of(0, (300, 200))[1]) <= 2


@pytest.mark.parametrize("moved", [False, True])
def test_a_crop_unique_only_by_position_is_refused_on_reordered_rows(moved: bool) -> None:
    """The anchor of an older recorder: the button, the twin above it and the blank below,
    unique on its screen by position alone. On the rows swapped (the window moved or not),
    it matches the other row's button exactly; the step is refused. So it is on the recorded
    screen: nothing in the anchor tells the twins apart (recording again gives an anchor
    that holds the row's label)."""
    origin = (300, 200) if moved else (100, 80)
    today = drawn_form(["Mail server", "Proxy server"], origin)
    box = (TARGET[0] - 120, TARGET[1] - 40, 240, 81)
    old = AnchorChoice(box, (120, 40), 1.0, 0.1, True)
    crop = old.crop(RECORDED)
    same = locate(
        RECORDED, Query(crop, old.offset, recorded=TARGET, unique=True, context=Recorded(RECORDED))
    )
    assert not same.found and same.refusal is not None, same
    found = locate(
        today, Query(crop, old.offset, recorded=TARGET, unique=True, context=Recorded(RECORDED))
    )
    assert not found.found, found
    assert found.refusal is not None and found.refusal.rule.startswith("twin")


def test_replay_presses_the_same_rows_twin_after_the_rows_swap(run_deskreel, xvfb, tmp_path):
    """Real Tk twins: pressed on the second row, replayed with the rows swapped and the
    window moved; the Mail server row is applied again, never the Proxy server row."""
    app, places = shown(xvfb, FORM, 2, "--geometry", "+40+40")
    db = tmp_path / "twins.db"
    record(run_deskreel, xvfb, db, lambda person: person.click(*places["Mail_server"]))
    assert stopped(app, "applied") == ["applied Mail server"]
    app, _ = shown(xvfb, FORM, 2, "--geometry", "+260+190", "--swap")
    done = deskreel("replay", db, "--timeout", "2", env=xvfb.env())
    pressed = stopped(app, "applied")
    assert "applied Proxy server" not in pressed, done.stderr
    assert done.returncode == 0 and pressed == ["applied Mail server"], done.stderr


def test_each_twin_rule_refuses_its_own_case() -> None:
    """One case per rule of twins.py; each asserts the rule that refused, so removing a rule
    fails its case (another rule, or none, would answer)."""
    # twin-match: a crop from the rows' labels to the button; today the second row reads
    # "Mail sender": the crop still matches there, its row does not
    box = (160, TARGET[1] - 60, TARGET[0] + 50 - 160, 80)
    wide = RECORDED[box[1] : box[1] + box[3], box[0] : box[0] + box[2]]
    sender = drawn_form(["Proxy server", "Mail sender"], (100, 80))
    offset = (TARGET[0] - box[0], TARGET[1] - box[1])
    found = locate(sender, Query(wide, offset, recorded=TARGET, unique=True))
    assert found.refusal is not None and found.refusal.rule == "twin-match", found
    box = (TARGET[0] - 120, TARGET[1] - 40, 240, 81)
    crop = RECORDED[box[1] : box[1] + box[3], box[0] : box[0] + box[2]]
    # twin-margin: today both rows read "Mail server"; the crop, no label in it, still has
    # one place, but nothing in the rows tells the twins apart
    same = drawn_form(["Mail server", "Mail server"], (100, 80))
    found = locate(
        same, Query(crop, (120, 40), recorded=TARGET, unique=True, context=Recorded(RECORDED))
    )
    assert found.refusal is not None and found.refusal.rule == "twin-margin", found
    # twin-row: aimed at the button's face beside its text, the object is the whole button;
    # the anchor's row holds that button and blank form around it, and no recorded screen
    # is known to look further along the row
    face = (TARGET[0] + 40, TARGET[1])
    box = (face[0] - 100, face[1] - 40, 120, 81)
    bare = RECORDED[box[1] : box[1] + box[3], box[0] : box[0] + box[2]]
    found = locate(RECORDED, Query(bare, (100, 40), recorded=face, unique=True))
    assert found.refusal is not None and found.refusal.rule == "twin-row", found


def test_a_recorded_count_of_one_spares_the_search_and_none_does_not() -> None:
    box = (TARGET[0] - 120, TARGET[1] - 40, 240, 81)
    crop = RECORDED[box[1] : box[1] + box[3], box[0] : box[0] + box[2]]
    today = drawn_form(["Mail server", "Proxy server"], (100, 80))
    assert locate(today, Query(crop, (120, 40), recorded=TARGET, unique=True, twins=1)).found
    assert not locate(today, Query(crop, (120, 40), recorded=TARGET, unique=True, twins=None)).found


def test_an_object_drawn_in_too_many_places_is_refused() -> None:
    """A grid of 80 "Go" buttons, a mark beside one: past 64 places of one object, rows are
    not told apart here, however unique the crop."""
    import cv2

    img = np.full((600, 1024, 3), 236, np.uint8)
    for row in range(10):
        for column in range(8):
            x, y = 20 + 120 * column, 20 + 56 * row
            cv2.rectangle(img, (x, y), (x + 80, y + 30), (120, 120, 120), 1)
            cv2.putText(img, "Go", (x + 26, y + 21), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 1)
    target = (20 + 120 * 3 + 40, 20 + 56 * 4 + 15)
    cv2.rectangle(img, (target[0] - 56, target[1] - 6), (target[0] - 44, target[1] + 6), 0, -1)
    box = (target[0] - 60, target[1] - 40, 120, 81)
    crop = img[box[1] : box[1] + box[3], box[0] : box[0] + box[2]]
    found = locate(img, Query(crop, (60, 40), recorded=target, unique=True))
    assert found.refusal is not None and found.refusal.rule == "twin-many", found

"""Wrong effects that look like a restored screen (compare/restored.py), built by a red-line
review: an Undo that undid two edits where the recording undid one, and a Cancel that
closed its dialog and marked five messages read anyway (each unread mark a patch under
--verify's 12 px). Both in another layout, where the recording cannot be compared."""

from __future__ import annotations

import cv2
import numpy as np

from tests.step_checks import step_checks

W, H = 400, 240
BANNER = "Warning: root account"


def base(at: int) -> tuple[np.ndarray, float]:
    """A banner whose text today's layouts (at > 10) centre elsewhere, a size larger."""
    rgb = np.full((H, W, 3), 235, np.uint8)
    size = 1.0 if at <= 10 else 1.2
    cv2.rectangle(rgb, (0, 88), (W - 1, 112), (60, 40, 160), -1)
    cv2.putText(rgb, BANNER, (at, 106), cv2.FONT_HERSHEY_PLAIN, size, (255,) * 3, 1)
    return rgb, size


def box_of(rgb: np.ndarray, place: tuple[int, int, int, int], lines: tuple[str, ...]) -> None:
    x, y, w, h = place
    cv2.rectangle(rgb, (x, y), (x + w, y + h), (250, 250, 250), -1)
    for i, name in enumerate(lines):
        cv2.putText(rgb, name, (x + 12, y + 25 + 30 * i), cv2.FONT_HERSHEY_PLAIN, 1.0, (0,) * 3)


def editor(*, at: int, menu: bool, words: tuple[str, ...] = ()) -> np.ndarray:
    rgb, size = base(at)
    cv2.rectangle(rgb, (210, 160), (395, 190), (255,) * 3, -1)  # the text field
    for i, word in enumerate(words):
        x = 215 + (at - 10) // 4 + int(70 * size) * i
        cv2.putText(rgb, word, (x, 182), cv2.FONT_HERSHEY_PLAIN, size, (0,) * 3, 1)
    if menu:
        box_of(rgb, (40, 40, 160, 100), ("Undo", "Cut", "Paste"))
    return rgb


def inbox(*, at: int, dialog: bool, dots: bool = True) -> np.ndarray:
    rgb, size = base(at)
    for i in range(5):  # a row per message: its unread mark and its subject
        y = 20 + 42 * i
        if dots:
            rgb[y - 6 : y - 2, 253 + at : 257 + at] = (20, 90, 220)
        cv2.putText(
            rgb, f"Invoice {i}", (262 + at, y), cv2.FONT_HERSHEY_PLAIN, size * 0.9, (0,) * 3
        )
    if dialog:
        box_of(rgb, (40, 40, 200, 110), ("Mark all 5 as read?", "", "Cancel    Mark"))
    return rgb


def passed(before, after, today, earlier, restorable, target=(60, 60)) -> bool:
    checks = step_checks(before, after, today, earlier, target, restorable=restorable)
    return all(c.passed for c in checks if c.kind in ("effect", "unrecorded"))


def test_an_undo_of_two_edits_where_the_recording_undid_one_fails():
    """Typed "Hello", typed "world", opened Edit, chose Undo: the recording is left with
    "Hello"; today both words go, which is the screen before the first edit."""

    def frames(at):  # the screen before each of the four steps
        words = ("Hello", "world")
        return (
            editor(at=at, menu=False),
            editor(at=at, menu=False, words=words[:1]),
            editor(at=at, menu=False, words=words),
            editor(at=at, menu=True, words=words),
        )

    recorded, today = frames(10), frames(30)
    after = editor(at=10, menu=False, words=("Hello",))
    back = [(recorded[k], today[k]) for k in (2, 1, 0)]
    assert not passed(recorded[3], after, editor(at=30, menu=False), today[3], back)


def test_a_cancel_that_also_took_five_small_marks_away_fails():
    recorded = inbox(at=10, dialog=False), inbox(at=10, dialog=True)
    today = inbox(at=30, dialog=False), inbox(at=30, dialog=True)
    back = [(recorded[0], today[0])]
    wrong = inbox(at=30, dialog=False, dots=False)
    assert not passed(recorded[1], recorded[0], wrong, today[1], back, target=(82, 122))
    right = inbox(at=30, dialog=False)
    assert passed(recorded[1], recorded[0], right, today[1], back, target=(82, 122))

"""An effect that brought back what an earlier step's screen showed (compare/restored.py):
a menu closed over a banner that another layout centres elsewhere. Today's screen is
compared with today's screen before the step that opened the menu; only where the recorded
effect is that restoration and today's step drew it."""

from __future__ import annotations

import cv2
import numpy as np

from tests.step_checks import effects_of, step_checks

W, H = 400, 200
MENU = (40, 40, 160, 100)  # the open menu, over the banner
ITEM = (60, 60)  # the item pressed, which closes it


def screen(*, banner_at: int, menu: bool, banner: str = "Warning: root account") -> np.ndarray:
    """The banner's text at `banner_at`; today's layouts (x > 10) draw it a size larger."""
    rgb = np.full((H, W, 3), 235, np.uint8)
    cv2.rectangle(rgb, (0, 88), (W - 1, 112), (60, 40, 160), -1)
    size = 1.0 if banner_at <= 10 else 1.2
    cv2.putText(rgb, banner, (banner_at, 106), cv2.FONT_HERSHEY_PLAIN, size, (255,) * 3, 1)
    if menu:
        x, y, w, h = MENU
        cv2.rectangle(rgb, (x, y), (x + w, y + h), (250, 250, 250), -1)
        for i, name in enumerate(("Cut", "Copy", "Paste")):
            cv2.putText(rgb, name, (x + 12, y + 25 + 30 * i), cv2.FONT_HERSHEY_PLAIN, 1.0, (0,) * 3)
    return rgb


# recorded: the banner at x=10; the step before opened the menu, this one closes it
OPENED_BEFORE = screen(banner_at=10, menu=False)
RECORDED = screen(banner_at=10, menu=True), screen(banner_at=10, menu=False)


def checks(today_before_open, earlier, today, *, restorable=True, recorded=RECORDED):
    back = [(OPENED_BEFORE, today_before_open)] if restorable else []
    return step_checks(*recorded, today, earlier, ITEM, restorable=back)


def effects(found):
    return effects_of(found)


def test_a_closed_menu_over_a_banner_centred_elsewhere_passes_as_restored():
    """A wider window centres the banner at x=120, in a bigger font: what the closed menu
    reveals differs from the recording, and is what today's screen showed before the menu
    opened."""
    opened, closed = screen(banner_at=120, menu=True), screen(banner_at=120, menu=False)
    found = effects(checks(closed, opened, closed))
    assert found and all(c.passed for c in found), [c.describe() for c in found]
    assert any(c.match == "restored" for c in found)
    # without the earlier screens the revealed layout fails, as it did
    blind = effects(checks(closed, opened, closed, restorable=False))
    assert not all(c.passed for c in blind)


def test_a_step_that_restored_nothing_today_fails():
    """The menu never opened today and the step did nothing."""
    shown = screen(banner_at=120, menu=False)
    found = effects(checks(shown, shown.copy(), shown.copy()))
    assert not all(c.passed for c in found), [c.describe() for c in found]


def test_something_else_where_the_menu_was_fails():
    """The menu closed today, but what it reveals is not what was there before it opened
    (the step also changed the banner)."""
    opened = screen(banner_at=120, menu=True)
    other = screen(banner_at=120, menu=False, banner="Deleted: every file")
    found = effects(checks(screen(banner_at=120, menu=False), opened, other))
    assert not all(c.passed for c in found), [c.describe() for c in found]


def test_an_effect_that_is_no_restoration_in_the_recording_is_compared_as_before():
    """The recorded item changed the banner as the menu closed: its effect is no screen
    brought back, and another banner today fails however the layout moved."""
    recorded = RECORDED[0], screen(banner_at=10, menu=False, banner="Copied: 3 lines")
    opened = screen(banner_at=120, menu=True)
    today = screen(banner_at=120, menu=False)
    found = effects(checks(today, opened, today, recorded=recorded))
    assert not all(c.passed for c in found), [c.describe() for c in found]


def test_a_cancel_that_closed_its_dialog_and_deleted_the_file_anyway_fails():
    """What the dialog covered is brought back, but the step also took a row away outside
    it, which another layout keeps from being compared with the recording (a red-line
    review's case): no restoration."""
    opened = screen(banner_at=120, menu=True)
    gone = screen(banner_at=120, menu=False)
    gone[0:30, :] = 235  # the file's row, above the dialog, deleted
    before_open = screen(banner_at=120, menu=False)
    before_open[0:30, :] = 235
    cv2.putText(before_open, "report.pdf  12 KB", (220, 22), cv2.FONT_HERSHEY_PLAIN, 1.2, (0,) * 3)
    opened[0:30, :] = before_open[0:30, :]
    found = effects(checks(before_open, opened, gone))
    assert not all(c.passed for c in found), [c.describe() for c in found]
    kept = effects(checks(before_open, opened, before_open.copy()))
    assert all(c.passed for c in kept), [c.describe() for c in kept]

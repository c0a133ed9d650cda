"""Regions that moved by themselves, widened to the box of the object that animates there
(recorder/animating.py), on objects the tree would answer."""

from __future__ import annotations

from deskreel.recorder.animating import widened
from deskreel.storage.widgets import Widget

BAR = (100, 50, 300, 20)  # a progress bar
ENTRY = (100, 100, 300, 30)  # an entry whose caret blinks


def obj(role: str, box) -> Widget:
    return Widget("atspi", "app", role, "", box, (0, 0), (), "", (), -1)


def at(point):
    x, y = point
    for role, (bx, by, bw, bh) in (("progress bar", BAR), ("text", ENTRY)):
        if bx <= x < bx + bw and by <= y < by + bh:
            return obj(role, (bx, by, bw, bh))
    return None


def test_a_pulse_seen_at_two_places_masks_the_whole_bar_once():
    seen = [(157, 47, 46, 26), (297, 47, 46, 26)]  # the block, grown by 3 px
    assert widened(seen, at) == [(97, 47, 306, 26)]


def test_a_caret_in_an_entry_or_a_region_off_the_bar_stays_as_seen():
    caret = (147, 104, 8, 22)
    beside = (380, 20, 20, 80)  # its centre on the bar, most of it above and below it
    nowhere = (600, 300, 20, 20)
    assert widened([caret, beside, nowhere], at) == [caret, beside, nowhere]

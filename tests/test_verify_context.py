"""An effect's context (compare/content.py's Content.changed_by_step): the pixels around what
a step changed, kept to find where the effect is. Where neither the recorded step nor
today's drew a context pixel, it differs by the layout around the effect (a container's
edge that a bigger window moved), and does not fail the step; what either step drew always
counts, and a look-alike that was there before the step is no effect of it."""

from __future__ import annotations

import numpy as np

from tests.step_checks import effects_of, step_checks

W, H = 160, 100
GLYPH = (50, 40, 6, 8)  # the mark the step draws
EDGE = 64  # a container's edge, a vertical line beside the mark, in the recording


def screen(*, glyph: bool, edge: int | None = EDGE, extra: tuple[int, int] | None = None):
    rgb = np.full((H, W, 3), 235, np.uint8)
    if edge is not None:
        rgb[20:80, edge] = 120
    if glyph:
        x, y, w, h = GLYPH
        rgb[y : y + h, x : x + w] = 20
    if extra is not None:
        rgb[extra[1] : extra[1] + 5, extra[0] : extra[0] + 3] = 20
    return rgb


RECORDED = screen(glyph=False), screen(glyph=True)


def effects(earlier, today):
    return effects_of(step_checks(*RECORDED, today, earlier, (52, 44)))


def test_a_container_edge_the_layout_moved_beside_the_effect_does_not_fail_it():
    [effect] = effects(screen(glyph=False, edge=90), screen(glyph=True, edge=90))
    assert effect.passed, effect.describe()


def test_what_todays_step_drew_in_the_context_still_counts():
    """A second mark drawn beside the right one."""
    checks = effects(screen(glyph=False, edge=90), screen(glyph=True, edge=90, extra=(59, 41)))
    assert not all(c.passed for c in checks), [c.describe() for c in checks]


def test_a_missing_or_other_mark_still_fails():
    [effect] = effects(screen(glyph=False, edge=90), screen(glyph=False, edge=90))
    assert not effect.passed
    other = screen(glyph=False, edge=90)
    other[40:48, 50:53] = 20  # half the mark
    assert not all(c.passed for c in effects(screen(glyph=False, edge=90), other))


def test_a_look_alike_shown_before_the_step_is_no_effect_of_it():
    """Another box's tick just above, there before the step, beside another layout: today's
    step drew nothing."""
    before = screen(glyph=False, edge=90)
    before[14:22, 50:56] = 20  # a tick 26 px above, already shown
    [effect] = effects(before, before.copy())
    assert not effect.passed, effect.describe()


def test_without_the_screen_before_the_step_the_context_counts():
    [effect] = effects(None, screen(glyph=True, edge=90))
    assert not effect.passed


def form(ticked: tuple[bool, bool], *, flicker: bool = False) -> np.ndarray:
    """Two labelled check boxes, 20 px apart; only their labels tell them apart, and the
    first letters of each lie in the context of the other's tick."""
    import cv2

    rgb = np.full((160, 240, 3), 235, np.uint8)
    for (x, y), label, tick in zip(((40, 40), (40, 60)), ("Wipe disk", "Keep data"), ticked):
        rgb[y : y + 13, x : x + 13] = 120
        rgb[y + 1 : y + 12, x + 1 : x + 12] = 255
        if tick:
            cv2.line(rgb, (x + 3, y + 6), (x + 5, y + 9), (20, 20, 20), 2, cv2.LINE_AA)
            cv2.line(rgb, (x + 5, y + 9), (x + 10, y + 3), (20, 20, 20), 2, cv2.LINE_AA)
        cv2.putText(
            rgb, label, (x + 16, y + 11), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (20,) * 3, 1, cv2.LINE_AA
        )
    if flicker:
        rgb[66, 45] = 0  # one pixel of the other box's tick changes: a focus ring's dot
    return rgb


def test_the_wrong_box_ticked_or_a_look_alike_that_flickered_is_never_excused():
    """The step ticks the box below instead (its tick matches the recorded one, its label
    does not); or it ticks nothing, the box below was ticked already and a pixel of it
    changed during the step."""
    recorded = form((False, False)), form((True, False))
    for earlier, today in (
        (form((False, False)), form((False, True))),
        (form((False, True)), form((False, True), flicker=True)),
    ):
        checks = step_checks(*recorded, today, earlier, None, action="key")
        assert not all(c.passed for c in checks), [c.describe() for c in checks]

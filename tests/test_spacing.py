"""The rests a replay keeps at any speed, decided without X (replayer/spacing.py)."""

from __future__ import annotations

import math

from deskreel.replayer.spacing import MARGIN, Spacing
from deskreel.storage import Action
from deskreel.storage.grouping import InputSettings


def click(name: str = "left_click", at: tuple[int, int] = (100, 100)) -> Action:
    return Action(name, coordinate=at)


def test_a_click_near_the_last_one_of_its_button_waits_out_the_multi_click_time():
    spacing = Spacing(multi_click_time=0.4, multi_click_distance=5)
    spacing.done(click(), (100, 100), now=10.0)
    assert spacing.not_before(click(), (103, 104)) == 10.4 + MARGIN
    assert spacing.not_before(click("double_click"), (100, 100)) == 10.4 + MARGIN
    assert spacing.not_before(click(), (106, 100)) == -math.inf  # further than 5 px
    assert spacing.not_before(click("right_click"), (100, 100)) == -math.inf
    assert spacing.not_before(Action("key", text="a"), None) == -math.inf


def test_a_drag_or_long_press_after_a_click_there_waits_too():
    # an application counts the press that starts a drag into a multi-click as well
    spacing = Spacing(multi_click_time=0.5, multi_click_distance=5)
    spacing.done(click(), (100, 100), now=1.0)
    drag = Action("left_click_drag", start_coordinate=(101, 100), coordinate=(300, 300))
    assert spacing.not_before(drag, drag.target) == 1.5 + MARGIN
    spacing.done(drag, drag.target, now=2.0)
    assert spacing.not_before(click(), (100, 100)) == 2.5 + MARGIN
    assert (
        spacing.not_before(Action("left_mouse_down", coordinate=(100, 100)), (100, 100))
        == 2.5 + MARGIN
    )


def test_pointer_input_after_a_hover_waits_for_the_hover_to_rest():
    spacing = Spacing(multi_click_time=0.5, multi_click_distance=5, hover_time=1.0)
    spacing.done(Action("mouse_move", coordinate=(10, 10)), (10, 10), now=3.0)
    assert spacing.not_before(click(at=(500, 500)), (500, 500)) == 4.0 + MARGIN
    assert spacing.not_before(Action("type", text="hi"), None) == -math.inf  # keys go on
    spacing.done(click(at=(500, 500)), (500, 500), now=4.1)
    assert spacing.not_before(Action("mouse_move", coordinate=(0, 0)), (0, 0)) == -math.inf


def test_the_longest_multi_click_time_and_widest_distance_of_the_two_settings():
    spacing = Spacing.of(
        InputSettings(multi_click_time=0.3, multi_click_distance=8),
        InputSettings(multi_click_time=0.5, multi_click_distance=4),
    )
    assert (spacing.multi_click_time, spacing.multi_click_distance) == (0.5, 8)

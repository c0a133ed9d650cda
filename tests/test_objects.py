"""The object stage's rules (matching/objects.py), one case each, and what they stand on:
reading order, the press moved into today's box, the recorder's redaction of names. Each
case names the rule that answers it, so removing a rule fails its case."""

from __future__ import annotations

import zlib
from dataclasses import replace

import numpy as np
import pytest

from deskreel.matching import (
    REFUSED,
    Query,
    acts_on_whole,
    at_recorded_place,
    by_object,
    locate,
    point_in,
)
from deskreel.recorder.aiming import answer_for_press, box_changed, object_of_press
from deskreel.recorder.meaning import said_after
from deskreel.recorder.privacy import TypingRedaction
from deskreel.recorder.screen import FrameTimeline, WidgetSeen
from deskreel.storage.widgets import After, Widget, reading_order

APPLY = Widget(
    source="atspi",
    app="form",
    role="push button",
    name="Apply",
    box=(300, 100, 80, 30),
    point=(20, 15),
    path=(("frame", 0), ("panel", 1), ("push button", 1)),
    parent="",
    siblings=(("label", "Mail server"), ("push button", "Apply")),
    rank=1,
    states=("enabled", "sensitive", "showing"),
    window="frame 'twin form'",
    alike=2,
    placed=1,
)
TWIN = replace(
    APPLY,
    box=(300, 60, 80, 30),
    path=(("frame", 0), ("panel", 0), ("push button", 1)),
    siblings=(("label", "Proxy server"), ("push button", "Apply")),
)


def moved(widget: Widget, dx: int, dy: int) -> Widget:
    x, y, w, h = widget.box
    return replace(widget, box=(x + dx, y + dy, w, h))


def test_the_twin_in_the_same_surroundings_is_found_wherever_the_rows_went() -> None:
    today = [moved(APPLY, 200, -40), moved(TWIN, 200, 40)]  # swapped and moved
    answer = by_object(APPLY, today)
    assert answer.widget == today[0], answer.why
    assert point_in(answer.widget, APPLY) == (520, 75)


def test_twins_whose_surroundings_are_the_same_are_left_to_the_pixels() -> None:
    same = replace(TWIN, siblings=APPLY.siblings)
    answer = by_object(APPLY, [APPLY, same])
    assert not answer.decided and answer.why == "twins"


def test_twins_that_stood_in_the_same_surroundings_stay_undecided_when_one_is_left() -> None:
    """Recorded, two Delete buttons stood alike (placed 2); today one is left: it may be
    the other row's."""
    recorded = replace(APPLY, placed=2)
    answer = by_object(recorded, [APPLY])
    assert not answer.decided and answer.why == "twins"


def test_the_same_surroundings_in_another_window_are_another_place() -> None:
    """[Cancel, OK] is the same row in every dialog: the window tells them apart."""
    other = replace(APPLY, window="dialog 'Delete all?'")
    assert not by_object(APPLY, [other]).decided
    lone = replace(APPLY, alike=1)
    assert not by_object(lone, [other]).decided


def test_an_object_of_an_unknown_application_is_left_to_the_pixels() -> None:
    assert not by_object(replace(APPLY, app=""), [APPLY]).decided


def test_an_insensitive_object_is_waited_for() -> None:
    answer = by_object(APPLY, [replace(APPLY, states=("enabled", "showing"))])
    assert answer.widget is None and answer.refusal is not None
    assert answer.refusal.rule == "object-insensitive"
    insensitive_then = replace(APPLY, states=("showing",))
    assert by_object(insensitive_then, [insensitive_then]).widget == insensitive_then


def test_a_named_object_that_is_nowhere_is_refused_as_gone() -> None:
    answer = by_object(APPLY, [])
    assert answer.widget is None and answer.refusal is not None
    assert answer.refusal.rule == "object-gone" and answer.refusal.measured == 0
    located = locate(np.zeros((8, 8, 3), np.uint8), Query(None, widget=APPLY), ask=lambda _: answer)
    assert not located.found and located.refusal == answer.refusal and located.by_object
    tried = located.tried("object")
    assert tried is not None and tried.outcome == REFUSED and tried.about.startswith(APPLY.label)


def test_an_unnamed_object_that_is_nowhere_is_left_to_the_pixels() -> None:
    unnamed = replace(APPLY, name="")
    assert not by_object(unnamed, []).decided


def test_without_a_tree_today_the_pixels_decide() -> None:
    assert not by_object(APPLY, None).decided


def test_a_lone_object_then_and_now_is_found_even_where_its_siblings_changed() -> None:
    lone = replace(APPLY, alike=1)
    today = replace(APPLY, siblings=(("label", "Outgoing mail"), ("push button", "Apply")))
    assert by_object(lone, [today]).widget == today
    # the same change with a twin recorded: what is left may be the twin
    assert not by_object(APPLY, [today]).decided
    # nor when two are there today
    assert not by_object(lone, [today, replace(today, box=(0, 0, 9, 9))]).decided
    # an unnamed lone object is no identity: any unnamed one would do
    unnamed = replace(lone, name="")
    assert not by_object(unnamed, [replace(today, name="")]).decided


def test_a_point_in_content_is_never_decided_by_its_object() -> None:
    text = replace(APPLY, role="text", states=("multi-line",))
    assert not acts_on_whole(text) and not by_object(text, [text]).decided
    assert at_recorded_place(replace(text, alike=1), replace(text, alike=1)) is None
    entry = replace(APPLY, role="text", states=("single-line",))
    assert acts_on_whole(entry) and by_object(entry, [entry]).widget == entry
    for role in ("document web", "canvas", "filler", "table", "scroll bar", "label"):
        assert not acts_on_whole(replace(APPLY, role=role)), role


def test_the_object_at_its_place_is_taken_only_when_it_had_no_twin() -> None:
    lone = replace(APPLY, alike=1)
    found = at_recorded_place(lone, APPLY)
    assert found is not None and found.widget == APPLY
    assert at_recorded_place(APPLY, APPLY) is None  # a twin: the application is searched
    assert at_recorded_place(lone, TWIN) is None  # elsewhere among its siblings
    assert at_recorded_place(lone, replace(APPLY, name="Save")) is None
    assert at_recorded_place(lone, None) is None
    unnamed = replace(lone, name="")
    assert at_recorded_place(unnamed, unnamed) is None  # no name: no identity


def test_a_place_without_known_siblings_is_no_place() -> None:
    """rank -1: the parent had too many children to be read as a context."""
    unknown = replace(APPLY, siblings=(), rank=-1)
    assert not by_object(unknown, [unknown]).decided
    assert at_recorded_place(replace(unknown, alike=1), unknown) is None


def test_a_press_at_the_edge_stays_inside_a_shrunk_object() -> None:
    edge = replace(APPLY, point=(79, 29))  # the last pixel of its 80x30 box
    shrunk = replace(APPLY, box=(10, 20, 10, 10))
    assert point_in(shrunk, edge) == (19, 29)  # unclamped: (20, 30), outside the box


def test_the_press_keeps_its_place_on_a_grown_object() -> None:
    grown = replace(APPLY, box=(10, 20, 160, 60))
    assert point_in(grown, APPLY) == (10 + 40, 20 + 30)
    tiny = replace(APPLY, box=(10, 20, 1, 1))
    assert point_in(tiny, APPLY) == (10, 20)


@pytest.mark.parametrize(
    ("boxes", "order"),
    [
        ([(100, 10, 50, 20), (0, 12, 60, 30), (0, 60, 40, 20)], [1, 0, 2]),  # one row, then
        ([(0, 50, 10, 10), (0, 0, 10, 10)], [1, 0]),  # top first
        ([(50, 0, 10, 40), (0, 30, 10, 10)], [1, 0]),  # its middle within the row: beside
        ([(50, 0, 10, 40), (0, 45, 10, 10)], [0, 1]),  # its middle below the row: next row
    ],
)
def test_reading_order(boxes, order) -> None:
    assert reading_order(boxes) == order


def test_redacted_typing_keeps_no_object() -> None:
    assert TypingRedaction(enabled=True).widget(APPLY) is None
    assert TypingRedaction(enabled=False).widget(APPLY) == APPLY


SEEN = WidgetSeen(asked=10.0, t=10.03, point=(320, 115), widget=APPLY)


def test_a_press_gets_the_answer_asked_at_its_point_before_it() -> None:
    found = answer_for_press(SEEN, 10.5, (320, 115), presses=[10.5])
    assert found is not None and found.point == (20, 15) and found.label == APPLY.label


@pytest.mark.parametrize(
    ("seen", "point", "presses", "why"),
    [
        (SEEN, (400, 115), [], "asked at a point outside it"),
        (replace(SEEN, widget=replace(APPLY, role="text")), (321, 115), [], "content elsewhere"),
        (SEEN, (320, 115), [10.1], "another press after the question"),
        (replace(SEEN, widget=None), (320, 115), [], "nothing there, or private"),
        (None, (320, 115), [], "never asked"),
    ],
)
def test_a_press_gets_no_answer_that_may_be_old(seen, point, presses, why) -> None:
    assert answer_for_press(seen, 10.5, point, presses) is None, why


def test_a_press_elsewhere_on_a_control_gets_the_answer_asked_while_resting_on_it() -> None:
    """The pointer rested on a button, then moved a pixel and pressed: a press anywhere on
    a control works alike, so the answer holds, and says how it was asked."""
    found = answer_for_press(SEEN, 10.5, (321, 117), presses=[10.5])
    assert found is not None and found.label == APPLY.label
    assert found.point == (21, 17) and found.asked == "nearby"


def screens(*shades: tuple[float, int, int]) -> FrameTimeline:
    """A timeline of 64x48 screens: at each time, the left half at one grey, the right at
    another."""
    timeline = FrameTimeline()
    for t, left, right in shades:
        bgra = np.zeros((48, 64, 4), np.uint8)
        bgra[:, :32, :3], bgra[:, 32:, :3] = left, right
        raw = bgra.tobytes()
        timeline.add(t, zlib.crc32(raw), 64, 48, raw)
    return timeline


def test_the_screen_changing_inside_the_object_after_the_question_voids_it() -> None:
    timeline = screens((1.0, 10, 10), (2.0, 10, 99), (3.0, 50, 99))
    left, right = (0, 0, 32, 48), (32, 0, 32, 48)
    assert not box_changed(timeline, left, 1.5, 2.9)  # only the right half changed
    assert box_changed(timeline, right, 1.5, 2.9)
    assert box_changed(timeline, left, 2.5, 3.5)
    assert not box_changed(timeline, right, 2.5, 3.5)
    assert box_changed(timeline, left, 0.5, 1.5)  # from before the first frame held: unknown


def over_apply(*shades: tuple[float, int]) -> FrameTimeline:
    """A timeline of 400x160 screens: at each time, the right end of APPLY's box (where a
    submenu or a tooltip opens over it) at one grey."""
    timeline = FrameTimeline()
    for t, shade in shades:
        bgra = np.zeros((160, 400, 4), np.uint8)
        bgra[100:130, 370:380, :3] = shade
        raw = bgra.tobytes()
        timeline.add(t, zlib.crc32(raw), 400, 160, raw)
    return timeline


AGAIN = WidgetSeen(asked=10.3, t=10.6, point=(320, 115), widget=APPLY)  # answered after the press


def test_an_object_covered_in_part_after_the_question_is_kept_when_asked_again_alike() -> None:
    timeline = over_apply((9.0, 0), (10.2, 200))  # a submenu opens over its edge at 10.2
    for seen in (SEEN, AGAIN):
        timeline.note_widget(seen)
    found = object_of_press(timeline, 10.5, (320, 115), [10.5])
    assert found is not None and found.label == APPLY.label and found.point == (20, 15)


@pytest.mark.parametrize(
    ("shades", "later", "why"),
    [
        (((9.0, 0), (10.2, 200)), None, "not asked again"),
        (((9.0, 0), (10.2, 200)), replace(AGAIN, widget=TWIN), "asked again: another object"),
        (((9.0, 0), (10.2, 200)), replace(AGAIN, point=(321, 115)), "asked again elsewhere"),
        (((9.0, 0), (10.2, 200)), replace(AGAIN, asked=10.1), "asked again before the change"),
        (((9.0, 0), (10.2, 200), (10.4, 90)), AGAIN, "changed again after it was asked again"),
    ],
)
def test_an_object_changed_after_the_question_is_not_kept_unconfirmed(shades, later, why) -> None:
    timeline = over_apply(*shades)
    for seen in (SEEN, later):
        if seen is not None:
            timeline.note_widget(seen)
    assert object_of_press(timeline, 10.5, (320, 115), [10.5]) is None, why


AFTER = WidgetSeen(asked=10.6, t=10.7, point=(320, 115), widget=APPLY)  # asked after the press


def test_an_object_whose_look_changed_is_kept_when_asked_again_after_the_press() -> None:
    """A hover look or a toggle's state changes the box before the press; the question
    after the press names the same object: the change left it as it was."""
    timeline = over_apply((9.0, 0), (10.2, 200))
    for seen in (SEEN, AFTER):
        timeline.note_widget(seen)
    found = object_of_press(timeline, 10.5, (320, 115), [10.5])
    assert found is not None and found.label == APPLY.label and found.asked == "again"
    other = over_apply((9.0, 0), (10.2, 200))
    for seen in (SEEN, replace(AFTER, widget=TWIN)):
        other.note_widget(seen)
    assert object_of_press(other, 10.5, (320, 115), [10.5]) is None, "another object, not here"


def hovering(changes: list[float], beside: float | None = None) -> FrameTimeline:
    """A timeline of 400x160 screens in which APPLY's look changes at each of `changes` (a
    hover transition, drawn frame by frame), and the screen beside it at `beside`; a frame
    is grabbed every 40 ms from 9.0 s on."""
    timeline = FrameTimeline()
    t, look, aside = 9.0, 0, 0
    while t < 10.8:
        look += sum(1 for c in changes if t - 0.04 < c <= t)
        aside = 200 if beside is not None and t >= beside else 0
        bgra = np.zeros((160, 400, 4), np.uint8)
        bgra[102:128, 302:378, :3] = 40 + 50 * (look % 2)
        bgra[10:40, 10:100, :3] = aside
        raw = bgra.tobytes()
        timeline.add(t, zlib.crc32(raw), 400, 160, raw)
        t = round(t + 0.04, 3)
    return timeline


RESTING = [WidgetSeen(10.0 + n * 0.07, 10.01 + n * 0.07, (320, 115), APPLY) for n in range(6)]
TRANSITION = [10.0 + n * 0.04 for n in range(13)]  # the look changes to the press and on


def test_a_press_whose_look_kept_changing_keeps_what_every_question_named() -> None:
    """The pointer came to rest on a button and pressed 0.35 s later, in the middle of its
    hover transition: no question was followed by a still look, yet each named the same
    button, and nothing but the button changed from the last question to the press."""
    timeline = hovering(TRANSITION)
    for seen in RESTING:
        timeline.note_widget(seen)
    found = object_of_press(timeline, 10.37, (320, 115), [10.37])
    assert found is not None and found.label == APPLY.label and found.asked == "watched"


@pytest.mark.parametrize(
    ("asked", "beside", "presses", "why"),
    [
        (RESTING[-1:], None, [10.37], "asked once: no question saw the look change"),
        ([replace(RESTING[0], widget=TWIN), *RESTING[1:]], None, [10.37], "named another"),
        ([replace(RESTING[0], point=(330, 115)), RESTING[-1]], None, [10.37], "not resting"),
        (RESTING, 10.36, [10.37], "the screen beside it changed after the last question"),
        (RESTING, None, [10.3, 10.37], "a press between the questions"),
        (
            [*RESTING, WidgetSeen(10.36, 10.41, (320, 115), TWIN)],
            None,
            [10.37],
            "a question in flight at the press named another",
        ),
        (
            [replace(r, widget=replace(APPLY, role="text")) for r in RESTING],
            None,
            [10.37],
            "a point in a text: a popup of its own may open there",
        ),
        (
            [replace(r, widget=replace(APPLY, source="xwindow")) for r in RESTING],
            None,
            [10.37],
            "an X window: its children are not known",
        ),
    ],
)
def test_a_changing_look_is_not_kept_unless_watched_as_it_changed(
    asked, beside, presses, why
) -> None:
    timeline = hovering(TRANSITION, beside)
    for seen in asked:
        timeline.note_widget(seen)
    assert object_of_press(timeline, 10.37, (320, 115), presses) is None, why


def test_a_press_never_asked_before_gets_the_answer_asked_at_its_point_after_it() -> None:
    """The pointer came and pressed at once: the question after the press, at its point,
    names what was pressed, where nothing changed inside that object since the press."""
    timeline = over_apply((9.0, 0))
    timeline.note_widget(AFTER)
    found = object_of_press(timeline, 10.5, (320, 115), [10.5])
    assert found is not None and found.asked == "after" and found.point == (20, 15)
    opened = over_apply((9.0, 0), (10.55, 200))  # the press changed it (a menu over it)
    opened.note_widget(AFTER)
    assert object_of_press(opened, 10.5, (320, 115), [10.5]) is None
    assert object_of_press(timeline, 10.5, (320, 115), [10.5, 10.55]) is None, "a press between"


TICKED = replace(APPLY, states=("enabled", "checked", "focused", "showing"))


@pytest.mark.parametrize(
    ("shades", "asked", "expected", "why"),
    [
        (((9.0, 0), (10.52, 200)), [AFTER], After("Apply", ()), "asked after it was drawn"),
        (((9.0, 0),), [replace(AFTER, widget=TICKED)], After("Apply", ("checked",)), "checked"),
        (((9.0, 0), (10.52, 200)), [replace(AFTER, asked=10.51)], None, "asked before drawn"),
        (((9.0, 0), (10.65, 200)), [AFTER], None, "changed while it was asked"),
        (((9.0, 0), (10.8, 200)), [AFTER], After("Apply", ()), "a caret blinking after it"),
        (((9.0, 0),), [AFTER, replace(AFTER, asked=10.8, widget=TWIN)], None, "left its point"),
        (((9.0, 0),), [replace(AFTER, point=(321, 115))], None, "asked elsewhere"),
        (((9.0, 0),), [replace(AFTER, t=11.2)], None, "answered after the next step began"),
    ],
)
def test_what_a_pressed_object_said_after_its_step(shades, asked, expected, why) -> None:
    """The step ended at 10.5 s and the next began at 11 s: the object's name and meant
    states, as the last question at the press point before then named them."""
    timeline = over_apply(*shades)
    for seen in asked:
        timeline.note_widget(seen)
    assert said_after(timeline, APPLY, (320, 115), 10.5, 11.0) == expected, why
    window = replace(APPLY, source="xwindow")  # an X window says nothing of itself
    assert said_after(timeline, window, (320, 115), 10.5, 11.0) is None


def test_what_an_object_said_after_its_step_is_stored_with_it() -> None:
    from deskreel.storage.widgets import widget_from_json, widget_to_json

    ticked = replace(APPLY, after=After("Apply", ("checked",)))
    assert widget_from_json(widget_to_json(ticked)) == ticked
    assert widget_from_json(widget_to_json(APPLY)) == APPLY  # not known: kept unknown
    text = widget_to_json(ticked)
    assert text is not None and widget_from_json(text.replace('"checked"', "7")) is not None
    assert widget_from_json(text.replace('"states": ["checked"]', '"states": 3')) is None

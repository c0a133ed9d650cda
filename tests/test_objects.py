"""The object stage's rules (matching/objects.py), one case each, and what they stand on:
reading order, the press moved into today's box, the recorder's redaction of names. Each
case names the rule that answers it, so removing a rule fails its case."""

from __future__ import annotations

from dataclasses import replace

import pytest

from matching.objects import acts_on_whole, at_recorded_place, by_object, object_located, point_in
from recorder.privacy import TypingRedaction
from storage.widgets import Widget, reading_order

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
    alike=2,
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
    assert answer.widget == today[0], answer.reason
    assert point_in(answer.widget, APPLY) == (520, 75)


def test_twins_whose_surroundings_are_the_same_are_left_to_the_pixels() -> None:
    same = replace(TWIN, siblings=APPLY.siblings)
    answer = by_object(APPLY, [APPLY, same])
    assert not answer.decided and "twins" in answer.reason


def test_a_named_object_that_is_nowhere_is_refused_as_gone() -> None:
    answer = by_object(APPLY, [])
    assert answer.widget is None and answer.refusal is not None
    assert answer.refusal.rule == "object-gone" and answer.refusal.measured == 0
    located = object_located(answer, APPLY, 3.0)
    assert not located.found and located.refusal == answer.refusal
    assert "push button 'Apply'" in located.reason


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


def test_a_point_in_content_is_never_decided_by_its_object() -> None:
    text = replace(APPLY, role="text", states=("multi-line",))
    assert not acts_on_whole(text) and not by_object(text, [text]).decided
    entry = replace(APPLY, role="text", states=("single-line",))
    assert acts_on_whole(entry) and by_object(entry, [entry]).widget == entry
    for role in ("document web", "canvas", "filler", "table"):
        assert not acts_on_whole(replace(APPLY, role=role)), role


def test_the_object_at_its_place_is_taken_only_when_it_had_no_twin() -> None:
    lone = replace(APPLY, alike=1)
    found = at_recorded_place(lone, APPLY)
    assert found is not None and found.widget == APPLY
    assert at_recorded_place(APPLY, APPLY) is None  # a twin: the application is searched
    assert at_recorded_place(lone, TWIN) is None  # elsewhere among its siblings
    assert at_recorded_place(lone, replace(APPLY, name="Save")) is None
    assert at_recorded_place(lone, None) is None


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


def test_redacted_typing_keeps_no_name_of_the_object() -> None:
    kept = TypingRedaction(enabled=True).widget(replace(APPLY, description="sends mail"))
    assert kept is not None
    assert (kept.name, kept.parent, kept.description, kept.alike) == ("", "", "", 0)
    assert kept.siblings == (("label", ""), ("push button", ""))
    assert TypingRedaction(enabled=False).widget(APPLY) == APPLY

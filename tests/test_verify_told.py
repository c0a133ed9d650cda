"""--verify by what a window's objects tell (matching/compare/told.py), and how a step keeps
it (storage/told.py). The objects here are what a toolkit's tree tells, as values: the
comparison is pure. tests/test_objects_live.py records and replays a real GTK form."""

from __future__ import annotations

from dataclasses import replace

from deskreel.matching import Check, VerifyOptions, by_told
from deskreel.matching.compare import told_checks
from deskreel.storage.told import StepTold, Told, ToldObject, step_told_from_json, step_told_to_json

WINDOW = (0, 0, 400, 300)
DISPLAY = ToldObject((0, 0), "label", "", (10, 10, 200, 20), text="12")
TITLE = ToldObject((0, 1), "label", "Sum", (10, 40, 200, 20), text="Sum")
KEEP = ToldObject((0, 2), "check box", "Keep", (10, 70, 100, 20))


def told(*objects: ToldObject) -> Told:
    return Told(WINDOW, objects)


def says(text: str) -> ToldObject:
    return replace(DISPLAY, text=text)


RECORDED = StepTold(told(DISPLAY, TITLE, KEEP), told(says("46"), TITLE, KEEP))
# the effect the pixels saw: the display's digits, grown by the effect's margin
EFFECT = Check("effect", (8, 8, 120, 24), None, 0.5, 0.3, 40, False)


def test_the_same_text_after_the_step_passes_an_effect_its_pixels_failed():
    today = StepTold(told(DISPLAY, TITLE, KEEP), told(says("46"), TITLE, KEEP))
    checks = by_told([EFFECT], RECORDED, today, [], VerifyOptions())
    effect, meant = checks
    assert meant.kind == "meaning" and meant.passed and meant.said == ("'46'", "'46'")
    assert effect.passed and effect.match == "meaning" and effect.difference is None


def test_another_text_fails_naming_the_object_and_both_texts():
    today = StepTold(told(DISPLAY, TITLE, KEEP), told(says("47"), TITLE, KEEP))
    checks = by_told([EFFECT], RECORDED, today, [], VerifyOptions())
    effect, meant = checks
    assert not effect.passed and not meant.passed
    assert meant.describe() == "label after the step: recorded '46', today '47'"
    assert meant.difference is not None and meant.difference.rule == "meaning"


def test_a_state_the_step_set_is_compared_as_a_text_is():
    recorded = StepTold(told(DISPLAY, KEEP), told(DISPLAY, replace(KEEP, states=("checked",))))
    today = StepTold(told(DISPLAY, KEEP), told(DISPLAY, KEEP))
    [meant] = told_checks(recorded, today, [])
    assert not meant.passed and meant.said == ("'Keep' (checked)", "'Keep'")


def test_only_what_the_step_changed_is_compared():
    """The title told the same before and after the step: it is not the step's effect,
    and today's other title says nothing of the step."""
    today = StepTold(told(DISPLAY, TITLE), told(says("46"), replace(TITLE, text="Total")))
    [meant] = told_checks(RECORDED, today, [])
    assert meant.label == "label" and meant.passed


def test_an_object_that_began_otherwise_today_is_not_the_same_object():
    """Today's object at the display's place told something else before the step (another
    layout put another label there): nothing is said, in either direction."""
    for after in ("46", "99"):
        today = StepTold(told(says("7"), TITLE), told(says(after), TITLE))
        assert told_checks(RECORDED, today, []) == []
        assert by_told([EFFECT], RECORDED, today, [], VerifyOptions()) == [EFFECT]


def test_nothing_is_said_without_both_readings_on_both_sides():
    today = StepTold(told(DISPLAY), told(says("46")))
    for recorded, now in (
        (StepTold(None, RECORDED.after), today),
        (StepTold(RECORDED.before, None), today),
        (RECORDED, StepTold(None, today.after)),
        (RECORDED, StepTold(today.before, None)),
        (None, today),
        (RECORDED, None),
    ):
        assert told_checks(recorded, now, []) == []


def test_an_object_under_a_mask_is_not_compared():
    """A clock the recorder saw change by itself changes without the step."""
    today = StepTold(told(DISPLAY), told(says("47")))
    assert told_checks(RECORDED, today, [(100, 15, 10, 10)]) == []
    assert len(told_checks(RECORDED, today, [(300, 200, 10, 10)])) == 1


def test_an_effect_outside_the_object_is_not_passed_by_it():
    today = StepTold(told(DISPLAY), told(says("46")))
    elsewhere = replace(EFFECT, box=(10, 100, 120, 24))
    effect, meant = by_told([elsewhere], RECORDED, today, [], VerifyOptions())
    assert meant.passed and not effect.passed


def test_a_step_keeps_what_its_window_told_as_json():
    stored = StepTold(RECORDED.before, replace(RECORDED.after, cut="more than 600 objects"))
    assert step_told_from_json(step_told_to_json(stored)) == stored
    value = ToldObject((1,), "slider", "Volume", (0, 0, 9, 9), value=0.25)
    assert step_told_from_json(step_told_to_json(StepTold(None, told(value)))) == StepTold(
        None, told(value)
    )
    assert step_told_to_json(StepTold(None, None)) is None
    for damaged in ("", "{", '{"before": 3}', "[]", '{"after": {"objects": [{}]}}'):
        assert step_told_from_json(damaged) is None, damaged


def test_the_steps_own_object_judged_by_what_it_said_is_not_judged_twice():
    recorded = StepTold(told(KEEP), told(replace(KEEP, states=("checked",))))
    today = StepTold(told(KEEP), told(KEEP))
    own = Check("meaning", KEEP.box, KEEP.box, 0.0, 1.0, 0, False, label="check box 'Keep'")
    assert by_told([own], recorded, today, [], VerifyOptions()) == [own]

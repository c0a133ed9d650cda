"""--verify by what a window's objects tell (matching/compare/told.py), and how a step keeps
it (storage/told.py). The objects here are what a toolkit's tree tells, as values: the
comparison is pure. tests/test_objects_live.py records and replays a real GTK form."""

from __future__ import annotations

from dataclasses import replace

from deskreel.matching import Check, VerifyOptions, by_told
from deskreel.matching.compare import told_checks
from deskreel.storage.told import (
    TEXT_CAP,
    StepTold,
    Told,
    ToldObject,
    step_told_from_json,
    step_told_to_json,
)

WINDOW = (0, 0, 400, 300)


def text(path: tuple[int, ...], content: str, role: str = "label", **kw: object) -> ToldObject:
    return ToldObject(path, role, "", (10, 10, 200, 20), text=content, length=len(content), **kw)  # type: ignore[arg-type]


DISPLAY = text((0, 0), "12")
TITLE = replace(text((0, 1), "Sum"), name="Sum", box=(10, 40, 200, 20))
KEEP = ToldObject((0, 2), "check box", "Keep", (10, 70, 100, 20))


def told(*objects: ToldObject) -> Told:
    return Told(WINDOW, objects)


def says(content: str, like: ToldObject = DISPLAY) -> ToldObject:
    return replace(like, text=content, length=len(content))


RECORDED = StepTold(told(DISPLAY, TITLE, KEEP), told(says("46"), TITLE, KEEP))
# the effect the pixels saw: the display's digits, grown by the effect's margin, compared
# today where they were recorded
EFFECT = Check("effect", (8, 8, 120, 24), (8, 8, 120, 24), 0.5, 0.3, 40, False)


def today_says(content: str, like: ToldObject = DISPLAY) -> StepTold:
    return StepTold(told(like, TITLE, KEEP), told(says(content, like), TITLE, KEEP))


def judged(effect: Check, recorded: StepTold, today: StepTold) -> tuple[Check, Check]:
    out = by_told([effect], recorded, today, [], VerifyOptions())
    assert len(out) == 2, out
    return out[0], out[1]


def test_the_same_text_after_the_step_passes_an_effect_its_pixels_failed():
    effect, meant = judged(EFFECT, RECORDED, today_says("46"))
    assert meant.kind == "meaning" and meant.passed and meant.said == ("'46'", "'46'")
    assert meant.match == "vouches"
    assert effect.passed and effect.match == "meaning" and effect.difference is None


def test_another_text_fails_naming_the_object_and_both_texts():
    effect, meant = judged(EFFECT, RECORDED, today_says("47"))
    assert not effect.passed and not meant.passed
    assert meant.describe() == "label after the step: recorded '46', today '47'"
    assert meant.difference is not None and meant.difference.rule == "meaning"


def test_what_the_recording_told_last_before_the_next_step_passes_but_vouches_for_nothing():
    """A "Saving…" that became "Saved" before the next step: today's settled "Saved" is no
    failure, but the pixels of the after-frame ("Saving…") are not its to pass."""
    recorded = replace(RECORDED, after=told(says("Saving…")), later=told(says("Saved")))
    effect, meant = judged(EFFECT, recorded, today_says("Saved"))
    assert meant.passed and meant.match == "near" and not effect.passed
    assert not judged(EFFECT, recorded, today_says("Failed"))[1].passed


def test_a_state_the_step_set_is_compared_and_vouches_for_nothing():
    """A tree item that became expanded holds what it revealed: its state does not say it."""
    recorded = StepTold(told(DISPLAY, KEEP), told(DISPLAY, replace(KEEP, states=("checked",))))
    [meant] = told_checks(recorded, StepTold(told(DISPLAY, KEEP), told(DISPLAY, KEEP)), [])
    assert not meant.passed and meant.said == ("'Keep' (checked)", "'Keep'")
    checked = StepTold(told(DISPLAY, KEEP), recorded.after)
    box = replace(EFFECT, box=(8, 68, 104, 24), found_at=(8, 68, 104, 24))
    effect, meant = judged(box, recorded, checked)
    assert meant.passed and meant.match == "near" and not effect.passed


def test_only_an_object_that_draws_its_text_alone_vouches_for_its_pixels():
    """An entry draws icons and a selection beside its text; a container its children; a
    text cut at TEXT_CAP or holding embedded objects is not all of it."""
    long = "x" * (TEXT_CAP + 50)
    for recorded, today in (
        # an entry: its text right, an error icon beside it would not be in its text
        (
            StepTold(told(text((0, 0), "", "text")), told(text((0, 0), "ada", "text"))),
            StepTold(told(text((0, 0), "", "text")), told(text((0, 0), "ada", "text"))),
        ),
        # a container whose rows are embedded objects: a wrong row reads the same
        (
            StepTold(told(says("\ufffc\ufffc")), told(says("\ufffc\ufffc\ufffc"))),
            StepTold(told(says("\ufffc\ufffc")), told(says("\ufffc\ufffc\ufffc"))),
        ),
        # a label that holds another object
        (
            StepTold(told(DISPLAY), told(replace(says("46"), leaf=False))),
            StepTold(told(DISPLAY), told(replace(says("46"), leaf=False))),
        ),
        # a text longer than what is kept of it: it may differ past TEXT_CAP
        (
            StepTold(told(DISPLAY), told(replace(says(long), text=long[:TEXT_CAP]))),
            StepTold(told(DISPLAY), told(replace(says(long), text=long[:TEXT_CAP]))),
        ),
    ):
        effect, meant = judged(EFFECT, recorded, today)
        assert meant.passed and meant.match == "near", meant
        assert not effect.passed, recorded


def test_a_change_today_where_the_recording_shows_none_is_never_passed_by_a_text():
    """Something drawn over the display today (a toast) while its text is right."""
    drawn = replace(EFFECT, kind="unrecorded")
    effect, meant = judged(drawn, RECORDED, today_says("46"))
    assert meant.passed and not effect.passed


def test_an_effect_compared_outside_where_the_object_is_today_is_not_passed():
    """A banner pushed the display down today, its place in the tree the same: what is at
    the recorded place is the banner."""
    moved = StepTold(told(DISPLAY, TITLE), told(replace(says("46"), box=(10, 50, 200, 20)), TITLE))
    effect, meant = judged(EFFECT, RECORDED, moved)
    assert meant.passed and not effect.passed
    there = replace(EFFECT, found_at=(8, 48, 120, 24))
    assert judged(there, RECORDED, moved)[0].passed


def test_an_object_that_began_otherwise_today_is_not_the_same_object():
    """Today's object at the display's place told something else before the step (another
    layout put another label there): nothing is said, in either direction."""
    for after in ("46", "99"):
        today = StepTold(told(says("7"), TITLE), told(says(after), TITLE))
        assert told_checks(RECORDED, today, []) == []
        assert by_told([EFFECT], RECORDED, today, [], VerifyOptions()) == [EFFECT]


def test_a_text_that_did_not_answer_is_never_compared():
    unknown = replace(DISPLAY, text="", length=-1)
    for recorded, today in (
        (StepTold(told(unknown), told(says("46"))), today_says("46")),
        (RECORDED, StepTold(told(DISPLAY), told(unknown))),
        (RECORDED, StepTold(told(unknown), told(says("46")))),
    ):
        assert told_checks(recorded, today, []) == []


def test_nothing_is_said_without_both_readings_on_both_sides():
    today = today_says("46")
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
    assert told_checks(RECORDED, today_says("47"), [(100, 15, 10, 10)]) == []
    assert len(told_checks(RECORDED, today_says("47"), [(300, 200, 10, 10)])) == 1


def test_an_effect_outside_the_object_is_not_passed_by_it():
    elsewhere = replace(EFFECT, box=(10, 100, 120, 24), found_at=(10, 100, 120, 24))
    effect, meant = judged(elsewhere, RECORDED, today_says("46"))
    assert meant.passed and not effect.passed


def test_the_steps_own_object_judged_by_what_it_said_is_not_judged_twice():
    recorded = StepTold(told(KEEP), told(replace(KEEP, states=("checked",))))
    today = StepTold(told(KEEP), told(KEEP))
    own = Check("meaning", KEEP.box, KEEP.box, 0.0, 1.0, 0, False, label="check box 'Keep'")
    assert by_told([own], recorded, today, [], VerifyOptions()) == [own]


def test_a_step_keeps_what_its_window_told_as_json():
    stored = StepTold(RECORDED.before, replace(RECORDED.after, cut="more than 600 objects"))
    assert step_told_from_json(step_told_to_json(stored)) == stored
    value = ToldObject((1,), "slider", "Volume", (0, 0, 9, 9), value=0.25, leaf=False)
    unknown = replace(DISPLAY, text="", length=-1)
    kept = StepTold(None, None, told(value, unknown))
    assert step_told_from_json(step_told_to_json(kept)) == kept
    assert step_told_to_json(StepTold(None, None)) is None
    for damaged in ("", "{", '{"before": 3}', "[]", '{"after": {"objects": [{}]}}', "[" * 10**5):
        assert step_told_from_json(damaged) is None, damaged[:20]


def test_a_foreign_value_is_read_within_the_bounds_a_recorder_keeps():
    """A NaN never equals itself: it would fail an unchanged step; a text longer than
    TEXT_CAP was not written by a recorder."""
    foreign = (
        '{"after": {"window": [0, 0, 9, 9], "objects": [{"path": [0], "role": "slider", '
        '"name": "", "box": [0, 0, 9, 9], "value": NaN}, {"path": [1], "role": "label", '
        f'"name": "", "box": [0, 0, 9, 9], "text": "{"y" * 300}", "length": 300}}]}}}}'
    )
    read = step_told_from_json(foreign)
    assert read is not None and read.after is not None
    slider, label = read.after.objects
    assert slider.value is None
    assert label.text == "y" * TEXT_CAP and not label.whole_text


def test_a_change_told_by_an_object_and_the_text_inside_it_is_one_check():
    """Chromium's status bar tells the text of the static text it holds."""
    bar = replace(
        says("Saved", TITLE), name="", role="status bar", leaf=False, box=(8, 38, 210, 26)
    )
    inner = replace(says("Saved", TITLE), name="", path=(0, 1, 0), role="static")
    recorded = StepTold(
        told(replace(bar, text="", length=0), replace(inner, text="", length=0)), told(bar, inner)
    )
    today = StepTold(recorded.before, told(says("Lost", bar), says("Lost", inner)))
    [meant] = told_checks(recorded, today, [])
    assert meant.label == "status bar" and meant.said == ("'Saved'", "'Lost'")
    [meant] = told_checks(recorded, StepTold(recorded.before, recorded.after), [])
    assert meant.label == "static" and meant.match == "vouches"

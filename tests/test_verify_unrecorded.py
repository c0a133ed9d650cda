"""--verify's other direction (matching/compare/unrecorded.py): a step that today changed a
place where the recording shows no change fails, where today's screen before the step
showed what the recording did; on synthetic screens."""

import cv2
import numpy as np
import pytest

from deskreel.matching import VerifyOptions, checks_for
from tests.test_verify_checks import run, screen, screen_at


def unrecorded(checks):
    return [c for c in checks if c.kind == "unrecorded"]


def test_a_change_today_where_the_recording_shows_none_fails():
    # the recording: OK pressed, nothing else drawn (note unchanged); today it also wrote
    # a status line
    recorded = screen(note="saved")
    checks = run(recorded, recorded, screen("Draft saved", note="saved"), earlier=recorded)
    [check] = unrecorded(checks)
    assert not check.passed and check.difference is not None
    assert "where the recording shows no change" in check.describe(), check.describe()
    assert check.expected is not None and check.expected[1] < 300 < sum(check.expected[1::2])


def test_the_same_change_as_recorded_adds_no_check_of_its_own():
    before, after = screen(), screen("OK clicked")
    checks = run(before, after, after, earlier=before)
    assert unrecorded(checks) == [] and all(c.passed for c in checks)


def test_a_place_that_showed_something_else_before_the_step_is_not_compared():
    # today's screen before the step already differed there (another text): what it should
    # show after the step is unknown
    recorded = screen(note="saved")
    earlier = screen("Not registered yet", note="saved")
    checks = run(recorded, recorded, screen("Draft saved", note="saved"), earlier=earlier)
    assert unrecorded(checks) == [] and all(c.passed for c in checks)


def test_a_shifted_layout_is_compared_at_its_place_today():
    recorded = screen()
    checks = run(
        recorded, recorded, screen("Draft saved", shift=(30, 20)), located=(120, 80),
        earlier=screen(shift=(30, 20)),
    )  # fmt: skip
    [check] = unrecorded(checks)
    x, y, w, h = check.box  # recorded: around the status line's text, which starts at 40
    assert not check.passed and 28 <= x <= 40 and y < 300 < y + h, check
    assert check.expected == (x + 30, y + 20, w, h) == check.found_at, check


@pytest.mark.parametrize("scale", [1.5, 0.8])
def test_a_scaled_screen_is_compared_at_its_place_at_that_scale(scale):
    recorded = screen()
    located = (round(90 * scale), round(60 * scale))
    for today, fails in ((screen_at(scale, "Draft saved"), True), (screen_at(scale), False)):
        checks = run(recorded, recorded, today, located=located, scale=scale,
                     earlier=screen_at(scale))  # fmt: skip
        assert [c.passed for c in unrecorded(checks)] == ([False] if fails else []), checks
        if fails:
            [check] = unrecorded(checks)
            x, y, _, _ = check.box
            assert check.scale == scale and abs(check.expected[1] - y * scale) <= 2, check
            assert check.box[1] < 300 < check.box[1] + check.box[3], check


def test_a_change_beside_a_recorded_effect_is_compared():
    # the status line says what it said when recorded, and an error line appeared below it
    before, after = screen(), screen("OK clicked")
    today = screen("OK clicked")
    cv2.putText(today, "Error: disk full", (40, 330), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0,) * 3, 2)
    checks = run(before, after, today, earlier=before)
    assert all(c.passed for c in checks if c.kind == "effect"), checks
    [check] = unrecorded(checks)
    assert not check.passed and check.box[1] >= 305, check


def test_a_tick_among_look_alikes_is_compared_at_its_own_place():
    def row(ticked=None):
        img = screen()
        for n in range(8):
            x = 40 + 30 * n
            cv2.rectangle(img, (x, 200), (x + 14, 214), (60, 60, 60), 1)
            if n == ticked:
                cv2.line(img, (x + 3, 207), (x + 11, 203), (60, 60, 60), 2)
        return img

    checks = run(row(), row(), row(ticked=3), earlier=row())
    [check] = unrecorded(checks)
    assert not check.passed, check


def test_a_caret_blinking_today_is_no_change():
    recorded = screen()
    today = screen()
    cv2.line(today, (300, 130), (300, 150), (0, 0, 0), 2)  # a caret, 2 px wide, on
    checks = run(recorded, recorded, today, earlier=screen())
    assert unrecorded(checks) == [] and all(c.passed for c in checks)


def test_a_caret_blinking_on_a_scaled_screen_is_no_change():
    today = screen_at(2.0)
    cv2.line(today, (600, 260), (600, 300), (0, 0, 0), 4)  # the caret at 2x: 4 px wide
    checks = run(screen(), screen(), today, located=(180, 120), scale=2.0, earlier=screen_at(2.0))
    assert unrecorded(checks) == [] and all(c.passed for c in checks), checks


def test_a_masked_place_is_not_compared():
    recorded = screen(clock="12:00:00")
    checks = run(
        recorded, recorded, screen(clock="12:00:01"), earlier=recorded,
        masks=[(440, 360, 140, 30)],
    )  # fmt: skip
    assert unrecorded(checks) == [], checks
    checks = run(recorded, recorded, screen(clock="12:00:01"), earlier=recorded)
    assert [c.passed for c in unrecorded(checks)] == [False], checks


def test_without_the_screen_before_the_step_nothing_is_compared():
    recorded = screen()
    checks = run(recorded, recorded, screen("Draft saved"), earlier=None)
    assert unrecorded(checks) == []


def test_a_message_that_appeared_on_a_blank_place_fails():
    recorded = screen()
    today = screen()
    today[150:250, 300:560] = (250, 250, 200)  # a message box today, not in the recording
    cv2.putText(today, "Error", (320, 210), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
    checks = run(recorded, recorded, today, earlier=recorded)
    failed = [c for c in checks if not c.passed]
    assert failed and all(c.kind == "unrecorded" for c in failed)
    assert np.all(np.array(failed[0].expected[:2]) >= (290, 140))


def test_an_after_frame_that_did_not_settle_is_not_compared_so():
    # the rest of the effect was not drawn yet when the recording's next step began
    recorded = screen(note="saved")
    checks = checks_for(
        action="left_click", before=recorded, after=recorded,
        screen=screen("Draft saved", note="saved"), target=(90, 60), located=(90, 60),
        scale=1.0, region=None, masks=(), options=VerifyOptions(), earlier=recorded,
        settled=False,
    )  # fmt: skip
    assert unrecorded(checks) == [], checks


def test_a_place_the_recording_shows_changed_so_before_the_next_step_passes():
    # a message timed out: today during this step, in the recording only before the next
    shown, gone = screen("Saved", note="x"), screen(note="x")
    checks = checks_for(
        action="left_click", before=shown, after=shown, screen=gone, target=(90, 60),
        located=(90, 60), scale=1.0, region=None, masks=(), options=VerifyOptions(),
        earlier=shown, later=gone,
    )  # fmt: skip
    [check] = unrecorded(checks)
    assert check.passed and check.match == "later", check
    assert "just before the next step" in check.describe()
    # what the recording never shows at that place fails, later frame or not
    checks = checks_for(
        action="left_click", before=shown, after=shown, screen=screen("Error", note="x"),
        target=(90, 60), located=(90, 60), scale=1.0, region=None, masks=(),
        options=VerifyOptions(), earlier=shown, later=gone,
    )  # fmt: skip
    [check] = unrecorded(checks)
    assert not check.passed and check.match == "near", check


def test_the_later_frame_is_the_next_input_steps_screen_before_it():
    from deskreel.replayer.verify import later_frames
    from deskreel.storage import Action, Step

    def step(n, kind, frame):
        action = Action(kind, duration=1.0) if kind == "wait" else Action(kind, text="a")
        return Step(n, action, before_frame=frame)

    steps = [step(1, "type", "f1"), step(2, "wait", "w"), step(3, "type", "f3"),
             step(4, "type", None), step(5, "type", "f5")]  # fmt: skip
    assert later_frames(steps) == {1: "f3", 2: "f3", 4: "f5"}

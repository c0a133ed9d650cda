"""The pure comparisons behind --verify, on synthetic screens."""

import cv2
import numpy as np

from replayer.verify import VerifyOptions, checks_for, settled_screen


def screen(status="", shift=(0, 0), clock="12:00:00", status_at=(40, 300), note=""):
    """An OK button, a status line (at `status_at`), a clock and a `note` at (300, 150)."""
    img = np.full((400, 600, 3), 235, np.uint8)
    dx, dy = shift
    cv2.rectangle(img, (40 + dx, 40 + dy), (140 + dx, 80 + dy), (90, 90, 200), -1)
    cv2.putText(img, "OK", (70 + dx, 68 + dy), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255,) * 3, 2)
    sx, sy = status_at
    cv2.putText(img, status, (sx + dx, sy + dy), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0,) * 3, 2)
    cv2.putText(img, note, (300, 150), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0,) * 3, 2)
    cv2.putText(img, clock, (450, 380), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0,) * 3, 1)
    return img


def run(before, after, today, *, located=(90, 60), masks=(), action="left_click", region=None,
        target=(90, 60), earlier=None, scale=1.0):
    return checks_for(action=action, before=before, after=after, screen=today,
                      target=target, located=located, scale=scale, region=region,
                      masks=masks, options=VerifyOptions(), earlier=earlier)


def test_same_effect_passes():
    checks = run(screen(), screen("OK clicked"), screen("OK clicked"))
    kinds = [c.kind for c in checks]
    assert kinds[0] == "target" and "effect" in kinds
    assert all(c.passed for c in checks)


def test_changed_effect_fails():
    checks = run(screen(), screen("OK clicked"), screen("Something else"))
    failed = [c for c in checks if not c.passed]
    assert failed and failed[0].kind == "effect" and failed[0].changed > 0.02


def test_shifted_layout_passes():
    checks = run(screen(), screen("OK clicked"), screen("OK clicked", shift=(37, 21)),
                 located=(127, 81))
    assert all(c.passed for c in checks)
    target = checks[0]
    assert target.found_at[:2] == (target.box[0] + 37, target.box[1] + 21)


def test_changed_effect_is_reported_at_its_expected_place():
    checks = run(screen(), screen("OK clicked"), screen("Something else"),
                 earlier=screen())
    [effect] = [c for c in checks if not c.passed]
    assert effect.match == "none" and effect.expected == effect.box  # nothing moved
    x, y, w, h = effect.expected
    fx, fy, _, _ = effect.found_at  # compared at the best match near its place
    assert abs(fx - x) <= 48 and abs(fy - y) <= 48
    assert f"not found near {list(effect.expected)}" in effect.describe()


def test_a_duplicate_of_the_recorded_content_elsewhere_does_not_pass():
    # The status line shows other text; "OK clicked" is on screen elsewhere, before the
    # click as after it: a look-alike, not the click's effect.
    earlier = screen(note="OK clicked")
    today = screen("Something else", note="OK clicked")
    for seen_before in (earlier, None):
        checks = run(screen(), screen("OK clicked"), today, earlier=seen_before)
        failed = [c for c in checks if not c.passed]
        assert [c.kind for c in failed] == ["effect"], checks
        assert failed[0].match == "none" and failed[0].found_at[1] > 250, failed[0]


def test_recorded_content_that_appeared_elsewhere_passes():
    # A reordered layout: the status line is far from where the recording had it, and the
    # click made "OK clicked" appear there.
    moved = (300, 150)
    checks = run(screen(), screen("OK clicked"), screen("OK clicked", status_at=moved),
                 earlier=screen(status_at=moved))
    effects = [c for c in checks if c.kind == "effect"]
    assert effects and all(c.passed and c.match == "far" for c in effects), checks
    assert all(c.found_at[1] < 200 for c in effects)
    # without today's earlier screen nothing says the text appeared: it does not pass
    blind = run(screen(), screen("OK clicked"), screen("OK clicked", status_at=moved))
    assert not all(c.passed for c in blind)


def test_masked_clock_is_not_compared():
    before, after = screen(clock="12:00:00"), screen("OK clicked", clock="12:00:01")
    today = screen("OK clicked", clock="13:14:15")
    unmasked = run(before, after, today)
    assert not all(c.passed for c in unmasked)
    masked = run(before, after, today, masks=[(440, 355, 160, 45)])
    assert all(c.passed for c in masked)


def test_checkpoint_region():
    after = screen("OK clicked")
    good = run(None, after, screen("OK clicked"), action="screenshot", target=(0, 0),
               located=(0, 0), region=(0, 250, 600, 80))
    bad = run(None, after, screen("Nope"), action="screenshot", target=(0, 0),
              located=(0, 0), region=(0, 250, 600, 80))
    assert good[0].passed and not bad[0].passed


def test_checkpoint_region_is_scaled():
    # today's screen is the recorded one at 1.25x: the region grows with it, not only moves
    after = screen("OK clicked")
    big = cv2.resize(after, None, fx=1.25, fy=1.25, interpolation=cv2.INTER_LINEAR)
    [check] = run(None, after, big, action="screenshot", target=(0, 0), located=(0, 0),
                  region=(20, 260, 200, 60), scale=1.25)
    assert check.found_at == (25, 325, 250, 75) and check.passed, check


def test_nothing_to_compare_without_frames():
    assert run(None, None, screen()) == []


def test_pointer_step_not_located_is_checked_around_its_recorded_target():
    # --no-anchor, or a pointer step without an anchor: no located target, only the last
    # known shift. The target check must look around the recorded target (90, 60) moved by
    # that shift, not around the screen's top-left corner.
    today = screen("OK clicked", shift=(37, 21))
    checks = checks_for(action="left_click", before=screen(), after=screen("OK clicked"),
                        screen=today, target=(90, 60), located=None, scale=1.0,
                        shift=(37, 21), region=None, masks=(), options=VerifyOptions())
    target = checks[0]
    assert target.kind == "target" and target.passed
    x, y, w, h = target.box
    assert x < 90 < x + w and y < 60 < y + h, target.box
    assert target.found_at[:2] == (x + 37, y + 21)


def test_step_without_target_gets_no_target_check_and_maps_through_the_shift():
    checks = checks_for(action="key", before=screen(), after=screen("OK clicked"),
                        screen=screen("OK clicked", shift=(37, 21)), target=None,
                        located=None, scale=1.0, shift=(37, 21), region=None, masks=(),
                        options=VerifyOptions())
    assert checks and all(c.kind == "effect" and c.passed for c in checks)
    assert all(c.found_at[:2] == (c.box[0] + 37, c.box[1] + 21) for c in checks)


def test_settled_screen_waits_for_stillness():
    frames = iter([screen("a"), screen("b"), screen("c")] + [screen("d")] * 100)
    now = [0.0]

    def pause(seconds):
        now[0] += seconds

    result = settled_screen(lambda: next(frames), settle=0.3, cap=3.0, pause=pause,
                            clock=lambda: now[0])
    assert np.array_equal(result, screen("d"))
    # still from the 4th grab (0.15 s) on: back after settle (0.3 s), long before the cap
    assert 0.3 <= now[0] < 0.6, now[0]

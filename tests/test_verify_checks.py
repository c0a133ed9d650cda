"""The pure comparisons behind --verify, on synthetic screens."""

import cv2
import numpy as np
import pytest

from dataclasses import replace

from deskreel.matching import Aimed, Check, Said, VerifyOptions, carets_only, checks_for, said_of
from deskreel.storage.widgets import After, Widget
from deskreel.replayer.verify import other_looks, settled_screen

LIGHT = {"ground": (235,) * 3, "ink": (0,) * 3, "button": (90, 90, 200), "label": (255,) * 3}
# another theme: every colour other, text light on dark
DARK = {"ground": (38, 40, 44), "ink": (225, 222, 210), "button": (40, 90, 60), "label": (20,) * 3}
OK_BOX = (40, 40, 101, 41)


def screen(status="", shift=(0, 0), clock="12:00:00", status_at=(40, 300), note="", theme=LIGHT):
    """An OK button, a status line (at `status_at`), a clock and a `note` at (300, 150)."""
    img = np.full((400, 600, 3), theme["ground"], np.uint8)
    dx, dy = shift
    cv2.rectangle(img, (40 + dx, 40 + dy), (140 + dx, 80 + dy), theme["button"], -1)
    cv2.putText(img, "OK", (70 + dx, 68 + dy), cv2.FONT_HERSHEY_SIMPLEX, 0.8, theme["label"], 2)
    sx, sy = status_at
    text = cv2.FONT_HERSHEY_SIMPLEX, 0.7, theme["ink"], 2
    cv2.putText(img, status, (sx + dx, sy + dy), *text)
    cv2.putText(img, note, (300, 150), *text)
    cv2.putText(img, clock, (450, 380), cv2.FONT_HERSHEY_SIMPLEX, 0.6, theme["ink"], 1)
    return img


def found_at(located, box=OK_BOX, target=(90, 60)):
    """The OK button, found today with the press at `located`."""
    x, y, w, h = box
    return Aimed(
        "push button 'OK'", box, (x + located[0] - target[0], y + located[1] - target[1], w, h)
    )


def run(
    before,
    after,
    today,
    *,
    located=(90, 60),
    masks=(),
    action="left_click",
    region=None,
    target=(90, 60),
    earlier=None,
    scale=1.0,
    aimed="found",
):
    return checks_for(
        action=action,
        before=before,
        after=after,
        screen=today,
        target=target,
        located=located,
        scale=scale,
        region=region,
        masks=masks,
        options=VerifyOptions(),
        earlier=earlier,
        aimed=found_at(located, target=target) if aimed == "found" else aimed,
    )


def test_same_effect_passes():
    checks = run(screen(), screen("OK clicked"), screen("OK clicked"))
    kinds = [c.kind for c in checks]
    assert kinds[0] == "object" and "effect" in kinds
    assert all(c.passed for c in checks)
    assert checks[0].describe() == "object push button 'OK': found at [40, 40, 101, 41]"


def ticked(mark="", status=""):
    """The OK button as a toggle: `mark` drawn inside it, beside its label."""
    img = screen(status)
    cv2.putText(img, mark, (112, 70), cv2.FONT_HERSHEY_PLAIN, 1.6, (255,) * 3, 2)
    return img


CHECKED = After("OK", ("checked",))


def said(today, vouches=True):
    return Said("push button 'OK'", OK_BOX, CHECKED, today, OK_BOX, vouches=vouches)


TOGGLE = Widget(
    source="atspi", app="form", role="toggle button", name="OK", box=OK_BOX, point=(50, 20),
    path=(("frame", 0), ("toggle button", 0)), parent="", siblings=(), rank=-1,
    states=("enabled", "sensitive"), after=CHECKED,
)  # fmt: skip


def test_a_control_vouches_for_its_pixels_only_where_the_step_changed_what_it_says():
    ticked_today = replace(TOGGLE, states=("checked", "focused"))
    assert said_of(TOGGLE, ticked_today) == Said(
        "toggle button 'OK'", OK_BOX, CHECKED, CHECKED, OK_BOX, vouches=True
    )
    # a spin button says nothing of its value: the same before and after the step
    spin = replace(TOGGLE, role="spin button", name="", after=After("", ()))
    assert said_of(spin, spin) is not None and not said_of(spin, spin).vouches
    checks = run_said(ticked(), ticked("v"), ticked("x"), said(CHECKED, vouches=False))
    assert [c.passed for c in checks if c.kind in ("meaning", "effect")] == [True, False]
    gone = said_of(TOGGLE, replace(TOGGLE, role="label", name="Done"))
    assert gone is not None and gone.today is None and gone.other == "label 'Done'"
    assert said_of(replace(TOGGLE, after=None), TOGGLE) is None, "nothing recorded"


def test_an_effect_inside_an_object_that_says_as_recorded_passes_by_it():
    # today's toolkit draws the tick another way: the pixels differ, the object does not
    checks = run_said(ticked(), ticked("v"), ticked("x"), said(CHECKED))
    [meant] = [c for c in checks if c.kind == "meaning"]
    assert meant.passed and meant.said == ("'OK' (checked)", "'OK' (checked)")
    [effect] = [c for c in checks if c.kind == "effect"]
    assert effect.passed and effect.match == "meaning", effect.describe()
    assert run_said(ticked(), ticked("v"), ticked("x"), None)[-1].passed is False  # pixels


def test_an_object_that_says_otherwise_fails_naming_both_whatever_the_pixels():
    checks = run_said(ticked(), ticked("v"), ticked("v"), said(After("OK", ())))
    [meant] = [c for c in checks if c.kind == "meaning"]
    assert not meant.passed and meant.difference is not None
    assert meant.describe() == (
        "push button 'OK' after the step: recorded 'OK' (checked), today 'OK' (none set)"
    )
    other = Said("push button 'OK'", OK_BOX, CHECKED, None, other="label 'Done'")
    [gone] = [c for c in run_said(ticked(), ticked("v"), ticked("v"), other) if c.kind == "meaning"]
    assert not gone.passed and gone.said[1] == "label 'Done' there"


def test_an_effect_outside_the_object_is_still_judged_by_its_pixels():
    checks = run_said(ticked(), ticked("v", "saved"), ticked("x", "failed"), said(CHECKED))
    effects = {c.box[1] > 200: c for c in checks if c.kind == "effect"}  # the status line's
    assert effects[False].passed and effects[False].match == "meaning"
    assert not effects[True].passed and effects[True].match != "meaning"


def run_said(before, after, today, meaning):
    return checks_for(
        action="left_click",
        before=before,
        after=after,
        screen=today,
        target=(90, 60),
        located=(90, 60),
        scale=1.0,
        region=None,
        masks=(),
        options=VerifyOptions(),
        aimed=found_at((90, 60)),
        said=meaning,
    )


def test_an_object_not_found_today_fails_naming_it():
    gone = Aimed("push button 'OK'", OK_BOX, None)
    checks = run(screen(), screen("OK clicked"), screen("OK clicked"), aimed=gone)
    assert [c.kind for c in checks if not c.passed] == ["object"], checks
    assert checks[0].difference is not None and checks[0].difference.rule == "not-found"
    assert checks[0].describe() == "object push button 'OK': not found today"


def test_the_fixed_box_around_the_press_is_not_compared():
    # the button looks otherwise after the click (hovered, pressed): no effect of the step
    # but its own look, which the object check does not compare pixel by pixel
    after = screen("OK clicked")
    today = screen("OK clicked")
    cv2.rectangle(today, (40, 40), (140, 80), (200, 200, 90), -1)
    cv2.putText(today, "OK", (70, 68), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255,) * 3, 2)
    checks = run(screen(), after, today)
    assert [c.kind for c in checks] == ["object", "effect"] and all(c.passed for c in checks)


def test_an_effect_in_another_theme_passes_in_other_colours():
    checks = run(
        screen(), screen("OK clicked"), screen("OK clicked", theme=DARK), earlier=screen(theme=DARK)
    )
    effects = [c for c in checks if c.kind == "effect"]
    assert effects and all(c.passed and c.match == "recoloured" for c in effects), checks
    assert "in other colours" in effects[0].describe()


@pytest.mark.parametrize("seen", ["OK clicker", "Something else", ""])
def test_other_text_in_another_theme_fails(seen):
    checks = run(
        screen(), screen("OK clicked"), screen(seen, theme=DARK), earlier=screen(theme=DARK)
    )
    assert [c.kind for c in checks if not c.passed] == ["effect"], checks


def test_a_duplicate_shown_before_the_step_near_its_place_is_no_effect_of_it():
    # the status line stays empty today; "OK clicked" was shown 30 px above it before the
    # click already (another line of the form): a duplicate, not the click's effect
    earlier = screen(note="OK clicked")
    cv2.putText(earlier, "OK clicked", (40, 270), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0,) * 3, 2)
    checks = run(screen(), screen("OK clicked"), earlier.copy(), earlier=earlier)
    failed = [c for c in checks if not c.passed]
    assert [c.kind for c in failed] == ["effect"], checks
    assert failed[0].match == "before" and "before the step too" in failed[0].describe()


def test_content_shown_before_the_step_in_other_colours_is_no_effect_of_it():
    dark = screen("OK clicked", theme=DARK)
    checks = run(screen(), screen("OK clicked"), dark, earlier=dark)
    assert [c.kind for c in checks if not c.passed] == ["effect"], checks
    # and without today's screen before the step nothing tells what the step changed
    blind = run(screen(), screen("OK clicked"), screen("OK clicked", theme=DARK))
    assert not all(c.passed for c in blind)


def _small(text, theme=LIGHT):
    """A status line in a small, thin font (anti-aliased, strokes 1 px wide)."""
    img = screen(theme=theme)
    cv2.putText(img, text, (40, 305), cv2.FONT_HERSHEY_PLAIN, 0.9, theme["ink"], 1, cv2.LINE_AA)
    return img


@pytest.mark.parametrize(
    "recorded, seen",
    [("1 file", "7 file"), ("Page 6", "Page 8"), ("Saved", "Saves"), ("v1.2", "v1.3")],
)
def test_one_other_glyph_in_a_thin_font_fails_in_any_colours(recorded, seen):
    for theme in (LIGHT, DARK):
        blank = _small("", theme)
        checks = run(_small(""), _small(recorded), _small(seen, theme), earlier=blank)
        assert [c.kind for c in checks if not c.passed] == ["effect"], (theme, checks)
        same = run(_small(""), _small(recorded), _small(recorded, theme), earlier=blank)
        assert all(c.passed for c in same), (theme, same)


def test_a_region_gone_blank_is_no_recolouring():
    # today the step showed nothing: a flat region fits a flat line, which is no theme
    checks = run(screen(), screen("OK clicked"), screen(theme=DARK), earlier=screen(theme=DARK))
    assert [c.kind for c in checks if not c.passed] == ["effect"], checks


def test_a_step_that_emptied_a_region_is_compared_where_it_was():
    # the step erased the status line; today it did nothing: the blank recorded region
    # must not be taken as shown by some other blank place nearby
    shown = screen("OK clicked")
    checks = run(shown, screen(), shown, earlier=shown)
    assert [c.kind for c in checks if not c.passed] == ["effect"], checks
    assert all(c.passed for c in run(shown, screen(), screen(), earlier=shown))


def test_a_pointer_step_not_looked_for_is_checked_around_its_press():
    # --no-anchor: no object was looked for; the pixels around the press tell a renamed
    # button, whose effect may be the recorded one
    def renamed(status=""):
        today = screen(status)
        cv2.rectangle(today, (40, 40), (140, 80), (90, 90, 200), -1)
        cv2.putText(today, "Del", (62, 68), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255,) * 3, 2)
        return today

    checks = run(
        screen(), screen("OK clicked"), renamed("OK clicked"), earlier=renamed(), aimed=None
    )
    assert [c.kind for c in checks if not c.passed] == ["target"], checks


def test_changed_effect_fails():
    checks = run(screen(), screen("OK clicked"), screen("Something else"))
    failed = [c for c in checks if not c.passed]
    assert failed and failed[0].kind == "effect" and failed[0].changed > 0.02
    difference = failed[0].difference
    assert difference is not None and difference.rule in ("nowhere", "pixels"), failed
    assert Check.from_json(failed[0].to_json()) == failed[0]  # kept as it was judged
    assert all(c.difference is None for c in checks if c.passed)


def test_shifted_layout_passes():
    checks = run(
        screen(), screen("OK clicked"), screen("OK clicked", shift=(37, 21)), located=(127, 81)
    )
    assert all(c.passed for c in checks)
    assert checks[0].found_at == (77, 61, 101, 41)
    effect = checks[1]
    assert effect.found_at[:2] == (effect.box[0] + 37, effect.box[1] + 21)


def test_changed_effect_is_reported_at_its_expected_place():
    checks = run(screen(), screen("OK clicked"), screen("Something else"), earlier=screen())
    # (the longer text today also changed a place beside the recorded effect: unrecorded)
    [effect] = [c for c in checks if not c.passed and c.kind == "effect"]
    assert effect.match == "none" and effect.expected == effect.box  # nothing moved
    x, y, w, h = effect.expected
    fx, fy, _, _ = effect.found_at  # compared at the best match near its place
    assert abs(fx - x) <= 48 and abs(fy - y) <= 48
    assert effect.difference is not None and effect.difference.rule == "nowhere", effect
    assert effect.difference.needed == 0.9 and effect.difference.where == effect.expected


def test_a_duplicate_of_the_recorded_content_elsewhere_does_not_pass():
    # The status line shows other text; "OK clicked" is on screen elsewhere, before the
    # click as after it: a look-alike, not the click's effect.
    earlier = screen(note="OK clicked")
    today = screen("Something else", note="OK clicked")
    for seen_before in (earlier, None):
        checks = run(screen(), screen("OK clicked"), today, earlier=seen_before)
        failed = [c for c in checks if not c.passed and c.kind != "unrecorded"]
        assert [c.kind for c in failed] == ["effect"], checks
        assert failed[0].match == "none" and failed[0].found_at[1] > 250, failed[0]


def test_recorded_content_that_appeared_elsewhere_passes():
    # A reordered layout: the status line is far from where the recording had it, and the
    # click made "OK clicked" appear there.
    moved = (300, 150)
    checks = run(
        screen(),
        screen("OK clicked"),
        screen("OK clicked", status_at=moved),
        earlier=screen(status_at=moved),
    )
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
    good = run(
        None,
        after,
        screen("OK clicked"),
        action="screenshot",
        target=(0, 0),
        located=(0, 0),
        region=(0, 250, 600, 80),
    )
    bad = run(
        None,
        after,
        screen("Nope"),
        action="screenshot",
        target=(0, 0),
        located=(0, 0),
        region=(0, 250, 600, 80),
    )
    assert good[0].passed and not bad[0].passed


def test_checkpoint_region_is_scaled():
    # today's screen is the recorded one at 1.25x: the region grows with it, not only moves
    after = screen("OK clicked")
    big = cv2.resize(after, None, fx=1.25, fy=1.25, interpolation=cv2.INTER_LINEAR)
    [check] = run(
        None,
        after,
        big,
        action="screenshot",
        target=(0, 0),
        located=(0, 0),
        region=(20, 260, 200, 60),
        scale=1.25,
    )
    assert check.found_at == (25, 325, 250, 75) and check.passed, check


def test_nothing_to_compare_without_frames():
    assert run(None, None, screen()) == []


def test_pointer_step_not_located_is_checked_around_its_press_moved_by_the_shift():
    # --no-anchor, or a pointer step without an anchor: no located target, only the last
    # known shift. Its press and effects are looked for around their recorded places moved
    # by that shift, not around the screen's top-left corner.
    today = screen("OK clicked", shift=(37, 21))
    checks = checks_for(
        action="left_click",
        before=screen(),
        after=screen("OK clicked"),
        screen=today,
        target=(90, 60),
        located=None,
        scale=1.0,
        shift=(37, 21),
        region=None,
        masks=(),
        options=VerifyOptions(),
    )
    assert checks[0].kind == "target" and {c.kind for c in checks[1:]} == {"effect"}, checks
    assert all(c.passed for c in checks), checks
    x, y, w, h = checks[0].box
    assert x < 90 < x + w and y < 60 < y + h, checks[0].box
    assert all(c.found_at[:2] == (c.box[0] + 37, c.box[1] + 21) for c in checks)


def test_step_without_target_gets_no_target_check_and_maps_through_the_shift():
    checks = checks_for(
        action="key",
        before=screen(),
        after=screen("OK clicked"),
        screen=screen("OK clicked", shift=(37, 21)),
        target=None,
        located=None,
        scale=1.0,
        shift=(37, 21),
        region=None,
        masks=(),
        options=VerifyOptions(),
    )
    assert checks and all(c.kind == "effect" and c.passed for c in checks)
    assert all(c.found_at[:2] == (c.box[0] + 37, c.box[1] + 21) for c in checks)


def test_settled_screen_waits_for_stillness():
    frames = iter([screen("a"), screen("b"), screen("c")] + [screen("d")] * 100)
    now = [0.0]

    def pause(seconds):
        now[0] += seconds

    result = settled_screen(
        lambda: next(frames), settle=0.3, cap=3.0, pause=pause, clock=lambda: now[0]
    )
    assert np.array_equal(result, screen("d"))
    # still from the 4th grab (0.15 s) on: back after settle (0.3 s), long before the cap
    assert 0.3 <= now[0] < 0.6, now[0]


def test_other_looks_are_each_new_look_for_one_blink():
    on, off, other = screen("a|"), screen("a"), screen("b")
    frames = iter([off, on, off, on, other] + [on] * 100)
    now = [0.0]

    def pause(seconds):
        now[0] += seconds

    looks = list(other_looks(lambda: next(frames), on, within=1.0, pause=pause,
                             clock=lambda: now[0]))  # fmt: skip
    # the caret's other phase once, then the other screen; nothing seen twice
    assert [np.array_equal(a, b) for a, b in zip(looks, [off, other])] == [True, True]
    assert len(looks) == 2 and 1.0 <= now[0] < 1.1, now[0]


def test_only_a_caret_blinking_is_forgiven():
    options = VerifyOptions()
    caret_on = screen("typed")
    cv2.rectangle(caret_on, (120, 282), (121, 300), (0, 0, 0), -1)  # a 2 px bar, a line tall
    off = screen("typed")
    assert carets_only(caret_on, off, options) and carets_only(off, caret_on, options)
    assert not carets_only(off, off.copy(), options)  # nothing changed: nothing to forgive
    # a message flashing, an effect arriving late: more than a caret changed
    assert not carets_only(off, screen("typed", note="Error!"), options)
    assert not carets_only(screen(""), screen("typed"), options)
    wide = off.copy()
    cv2.rectangle(wide, (120, 282), (125, 300), (0, 0, 0), -1)  # 6 px: no caret
    assert not carets_only(off, wide, options)


def screen_at(scale, status="", *, text_scale=None, clock="12:00:00", shift=(0, 0)):
    """`screen()` drawn again at `scale`, as an application does on a scaled display: boxes
    scaled, text drawn at its own size (`text_scale`, another font size) and whole-pixel
    strokes."""
    text_scale = text_scale or scale
    s = scale
    img = np.full((round(400 * s) + 40, round(600 * s) + 40, 3), 235, np.uint8)
    dx, dy = shift

    def at(x, y):
        return round(x * s) + dx, round(y * s) + dy

    def text(words, x, y, size, thickness):
        cv2.putText(
            img,
            words,
            at(x, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            size * text_scale,
            (0,) * 3,
            max(1, round(thickness * s)),
        )

    cv2.rectangle(img, at(40, 40), at(140, 80), (90, 90, 200), -1)
    cv2.putText(
        img,
        "OK",
        at(70, 68),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.8 * text_scale,
        (255,) * 3,
        max(1, round(2 * s)),
    )
    text(status, 40, 300, 0.7, 2)
    text(clock, 450, 380, 0.6, 1)
    return img


def run_scaled(
    today,
    *,
    scale,
    located,
    status="OK clicked",
    masks=(),
    action="left_click",
    region=None,
    target=(90, 60),
    shift=(0, 0),
):
    return checks_for(
        action=action,
        before=screen(),
        after=screen(status),
        screen=today,
        target=target,
        located=located,
        scale=scale,
        shift=shift,
        region=region,
        masks=masks,
        options=VerifyOptions(),
        earlier=None,
        aimed=found_at(located, target=target) if action != "screenshot" else None,
    )


@pytest.mark.parametrize("scale, text_scale", [(1.25, 1.3), (0.8, 0.76), (1.5, 1.45)])
def test_a_scaled_screen_showing_the_same_passes(scale, text_scale):
    # text at the nearest font size: its glyphs neither match the resized recording pixel
    # for pixel nor sit where resizing puts them (they drift along the line)
    today = screen_at(scale, "OK clicked", text_scale=text_scale)
    located = (round(90 * scale), round(60 * scale))
    checks = run_scaled(today, scale=scale, located=located)
    assert [c.kind for c in checks] == ["object", "effect"], checks
    assert all(c.passed for c in checks) and checks[1].scale == scale, checks
    effect = checks[1]
    assert abs(effect.found_at[1] - effect.box[1] * scale) <= 4, effect


@pytest.mark.parametrize("scale, text_scale", [(1.25, 1.3), (0.8, 0.76)])
@pytest.mark.parametrize("seen", ["Something else", "OK clicker", "OK picked", "KO clicked"])
def test_a_scaled_screen_showing_other_text_fails(scale, text_scale, seen):
    today = screen_at(scale, seen, text_scale=text_scale)
    located = (round(90 * scale), round(60 * scale))
    checks = run_scaled(today, scale=scale, located=located)
    failed = [c for c in checks if not c.passed]
    assert [c.kind for c in failed] == ["effect"], checks
    assert f"compared at {scale:g}x" in failed[0].describe()


def test_a_scaled_mask_hides_the_clock():
    # a checkpoint over the status line and the clock, which shows another time today
    today = screen_at(1.25, "OK clicked", text_scale=1.3, clock="13:14:15")
    region, clock = (20, 260, 580, 135), (440, 355, 160, 45)
    for masks, passes in (((), False), ((clock,), True)):
        [check] = run_scaled(
            today,
            scale=1.25,
            located=(0, 0),
            target=(0, 0),
            action="screenshot",
            region=region,
            masks=masks,
        )
        assert check.passed == passes, (masks, check)


def test_a_scaled_checkpoint_fails_where_its_text_changed():
    region = (20, 260, 300, 60)
    good = run_scaled(
        screen_at(1.25, "OK clicked", text_scale=1.3),
        scale=1.25,
        located=(0, 0),
        target=(0, 0),
        action="screenshot",
        region=region,
    )
    bad = run_scaled(
        screen_at(1.25, "OK clicker", text_scale=1.3),
        scale=1.25,
        located=(0, 0),
        target=(0, 0),
        action="screenshot",
        region=region,
    )
    assert good[0].passed and good[0].found_at == (25, 325, 375, 75), good
    assert not bad[0].passed, bad


@pytest.mark.parametrize("action, target", [("key", None), ("left_click", (90, 60))])
def test_steps_not_located_at_another_scale_map_from_the_screens_origin(action, target):
    # after a target was found at 1.25x, a key step (no target) or a pointer step that was
    # not looked for: the recorded screen's origin is at `shift` today and every place
    # scales from there
    today = screen_at(1.25, "OK clicked", text_scale=1.3, shift=(30, 10))
    checks = checks_for(
        action=action,
        before=screen(),
        after=screen("OK clicked"),
        screen=today,
        target=target,
        located=None,
        scale=1.25,
        shift=(30, 10),
        region=None,
        masks=(),
        options=VerifyOptions(),
    )
    assert "effect" in [c.kind for c in checks], checks
    assert all(c.passed and c.match == "near" for c in checks), checks
    for check in checks:
        x, y, _, _ = check.box
        assert check.expected[:2] == (round(30 + x * 1.25), round(10 + y * 1.25)), check

"""Wrong effects under another theme (compare/recolour.py) that a recolouring must never
pass: a calculator's display (its border a thick frame in one look and three thin lines in
another) showing another digit or none, the right digit shown before the step, a mark
drawn beside it; a light turned red where it turned green; the neighbouring grid cell
filled. Two red-line reviews built the last ones against a version that fitted a theme's
line on the change alone and excused the context around it (reverted: any two grey levels
fit a line)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.step_checks import effects_of, step_checks

W, H = 320, 200
DISPLAY = (120, 40, 130, 44)  # the display; the keypad's key "2" below it
KEY = (150, 120, 40, 30)
# ground, display face, ink, border
LOOKS = {
    "recorded": ((110, 110, 110), (255, 255, 255), (0, 0, 0), (0, 0, 0)),
    "reverse": ((145, 145, 145), (0, 0, 0), (255, 255, 255), (255, 255, 255)),
    "theme": ((200, 200, 200), (150, 170, 150), (40, 40, 40), (120, 120, 120)),
}


def screen(digits: str, look: str = "recorded", *, lines: bool = False, nudge=(0, 0)):
    ground, face, ink, border = LOOKS[look]
    img = np.full((H, W, 3), ground, np.uint8)
    x, y, w, h = DISPLAY
    if lines:  # the border as three thin lines around the face
        for i in range(2, 9, 3):
            cv2.rectangle(img, (x - i, y - i), (x + w - 1 + i, y + h - 1 + i), border, 1)
    else:  # a thick frame
        cv2.rectangle(img, (x - 8, y - 8), (x + w + 7, y + h + 7), border, 6)
    cv2.rectangle(img, (x, y), (x + w - 1, y + h - 1), face, -1)
    kx, ky, kw, kh = KEY
    cv2.rectangle(img, (kx, ky), (kx + kw, ky + kh), border, 1)
    cv2.putText(img, "2", (kx + 12, ky + 22), cv2.FONT_HERSHEY_PLAIN, 1.2, border, 1)
    dx, dy = nudge
    size = cv2.getTextSize(digits, cv2.FONT_HERSHEY_PLAIN, 1.6, 1)[0][0]
    org = (x + w - 3 - size + dx, y + 30 + dy)
    cv2.putText(img, digits, org, cv2.FONT_HERSHEY_PLAIN, 1.6, ink, 1, cv2.LINE_AA)
    return img


RECORDED = screen("1"), screen("12")  # the step pressed the key "2"


def effects(earlier, today):
    return effects_of(step_checks(*RECORDED, today, earlier, (170, 135)))


@pytest.mark.parametrize("look", ["reverse", "theme"])
@pytest.mark.parametrize("today", ["13", "1", "17"])
def test_another_digit_or_none_fails_in_any_colours(look, today):
    checks = effects(screen("1", look, lines=True), screen(today, look, lines=True))
    assert not all(c.passed for c in checks), [c.describe() for c in checks]


@pytest.mark.parametrize("look", ["reverse", "theme"])
def test_the_right_digit_shown_before_the_step_is_no_effect_of_it(look):
    """The display read "12" before the step today: the step drew nothing."""
    shown = screen("12", look, lines=True)
    checks = effects(shown, shown.copy())
    assert not all(c.passed for c in checks), [c.describe() for c in checks]


@pytest.mark.parametrize("look", ["reverse", "theme"])
def test_what_todays_step_drew_in_the_context_still_counts(look):
    """The right digit, and a mark drawn beside it inside the context."""
    today = screen("12", look, lines=True)
    _, _, ink, _ = LOOKS[look]
    x, y, w, _ = DISPLAY
    cv2.rectangle(today, (x + w - 40, y + 6), (x + w - 36, y + 14), ink, -1)
    checks = effects(screen("1", look, lines=True), today)
    assert not all(c.passed for c in checks), [c.describe() for c in checks]


def test_a_light_turned_red_where_it_turned_green_fails():
    """Two grey levels fit any line: the light and its face alone cannot tell a theme; the
    recorded frame before the step, against today's, must take the same line (a red-line
    review's case)."""
    off, green, red = (40, 40, 40), (80, 255, 80), (230, 40, 40)

    def light(colour):
        rgb = np.full((H, W, 3), 235, np.uint8)
        cv2.circle(rgb, (60, 60), 6, colour, -1, cv2.LINE_AA)
        cv2.putText(rgb, "Connection", (71, 65), cv2.FONT_HERSHEY_PLAIN, 1.0, (0, 0, 0), 1)
        return rgb

    def judged(today):
        return effects_of(step_checks(light(off), light(green), today, light(off), (120, 100)))

    assert all(c.passed for c in judged(light(green)))
    assert not all(c.passed for c in judged(light(red)))


def test_the_neighbouring_cell_filled_in_a_dark_theme_fails():
    """An 8 px grid: the recorded click filled cell (5, 5), today's step fills (6, 5), whose
    place holds the expected region's centre (a red-line review's case)."""

    def canvas(filled, dark):
        ink, face, grid = (
            ((225,) * 3, (30,) * 3, (90,) * 3) if dark else ((0,) * 3, (255,) * 3, (200,) * 3)
        )
        rgb = np.full((120, 120, 3), face, np.uint8)
        rgb[:, ::8], rgb[::8, :] = grid, grid
        for cx, cy in {(3, 6), (4, 7), (7, 8), (2, 6), (6, 7), (8, 6), *filled}:
            rgb[cy * 8 + 1 : cy * 8 + 8, cx * 8 + 1 : cx * 8 + 8] = ink
        return rgb

    for cell in ((6, 5), (5, 6), (4, 5)):
        recorded = canvas([], False), canvas([(5, 5)], False)
        checks = step_checks(*recorded, canvas([cell], True), canvas([], True), (44, 44))
        assert not all(c.passed for c in checks), (cell, [c.describe() for c in checks])

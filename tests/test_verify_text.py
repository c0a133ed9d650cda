"""Effects by text (matching/compare/text.py): an effect whose pixels fail is judged by what
it reads where the recording shows its text changed, with the real recogniser."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from deskreel.matching import TextReader, VerifyOptions, checks_for
from deskreel.matching.compare.checks import Check
from deskreel.matching.compare.text import Screens, by_text
from deskreel.matching.reading import Reading

FONTS = Path("/usr/share/fonts/truetype/dejavu")
SCREEN = (480, 240)  # w, h
DISPLAY = (120, 60, 240, 40)  # x, y, w, h: a calculator's display
BOX = (120, 140, 18, 18)  # a check box, its label beside it
ROW = (120, 180, 240, 30)  # a row of a list
MONO = "DejaVuSansMono.ttf"  # today's font, where the look changed


@pytest.fixture(scope="module")
def read() -> TextReader:
    return TextReader()


def _screen(
    display: str,
    *,
    ticked: bool = False,
    chosen: bool = False,
    font: str = "DejaVuSans.ttf",
    dark: bool = False,
    underlined: bool = False,
    caret: bool = False,
) -> np.ndarray:
    """A window with a right-aligned display (`underlined`, a text `caret` after it), a
    labelled check box and a row of a list (`chosen`: highlighted), in `font`."""
    ink, paper = ((235, 235, 235), (30, 30, 36)) if dark else ((20, 20, 20), (250, 250, 250))
    image = Image.new("RGB", SCREEN, paper)
    draw = ImageDraw.Draw(image)
    face = ImageFont.truetype(str(FONTS / font), 22)
    x, y, w, h = DISPLAY
    draw.rectangle((x, y, x + w, y + h), outline=ink)
    left, top, right, bottom = draw.textbbox((0, 0), display, font=face)
    at = x + w - 14 - right
    draw.text((at, y + 8), display, font=face, fill=ink)
    if underlined:
        draw.line((at + left, y + 34, at + right, y + 34), fill=ink, width=2)
    if caret:
        draw.line((at + right + 2, y + 6, at + right + 2, y + 34), fill=ink, width=2)
    bx, by, bw, bh = BOX
    draw.rectangle((bx, by, bx + bw, by + bh), outline=ink, width=2)
    if ticked:
        draw.line((bx + 4, by + 9, bx + 8, by + 14, bx + 15, by + 4), fill=ink, width=3)
    draw.text((bx + 28, by - 2), "Keep a copy", font=face, fill=ink)
    rx, ry, rw, rh = ROW
    if chosen:
        draw.rectangle((rx, ry, rx + rw, ry + rh), fill=(40, 90, 200))
    draw.text((rx + 6, ry + 2), "Quarterly report", font=face, fill=paper if chosen else ink)
    return np.asarray(image).copy()


def _effects(before, after, earlier, today, read, masks=()):
    """The effect checks of a click whose recording went from `before` to `after`, today
    from `earlier` to `today`."""
    checks = checks_for(
        action="left_click", before=before, after=after, screen=today, target=(300, 20),
        located=(300, 20), scale=1.0, region=None, masks=list(masks), options=VerifyOptions(),
        earlier=earlier, read=read,
    )  # fmt: skip
    return [c for c in checks if c.kind == "effect"]


def _by_text(checks) -> list:
    return [c for c in checks if c.match == "text"]


def test_a_display_in_another_font_passes_by_what_it_reads(read: TextReader) -> None:
    before, after = _screen("4"), _screen("46")
    earlier, today = _screen("4", font=MONO, dark=True), _screen("46", font=MONO, dark=True)
    unread = _effects(before, after, earlier, today, None)
    assert unread and not all(c.passed for c in unread), "its pixels alone fail it"
    checks = _effects(before, after, earlier, today, read)
    assert all(c.passed for c in checks), [c.describe() for c in checks]
    [text] = _by_text(checks)
    assert text.said == ("46", "46") and "reads '46' after the step" in text.describe()


@pytest.mark.parametrize("shown", ["47", "5"], ids=["another digit", "another number"])
def test_a_display_that_reads_otherwise_fails_and_says_both(read: TextReader, shown: str) -> None:
    earlier = _screen("4", font=MONO, dark=True)
    checks = _effects(_screen("4"), _screen("46"), earlier, _screen(shown, font=MONO), read)
    failed = [c for c in checks if not c.passed]
    [named] = _by_text(failed)
    assert named.said == ("46", shown), named.describe()
    assert named.difference is not None and named.difference.rule == "text"


@pytest.mark.parametrize(
    ("then", "today"), [("Ab", "ab"), ("OK", "Ok")], ids=["case", "case again"]
)
def test_text_that_differs_only_in_case_is_no_pass(read: TextReader, then: str, today: str) -> None:
    earlier = _screen("4", font=MONO)
    checks = _effects(_screen("4"), _screen(then), earlier, _screen(today, font=MONO), read)
    assert checks and not all(c.passed for c in checks), [c.describe() for c in checks]


def test_a_display_left_as_it_was_today_fails_though_it_reads_as_recorded(read: TextReader) -> None:
    # today's step changed nothing: the display showed "46" before it already
    same = _screen("46", font=MONO)
    checks = _effects(_screen("4"), _screen("46"), same, same, read)
    assert checks and not all(c.passed for c in checks), [c.describe() for c in checks]


def test_in_the_same_look_pixels_judge_and_text_passes_nothing(read: TextReader) -> None:
    # underlined in the recording, not today: the text reads alike, the pixels tell
    before, after = _screen("4"), _screen("46", underlined=True)
    checks = _effects(before, after, before, _screen("46"), read)
    assert checks and not all(c.passed for c in checks), [c.describe() for c in checks]
    assert not any(c.passed for c in _by_text(checks))


def test_what_the_recording_masked_is_not_read(read: TextReader) -> None:
    # a caret after the digits in the recorded after-frame, masked (a bar reads as "1")
    after = _screen("46", caret=True)
    x, y, w, _ = DISPLAY
    caret = (x + w - 14 + 0, y + 4, 8, 34)
    earlier, today = _screen("4", font=MONO, dark=True), _screen("46", font=MONO, dark=True)
    checks = _effects(_screen("4"), after, earlier, today, read, masks=[caret])
    assert all(c.passed for c in checks), [c.describe() for c in checks]
    assert _by_text(checks), "passed by its text, the masked caret unread"


def test_a_change_that_left_the_text_as_it_was_is_never_passed_by_it(read: TextReader) -> None:
    # A row chosen and a box ticked: their text reads the same before and after, so what it
    # reads today says nothing of whether the step was done.
    before = _screen("4")
    for change in ("chosen", "ticked"):
        chosen, ticked = change == "chosen", change == "ticked"
        after = _screen("4", chosen=chosen, ticked=ticked)
        for done in (False, True):
            earlier = _screen("4", font=MONO)
            today = _screen("4", chosen=chosen and done, ticked=ticked and done, font=MONO)
            checks = _effects(before, after, earlier, today, read)
            assert checks, change
            assert not any(c.passed for c in _by_text(checks)), change
            if not done:
                assert not all(c.passed for c in checks), f"left un{change}, it fails"


def _scripted(readings: dict[int, Reading]):
    """A reader that says, of a region, what `readings` holds for its top-left grey level
    (the screens below are flat, one grey each)."""
    return lambda region: readings[int(region[0, 0])]


def test_an_unsure_reading_today_or_content_shown_before_passes_nothing() -> None:
    # the decision alone, on flat screens a reader is scripted for: before 10, after 90,
    # today before 170 and after 250 (further apart than pixel_threshold: another look)
    flat = [np.full((60, 80), v, np.uint8) for v in (10, 90, 170, 250)]
    screens = Screens(flat[0], flat[1], np.ones((60, 80), bool), flat[3], flat[2])
    failed = Check("effect", (10, 10, 30, 20), None, 0.1, 1.0, 600, False, (10, 10, 30, 20), "none")
    sure = {10: Reading("4", 0.99), 90: Reading("46", 0.99), 170: Reading("4", 0.99)}
    options = VerifyOptions()
    [passed] = by_text([failed], screens, _scripted({**sure, 250: Reading("46", 0.99)}), options)
    assert passed.passed and passed.match == "text"
    [unsure] = by_text([failed], screens, _scripted({**sure, 250: Reading("46", 0.3)}), options)
    assert not unsure.passed
    box = (10, 10, 30, 20)
    before = Check("effect", box, box, 0.95, 0.0, 0, False, box, "before")
    [shown] = by_text([before], screens, _scripted({**sure, 250: Reading("46", 0.99)}), options)
    assert shown == before

"""Effects by text (matching/compare/text.py): an effect whose pixels fail, where the
recording shows its text changed, says what it reads then and today; nothing passes by its
text. With the real recogniser."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from deskreel.matching import TextReader, VerifyOptions, checks_for, named_by_text
from deskreel.matching.compare.checks import Check
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


def _effects(before, after, today, read, masks=()):
    """The effect checks of a click whose recording went from `before` to `after`, today's
    screen showing `today` after it (and `before` before it), read as the replay reads a
    failed step's (`read` None: not read)."""
    checks = checks_for(
        action="left_click", before=before, after=after, screen=today, target=(300, 20),
        located=(300, 20), scale=1.0, region=None, masks=list(masks), options=VerifyOptions(),
        earlier=before,
    )  # fmt: skip
    if read is not None:
        checks = named_by_text(checks, after, list(masks), today, read)
    return [c for c in checks if c.kind == "effect"]


def _named(checks) -> list:
    return [c for c in checks if c.said]


@pytest.mark.parametrize(
    ("then", "shown"),
    [("46", "47"), ("46", "5"), ("Ab", "ab")],
    ids=["another digit", "another number", "case"],
)
def test_a_display_that_reads_otherwise_fails_and_says_both(
    read: TextReader, then: str, shown: str
) -> None:
    checks = _effects(_screen("4"), _screen(then), _screen(shown, font=MONO, dark=True), read)
    [named] = _named(checks)
    assert not named.passed and named.said == (then, shown), named.describe()
    assert named.difference is not None and named.difference.rule in ("nowhere", "pixels")
    assert named.describe().endswith(f"; it reads {shown!r} there, recorded {then!r}")
    unread = _effects(_screen("4"), _screen(then), _screen(shown, font=MONO, dark=True), None)
    assert not _named(unread) and not all(c.passed for c in unread), "pixels fail it alone"


def test_the_right_text_in_another_look_is_not_named_and_its_pixels_still_fail_it(
    read: TextReader,
) -> None:
    # the recogniser cannot tell "46" from "4 6" or an underline lost: pixels judge
    checks = _effects(_screen("4"), _screen("46"), _screen("46", font=MONO, dark=True), read)
    assert checks and not _named(checks) and not all(c.passed for c in checks)
    failed = next(c for c in checks if not c.passed)
    assert "reads" not in failed.describe()


def test_what_the_recording_masked_is_not_read(read: TextReader) -> None:
    # a caret after the digits in the recorded after-frame, masked (a bar reads as "1")
    x, y, w, _ = DISPLAY
    caret = (x + w - 14, y + 4, 8, 34)
    after = _screen("46", caret=True)
    checks = _effects(_screen("4"), after, _screen("47", font=MONO), read, masks=[caret])
    [named] = _named(checks)
    assert named.said == ("46", "47"), named.describe()


def test_a_change_that_left_the_text_as_it_was_is_not_named_by_it(read: TextReader) -> None:
    # A row chosen and a box ticked: today they read as recorded, though their pixels fail
    before = _screen("4")
    for after in (_screen("4", chosen=True), _screen("4", ticked=True)):
        checks = _effects(before, after, _screen("4", font=MONO), read)
        assert checks and not _named(checks) and not all(c.passed for c in checks)


def _scripted(readings: dict[int, Reading]):
    """A reader that says, of a region, what `readings` holds for its top-left grey level
    (the screens below are flat, one grey each)."""
    return lambda region: readings[int(region[0, 0])]


def test_an_unsure_reading_or_content_shown_before_names_nothing() -> None:
    # the decision alone, on flat screens a reader is scripted for: recorded 90, today 250
    recorded, today = np.full((60, 80), 90, np.uint8), np.full((60, 80), 250, np.uint8)
    box = (10, 10, 30, 20)
    failed = Check("effect", box, None, 0.1, 1.0, 600, False, box, "none")

    def named(check: Check, now: Reading) -> Check:
        reader = _scripted({90: Reading("46", 0.99), 250: now})
        [out] = named_by_text([check], recorded, [], today, reader)
        return out

    out = named(failed, Reading("47", 0.99))
    assert not out.passed and out.match == "none" and out.said == ("46", "47")
    assert named(failed, Reading("47", 0.3)) == failed
    assert named(failed, Reading("46", 0.99)) == failed
    before = Check("effect", box, box, 0.95, 0.0, 0, False, box, "before")
    assert named(before, Reading("47", 0.99)) == before

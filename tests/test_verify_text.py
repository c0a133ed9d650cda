"""Effects by text (matching/compare/text.py): an effect whose pixels fail is judged by what
it reads where the recording shows its text changed, with the real recogniser."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from deskreel.matching import TextReader, VerifyOptions, checks_for

FONTS = Path("/usr/share/fonts/truetype/dejavu")
SCREEN = (480, 240)  # w, h
DISPLAY = (120, 60, 240, 40)  # x, y, w, h: a calculator's display
BOX = (120, 140, 18, 18)  # a check box, its label beside it
ROW = (120, 180, 240, 30)  # a row of a list


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
) -> np.ndarray:
    """A window with a right-aligned display, a labelled check box and a row of a list
    (`chosen`: highlighted), in `font`."""
    ink, paper = ((235, 235, 235), (30, 30, 36)) if dark else ((20, 20, 20), (250, 250, 250))
    image = Image.new("RGB", SCREEN, paper)
    draw = ImageDraw.Draw(image)
    face = ImageFont.truetype(str(FONTS / font), 22)
    x, y, w, h = DISPLAY
    draw.rectangle((x, y, x + w, y + h), outline=ink)
    right = draw.textbbox((0, 0), display, font=face)[2]
    draw.text((x + w - 10 - right, y + 8), display, font=face, fill=ink)
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


def _checks(before, after, today, read):
    return checks_for(
        action="left_click", before=before, after=after, screen=today, target=(300, 20),
        located=(300, 20), scale=1.0, region=None, masks=[], options=VerifyOptions(),
        earlier=before, read=read,
    )  # fmt: skip


def _effects(checks):
    return [c for c in checks if c.kind == "effect"]


def test_a_display_in_another_font_passes_by_what_it_reads(read: TextReader) -> None:
    before, after = _screen("4"), _screen("46")
    today = _screen("46", font="DejaVuSansMono.ttf", dark=True)
    unread = _effects(_checks(before, after, today, None))
    assert unread and not all(c.passed for c in unread), "its pixels alone fail it"
    checks = _effects(_checks(before, after, today, read))
    assert all(c.passed for c in checks), [c.describe() for c in checks]
    assert any(c.match == "text" for c in checks)
    assert "'46'" in next(c.describe() for c in checks if c.match == "text")


@pytest.mark.parametrize("shown", ["47", "4"], ids=["another digit", "nothing entered"])
def test_a_display_that_reads_otherwise_fails_and_says_both(read: TextReader, shown: str) -> None:
    before, after = _screen("4"), _screen("46")
    today = _screen(shown, font="DejaVuSansMono.ttf", dark=True)
    checks = _effects(_checks(before, after, today, read))
    failed = [c for c in checks if not c.passed]
    assert failed, [c.describe() for c in checks]
    named = [c for c in failed if c.match == "text"]
    assert named, [c.describe() for c in failed]
    assert named[0].said == ("46", shown)
    assert named[0].difference is not None and named[0].difference.rule == "text"


def test_a_change_that_left_the_text_as_it_was_is_never_passed_by_it(read: TextReader) -> None:
    # A row chosen and a box ticked: their text reads the same before and after, so what it
    # reads today says nothing of whether the step was done.
    before, mono = _screen("4"), "DejaVuSansMono.ttf"
    for change in ("chosen", "ticked"):
        chosen, ticked = change == "chosen", change == "ticked"
        after = _screen("4", chosen=chosen, ticked=ticked)
        for done in (False, True):
            today = _screen("4", chosen=chosen and done, ticked=ticked and done, font=mono)
            checks = _effects(_checks(before, after, today, read))
            assert checks, change
            assert not any(c.match == "text" and c.passed for c in checks), change
            if not done:
                assert not all(c.passed for c in checks), f"left un{change}, it fails"

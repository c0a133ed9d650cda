"""The ladder as data (matching/ladder.py): docs/anchoring.md lists its rungs and rules as the
code names them; each rung answers found, refused or next, and the trail says so in values."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from deskreel.matching import (
    FOUND,
    LADDER,
    NEXT,
    REFUSED,
    RULES,
    WHY,
    Hints,
    ObjectAnswer,
    Query,
    Refusal,
    locate,
)
from tests.test_objects import APPLY as TWIN_FORM_APPLY
from tests.test_matching import NORMAL, anchor_for, centre, moved, paint

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "anchoring.md"
BULLET = re.compile(r"^- `([\w-]+)`(?: \(((?:`[\w-]+`(?:, )?)+)\))?")


def _between(text: str, marker: str) -> list[str]:
    start = text.index(f"<!-- {marker}")
    end = text.index(f"<!-- /{marker} -->")
    return text[start:end].splitlines()[1:]


def test_the_doc_lists_the_rungs_of_the_ladder_in_its_order() -> None:
    listed = []
    for line in _between(DOC.read_text(), "ladder"):
        found = BULLET.match(line)
        if found:
            inner = tuple(re.findall(r"`([\w-]+)`", found.group(2) or ""))
            listed.append((found.group(1), inner))
    assert listed == [(rung.name, rung.inner) for rung in LADDER]


def test_the_doc_lists_every_rule_a_refusal_can_name() -> None:
    rows = [re.match(r"^\| `([\w-]+)` \|", line) for line in _between(DOC.read_text(), "rules")]
    assert [row.group(1) for row in rows if row] == list(RULES)


def test_every_rule_reads_as_a_sentence_with_its_measure() -> None:
    for rule in RULES:
        text = Refusal(rule, 0.25, 0.5, (3, 4)).text()
        assert "0.25" in text and "0.5" in text and "3,4" in text, rule


def test_a_refusal_or_a_reason_outside_its_table_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="no such rule"):
        Refusal("score-too-low", 0.5, 0.85)
    with pytest.raises(AssertionError, match="no such reason"):
        ObjectAnswer(None, None, "the pixels decide")


def test_every_reason_of_the_object_rung_is_given_somewhere() -> None:
    code = "\n".join(
        p.read_text() for folder in ("matching", "replayer") for p in (ROOT / folder).glob("*.py")
    )
    assert [why for why in WHY if f'"{why}"' not in code.replace(f'"{why}": ', "")] == []


APPLY = replace(TWIN_FORM_APPLY, alike=1)  # a named control with no twin


def test_a_rung_answers_found_refused_or_next_and_the_trail_says_which() -> None:
    screen = paint(NORMAL)
    target = centre("button:Delete", NORMAL)
    choice, crop = anchor_for(screen, target)
    query = Query(crop, choice.offset, target, choice.distinctive, widget=APPLY)

    # The object rung finds: no pixel rung is climbed.
    today = ObjectAnswer(APPLY, None, "same-place")
    by_object = locate(screen, query, ask=lambda _: today)
    assert by_object.found and by_object.rung == "object" and by_object.rungs == ("object",)
    # It refuses: that stands, whatever the pixels say.
    gone = ObjectAnswer(None, Refusal("object-gone", 0, 1), "gone")
    refused = locate(screen, query, ask=lambda _: gone)
    assert not refused.found and refused.rule == "object-gone" and refused.by_object
    assert [(t.name, t.outcome) for t in refused.trail] == [("object", REFUSED)]
    # It goes on: the pixels answer, and the trail says the object rung went on first.
    unsure = ObjectAnswer(None, None, "no-bus")
    pixels = locate(screen, query, ask=lambda _: unsure)
    assert pixels.found and pixels.rung == "window" and not pixels.by_object
    assert [(t.name, t.outcome) for t in pixels.trail] == [("object", NEXT), ("window", FOUND)]


def test_the_shift_is_told_once_by_the_answer() -> None:
    screen = paint(NORMAL)
    target = centre("button:Delete", NORMAL)
    choice, crop = anchor_for(screen, target)
    query = Query(crop, choice.offset, target, choice.distinctive)
    found = locate(paint(moved(NORMAL, 37, -41)), query)
    assert found.found and found.moved == (37, -41) and found.origin == (37, -41)
    hinted = locate(paint(moved(NORMAL, 137, 61)), query, Hints(shift=(137, 61)))
    assert hinted.rung == "shifted" and hinted.moved == (137, 61)


def test_no_anchor_and_an_object_left_to_the_pixels_is_undecided() -> None:
    unsure = ObjectAnswer(None, None, "no-bus")
    answer = locate(np.zeros((8, 8, 3), np.uint8), Query(None, widget=APPLY), ask=lambda _: unsure)
    assert not answer.decided and not answer.found and answer.refusal is None


def test_the_report_shows_the_trail_as_a_table_of_rungs_with_their_measures() -> None:
    from deskreel.report.trail import trail_of, trail_rows, trail_table
    from deskreel.storage import Evidence, StepResult

    screen = paint(NORMAL)
    target = centre("button:Save", NORMAL)
    choice, crop = anchor_for(screen, target)
    twin = {**NORMAL, "button:Save#2": (NORMAL["button:Save"][0], NORMAL["button:Save"][1] + 40)}
    answer = locate(paint(twin), Query(crop, choice.offset, target, unique=True))
    assert answer.rule == "margin"
    stored = StepResult(1, "failed", details={Evidence.TRAIL: [t.to_json() for t in answer.trail]})
    rows = trail_rows(trail_of(stored))
    refused = [row for row in rows if row[1] == REFUSED]
    assert refused and refused[-1][3].startswith("margin: ") and refused[-1][5] == "≥ 0.05"
    assert '<table class="trail">' in trail_table(trail_of(stored))
    assert trail_table([]) == "" and trail_of(StepResult(1, "passed")) == []


def test_an_empty_text_area_is_found_by_its_object_where_it_is_blank_then_and_now() -> None:
    # A press into an empty editor: its content decides, but it has none. Blank when
    # recorded (its caret masked where the recorder saw it blink) and blank today where
    # the screen shows the same object, it is found at the fraction of its box.
    from deskreel.matching import Recorded
    from deskreel.storage.widgets import ATSPI, Widget

    text = Widget(ATSPI, "editor", "text", "", (80, 100, 400, 300), (100, 30),
                  (("frame", 0), ("text", 0)), "", (("text", ""),), 0,
                  states=("editable", "multi-line"), window="frame 'Untitled'")  # fmt: skip
    then = np.full((600, 800, 3), 40, np.uint8)
    then[100:400, 80:480] = 255
    then[106:120, 86:87] = 0  # its caret
    caret = ((84, 104, 6, 18),)
    grown = replace(text, box=(80, 110, 440, 320))
    today = np.full((600, 800, 3), 40, np.uint8)
    today[110:430, 80:520] = 255
    query = Query(None, recorded=(180, 130), widget=text, context=Recorded(then), moving=caret)
    content = ObjectAnswer(None, None, "content")
    asked: list[Widget] = []

    def shown(widget: Widget) -> Widget:
        asked.append(widget)
        return grown

    found = locate(today, query, ask=lambda _: content, shown=shown)
    grew = (440 / 400 * 320 / 300) ** 0.5  # alike both ways: the scale its box tells
    at = (80 + round(100 * grew), 110 + round(30 * grew))  # its distance from the corner
    assert found.found and found.rung == "object" and found.point == at, found
    assert found.tried("object").why == "blank"  # type: ignore[union-attr]
    written = today.copy()
    written[200:214, 150:230] = 0  # a line of text today
    assert not locate(written, query, ask=lambda _: content, shown=shown).decided
    unmasked = replace(query, moving=())
    asked.clear()
    assert not locate(today, unmasked, ask=lambda _: content, shown=shown).decided
    assert asked == []  # not blank when recorded: nothing more is asked
    assert not locate(today, query, ask=lambda _: content, shown=lambda _: None).decided
    # a box that shrank past the recorded point: its corner no longer tells the place
    small = replace(text, box=(80, 110, 90, 320))
    assert not locate(today, query, ask=lambda _: content, shown=lambda _: small).decided

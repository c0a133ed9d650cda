"""The checks of a match that is not exact against the recorded screen (locate's `context`):
the wider context, the pixels right around the target, and the pixels found looked for back
on the recording. Synthetic screens from tests/test_matching.py."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from deskreel.matching import FOUND, PASSED, Hints, Query, Recorded, choose_anchor, locate
from deskreel.matching import doubts, other_scales
from deskreel.matching.search import Screen, grayscale, scan
from tests.test_matching import FONT, NORMAL, SIZES, Image, anchor_for, centre, moved, near, paint


def panel(screen: Image, x: int, y: int, label: str | None) -> None:
    """A 140x110 panel with a thick dark border and, in its middle, a large label."""
    cv2.rectangle(screen, (x, y), (x + 139, y + 109), (40, 40, 40), 6)
    if label:
        (tw, th), _ = cv2.getTextSize(label, FONT, 1.0, 1)
        cv2.putText(
            screen,
            label,
            (x + 70 - tw // 2, y + 55 + th // 2),
            FONT,
            1.0,
            (20, 20, 20),
            1,
            cv2.LINE_AA,
        )


def scaled(screen: Image, scale: float) -> Image:
    return cv2.resize(screen, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)


def test_a_look_alike_the_recording_holds_too_is_refused_by_looking_back() -> None:
    # "Find" is told from "Fine" by a margin of only ~0.13. With Find gone, Fine matches its
    # anchor well enough (~0.87) and the wider context fits there too (~0.97); only looking
    # for those pixels on the recording shows that they are Fine's. (Without the recording,
    # the anchor's own parts do not settle at 1x there, and no place wins by enough.)
    places = {**NORMAL, "button:Find": (590, 70), "button:Fine": (700, 430)}
    recorded = paint(places)
    target, look_alike = centre("button:Find", places), centre("button:Fine", places)
    choice, crop = anchor_for(recorded, target)
    assert choice.distinctive and choice.margin < 0.15
    screen = paint({name: place for name, place in places.items() if name != "button:Find"})

    taken = locate(screen, Query(crop, choice.offset, recorded=target, unique=True))
    refused = locate(
        screen, Query(crop, choice.offset, recorded=target, unique=True, context=Recorded(recorded))
    )

    assert not taken.found and taken.rule in (
        "parts-nowhere",
        "parts-fit",
        "parts-lead",
        "parts-pinned",
    ), taken  # without the recording
    assert not refused.found and refused.point is None
    back = refused.tried("back")  # on the recording, those pixels are the look-alike's
    assert back is not None and back.refusal is not None and back.refusal.rule == "back", refused
    assert back.refusal.where is not None and near(back.refusal.where, look_alike, 3), refused
    context = refused.tried("context")  # the context check let it through
    assert context is not None and context.outcome == PASSED, refused


@pytest.mark.parametrize("scale", [0.9, 1.15])
def test_on_a_scaled_screen_the_look_alike_of_a_removed_button_is_refused(scale: float) -> None:
    # As above, on a screen drawn at another scale: the match goes to the part-by-part
    # judgement, where Fine fits most of Find's parts. Fine's own neighbourhood brought back
    # fits Fine's place on the recording better than Find's, so it is never clicked;
    # with Find there, Find is found.
    places = {**NORMAL, "button:Find": (590, 70), "button:Fine": (700, 430)}
    recorded = paint(places)
    target, look_alike = centre("button:Find", places), centre("button:Fine", places)
    choice, crop = anchor_for(recorded, target)
    without = scaled(paint({k: v for k, v in places.items() if k != "button:Find"}), scale)

    refused = locate(
        without,
        Query(crop, choice.offset, recorded=target, unique=True, context=Recorded(recorded)),
    )
    found = locate(
        scaled(recorded, scale),
        Query(crop, choice.offset, recorded=target, unique=True, context=Recorded(recorded)),
    )

    assert not refused.found and refused.point is None, refused
    assert "parts" in refused.rungs and refused.rule == "back-parts", refused
    assert found.found and near(found.point, (target[0] * scale, target[1] * scale), 3), found
    assert not near(found.point, (look_alike[0] * scale, look_alike[1] * scale), 20)


@pytest.mark.parametrize("label", [None, "No"], ids=["gone", "changed"])
def test_a_big_anchor_matching_on_its_frame_alone_is_refused(label: str | None) -> None:
    # A 150x120 anchor whose border carries most of its contrast: without the "OK" at its
    # target it still scores ~0.95, and so does its wider context.
    recorded, screen = paint(NORMAL), paint(NORMAL)
    panel(recorded, 560, 400, "OK")
    panel(screen, 560, 400, label)
    x, y, w, h = 555, 395, 150, 120
    crop = recorded[y : y + h, x : x + w].copy()
    target = (630, 455)  # the middle of "OK"
    offset = (target[0] - x, target[1] - y)

    taken = locate(screen, Query(crop, offset, recorded=target))
    refused = locate(screen, Query(crop, offset, recorded=target, context=Recorded(recorded)))

    assert taken.found and near(taken.point, target, 1) and taken.score < 0.97, taken
    assert not refused.found and refused.point is None
    coarse = refused.tried("coarse")  # at 1x the pixels around the target do not fit; and
    assert coarse is not None and coarse.refusal is not None and coarse.refusal.rule == "inner"
    assert refused.rule == "unscaled", refused  # nothing is scaled: the verdict at 1x stands
    assert "context" in refused.rungs and "back" not in refused.rungs


def test_a_list_in_the_top_left_corner_of_a_scaled_screen_is_found_row_by_row() -> None:
    # A list in the top-left corner, the screen 1.2x larger: the neighbourhood of a row runs
    # off the screen's edge (a wider context did, and was once scored against the runner-up's
    # own, smaller part, which made a row away win). Parts off the screen count as not found,
    # at the match and at the runner-up alike.
    places = {
        **moved({k: v for k, v in NORMAL.items() if k not in ("list:", "box:")}, 240, 0),
        "list:": (2, 2),
    }
    recorded = paint(places)
    screen = scaled(recorded, 1.2)
    for target in ((50, 37), (70, 58)):  # the second and third rows
        choice, crop = anchor_for(recorded, target)

        found = locate(
            screen, Query(crop, choice.offset, recorded=target, context=Recorded(recorded))
        )

        assert found.found, found
        assert near(found.point, (target[0] * 1.2, target[1] * 1.2), 3)
        assert found.rung == "scales" and found.trail[-1].name == "back"
    # The first row, whose context runs furthest off the edge, is found or refused, never
    # taken for another row.
    choice, crop = anchor_for(recorded, (70, 16))
    first = locate(
        screen, Query(crop, choice.offset, recorded=(70, 16), context=Recorded(recorded))
    )
    assert not first.found or near(first.point, (84, 19), 3), first


def test_a_button_whose_neighbourhood_runs_off_a_scaled_up_display_is_found() -> None:
    # The app drawn 1.2x larger on a display of the same size: near the right edge the
    # neighbourhood of a button runs off the screen while the anchor itself is still on it.
    places = {**NORMAL, "button:Help#2": (990, 500)}
    recorded = paint(places)
    target = centre("button:Help#2", places)
    choice, crop = anchor_for(recorded, target)
    screen = np.ascontiguousarray(scaled(recorded, 1.2)[:800, :1280])

    found = locate(screen, Query(crop, choice.offset, recorded=target, context=Recorded(recorded)))

    assert found.found, found
    assert near(found.point, (target[0] * 1.2, target[1] * 1.2), 3)
    assert found.rung == "scales" and found.trail[-1].name == "back"


@pytest.mark.parametrize("scale", [1.1, 0.9])
def test_a_true_scaled_match_passes_its_parts_and_both_checks(
    scale: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Twin "OK" buttons make the anchor grow past 32 px, so that the pixels around the
    # target (the label) are checked on their own as well. The second one's row has a label
    # of its own: twins are told apart by what is in their row (twins.py).
    places = {
        **NORMAL,
        "button:OK#1": (590, 70),
        "button:OK#2": (700, 430),
        "label:Proceed:": (600, 432),
    }
    recorded = paint(places)
    target = centre("button:OK#2", places)
    choice, crop = anchor_for(recorded, target)
    assert choice.distinctive and max(crop.shape[:2]) > 32
    inner: list[float | None] = []
    check = doubts.inner_score

    def spied(*a: Any) -> float | None:
        inner.append(check(*a))
        return inner[-1]

    monkeypatch.setattr(doubts, "inner_score", spied)

    found = locate(
        scaled(recorded, scale),
        Query(crop, choice.offset, recorded=target, context=Recorded(recorded)),
    )

    assert found.found, found
    assert inner and inner[-1] is not None and inner[-1] >= 0.5  # really compared, and fit
    assert abs(found.scale - scale) <= 0.03
    assert near(found.point, (target[0] * scale, target[1] * scale), 3)
    assert found.rung == "scales" and found.trail[-1].name == "back"


def test_the_scale_earlier_steps_found_is_searched_first() -> None:
    recorded = paint(NORMAL)
    target = centre("button:Delete", NORMAL)
    choice, crop = anchor_for(recorded, target)
    screen = scaled(recorded, 1.2)

    hinted = locate(
        screen,
        Query(crop, choice.offset, recorded=target, context=Recorded(recorded)),
        Hints(scale=1.2),
    )
    unhinted = locate(
        screen, Query(crop, choice.offset, recorded=target, context=Recorded(recorded))
    )
    misled = locate(
        screen,
        Query(crop, choice.offset, recorded=target, context=Recorded(recorded)),
        Hints(scale=0.85),
    )

    for found in (hinted, unhinted, misled):
        assert found.found, found
        assert near(found.point, (target[0] * 1.2, target[1] * 1.2), 3)
    # The hint settles it with one scan at 1.18-1.22; a wrong hint costs that scan and then
    # the search over every scale runs as without one.
    assert abs(hinted.scale - 1.2) <= 0.021
    ranges = [
        [t.name for t in f.trail if t.name in ("hint", "all")] for f in (hinted, unhinted, misled)
    ]
    assert ranges == [["hint"], ["all"], ["hint", "all"]], ranges
    assert misled.scale == unhinted.scale and misled.point == unhinted.point


@pytest.mark.parametrize(("scale", "found_untold"), [(1.2, True), (1.75, False), (2.0, False)])
def test_the_scale_the_desktop_tells_is_searched_first(scale: float, found_untold: bool) -> None:
    recorded = paint(NORMAL)
    target = centre("button:Delete", NORMAL)
    choice, crop = anchor_for(recorded, target)
    screen = scaled(recorded, scale)

    def query() -> Query:
        return Query(crop, choice.offset, recorded=target, context=Recorded(recorded))

    told = locate(screen, query(), Hints(told=scale))
    untold = locate(screen, query())
    misled = locate(screen, query(), Hints(told=0.85))
    found_again = locate(screen, query(), Hints(scale=scale, told=0.85))

    assert told.found, told
    assert abs(told.scale - scale) <= 0.021
    assert near(told.point, (target[0] * scale, target[1] * scale), 3)
    ranges = [
        [t.name for t in f.trail if t.name in ("hint", "told", "all")]
        for f in (told, untold, misled, found_again)
    ]
    # told: one scan around it settles it; a wrong one costs that scan, then every scale is
    # searched as without it; a scale an earlier target was found at goes before it
    assert ranges == [["told"], ["all"], ["told", "all"], ["hint"]], ranges
    assert (misled.found, misled.point) == (untold.found, untold.point)
    assert untold.found == found_untold  # 1.75x and 2x (200% HiDPI) are beyond what is
    # searched untold


def test_a_scale_told_that_the_toolkit_did_not_follow_changes_nothing_at_1x() -> None:
    recorded = paint(NORMAL)
    for name in ("button:Delete", "button:Save"):
        target = centre(name, NORMAL)
        choice, crop = anchor_for(recorded, target)
        query = Query(crop, choice.offset, recorded=target, context=Recorded(recorded))
        told, untold = locate(recorded, query, Hints(told=1.25)), locate(recorded, query)
        assert told.found and (told.point, told.scale) == (untold.point, untold.scale)
        assert [t.name for t in told.trail] == [t.name for t in untold.trail]


def test_retries_sharing_a_recorded_screen_fetch_and_prepare_it_once() -> None:
    recorded = paint(NORMAL)
    target = centre("button:Delete", NORMAL)
    choice, crop = anchor_for(recorded, target)
    asked: list[bool] = []

    def fetch() -> Image:
        asked.append(True)
        return recorded

    shared = Recorded(fetch)
    found = [
        locate(scaled(recorded, 1.1), Query(crop, choice.offset, recorded=target, context=shared))
        for _ in range(3)
    ]

    assert all(f.found and "back" in f.rungs for f in found), found
    assert asked == [True]
    assert shared.screen is not None and shared.screen.gray.shape == recorded.shape[:2]


@pytest.mark.parametrize("scale", [0.8, 1.2])
def test_a_target_in_a_flat_stretch_far_from_texture_is_placed_by_a_wider_neighbourhood(
    scale: float,
) -> None:
    # (600, 400) is empty background 100+ px from every widget: its anchor is mostly flat,
    # and the parts of its own neighbourhood are too far from it to place it at a scale.
    recorded = paint(NORMAL)
    target = (600, 400)
    choice, crop = anchor_for(recorded, target)
    found = locate(
        scaled(recorded, scale),
        Query(crop, choice.offset, recorded=target, context=Recorded(recorded)),
    )
    assert found.found, found
    assert near(found.point, (target[0] * scale, target[1] * scale), 2)
    wide = found.tried("wide")
    assert wide is not None and wide.outcome == FOUND, found


def test_a_button_renamed_in_place_is_refused() -> None:
    # Its border and the "S" it starts with still fit, and its parts fit best where it was,
    # at about 1x: but nothing is scaled there, so the anchor that no longer matches at 1x
    # decides.
    recorded = paint(NORMAL)
    renamed = {
        ("button:Store" if name == "button:Save" else name): place for name, place in NORMAL.items()
    }
    target = centre("button:Save", NORMAL)
    choice, crop = anchor_for(recorded, target)
    found = locate(
        paint(renamed), Query(crop, choice.offset, recorded=target, context=Recorded(recorded))
    )
    assert not found.found, found
    assert found.point is None


def test_coarse_scans_cover_the_busy_part_of_the_screen_only() -> None:
    screen = paint(NORMAL)
    x, y, w, h = Screen.of(screen).busy
    boxes = [(px, py, *SIZES[name.partition(":")[0]]) for name, (px, py) in NORMAL.items()]
    # Every widget inside it (to the 4 px of the quarter-resolution level), the flat margin
    # to the right of the last widget outside it (but for the blur of two reductions).
    assert all(
        x - 4 <= bx and y - 4 <= by and bx + bw <= x + w + 4 and by + bh <= y + h + 4
        for bx, by, bw, bh in boxes
    )
    assert x + w <= max(bx + bw for bx, _, bw, _ in boxes) + 16 < screen.shape[1] - 200
    # A look-alike out in the flat margin is still found: the margin is only what is flat.
    crop = screen[70:102, 40:140]
    lone = screen.copy()
    lone[600:632, 1150:1250] = crop
    hits = sorted(scan(Screen.of(lone), grayscale(crop)), reverse=True)
    assert {(hit.x, hit.y) for hit in hits if hit.score > 0.97} == {(40, 70), (1150, 600)}


def test_a_click_on_a_buttons_corner_is_anchored_on_its_whole_label() -> None:
    # The smallest distinctive crop around a corner holds the border and the first letter,
    # which a button renamed in place ("Save" -> "Store") may share: the crop grows, inside
    # the button's borders, to hold the whole label, and the renamed button is refused.
    recorded = paint(NORMAL)
    target = (box_x := NORMAL["button:Save"][0]) + 20, NORMAL["button:Save"][1] + 9
    choice, crop = anchor_for(recorded, target)
    x, _, w, _ = choice.box
    label_end = box_x + (SIZES["button"][0] + cv2.getTextSize("Save", FONT, 0.5, 1)[0][0]) // 2
    assert x <= target[0] and x + w >= label_end - 2, choice  # anti-aliased edge: faint
    renamed = {
        ("button:Store" if name == "button:Save" else name): place for name, place in NORMAL.items()
    }
    again = locate(
        recorded,
        Query(crop, choice.offset, recorded=target, unique=True, context=Recorded(recorded)),
    )
    assert again.found and again.point == target
    found = locate(
        paint(renamed),
        Query(crop, choice.offset, recorded=target, unique=True, context=Recorded(recorded)),
    )
    assert not found.found, found


def test_only_a_label_inside_borders_widens_the_anchor(monkeypatch: pytest.MonkeyPatch) -> None:
    # A heading's text in the open is placed by its font, not by a box: a crop that cuts it
    # stays as it was. A button's label, inside its borders, is held whole.
    from deskreel.matching import choice as chooser

    screen = paint(NORMAL)
    heading = (NORMAL["heading:Settings"][0] + 20, NORMAL["heading:Settings"][1] + 15)
    corner = (NORMAL["button:Save"][0] + 20, NORMAL["button:Save"][1] + 9)
    chosen = {target: choose_anchor(screen, target).box for target in (heading, corner)}
    monkeypatch.setattr(chooser, "_whole", lambda gray, box: box)
    plain = {target: choose_anchor(screen, target).box for target in (heading, corner)}
    assert chosen[heading] == plain[heading]
    assert chosen[corner] != plain[corner] and chosen[corner][2] > plain[corner][2]


def test_the_parts_judge_only_places_the_whole_crop_fits_nearly_as_well_as_its_best():
    candidates = [
        (0.62, (200, 0), 1.1),
        (0.9, (0, 0), 1.0),
        (0.72, (100, 0), 0.9),
        (0.89, (3, 2), 1.0),
    ]  # the last is the best's place again

    kept = other_scales.distinct(candidates, within=other_scales.P.worth)

    assert kept == [(0.9, (0, 0), 1.0), (0.72, (100, 0), 0.9)]
    assert len(other_scales.distinct(candidates)) == 3 and other_scales.distinct([]) == []


def test_the_colour_score_is_match_template_s_at_one_place():
    from deskreel.matching.search import colour_score as _colour_score

    rng = np.random.default_rng(7)
    for case in range(200):
        h, w = (int(v) for v in rng.integers(8, 160, 2))
        tmpl = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        screen = rng.integers(0, 256, (h + 12, w + 12, 3), dtype=np.uint8)
        if case % 4 == 1:
            screen[:] = 200  # a flat window: matchTemplate's own rule
        elif case % 4 == 2:
            screen[5 : 5 + h, 7 : 7 + w] = tmpl  # the template itself
        elif case % 4 == 3:
            tmpl[:] = tmpl[0, 0]  # a flat template
        expected = float(
            cv2.matchTemplate(screen[5 : 5 + h, 7 : 7 + w], tmpl, cv2.TM_CCOEFF_NORMED)[0, 0]
        )
        assert _colour_score(screen, tmpl, (7, 5)) == pytest.approx(expected, abs=1e-5), case

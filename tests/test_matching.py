"""Image anchors and the locator, on synthetic screens (and once on the sample app)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest

from deskreel.xsession.images import decode_image, encode_png
from deskreel.matching import (
    FOUND,
    AnchorChoice,
    Hints,
    Located,
    Query,
    Recorded,
    choose_anchor,
    locate,
)
from deskreel.xsession.xvfb import VirtualDisplay

Image = np.ndarray
Places = dict[str, tuple[int, int]]

FONT = cv2.FONT_HERSHEY_SIMPLEX
BACKGROUND = (240, 240, 240)
SIZES = {
    "heading": (200, 30),
    "button": (100, 32),
    "red": (100, 32),
    "green": (100, 32),
    "label": (60, 28),
    "entry": (300, 28),
    "list": (220, 260),
    "box": (120, 80),
}
FILLS = {"button": (225, 225, 225), "red": (200, 40, 40), "green": (40, 150, 60)}

# A settings page: a toolbar, two labelled fields, a list, a box and two coloured buttons
# of one shape. Names are "kind:text", with "#n" to tell widgets of the same text apart.
NORMAL: Places = {
    "heading:Settings": (40, 20),
    "button:Save": (40, 70),
    "button:Open": (150, 70),
    "button:Delete": (260, 70),
    "button:Help": (370, 70),
    "button:Cancel": (480, 70),
    "label:Name:": (40, 130),
    "entry:#name": (110, 130),
    "label:Email:": (40, 170),
    "entry:#email": (110, 170),
    "list:": (700, 130),
    "box:": (900, 500),
    "red:Go": (40, 600),
    "green:Go": (300, 600),
}


def paint(places: Places, *, size: tuple[int, int] = (1280, 800)) -> Image:
    """An RGB screen with flat colours and anti-aliased text, like a real toolkit draws."""
    screen = np.full((size[1], size[0], 3), BACKGROUND, np.uint8)
    for name, (x, y) in places.items():
        kind, _, text = name.partition(":")
        text = text.split("#")[0]
        w, h = SIZES[kind]
        corner = (x + w - 1, y + h - 1)
        if kind in FILLS:
            cv2.rectangle(screen, (x, y), corner, FILLS[kind], -1)
            cv2.rectangle(screen, (x, y), corner, (130, 130, 130), 1)
            ink = (20, 20, 20) if kind == "button" else (255, 255, 255)
            _write(screen, text, (x, y, w, h), ink=ink)
        elif kind in ("entry", "list"):
            cv2.rectangle(screen, (x, y), corner, (255, 255, 255), -1)
            cv2.rectangle(screen, (x, y), corner, (150, 150, 150), 1)
            for row in range(12 if kind == "list" else 0):
                _write(
                    screen,
                    f"Item {row + 1:02d}",
                    (x + 4, y + 4 + 21 * row, w, 20),
                    centred=False,
                    scale=0.45,
                )
        elif kind == "box":
            cv2.rectangle(screen, (x, y), corner, (48, 96, 192), -1)
        else:
            _write(
                screen, text, (x, y, w, h), centred=False, scale=0.8 if kind == "heading" else 0.5
            )
    return screen


def _write(
    screen: Image,
    text: str,
    box: tuple[int, int, int, int],
    *,
    ink: tuple[int, int, int] = (20, 20, 20),
    centred: bool = True,
    scale: float = 0.5,
) -> None:
    x, y, w, h = box
    (tw, th), _ = cv2.getTextSize(text, FONT, scale, 1)
    left = x + (w - tw) // 2 if centred else x + 2
    cv2.putText(screen, text, (left, y + (h + th) // 2), FONT, scale, ink, 1, cv2.LINE_AA)


def box_of(name: str, places: Places) -> tuple[int, int, int, int]:
    x, y = places[name]
    return (x, y, *SIZES[name.partition(":")[0]])


def centre(name: str, places: Places) -> tuple[int, int]:
    x, y, w, h = box_of(name, places)
    return x + w // 2, y + h // 2


def moved(places: Places, dx: int, dy: int) -> Places:
    return {name: (x + dx, y + dy) for name, (x, y) in places.items()}


def near(point: tuple[int, int] | None, expected: tuple[float, float], tolerance: float) -> bool:
    return point is not None and all(abs(p - e) <= tolerance for p, e in zip(point, expected))


def inside(point: tuple[int, int] | None, box: tuple[int, int, int, int] | list[int]) -> bool:
    x, y, w, h = box
    return point is not None and x <= point[0] < x + w and y <= point[1] < y + h


def within(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


def anchor_for(screen: Image, target: tuple[int, int]) -> tuple[AnchorChoice, Image]:
    choice = choose_anchor(screen, target)
    return choice, choice.crop(screen)


def test_button_anchor_is_found_where_it_was_recorded() -> None:
    screen = paint(NORMAL)
    target = centre("button:Save", NORMAL)
    choice, crop = anchor_for(screen, target)
    assert choice.distinctive and choice.score == 1.0 and choice.margin >= 0.1
    x, y, w, h = choice.box
    assert (x + choice.offset[0], y + choice.offset[1]) == target

    found = locate(screen, Query(crop, choice.offset, recorded=target, unique=choice.distinctive))

    assert found.found, found.reason
    assert near(found.point, target, 1)
    assert found.rungs == ("window",) and found.scale == 1.0 and found.score > 0.99
    # Without the recorder's word that the crop was unique, the whole screen is checked too.
    checked = locate(screen, Query(crop, choice.offset, recorded=target))
    assert checked.found and checked.point == found.point
    assert checked.rungs == ("window", "coarse")


def test_an_exact_match_near_its_place_is_not_taken_when_the_window_holds_a_twin() -> None:
    target = centre("button:Save", NORMAL)
    choice, crop = anchor_for(paint(NORMAL), target)
    twin = {**NORMAL, "button:Save#2": (NORMAL["button:Save"][0], NORMAL["button:Save"][1] + 40)}

    found = locate(paint(twin), Query(crop, choice.offset, recorded=target, unique=True))

    assert not found.found and found.rule == "margin", found


def test_shifted_layout_moves_the_target_with_it() -> None:
    target = centre("button:Delete", NORMAL)
    choice, crop = anchor_for(paint(NORMAL), target)

    for dx, dy, stages in ((37, -41, ("window",)), (137, 61, ("window", "coarse"))):
        found = locate(
            paint(moved(NORMAL, dx, dy)),
            Query(crop, choice.offset, recorded=target, unique=choice.distinctive),
        )

        assert found.found, found.reason
        assert near(found.point, (target[0] + dx, target[1] + dy), 1)
        assert found.rungs == stages


def test_a_button_moved_far_away_is_found_by_the_coarse_search() -> None:
    target = centre("button:Save", NORMAL)
    choice, crop = anchor_for(paint(NORMAL), target)
    reordered = {**NORMAL, "button:Save": (880, 680), "button:Cancel": (40, 70)}

    found = locate(paint(reordered), Query(crop, choice.offset, recorded=target))

    assert found.found, found.reason
    assert near(found.point, centre("button:Save", reordered), 1)
    assert found.rungs == ("window", "coarse")


def test_an_empty_field_anchor_grows_to_take_in_its_label() -> None:
    screen = paint(NORMAL)
    target = centre("entry:#name", NORMAL)
    choice, crop = anchor_for(screen, target)

    x, y, w, h = choice.box
    lx, ly, lw, lh = box_of("label:Name:", NORMAL)
    ink = screen[ly : ly + lh, lx : lx + lw].min(axis=2) < 100
    in_box = ink[max(0, y - ly) : y + h - ly, max(0, x - lx) : x + w - lx]
    assert choice.distinctive and in_box.sum() > 20  # "Name:" itself, not just the field
    found = locate(screen, Query(crop, choice.offset, recorded=target))
    assert found.found and near(found.point, target, 1)  # not the identical Email field


def test_a_click_in_the_middle_of_an_empty_canvas_reaches_past_240_px_to_what_pins_it() -> None:
    # A white canvas 900x400 with a heading in its top-left corner: 200 px around the target
    # there is only white and the canvas's top and bottom borders, which look the same a few
    # pixels to either side; a box reaching the heading or the canvas's right edge does not.
    def canvas(dx: int, dy: int) -> Image:
        screen = np.full((800, 1280, 3), BACKGROUND, np.uint8)
        cv2.rectangle(screen, (100 + dx, 100 + dy), (999 + dx, 499 + dy), (255, 255, 255), -1)
        cv2.rectangle(screen, (100 + dx, 100 + dy), (999 + dx, 499 + dy), (120, 120, 120), 1)
        cv2.putText(screen, "Sketch", (110 + dx, 130 + dy), FONT, 0.7, (20, 20, 20), 1, cv2.LINE_AA)
        return screen

    recorded = canvas(0, 0)
    target = (430, 300)
    narrow = choose_anchor(recorded, target, reach=240)
    choice, crop = anchor_for(recorded, target)

    assert not narrow.distinctive
    assert choice.distinctive and max(choice.box[2:]) > 240, choice
    x, y, w, h = choice.box
    assert x <= target[0] < x + w and y <= target[1] < y + h
    for dx, dy in ((30, 20), (-60, 150)):  # within the window, and further away
        found = locate(
            canvas(dx, dy),
            Query(crop, choice.offset, recorded=target, unique=True, context=Recorded(recorded)),
        )
        assert found.found and near(found.point, (target[0] + dx, target[1] + dy), 1), found


def test_twin_buttons_are_told_apart_by_context_or_refused() -> None:
    places = {**NORMAL, "button:OK#1": (590, 70), "button:OK#2": (700, 430)}
    screen = paint(places)
    target = centre("button:OK#1", places)

    choice, crop = anchor_for(screen, target)
    assert choice.distinctive
    assert not within(choice.box, box_of("button:OK#1", places))  # it took in surroundings
    found = locate(screen, Query(crop, choice.offset, recorded=target))
    assert found.found and near(found.point, target, 1)

    x, y, w, h = box_of("button:OK#1", places)
    button_only = screen[y : y + h, x : x + w]
    refused = locate(screen, Query(button_only, (w // 2, h // 2), recorded=target))
    assert not refused.found and refused.point is None
    assert refused.rule == "margin" and refused.margin < 0.05
    assert refused.top_left is not None and refused.best_elsewhere is not None
    best = (refused.top_left[0] + w // 2, refused.top_left[1] + h // 2)
    assert {best, refused.best_elsewhere} == {target, centre("button:OK#2", places)}


def test_identical_dialogs_give_no_distinctive_anchor_and_no_click() -> None:
    dialog = {"label:Sure?": (20, 10), "button:OK": (20, 50), "button:Cancel": (130, 50)}
    places = {
        f"{name}#{n}": (x + dx, y + 200)
        for n, dx in ((1, 100), (2, 700))
        for name, (x, y) in dialog.items()
    }
    screen = paint(places)
    target = centre("button:OK#1", places)

    choice, crop = anchor_for(screen, target)
    found = locate(screen, Query(crop, choice.offset, recorded=target))

    assert not choice.distinctive and choice.margin < 0.1
    assert not found.found and found.rule == "margin"


def test_a_removed_button_is_not_found() -> None:
    target = centre("button:Help", NORMAL)
    choice, crop = anchor_for(paint(NORMAL), target)
    without = {name: place for name, place in NORMAL.items() if name != "button:Help"}

    found = locate(paint(without), Query(crop, choice.offset, recorded=target))

    assert not found.found and found.point is None
    coarse = found.tried("coarse")
    assert coarse is not None and coarse.refusal is not None and coarse.refusal.rule == "score"
    assert found.score < 0.85 and found.rung == "scales"


def test_the_shift_earlier_steps_found_is_looked_at_first() -> None:
    # A window moved far: every target moved alike. Told how far the last one moved, locate
    # finds the next in the 64 px window around its recorded place moved by that, without
    # scanning the screen; told a wrong shift, it searches as without one.
    target = centre("button:Delete", NORMAL)
    choice, crop = anchor_for(paint(NORMAL), target)
    far = paint(moved(NORMAL, 500, 300))

    hinted = locate(
        far,
        Query(crop, choice.offset, recorded=target, unique=choice.distinctive),
        Hints(shift=(500, 300)),
    )
    unhinted = locate(far, Query(crop, choice.offset, recorded=target, unique=choice.distinctive))
    misled = locate(
        far,
        Query(crop, choice.offset, recorded=target, unique=choice.distinctive),
        Hints(shift=(-300, 200)),
    )

    for found in (hinted, unhinted, misled):
        assert found.found and found.point == (target[0] + 500, target[1] + 300), found
    assert hinted.rungs == ("shifted",)
    assert "coarse" in unhinted.rungs and "coarse" in misled.rungs


def resized(image: Image, scale: float) -> Image:
    """`image` scaled as a screen at another scale is (OpenCV's result, typed as ours)."""
    return np.asarray(
        cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR), np.uint8
    )


@pytest.mark.parametrize("scale", [1.2, 0.85])
def test_a_scaled_screen_is_searched_at_other_scales(scale: float) -> None:
    target = centre("button:Delete", NORMAL)
    choice, crop = anchor_for(paint(NORMAL), target)
    screen = resized(paint(NORMAL), scale)

    found = locate(screen, Query(crop, choice.offset, recorded=target))

    assert found.found, found.reason
    assert abs(found.scale - scale) <= 0.06  # a 24-pixel anchor pins the scale to ~5%
    assert near(found.point, (target[0] * scale, target[1] * scale), 3)
    parts = found.tried("parts")
    assert found.rung == "scales" and parts is not None and parts.outcome == FOUND
    assert "back" not in found.rungs  # no recorded screen to look back at


def test_a_match_that_is_not_exact_must_agree_with_the_recorded_context() -> None:
    recorded = paint(NORMAL)
    target = centre("button:Delete", NORMAL)
    choice, crop = anchor_for(recorded, target)
    screen = resized(recorded, 1.1)
    asked: list[bool] = []

    def lazily() -> Image:
        asked.append(True)
        return recorded

    found = locate(screen, Query(crop, choice.offset, recorded=target, context=Recorded(lazily)))

    assert found.found and found.rung == "scales" and found.trail[-1].name == "back", found
    assert asked == [True]
    # The same crop, recorded among other neighbours: the scaled match is not trusted.
    elsewhere = paint(
        {"button:Delete": NORMAL["button:Delete"], "list:": (150, 40), "box:": (300, 120)}
    )
    doubted = locate(
        screen, Query(crop, choice.offset, recorded=target, context=Recorded(elsewhere))
    )
    assert not doubted.found and doubted.rule in (
        "parts-nowhere",
        "parts-fit",
        "parts-lead",
        "parts-pinned",
    ), doubted
    # An exact match of a crop that was unique on its screen needs no context, and does not
    # ask for it; one that had a look-alike there is checked against it.
    assert choice.distinctive
    unique = locate(
        recorded, Query(crop, choice.offset, recorded=target, unique=True, context=Recorded(lazily))
    )
    assert unique.found and asked == [True]
    exact = locate(recorded, Query(crop, choice.offset, recorded=target, context=Recorded(lazily)))
    assert exact.found and asked == [True, True] and "context" in exact.rungs, exact


def test_a_list_row_on_a_scaled_screen_is_found_at_its_scale() -> None:
    target = centre("list:", NORMAL)
    choice, crop = anchor_for(paint(NORMAL), target)
    screen = resized(paint(NORMAL), 1.1)

    found = locate(screen, Query(crop, choice.offset, recorded=target, unique=choice.distinctive))

    assert found.found and abs(found.scale - 1.1) <= 0.05, found
    assert found.rung == "scales"
    assert near(found.point, (target[0] * 1.1, target[1] * 1.1), 3)


@pytest.mark.parametrize("name", ["red:Go", "green:Go"])
def test_colour_breaks_a_tie_between_buttons_of_one_shape(name: str) -> None:
    screen = paint(NORMAL)
    target = centre(name, NORMAL)
    x, y, w, h = box_of(name, NORMAL)
    button_only = screen[y : y + h, x : x + w]

    found = locate(screen, Query(button_only, (w // 2, h // 2), recorded=target))
    elsewhere = locate(paint(moved(NORMAL, 0, 40)), Query(button_only, (w // 2, h // 2)))
    choice, crop = anchor_for(screen, target)
    chosen = locate(screen, Query(crop, choice.offset, recorded=target))

    assert found.found and near(found.point, target, 1) and "colour" in found.rungs
    assert elsewhere.found and near(elsewhere.point, (target[0], target[1] + 40), 1)
    assert choice.distinctive and chosen.found and near(chosen.point, target, 1)


def test_a_flat_frame_gives_no_distinctive_anchor() -> None:
    frame = np.full((800, 1280, 3), 200, np.uint8)

    choice = choose_anchor(frame, (640, 400))
    found = locate(frame, Query(choice.crop(frame), choice.offset, recorded=(640, 400)))

    assert not choice.distinctive and choice.score == 0.0 and choice.margin == 0.0
    assert not found.found and found.rule == "anchor-flat"


def test_targets_at_the_frame_edge_and_outside_it() -> None:
    screen = paint(NORMAL)
    choice = choose_anchor(screen, (1279, 799))
    x, y, w, h = choice.box
    assert x + w == 1280 and y + h == 800 and choice.offset == (w - 1, h - 1)
    with pytest.raises(ValueError, match="outside"):
        choose_anchor(screen, (1280, 10))


def test_png_round_trip_is_lossless() -> None:
    crop = np.random.default_rng(7).integers(0, 256, (37, 53, 3), dtype=np.uint8)

    data = encode_png(crop)
    back = decode_image(data)

    assert data.startswith(b"\x89PNG") and back.dtype == np.uint8
    assert np.array_equal(back, crop)
    with pytest.raises(ValueError):
        decode_image(b"not a png")


def test_importing_matching_does_not_load_opencv() -> None:
    code = "import sys, matching; sys.exit('cv2' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_sample_app_anchors_survive_the_reordered_layout(
    xvfb: VirtualDisplay, launch_app: Callable[..., Any]
) -> None:
    app = launch_app()
    normal = _grab(xvfb.display)
    names = ("button:Save", "entry", "label:double")
    targets = {name: app.center(name) for name in names}
    anchors = {name: choose_anchor(normal, target) for name, target in targets.items()}
    app.stop()
    reordered = launch_app(layout="reordered")
    screen = _grab(xvfb.display)

    results: dict[str, Located] = {
        name: locate(screen, Query(choice.crop(normal), choice.offset, recorded=targets[name]))
        for name, choice in anchors.items()
    }

    for name, found in results.items():
        assert anchors[name].distinctive, (name, anchors[name])
        assert found.found, (name, found)
        assert inside(found.point, reordered.widgets[name]), (name, found)


def _grab(display: str) -> Image:
    import mss

    with mss.MSS(display=display) as grabber:
        shot = grabber.grab(grabber.monitors[1])
    return np.array(shot)[:, :, :3][:, :, ::-1].copy()  # BGRA -> RGB

"""Parts (matching/parts.py) placing a target far from every textured part: the
widget's box scales, but a list's rows keep to the font, so a part level with the target
that says otherwise must stop the placement, unless a border shows it is another widget's.
Synthetic screens, no X."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from deskreel.matching import stretches as parts_module
from deskreel.matching.params import PARAMS
from deskreel.matching.parts import Parts

TARGET = (600, 300)  # in a flat stretch of a framed panel, 200 px from its marks


def texture(seed: int, size: tuple[int, int], scale: float) -> np.ndarray:
    """Smooth random texture (like text or an icon: it survives resizing)."""
    noise = np.random.default_rng(seed).integers(0, 256, (size[1], size[0]), dtype=np.uint8)
    # OpenCV's stubs want a dst array; None asks for a new one, as the library allows
    patch = cv2.normalize(cv2.GaussianBlur(noise, (0, 0), 1.5), None, 0, 255, cv2.NORM_MINMAX)  # type: ignore[call-overload]
    return (
        patch
        if scale == 1.0
        else cv2.resize(
            patch, (round(size[0] * scale), round(size[1] * scale)), interpolation=cv2.INTER_LINEAR
        )
    )


def panel(scale: float, *, row_drift: int, border: bool) -> np.ndarray:
    """A framed panel with marks at its edges, drawn at `scale`, and a row of text level with
    the target whose height follows the font: `row_drift` px from where the box puts it."""

    def at(v: float) -> int:
        return round(v * scale)

    image = np.full((800, 1100), 255, np.uint8)
    cv2.rectangle(image, (at(100), at(100)), (at(700), at(500)), 80, 1)
    for seed, (x, y) in enumerate([(380, 110), (660, 110), (380, 460), (660, 460), (660, 200)]):
        mark = texture(seed, (30, 30), scale)
        image[at(y) : at(y) + mark.shape[0], at(x) : at(x) + mark.shape[1]] = mark
    row = texture(99, (60, 14), scale)
    top = at(TARGET[1]) - row.shape[0] // 2 + row_drift
    image[top : top + row.shape[0], at(400) : at(400) + row.shape[1]] = row
    if border:  # the row is in another widget
        cv2.line(image, (at(520), at(120)), (at(520), at(480)), 80, 1)
    return image


@pytest.mark.parametrize(
    ("row_drift", "border", "pinned"),
    [
        (0, False, True),  # the row agrees with the box
        (8, False, False),  # the row, level with the target, puts it 8 px lower: not placed
        (8, True, True),  # the same row behind a border: another widget's, no say
    ],
)
def test_a_part_level_with_a_far_target_must_agree_with_its_placement(
    row_drift: int, border: bool, pinned: bool
) -> None:
    recorded = panel(1.0, row_drift=0, border=border)
    today = panel(1.2, row_drift=row_drift, border=border)
    parts = Parts.of(recorded, (560, 260, 80, 80), TARGET, least=(640, 480), most=128)
    expected = (round(TARGET[0] * 1.2), round(TARGET[1] * 1.2))

    verdict = parts.verify(today, expected, 1.2)

    assert (
        verdict.point is not None
        and max(abs(verdict.point[0] - expected[0]), abs(verdict.point[1] - expected[1])) <= 1
    )
    assert verdict.reach > 96  # placed from afar: no part near the target
    assert verdict.pinned is pinned, verdict


def test_each_keeps_the_order_and_runs_nested_calls_inline():
    import threading

    from deskreel.matching import search

    def inner(i: int) -> tuple[int, str]:
        # a nested _each on a worker must not wait on the pool it runs in (it would hang)
        return sum(search._each(lambda j: j * i, range(4))), threading.current_thread().name

    got: list = []
    runner = threading.Thread(
        target=lambda: got.extend(search._each(inner, range(16))), daemon=True
    )
    runner.start()
    runner.join(30)
    assert not runner.is_alive(), "a nested _each waited on the pool it ran in"
    results = got
    assert [total for total, _ in results] == [6 * i for i in range(16)]
    if search._WORKERS > 1:  # more than one CPU: the items ran on the pool
        assert all(name.startswith(search._WORKER_NAME) for _, name in results)


@pytest.mark.parametrize(
    ("held_at", "pinned"),
    [
        ((101, 100), True),  # held to the known scale, the parts put the target where they did
        ((106, 100), False),  # holding the scale moves it 6 px: they disagree with the scale
    ],
)
def test_a_placement_held_to_the_known_scale_must_agree_with_the_free_one(held_at, pinned):
    from deskreel.matching.deciding import decide
    from deskreel.matching.parts import Verdict

    class Judged:  # the parts' verdicts, as verify() would give them at a place
        def verify(self, gray, target, scale, *, fixed=False):
            if fixed:
                return Verdict(0.6, held_at, scale, scale, 32.0, 0.2, True)
            return Verdict(0.55, (100, 100), 1.259, scale, 149.0, 0.3, True)

    best, _ = decide(
        Judged(), np.zeros((10, 10), np.uint8), [(0.9, (100, 100), 1.276)], known=1.276
    )

    assert best.point == held_at and best.pinned is pinned


def test_textured_parts_are_the_ones_a_std_of_each_part_finds():
    from deskreel.matching.parts import part_starts as _steps
    from deskreel.matching.parts import textured_parts as _textured

    rng = np.random.default_rng(5)
    for _ in range(100):
        h, w = (int(v) for v in rng.integers(5, 400, 2))
        gray = rng.integers(0, 256, (h, w), dtype=np.uint8)
        gray[: h // 2, : w // 3] = 200  # flat: no part there
        gray[h // 2 :, w // 3 :] = (
            gray[h // 2 :, w // 3 :] // 40 + 100
        )  # faint, near PARAMS.texture
        side = int(rng.integers(8, 40))
        stride = max(side // 2, int(rng.integers(4, 30)))
        xs, ys = _steps(w, side, stride), _steps(h, side, stride)  # parts cut short at edges
        expected = tuple(
            (x, y)
            for y in ys
            for x in xs
            if float(gray[y : y + side, x : x + side].std()) >= PARAMS.texture
        )
        assert _textured(gray, xs, ys, side) == expected


def framed(scale: float, *, drift: bool, width: float = 1.0) -> np.ndarray:
    """A frame drawn at `scale` (its width stretched by `width` more) around a flat stretch
    holding TARGET, and marks beside it (other widgets), with `drift` a few px off where
    `scale` puts them, as whole-pixel padding leaves them."""

    def at(v: float, by: float = 1.0) -> int:
        return round(v * scale * by)

    image = np.full((800, 1100), 255, np.uint8)
    cv2.rectangle(image, (at(100), at(100)), (at(100) + at(600, width), at(500)), 80, 1)
    for seed, ((x, y), off) in enumerate(
        zip([(150, 40), (450, 40), (720, 200), (720, 420), (300, 540)], [5, 3, 5, 4, 2])
    ):
        mark = texture(seed, (30, 30), scale)
        top, left = at(y) + off * drift, at(x) + off * drift
        image[top : top + mark.shape[0], left : left + mark.shape[1]] = mark
    return image


@pytest.mark.parametrize(
    ("width", "placed"),
    [
        (1.0, True),  # the frame scaled with the marks: its stretch places the target
        (1.1, False),  # the frame is 10% wider than the marks' scale: its width has no say
    ],
)
def test_a_target_in_a_flat_stretch_is_placed_by_the_stretch_s_ends(width, placed):
    recorded, today = framed(1.0, drift=False), framed(1.2, drift=True, width=width)
    box = (560, 260, 80, 80)
    expected = (round(TARGET[0] * 1.2), round(TARGET[1] * 1.2))  # in the frame scaled by 1.2
    near = (expected[0] + 4, expected[1] - 3)  # where a search put it, a few px off

    spanned = Parts.of(recorded, box, TARGET, least=(640, 480), most=128, spans=True)
    verdict = spanned.verify(today, near, 1.2)
    alone = Parts.of(recorded, box, TARGET, least=(640, 480), most=128).verify(today, near, 1.2)

    assert verdict.reach > 96 and alone.point is not None and verdict.point is not None
    # the marks alone: a few px off, and too loose to place it
    assert (
        not alone.pinned
        and max(abs(alone.point[0] - expected[0]), abs(alone.point[1] - expected[1])) >= 4
    ), alone
    if placed:
        assert (
            verdict.pinned
            and max(abs(verdict.point[0] - expected[0]), abs(verdict.point[1] - expected[1])) <= 1
        ), verdict
    else:  # the height is still the stretch's; the width is not: x stays where parts put it
        assert abs(verdict.point[1] - expected[1]) <= 1, verdict
        assert verdict.point[0] == alone.point[0], (verdict, alone)
        assert not verdict.pinned and verdict.unspanned, verdict


def status_bar(scale: float, text_drop: int, rows: tuple[int, int] = (100, 300)) -> np.ndarray:
    """A flat bar over `rows` drawn at `scale`, with text at its left whose top is
    `text_drop` px lower than `scale` puts it (the font's own size), and marks far from the
    target."""

    def at(v: float) -> int:
        return round(v * scale)

    image = np.zeros((400, 1000), np.uint8)
    image[at(rows[0]) : at(rows[1]), at(100) : at(900)] = 217
    image[at(200) + text_drop : at(212) + text_drop, at(110) : at(150)] = 20
    for seed, ((x, y), off) in enumerate(
        zip([(120, 110), (120, 250), (800, 110), (300, 250)], [3, 5, 4, 4])
    ):
        mark = texture(seed, (30, 30), scale)
        left = at(x) + (off if scale != 1.0 else 0)  # other widgets' padding, in whole px
        image[at(y) : at(y) + mark.shape[0], left : left + mark.shape[1]] = mark
    return image


@pytest.mark.parametrize(("across", "pinned"), [((0, -1, 1), True), ((0,), False)])
def test_a_stretch_ending_on_text_is_looked_for_on_the_lines_beside_the_target_s(
    monkeypatch, across, pinned
):
    target = (600, 201)  # level with the top row of the text: its stretch starts there
    recorded, today = status_bar(1.0, 0), status_bar(0.8, 2)  # the font's text sits lower
    parts = Parts.of(recorded, (560, 160, 80, 80), target, least=(640, 480), most=128, spans=True)
    alone = Parts.of(recorded, (560, 160, 80, 80), target, least=(640, 480), most=128).verify(
        today, (476, 160), 0.8
    )
    monkeypatch.setattr(parts_module, "P", replace(PARAMS, span_across=across))

    verdict = parts.verify(today, (476, 160), 0.8)

    # The marks alone put it 4 px off along x. The bar's height places the target on row
    # 161: the text starts on row 162 today, so the stretch the recording had is found on
    # the row below, and places it along x.
    assert alone.point is not None and abs(alone.point[0] - 480) >= 3, alone
    assert verdict.reach > 96 and verdict.point is not None
    assert verdict.pinned is pinned, verdict
    if pinned:
        assert abs(verdict.point[0] - 480) <= 1 and abs(verdict.point[1] - 161) <= 1, verdict
    else:
        assert verdict.unspanned, verdict


def test_the_lines_beside_the_target_s_are_not_tried_when_its_row_is_only_the_parts_guess():
    # A bar too low (40 px) for its height to place the target: the row comes from the far
    # marks alone. The text starts on the row below it today, as above, but the stretch found
    # there is another row's, which could be anything: it does not place the target along x.
    target = (600, 201)
    recorded, today = status_bar(1.0, 0, rows=(180, 220)), status_bar(0.8, 2, rows=(180, 220))
    parts = Parts.of(recorded, (560, 160, 80, 80), target, least=(640, 480), most=128, spans=True)
    assert parts.spans[1] is None and parts.spans[0] is not None

    verdict = parts.verify(today, (476, 160), 0.8)

    assert verdict.point is not None and abs(verdict.point[0] - 480) >= 3, verdict
    assert verdict.unspanned and not verdict.pinned, verdict

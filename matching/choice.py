"""Choosing an anchor: grow a crop around a pointer target until nothing else looks like it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import chain

import numpy as np

from .params import PARAMS as P
from .twins import Twins, band_evidence, object_box, twins_of
from .search import (
    NOWHERE,
    Box,
    Hit,
    Image,
    Point,
    Screen,
    add,
    coarse_factor,
    colour_score,
    is_near,
    probe,
    same_place_radius,
    scan,
    search_region,
    sub,
)

__all__ = ["AnchorChoice", "choose_anchor"]


@dataclass(frozen=True, slots=True)
class AnchorChoice:
    """A crop box around a target, the target's place in it, and how unique the crop is."""

    box: Box  # x, y, w, h in the frame
    offset: Point  # target position inside the crop
    score: float  # the crop's match at its own place: 1.0, or 0.0 when it is flat
    margin: float  # score minus the best look-alike outside its own neighbourhood
    distinctive: bool
    # places the object under the target is drawn on the frame, its own included (2 or
    # more: twins, twins.py); 0 when no outline closes around the target
    twins: int = 0

    def crop(self, frame: Image) -> Image:
        """The pixels of `box` in `frame`, as a new array."""
        x, y, w, h = self.box
        return frame[y : y + h, x : x + w].copy()


def choose_anchor(
    frame: Image,
    target: Point,
    *,
    min_size: int = P.anchor_least,
    max_size: int = P.anchor_most,
    reach: int = P.anchor_reach,
    min_contrast: float = P.anchor_contrast,
    min_margin: float = P.distinct_margin,
) -> AnchorChoice:
    """Grow a box around `target` until its crop has texture and no look-alike in `frame`.

    Up to `max_size` the target stays in the middle of the box (at one row high, also near
    either end). A target with nothing distinctive that close (the middle of an empty canvas,
    a blank stretch of a status bar) gets boxes of up to `reach` with the target towards a
    side or a corner, which reach the nearest thing that pins it down.
    """
    height, width = frame.shape[:2]
    if not (0 <= target[0] < width and 0 <= target[1] < height):
        raise ValueError(f"target {target} is outside the {width}x{height} frame")
    screen = Screen.of(frame)
    drawn, twins = _twins(screen.gray, screen.rgb, target)
    placements = _placements(min_size, max_size, reach, width, height)
    if twins is not None:  # the object's own row first: what tells twins apart is there
        placements = chain(_strips(twins.box, target, reach, width), placements)

    def judge(box: Box, rivals: list[Point]) -> tuple[AnchorChoice, list[Point]]:
        choice, rivals = _judge(
            screen, box, target, rivals, min_contrast=min_contrast, min_margin=min_margin
        )
        if choice.distinctive and twins is not None:
            told = band_evidence(screen.gray, box, twins)
            choice = replace(
                choice, margin=min(choice.margin, told), distinctive=told >= min_margin
            )
        return choice, rivals

    rivals: list[Point] = []  # targets of look-alikes found so far, checked first next time
    best: AnchorChoice | None = None
    judged: set[Box] = set()
    for w, h, shifts in placements:
        for dx, dy in shifts:
            box = _box_around((target[0] + dx, target[1] + dy), w, h, width, height)
            if box in judged:
                continue
            judged.add(box)
            choice, rivals = judge(box, rivals)
            if choice.distinctive:
                # Grown to hold the whole of a label it cuts, if that stays distinctive.
                whole = _whole(screen.gray, box)
                if whole != box:
                    grown, _ = judge(whole, [])
                    if grown.distinctive:
                        return replace(grown, twins=drawn)
                return replace(choice, twins=drawn)
            if best is None or choice.margin >= best.margin:
                best = choice
    assert best is not None  # _placements yields at least one box
    return replace(best, twins=drawn)


def _judge(
    screen: Screen,
    box: Box,
    target: Point,
    rivals: list[Point],
    *,
    min_contrast: float,
    min_margin: float,
) -> tuple[AnchorChoice, list[Point]]:
    """How distinctive the crop `box` is, and the target of a look-alike that spoils it."""
    x, y, w, h = box
    offset = sub(target, (x, y))
    crop = screen.gray[y : y + h, x : x + w]
    if float(crop.std()) < min_contrast:
        return AnchorChoice(box, offset, score=0.0, margin=0.0, distinctive=False), rivals
    own = ((x, y), same_place_radius(w, h))  # what locate() would count as this very place
    pad = min(max(w, h), P.exact_near)
    nearby = (
        (w + 2 * pad) * (h + 2 * pad),
        lambda: search_region(screen.gray, crop, (x, y), pad=pad, keep_out=own),
    )
    frame = (screen.gray.size // coarse_factor(w, h) ** 2, lambda: scan(screen, crop, keep_out=own))
    # The last box's look-alike first, it is the likeliest and cheapest to recheck; then the
    # neighbourhood, where borders and rows repeat, and the whole frame, cheaper first.
    searches: list[Callable[[], Iterable[Hit]]] = [
        lambda: (hit for r in rivals if (hit := probe(screen.gray, crop, sub(r, offset), pad=2))),
        *(search for _, search in sorted((nearby, frame), key=lambda pair: pair[0])),
    ]
    bar = 1.0 - min_margin
    runner_up = NOWHERE
    for hit in chain.from_iterable(search() for search in searches):  # lazily, in turn
        if is_near(hit, *own):
            continue
        if hit.score >= bar:  # grayscale cannot tell it apart; colour may, as in locate()
            hit = hit._replace(
                score=colour_score(screen.rgb, screen.rgb[y : y + h, x : x + w], (hit.x, hit.y))
            )
        runner_up = max(runner_up, hit)
        if runner_up.score >= bar:
            break
    margin = round(1.0 - max(0.0, runner_up.score), 4)
    choice = AnchorChoice(box, offset, score=1.0, margin=margin, distinctive=margin >= min_margin)
    return choice, [] if choice.distinctive else [add((runner_up.x, runner_up.y), offset)]


def _twins(gray: Image, rgb: Image, target: Point) -> tuple[int, Twins | None]:
    """In how many places the object around `target` is drawn on the frame (0 without an
    outline), and it with its twins, or None when it has none."""
    box = object_box(gray, target)
    if box is None:
        return 0, None
    x, y, w, h = box
    places = twins_of(rgb, rgb[y : y + h, x : x + w], own=(x, y))
    return len(places), Twins(box, tuple(places)) if len(places) > 1 else None


def _strips(
    obj: Box, target: Point, reach: int, width: int
) -> Iterator[tuple[int, int, list[Point]]]:
    """Boxes one object high, from the object's width to `reach`, with the target in the
    middle and near either end: the object's row, where its label is."""
    h = obj[3] + 2 * P.strip_pad
    # The box's centre sits on the target's row; shift it onto the object's.
    dy = obj[1] + obj[3] // 2 - target[1]
    w = float(obj[2] + 2 * P.strip_pad)
    while True:
        size = min(round(w), reach, width)
        yield size, h, [(0, dy), (-size * 5 // 12, dy), (size * 5 // 12, dy)]
        if size >= min(reach, width):
            return
        w *= P.growth


def _whole(gray: Image, box: Box) -> Box:
    """A one-row `box` widened until neither side cuts through something (a label), at most
    P.cut_more times as wide, when borders close it in on both sides: a crop that holds part
    of a button's label (its corner and the "S" of "Save") holds all of it, so the button
    renamed in place ("Store") no longer matches. `box` itself otherwise."""
    x0, y0, w, h = box
    if h > P.cut_high:
        return box
    width = gray.shape[1]
    x1, most = x0 + w, round(w * P.cut_more)

    # What an empty column of the crop looks like: its face, and the lines that run along
    # it (a button's top border).
    empty = np.median(gray[y0 : y0 + h, x0:x1], axis=1)

    def cut(columns: range) -> int | None:
        """The first of `columns` (inside the frame) that has something in it, or None."""
        return next(
            (
                x
                for x in columns
                if 0 <= x < width and float(np.abs(gray[y0 : y0 + h, x] - empty).max()) > P.cut
            ),
            None,
        )

    # Past the gaps between letters: a side is clear when P.label_gap columns beyond it are empty.
    while x1 - x0 < most and (left := cut(range(x0 - 1, x0 - 1 - P.label_gap, -1))) is not None:
        x0 = left
    while x1 - x0 < most and (right := cut(range(x1, x1 + P.label_gap))) is not None:
        x1 = right + 1
    x0 = max(x0, x1 - most)
    x1 = min(x1, x0 + most)
    # Only inside a widget with borders (a button, a field): a label in the open (a status
    # bar's text) is placed by its font, not by a box, and a crop reaching it would be too.
    face = float(np.median(gray[y0 : y0 + h, box[0] : box[0] + w]))

    def fenced(columns: range) -> bool:
        for x in columns:
            if not 0 <= x < width:
                return False
            line = gray[y0 : y0 + h, x].astype(np.float32)
            if float((np.abs(line - face) > P.fence_shade).mean()) >= 0.75:
                return True
        return False

    if (x0, x1) != (box[0], box[0] + w) and not (
        fenced(range(x0 - 1, x0 - 1 - P.fence, -1)) and fenced(range(x1, x1 + P.fence))
    ):
        return box
    return x0, y0, x1 - x0, h


def _placements(
    min_size: int, max_size: int, reach: int, width: int, height: int
) -> Iterator[tuple[int, int, list[Point]]]:
    """Box sizes for choose_anchor(), small to large, each with the shifts of its centre from
    the target to try, cheapest and likeliest first."""
    for w, h in _sizes(min_size, max_size, width, height):
        # Centred first; then, while still one row high, with the target near one end, which
        # reaches a field's label while the box is too small to reach it from the middle.
        ends = h == min(min_size, height)
        yield w, h, [(0, 0), (-w * 5 // 12, 0), (w * 5 // 12, 0)] if ends else [(0, 0)]
    size = max_size
    while size < reach:
        size = min(reach, round(size * P.growth))
        w, h = min(size, width), min(size, height)
        # The target a twelfth of the box in from a side, then from a corner.
        ax, ay = w * 5 // 12, h * 5 // 12
        yield (
            w,
            h,
            [
                (0, 0),
                (-ax, 0),
                (ax, 0),
                (0, -ay),
                (0, ay),
                (-ax, -ay),
                (ax, -ay),
                (-ax, ay),
                (ax, ay),
            ],
        )


def _sizes(min_size: int, max_size: int, width: int, height: int) -> Iterator[tuple[int, int]]:
    """Box sizes to try, small to large: wider first, then taller."""
    # What identifies a widget usually sits in its row (a label beside a field), while the
    # rows above and below move independently when a layout changes.
    w = h = float(min_size)
    last = None
    while True:
        size = (min(round(w), max_size, width), min(round(h), max_size, height))
        if size == last:
            return
        yield size
        last = size
        if w < min(max_size, width):
            w *= P.growth
        else:
            h *= P.growth


def _box_around(centre: Point, w: int, h: int, width: int, height: int) -> Box:
    # Clamping at a frame edge shifts the box, so it grows away from that edge.
    x = min(max(centre[0] - w // 2, 0), width - w)
    y = min(max(centre[1] - h // 2, 0), height - h)
    return x, y, w, h

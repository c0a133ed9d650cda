"""Time choose_anchor() and locate() on a 1280x800 synthetic screen, against a naive search.

The naive search is what pyautogui-style tools do: full-resolution cv2.matchTemplate over
the whole screen at 11 scales from 0.8x to 1.25x, keeping the best score (and never asking
whether a second place matched as well). Run from the repository root:

    .venv/bin/python bench/bench_locate.py [--repeat N]
"""

from __future__ import annotations

import argparse
from dataclasses import replace
import platform
import statistics
import time
from collections.abc import Callable
from functools import partial

import cv2
import numpy as np

from deskreel.matching import AnchorChoice, Located, Query, Recorded, choose_anchor, locate

Image = np.ndarray
Places = dict[str, tuple[int, int]]

FONT = cv2.FONT_HERSHEY_SIMPLEX
SIZES = {
    "button": (100, 32),
    "label": (60, 28),
    "entry": (300, 28),
    "list": (220, 260),
    "box": (120, 80),
}
PLACES: Places = {
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
    "button:OK": (1000, 650),
}
TARGETS = ("button:Save", "button:Delete", "entry:#name", "label:Email:", "list:", "button:OK")
TARGET_TIMES = {"same place": 5, "shifted": 30, "reordered": 30, "scaled 1.2x": 150}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement")
    repeat = parser.parse_args().repeat
    screen = paint(PLACES)
    targets = {name: centre(name, PLACES) for name in TARGETS}
    print(
        f"{platform.processor() or platform.machine()}, opencv {cv2.__version__}, "
        f"{cv2.getNumThreads()} threads, 1280x800 screen, {len(targets)} targets, "
        f"median of {repeat} runs each"
    )

    chosen = {name: choose_anchor(screen, target) for name, target in targets.items()}
    per_anchor = [median_ms(partial(choose_anchor, screen, t), repeat) for t in targets.values()]
    print(
        f"\nchoose_anchor: median {statistics.median(per_anchor):.1f} ms per anchor "
        f"(slowest target {max(per_anchor):.1f} ms; target < 30 ms)"
    )
    for name, choice in chosen.items():
        print(
            f"  {name:14} box {choice.box}  margin {choice.margin:.3f}  "
            f"distinctive {choice.distinctive}"
        )

    time_locate(screen, targets, chosen, repeat)


def scenarios(
    screen: Image, targets: dict[str, tuple[int, int]]
) -> dict[str, tuple[Image, Callable[[str], tuple[float, float]]]]:
    """Today's screens to look on, each with where each target truly is there."""
    far = {
        **PLACES,
        "button:Save": (880, 680),
        "button:OK": (40, 70),
        "label:Email:": (700, 420),
        "entry:#email": (770, 420),
        "list:": (300, 300),
        "button:Delete": (1100, 40),
    }
    return {
        "same place": (screen, lambda name: targets[name]),
        "shifted": (
            paint(shifted(PLACES, 137, 61)),
            lambda name: (targets[name][0] + 137, targets[name][1] + 61),
        ),
        "reordered": (paint(far), lambda name: centre(name, far)),
        "scaled 1.2x": (
            cv2.resize(screen, None, fx=1.2, fy=1.2, interpolation=cv2.INTER_LINEAR),
            lambda name: (targets[name][0] * 1.2, targets[name][1] * 1.2),
        ),
    }


def time_locate(
    screen: Image, targets: dict[str, tuple[int, int]], chosen: dict[str, AnchorChoice], repeat: int
) -> None:
    """locate() against the naive search on each scenario: time, and targets found."""
    print(
        f"\n{'locate':14}{'ours ms':>9}{'naive ms':>10}{'ratio':>8}{'ours ok':>9}"
        f"{'naive ok':>10}  stages"
    )
    for case, (view, truth) in scenarios(screen, targets).items():
        ours, naive, ours_ok, naive_ok, stages = [], [], 0, 0, set()
        for name, choice in chosen.items():
            crop, expected, offset = choice.crop(screen), targets[name], choice.offset
            # As the replayer calls it: the recorder's verdict and the recorded screen.
            ours_call = partial(
                _ours, view, Query(crop, offset, expected, choice.distinctive), screen
            )
            ours.append(median_ms(ours_call, repeat))
            naive.append(median_ms(partial(naive_locate, view, crop, offset), repeat))
            found = ours_call()
            ours_ok += found.found and close(found.point, truth(name))
            naive_ok += close(naive_locate(view, crop, offset), truth(name))
            stages.add(found.searched)
        mine, theirs = statistics.median(ours), statistics.median(naive)
        print(
            f"{case:14}{mine:9.1f}{theirs:10.1f}{theirs / mine:7.1f}x"
            f"{ours_ok:>6}/{len(chosen)}{naive_ok:>7}/{len(chosen)}  "
            f"{', '.join(sorted(stages))}  (target < {TARGET_TIMES[case]} ms)"
        )


def _ours(view: Image, query: Query, recorded: Image) -> Located:
    """locate() as the replayer calls it, the recorded screen made ready per call."""
    return locate(view, replace(query, context=Recorded(recorded)))


def naive_locate(screen: Image, anchor: Image, offset: tuple[int, int]) -> tuple[int, int]:
    """Best full-resolution match over the whole screen at 11 scales, 0.8x to 1.25x."""
    gray = cv2.cvtColor(screen, cv2.COLOR_RGB2GRAY)
    tmpl = cv2.cvtColor(anchor, cv2.COLOR_RGB2GRAY)
    best: tuple[float, tuple[int, int], float] = (-2.0, (0, 0), 1.0)
    for scale in np.linspace(0.8, 1.25, 11):
        sized = cv2.resize(tmpl, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
        _, score, _, top_left = cv2.minMaxLoc(cv2.matchTemplate(gray, sized, cv2.TM_CCOEFF_NORMED))
        best = max(best, (score, (int(top_left[0]), int(top_left[1])), float(scale)))
    _, (x, y), scale = best
    return round(x + offset[0] * scale), round(y + offset[1] * scale)


def median_ms(run: Callable[[], object], repeat: int) -> float:
    run()  # warm up: first calls pay for imports and OpenCV's buffers
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def close(point: tuple[int, int] | None, expected: tuple[float, float]) -> bool:
    return point is not None and all(abs(p - e) <= 3 for p, e in zip(point, expected))


def paint(places: Places) -> Image:
    """A flat-coloured settings page with anti-aliased text, as in tests/test_matching.py."""
    screen = np.full((800, 1280, 3), 240, np.uint8)
    for name, (x, y) in places.items():
        kind, _, text = name.partition(":")
        w, h = SIZES[kind]
        corner = (x + w - 1, y + h - 1)
        if kind == "button":
            cv2.rectangle(screen, (x, y), corner, (225, 225, 225), -1)
            cv2.rectangle(screen, (x, y), corner, (130, 130, 130), 1)
        elif kind in ("entry", "list"):
            cv2.rectangle(screen, (x, y), corner, (255, 255, 255), -1)
            cv2.rectangle(screen, (x, y), corner, (150, 150, 150), 1)
        elif kind == "box":
            cv2.rectangle(screen, (x, y), corner, (48, 96, 192), -1)
        lines = [f"Item {i:02d}" for i in range(1, 13)] if kind == "list" else [text.split("#")[0]]
        for row, line in enumerate(lines):
            (tw, th), _ = cv2.getTextSize(line, FONT, 0.5, 1)
            left = x + (w - tw) // 2 if kind == "button" else x + 4
            top = y + 4 + 21 * row if kind == "list" else y
            cv2.putText(
                screen,
                line,
                (left, top + (min(h, 20 if kind == "list" else h) + th) // 2),
                FONT,
                0.5,
                (20, 20, 20),
                1,
                cv2.LINE_AA,
            )
    return screen


def centre(name: str, places: Places) -> tuple[int, int]:
    x, y = places[name]
    w, h = SIZES[name.partition(":")[0]]
    return x + w // 2, y + h // 2


def shifted(places: Places, dx: int, dy: int) -> Places:
    return {name: (x + dx, y + dy) for name, (x, y) in places.items()}


if __name__ == "__main__":
    main()

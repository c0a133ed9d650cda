"""What bench_anchor.py prints and saves: the tables per scenario, the targets of issue 5,
the wrong answers and refusals, and the crops of every miss."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from anchor_cases import (
    NEAR,
    TOLERANCE,
    BASELINE,
    IN_ORDER,
    OURS,
    Case,
    Results,
    describe,
    in_widget,
    is_near,
    p95,
    pct,
    verdict,
)


def report(cases: list[Case], results: Results, *, list_refusals: bool = False) -> None:
    scenarios = list(dict.fromkeys(case.scenario for case in cases))
    distinctive = [c for c in cases if c.anchor["distinctive"]]
    print(
        "\nok = found within 3 px, or refused when the target is absent; refused = every "
        "refusal, right or not;\nwrong = a point returned that is not the target; ms per "
        "case. 'absent' counts the cases whose expected answer is a refusal."
    )
    table("all anchors", cases, scenarios, results)
    table(
        f"only the {len({c.anchor['id'] for c in distinctive})} anchors choose_anchor judged "
        "distinctive on the recorded screen",
        distinctive,
        scenarios,
        results,
    )
    print_targets(cases, distinctive, scenarios, results)
    alone = [c for c in cases if c.of is None]  # each case once: not its in-order run too
    in_order = [c for c in cases if c.of is not None]
    for side, label, limit, group in (
        (OURS, "ours", None, alone),
        (OURS, f"ours,{IN_ORDER}", None, in_order),
        (BASELINE, "baseline", 12, alone),
    ):
        wrong = [c for c in group if verdict(c, results[c][side]) == "wrong"]
        # a wrong answer has a point: a refusal is never wrong
        elsewhere = [c for c in wrong if not in_widget(c, results[c][side].point or (-1, -1))]
        print(
            f"\nwrong-but-confident, {label}: {len(wrong)} ({len(elsewhere)} outside the "
            f"target's widget or where it is absent, {len(wrong) - len(elsewhere)} inside it "
            f"but more than {TOLERANCE} px off)"
        )
        for case in wrong[:limit]:
            print("  " + describe(case, results[case][side]))
        if limit is not None and len(wrong) > limit:
            print(f"  ... and {len(wrong) - limit} more")
    missed = [c for c in alone if verdict(c, results[c][OURS]) == "refused"]
    print(
        f"\nrefused although the target was there, ours: {len(missed)} "
        f"({sum(not c.anchor['distinctive'] for c in missed)} of them with an anchor that "
        "choose_anchor did not find distinctive)"
        + ("" if list_refusals else "; --list-refusals lists them")
    )
    for case in missed if list_refusals else []:
        print("  " + describe(case, results[case][OURS]))


def table(title: str, cases: list[Case], scenarios: list[str], results: Results) -> None:
    print(f"\n{title}:")
    print(
        f"{'':20}{'':>4}{'':>7} | {'ours':^36} | {'baseline (pyautogui-style)':^36} | "
        f"{'baseline/ours':^13}"
    )
    head = f"{'ok%':>6} {'refused%':>8} {'wrong%':>6} {'median':>6} {'p95 ms':>6}"
    print(f"{'scenario':20}{'n':>4}{'absent':>7} | {head} | {head} | {'median':>6} {'p95':>6}")
    for name in scenarios:
        row(name, [c for c in cases if c.scenario == name], results)
    row(f"<={NEAR}px 1x", [c for c in cases if is_near(c)], results)
    row(
        "present 1x",
        [c for c in cases if c.scale == 1.0 and c.expected is not None and c.of is None],
        results,
    )
    row("all", [c for c in cases if c.of is None], results)


def row(name: str, cases: list[Case], results: Results) -> None:
    if not cases:
        return
    cells, medians, p95s = [], [], []
    for side in (OURS, BASELINE):
        outcomes = [results[c][side] for c in cases]
        verdicts = [verdict(c, o) for c, o in zip(cases, outcomes)]
        ms = [o.ms for o in outcomes]
        medians.append(statistics.median(ms))
        p95s.append(p95(ms))
        refused = sum(o.point is None for o in outcomes)
        cells.append(
            f"{pct(verdicts.count('ok'), len(cases)):>6} "
            f"{pct(refused, len(cases)):>8} {pct(verdicts.count('wrong'), len(cases)):>6} "
            f"{medians[-1]:>6.1f} {p95s[-1]:>6.1f}"
        )
    absent = sum(c.expected is None for c in cases)
    print(
        f"{name:20}{len(cases):>4}{absent:>7} | {cells[0]} | {cells[1]} | "
        f"{medians[1] / medians[0]:>5.1f}x {p95s[1] / p95s[0]:>5.1f}x"
    )


def print_targets(
    cases: list[Case], distinctive: list[Case], scenarios: list[str], results: Results
) -> None:
    """The targets of issue 5, for ours, over all anchors and over the distinctive ones."""

    def near(group: list[Case]) -> tuple[bool, str]:
        ms = [results[c][OURS].ms for c in group if is_near(c)]
        return (
            bool(ms) and statistics.median(ms) <= 2,
            f"{statistics.median(ms):.1f} ms" if ms else "-",
        )

    def anywhere(group: list[Case]) -> tuple[bool, str]:
        ms = [
            results[c][OURS].ms
            for c in group
            if c.scale == 1.0 and c.expected is not None and c.of is None
        ]
        return bool(ms) and p95(ms) <= 15, f"{p95(ms):.1f} ms" if ms else "-"

    def correct(name: str, least: float, within: float | None) -> Callable[..., tuple[bool, str]]:
        def check(group: list[Case]) -> tuple[bool, str]:
            mine = [c for c in group if c.scenario == name]
            ok = 100 * sum(verdict(c, results[c][OURS]) == "ok" for c in mine) / len(mine)
            slowest = p95([results[c][OURS].ms for c in mine])
            passed = ok >= least and (within is None or slowest <= within)
            return passed, f"{ok:.1f}%" + (f", p95 {slowest:.0f} ms" if within else "")

        return check

    def no_wrong(name: str) -> Callable[..., tuple[bool, str]]:
        def check(group: list[Case]) -> tuple[bool, str]:
            wrong = sum(
                verdict(c, results[c][OURS]) == "wrong" for c in group if c.scenario == name
            )
            return wrong == 0, str(wrong)

        return check

    checks: list[tuple[str, Callable[..., tuple[bool, str]]]] = [
        (f"median <= 2 ms, target within {NEAR} px, 1x", near),
        ("p95 <= 15 ms, target anywhere, 1x", anywhere),
        *(
            (f">= 99% ok on {name}", correct(name, 99, None))
            for name in scenarios
            if name in ("shift", "move")
        ),
        *(
            (f">= 95% ok on {name}, p95 <= 150 ms", correct(name, 95, 150))
            for name in scenarios
            if name.startswith("scale")
        ),
        *((f"wrong = 0 on {name}", no_wrong(name)) for name in scenarios),
    ]
    print(f"\ntargets of issue 5, ours:{'':28}{'all anchors':>20}   {'distinctive only':>20}")
    for what, check in checks:
        cells = []
        for group in (cases, distinctive):
            passed, value = check(group)
            cells.append(f"{'PASS' if passed else 'FAIL'} {value:>15}")
        print(f"  {what:50}{cells[0]:>20}   {cells[1]:>20}")


def save_failures(
    folder: Path,
    cases: list[Case],
    results: Results,
    screens: dict[str, np.ndarray],
    anchors: dict[int, np.ndarray],
) -> None:
    """The anchor, and the screen around the expected and the found point, of each failure."""
    folder.mkdir(parents=True, exist_ok=True)
    for case in cases:
        outcome = results[case][OURS]
        kind = verdict(case, outcome)
        if kind == "ok":
            continue
        stem = folder / f"{kind}-{case.screen}-{case.anchor['id']:04d}"
        cv2.imwrite(f"{stem}-anchor.png", anchors[case.anchor["id"]][:, :, ::-1])
        w, h = case.anchor["box"][2:]
        for label, point in (("expected", case.expected), ("found", outcome.point)):
            if point is not None:
                crop = around(screens[case.screen], point, case.anchor["offset"], w, h, case.scale)
                cv2.imwrite(f"{stem}-{label}.png", crop[:, :, ::-1])
    print(
        f"\ncrops of the failures in {folder}: NAME-anchor.png, and the anchor's box (scaled) "
        "with 16 px around it placed by the expected and by the found point"
    )


def around(
    screen: np.ndarray, point: tuple[int, int], offset: list[int], w: int, h: int, scale: float
) -> np.ndarray:
    x = round(point[0] - offset[0] * scale) - 16
    y = round(point[1] - offset[1] * scale) - 16
    return screen[max(0, y) : y + round(h * scale) + 32, max(0, x) : x + round(w * scale) + 32]

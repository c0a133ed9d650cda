"""The re-anchoring corpus's cases as bench_anchor.py runs them: each case, the outcome of
one locator on it, and whether that outcome is right."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from deskreel.matching import NO_HINTS, Hints

TOLERANCE = 3  # px from the expected point that still counts as correct
IN_ORDER = " in order"  # the rows of scaled and moved screens replayed in order (in_order())
Hint = Hints  # the scale and the 1x shift the last target was found at
NO_HINT: Hint = NO_HINTS
NEAR = 64  # px: "the target is within 64 px of its recorded place"
OURS, BASELINE = 0, 1


@dataclass(frozen=True, slots=True)
class Outcome:
    point: tuple[int, int] | None  # None: refused
    ms: float  # median of the repeats
    detail: str = ""  # stages, scale, score and margin, for the lines about failures
    scale: float = 1.0  # ours: the scale of the match
    hints: Hints = NO_HINTS  # ours: the hints for the next target on the same screen


@dataclass(frozen=True, slots=True, eq=False)  # eq=False: hashed by identity
class Case:
    anchor: dict[str, Any]
    scenario: str
    screen: str
    expected: tuple[int, int] | None
    scale: float
    widget_box: tuple[int, int, int, int] | None  # the target's widget on this screen
    of: Case | None = None  # for a case replayed in order, the same case looked for alone


Results = dict[Case, tuple[Outcome, Outcome]]


def load_cases(manifest: dict[str, Any], only: list[str] | None) -> list[Case]:
    anchors = {a["id"]: a for a in manifest["anchors"]}
    cases = []
    for c in manifest["cases"]:
        if only and c["scenario"] not in only:
            continue
        anchor, screen = anchors[c["anchor"]], manifest["screens"][c["screen"]]
        box = screen["widgets"].get(anchor["widget"])
        cases.append(
            Case(
                anchor,
                c["scenario"],
                c["screen"],
                tuple(c["expected"]) if c["expected"] else None,
                screen["scale"],
                tuple(box) if box else None,
            )
        )
    return cases


def verdict(case: Case, outcome: Outcome) -> str:
    """ "ok", "refused" (though the target was there) or "wrong" (a confident wrong answer)."""
    if outcome.point is None:
        return "ok" if case.expected is None else "refused"
    if case.expected is not None and all(
        abs(p - e) <= TOLERANCE for p, e in zip(outcome.point, case.expected)
    ):
        return "ok"
    return "wrong"


def in_widget(case: Case, point: tuple[int, int]) -> bool:
    """Whether a wrong point still lands in the target's widget (a milder kind of wrong)."""
    if case.widget_box is None or case.expected is None:
        return False
    x, y, w, h = case.widget_box
    return x <= point[0] < x + w and y <= point[1] < y + h


def is_near(case: Case) -> bool:
    if case.scale != 1.0 or case.expected is None or case.of is not None:
        return False
    return math.dist(case.anchor["target"], case.expected) <= NEAR


def describe(case: Case, outcome: Outcome) -> str:
    a = case.anchor
    where = ""
    if outcome.point is not None and verdict(case, outcome) == "wrong":
        where = " [in the widget]" if in_widget(case, outcome.point) else " [elsewhere]"
    screen = case.screen + IN_ORDER * (case.of is not None)
    return (
        f"{screen:14} anchor {a['id']:3} {a['widget']:13} rel {tuple(a['rel'])!s:10} "
        f"box {a['box'][2]}x{a['box'][3]}{'' if a['distinctive'] else ' (not distinctive)'}"
        f": expected {'refuse' if case.expected is None else case.expected}, got "
        f"{'refuse' if outcome.point is None else outcome.point}{where} ({outcome.detail}, "
        f"{outcome.ms:.1f} ms)"
    )


def p95(values: list[float]) -> float:
    """Nearest-rank 95th percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def pct(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}"

"""The trail of a step's re-anchoring, for a person: one row per rung or check tried, in
order, with what it came to and what it measured against what it needed."""

from __future__ import annotations

from html import escape
from typing import Any

from deskreel.matching import AT_MOST, RULES, WHY
from deskreel.storage import Evidence, StepResult

__all__ = ["trail_of", "trail_rows", "trail_table"]

HEAD = ("rung", "came to", "best score", "rule", "measured", "needed", "at", "about")


def trail_of(result: StepResult | None) -> list[dict[str, Any]]:
    """The trail a result holds (dicts, as `Tried.to_json` wrote them); empty for runs made
    before trails were kept."""
    trail = result.details.get(Evidence.TRAIL) if result else None
    return [t for t in trail if isinstance(t, dict)] if isinstance(trail, list) else []


def trail_rows(trail: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Each entry as the cells of HEAD."""
    return [
        (
            str(t.get("rung", "?")),
            str(t.get("outcome", "?")),
            _number(t.get("score")),
            _rule(t),
            _number(t.get("measured")),
            _needed(t),
            _where(t.get("where")),
            _about(t),
        )
        for t in trail
    ]


def trail_table(trail: list[dict[str, Any]]) -> str:
    """The trail as an HTML table ("" when there is none)."""
    if not trail:
        return ""
    head = "".join(f"<th>{h}</th>" for h in HEAD)
    rows = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
        for row in trail_rows(trail)
    )
    return f'<table class="trail"><tr>{head}</tr>{rows}</table>'


def _rule(entry: dict[str, Any]) -> str:
    """The rule and what it measures (its name alone where this deskreel does not know it:
    a newer release's run)."""
    rule = entry.get("rule")
    if not isinstance(rule, str):
        return ""
    return f"{rule}: {RULES[rule][0].rstrip(':')}" if rule in RULES else rule


def _needed(entry: dict[str, Any]) -> str:
    """What the rule needed: at least it, or at most it."""
    needed, rule = entry.get("needed"), entry.get("rule")
    if not isinstance(needed, int | float):
        return ""
    sense = RULES[rule][1] if isinstance(rule, str) and rule in RULES else ""
    return f"{'≤' if sense == AT_MOST else '≥'} {needed:.4g}"


def _about(entry: dict[str, Any]) -> str:
    """What the entry concerns, and why the object rung answered so (its key alone where
    this deskreel does not know it)."""
    about, why = str(entry.get("about", "")), entry.get("why")
    said = WHY.get(why, why) if isinstance(why, str) else ""
    return ": ".join(s for s in (about, said) if s)


def _number(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, int | float) else ""


def _where(value: object) -> str:
    if isinstance(value, list) and len(value) == 2:
        return f"{value[0]}, {value[1]}"
    return ""

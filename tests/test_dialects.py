"""Every vocabulary action in every dialect: exported faithfully, or reported.

Each case is translated by each dialect (every tool version and coordinate form). A step
is either unexpressed with a reason, or expressed; an expressed step either reports what
it lost, or a harness of that dialect (tests/dialect_readers.py, written from the
family's own documents) reads it back as exactly the action it came from. Nothing is
dropped or changed silently. The dialect table of docs/exports.md is this walk's summary.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from deskreel.export import Context, Dialect, NotExpressible, dialect_for
from deskreel.export.anthropic import VERSIONS
from deskreel.storage import ACTIONS, Action
from tests.dialect_readers import canonical, read

SCREEN = (1000, 500)
EXPORTS_DOC = Path(__file__).resolve().parent.parent / "docs" / "exports.md"

CASES: list[dict[str, Any]] = [
    {"action": "key", "text": "Return"},
    {"action": "key", "text": "ctrl+s"},
    {"action": "key", "text": "super+Tab"},
    {"action": "key", "text": "KP_Enter"},
    {"action": "key", "text": "Control_R"},
    {"action": "key", "text": "KP_0"},
    {"action": "key", "text": "KP_Insert"},
    {"action": "key", "text": "udiaeresis"},
    {"action": "key", "text": "XF86AudioRaiseVolume"},
    {"action": "key", "text": "shift", "duration": 0.8},
    {"action": "key", "text": "a", "duration": 1.5},
    {"action": "type", "text": "hello, world"},
    {"action": "type", "text": "café ✓"},
    {"action": "mouse_move", "coordinate": [100, 50]},
    *(
        {"action": click, "coordinate": [40, 30], **keys}
        for click in ("left_click", "right_click", "middle_click", "double_click", "triple_click")
        for keys in ({}, {"with_key": "shift"}, {"with_key": "ctrl+shift"})
    ),
    {"action": "left_click_drag", "start_coordinate": [10, 10], "coordinate": [150, 120]},
    {
        "action": "left_click_drag",
        "start_coordinate": [10, 10],
        "coordinate": [150, 120],
        "with_key": "shift",
    },
    *(
        {"action": "scroll", "coordinate": [160, 100], "scroll_direction": d, "scroll_amount": 3}
        for d in ("up", "down", "left", "right")
    ),
    {"action": "scroll", "coordinate": [160, 100], "scroll_direction": "down", "scroll_amount": 45},
    {
        "action": "scroll",
        "coordinate": [160, 100],
        "scroll_direction": "up",
        "scroll_amount": 2,
        "with_key": "ctrl",
    },
    {"action": "wait", "duration": 1.5},
    {"action": "wait", "duration": 2},
    {"action": "wait", "duration": 250},
    {"action": "screenshot"},
    {"action": "screenshot", "region": [10, 20, 300, 200]},
    {"action": "cursor_position"},
    {"action": "left_mouse_down", "coordinate": [50, 60]},
    {"action": "left_mouse_up", "coordinate": [70, 80]},
    {"action": "left_mouse_down"},
    {"action": "left_mouse_up"},
]

DIALECTS: dict[str, Dialect] = {
    "actions": dialect_for("actions"),
    **{f"anthropic {v}": dialect_for("anthropic", tool_version=v) for v in VERSIONS},
    "normalized": dialect_for("normalized"),
    "browsergym": dialect_for("browsergym"),
    "pyautogui": dialect_for("pyautogui"),
    "pyautogui normalized": dialect_for("pyautogui", coords="normalized"),
}


def outcome(dialect: Dialect, obj: dict[str, Any]) -> tuple[str, str]:
    """("exact", ""), ("lossy", what was lost) or ("unexpressed", why), checked."""
    action = Action.from_json(obj)
    try:
        translation = dialect.translate(action, Context(SCREEN))
    except NotExpressible as why:
        assert str(why).strip(), (dialect.name, obj)
        return "unexpressed", str(why)
    line = dialect.render(translation.items)
    assert isinstance(line, str) and line
    performed = canonical(read(dialect.name, dialect.variant, line, SCREEN))
    expected = canonical(action)
    if translation.losses:
        assert all(loss.strip() for loss in translation.losses)
        # what a loss may change: a key's name, a duration, a region; never the place
        # or the kind of the action
        excused = ("text", "with_key", "duration", "region")
        kept = {k: v for k, v in expected.items() if k not in excused}
        assert {k: v for k, v in performed.items() if k not in excused} == kept, line
        return "lossy", "; ".join(translation.losses)
    assert performed == expected, (dialect.name, dialect.variant, line)
    return "exact", ""


@pytest.mark.parametrize("name", DIALECTS)
@pytest.mark.parametrize("obj", CASES, ids=lambda o: "-".join(map(str, o.values())))
def test_every_action_is_exported_faithfully_or_reported(name, obj):
    outcome(DIALECTS[name], obj)


def test_the_cases_hold_every_action_of_the_vocabulary():
    assert {obj["action"] for obj in CASES} == set(ACTIONS)


EXPECTED = {  # the outcomes that are decisions of the dialects, named so that none drifts
    ("actions", "key", "KP_Enter"): "exact",
    ("anthropic computer_20241022", "scroll", None): "unexpressed",
    ("anthropic computer_20250124", "screenshot", "region"): "lossy",
    ("anthropic computer_20251124", "screenshot", "region"): "exact",
    ("anthropic computer_toolset_20260801", "wait", 1.5): "lossy",
    ("normalized", "key", "KP_Enter"): "lossy",
    ("normalized", "key", "Control_R"): "lossy",
    ("normalized", "left_click", "ctrl+shift"): "unexpressed",
    ("browsergym", "key", "KP_Enter"): "exact",
    ("browsergym", "key", "a"): "lossy",  # held: no autorepeat
    ("browsergym", "key", "shift"): "exact",  # a held modifier does not repeat anyway
    ("pyautogui", "key", "XF86AudioRaiseVolume"): "unexpressed",
    ("pyautogui", "key", "KP_Insert"): "lossy",
    ("pyautogui", "key", "Control_R"): "exact",
    ("pyautogui", "type", "café ✓"): "unexpressed",
}


@pytest.mark.parametrize("where,expected", EXPECTED.items(), ids=lambda x: str(x))
def test_the_dialects_decisions(where, expected):
    name, kind, detail = where
    (obj,) = [
        o
        for o in CASES
        if o["action"] == kind
        and (
            detail is None
            or detail in (o.get("text"), o.get("with_key"), o.get("duration"))
            or (detail == "region" and "region" in o)
        )
        and (detail is not None or "with_key" not in o)
    ][:1]
    assert outcome(DIALECTS[name], obj)[0] == expected


def table() -> str:
    """The table of docs/exports.md: per action and dialect, how its cases export."""
    columns = {
        "actions": ["actions"],
        "anthropic 20241022": ["anthropic computer_20241022"],
        "anthropic 20250124": ["anthropic computer_20250124"],
        "anthropic 20251124": ["anthropic computer_20251124"],
        "anthropic toolset": ["anthropic computer_toolset_20260801"],
        "normalized": ["normalized"],
        "browsergym": ["browsergym"],
        "pyautogui": ["pyautogui", "pyautogui normalized"],
    }
    cells: dict[tuple[str, str], set[str]] = defaultdict(set)
    for obj in CASES:
        for column, names in columns.items():
            for name in names:
                cells[(obj["action"], column)].add(outcome(DIALECTS[name], obj)[0])
    rows = ["| action | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for kind in ACTIONS:
        row = [_cell(cells[(kind, column)]) for column in columns]
        rows.append(f"| `{kind}` | " + " | ".join(row) + " |")
    return "\n".join(rows)


def _cell(outcomes: set[str]) -> str:
    if outcomes == {"exact"}:
        return "yes"
    if outcomes == {"unexpressed"}:
        return "no"
    if "unexpressed" in outcomes:
        return "some"
    return "yes, some lossy"


def test_the_readme_table_is_this_walk():
    text = EXPORTS_DOC.read_text()
    found = re.search(r"\| action \| actions \|.*?\n(?:\|.*\n)+", text)
    assert found is not None, "docs/exports.md has no dialect table"
    assert found.group(0).strip() == table(), "\n" + table()

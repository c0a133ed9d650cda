"""Effects by meaning: what a pointer step's object says of itself after the step (its
name, and the states a step sets: checked, selected, expanded...; storage/widgets.py's
After), recorded and asked again today at the point it was pressed. Compared before any
pixels: a check box left unchecked, or a combo box showing another choice, fails the step
and says both; an effect inside an object that says what it said when recorded passes,
whatever the theme, font or scale draws there. Effects elsewhere stay with the pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from deskreel.storage.widgets import After, Widget

from ..objects import TOGGLES
from ..params import PARAMS as P
from ..search import Box
from .checks import Check

__all__ = ["Said", "by_meaning", "meaning_check", "said_of", "within"]

# The kinds of pixel check an object's meaning accounts for when they lie inside it: what
# the step changed in the recording, and what it changed today where the recording did not.
WITHIN = ("effect", "unrecorded")


@dataclass(frozen=True, slots=True)
class Said:
    """A pointer step's object after the step: as recorded (`recorded`, its box `box` on
    the recorded screen) and today (`today`, at `today_box`); `other` is what today's
    question at its point named instead, where that was another object."""

    label: str
    box: Box
    recorded: After
    today: After | None
    today_box: Box | None = None
    other: str = ""
    # whether what it says accounts for the pixels inside it: a toggle (a check box, a
    # radio button: matching/objects.py's TOGGLES) whose name or states the step changed.
    # A spin button says nothing of its value, an entry of its text, a row of its other
    # cells: their pixels stay the judges
    vouches: bool = False


def said_of(recorded: Widget, today: Widget | None) -> Said | None:
    """What `recorded` (a step's object) says after the step today, beside what it said
    when recorded: `today` is what a question at the point the step pressed named once
    the step was done (None: nothing there). None where nothing was recorded to compare."""
    if recorded.after is None:
        return None
    changed = recorded.after != After.of(recorded)  # before the press: its own states
    vouches = changed and recorded.role in TOGGLES
    said = Said(recorded.label, recorded.box, recorded.after, None, vouches=vouches)
    if today is None or today.role != recorded.role:
        return replace(said, other=today.label if today is not None else "")
    return replace(said, today=After.of(today), today_box=today.box)


def meaning_check(said: Said) -> Check:
    """Whether the object says today what it said when recorded; `match` "vouches" where
    that accounts for the pixels inside it (by_meaning)."""
    now = said.today.describe() if said.today is not None else f"{said.other or 'nothing'} there"
    same = said.today == said.recorded
    return Check(
        kind="meaning",
        match="vouches" if said.vouches else "near",
        box=said.box,
        found_at=said.today_box,
        score=1.0 if same else 0.0,
        changed=0.0 if same else 1.0,
        patch=0,
        passed=same,
        label=said.label,
        said=(said.recorded.describe(), now),
    )


def by_meaning(checks: Sequence[Check]) -> list[Check]:
    """`checks` with each effect whose changed pixels lie inside an object whose meaning
    check passed and vouches for them (Said.vouches; its recorded box and the ring where
    toolkits draw focus and hover) passed by it. An effect's box holds its changed pixels
    and the margin effects.py grows them by."""
    meant = [c for c in checks if c.kind == "meaning" and c.passed and c.match == "vouches"]
    out = []
    for check in checks:
        inside = next((m for m in meant if within(check.box, m.box)), None)
        if check.kind in WITHIN and not check.passed and inside is not None:
            check = replace(check, passed=True, match="meaning", label=inside.label)
        out.append(check)
    return out


def within(effect: Box, outer: Box, scale: float = 1.0) -> bool:
    """Whether an effect's changed pixels (its box less the margin effects.py grows them by,
    at `scale`) lie inside `outer` and the ring where toolkits draw focus and hover."""
    r, grown = P.window_rim, round((P.effect_join // 2 + P.effect_pad) * scale)
    x, y, w, h = effect[0] + grown, effect[1] + grown, effect[2] - 2 * grown, effect[3] - 2 * grown
    ox, oy, ow, oh = outer
    return ox - r <= x and oy - r <= y and x + w <= ox + ow + r and y + h <= oy + oh + r

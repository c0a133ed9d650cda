"""Effects by what the window's objects tell (storage/told.py): a text, a value or a state
that the step changed in the recording is compared with what the same object tells today.

The same object: the one at the same place in the window's tree, of the same role, that
told today before the step what it told in the recording before it. Where it tells after
the step what it told when recorded, an effect inside it is the change the recording shows
(a display that reads "46" under another theme, font or scale); where it tells another
thing, the step fails, naming the object and both. Where there is no such object today
(another layout, no answer, a reading cut short) nothing is said, and the pixels decide.

An object inside one of the step's masks (a clock, a counter the recorder saw change by
itself) is not compared: what it tells changes without the step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from deskreel.storage.told import StepTold, Told, ToldObject

from ..search import Box
from .checks import Check, VerifyOptions
from .meaning import by_meaning

__all__ = ["by_told", "told_checks"]


def told_checks(
    recorded: StepTold | None, today: StepTold | None, masks: Sequence[Box]
) -> list[Check]:
    """A meaning check for each object whose text, value or states the recorded step
    changed, where today's window has the same object (see the module)."""
    if recorded is None or today is None or today.before is None or today.after is None:
        return []
    checks = []
    for before, told in recorded.changes():
        if _masked(told.box, masks) or not _same(today.before, before):
            continue
        today_after = today.after.at(told.path, told.role)
        if today_after is not None:
            checks.append(_check(before, told, today_after))
    return checks


def by_told(
    checks: Sequence[Check],
    recorded: StepTold | None,
    today: StepTold | None,
    masks: Sequence[Box],
    options: VerifyOptions,
) -> list[Check]:
    """`checks` with the objects' own checks (told_checks) added, and each failed effect
    inside an object that tells today what it told when recorded passed by it. The step's
    own object, judged by what it said (meaning.py), is not judged twice."""
    own = {c.box for c in checks if c.kind == "meaning"}
    told = [c for c in told_checks(recorded, today, masks) if c.box not in own]
    if not told:
        return list(checks)
    return [replace(c, difference=c.differs(options)) for c in by_meaning([*checks, *told])]


def _same(today: Told, recorded: ToldObject) -> bool:
    """Whether today's window, before the step, has at `recorded`'s place an object of its
    role that tells what it told then."""
    there = today.at(recorded.path, recorded.role)
    return there is not None and there.meaning() == recorded.meaning()


def _check(before: ToldObject, recorded: ToldObject, today: ToldObject) -> Check:
    same = today.meaning() == recorded.meaning()
    return Check(
        kind="meaning",
        match="vouches",
        box=recorded.box,
        found_at=today.box,
        score=1.0 if same else 0.0,
        changed=0.0 if same else 1.0,
        patch=0,
        passed=same,
        label=before.label,
        said=(recorded.says(), today.says()),
    )


def _masked(box: Box, masks: Sequence[Box]) -> bool:
    x, y, w, h = box
    return any(
        x < mx + mw and mx < x + w and y < my + mh and my < y + h for mx, my, mw, mh in masks
    )

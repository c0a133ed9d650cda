"""Effects by what the window's objects tell (storage/told.py): a text, a value or a state
that the step changed in the recording is compared with what the same object tells today.

The same object: the one at the same place in the window's tree, of the same role, that
told today before the step what it told in the recording before it. Where it tells after
the step what it told once the recorded step's effect was drawn, or last before the next
step (a "Saving…" that became "Saved"), its check passes; where it tells another thing, the
step fails, naming the object and both. Where there is no such object today (another
layout, no answer, a reading cut short) nothing is said, and the pixels decide. An object
inside one of the step's masks (a clock the recorder saw change by itself) is not compared.

A passed check also passes the effects its pixels failed, but only where nothing but the
text can differ there (`vouches`): an object that draws only its text (a label, static
text, a heading: no entry with its icons, no container), that holds no other object, whose
whole text (not cut at TEXT_CAP, no embedded object) the step changed and reads today as
recorded; and only an effect the recording shows (not a change today where it shows none:
something drawn over the object), whose changed pixels lie inside the object both in the
recording and where they were compared today.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from deskreel.storage.told import StepTold, Told, ToldObject

from ..search import Box
from .checks import Check, VerifyOptions
from .meaning import within

__all__ = ["TEXT_ONLY", "by_told", "told_checks"]

# Roles whose objects draw their text and nothing else that a step may change: what they
# tell is what they show. An entry draws icons and a selection, a container its children.
TEXT_ONLY = ("label", "static", "heading", "caption", "paragraph", "status bar")
EMBEDDED = "\ufffc"  # an object's place in its parent's text (a browser's container)


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
        now = today.after.at(told.path, told.role)
        if now is None or not now.known:
            continue
        later = recorded.later.at(told.path, told.role) if recorded.later is not None else None
        checks.append(_check(before, told, later, now))
    return _once(checks)


def _once(checks: list[Check]) -> list[Check]:
    """One check per change told: a status bar and the text inside it that tell the same
    are one (the one that vouches, else the outer)."""
    kept: dict[tuple[str, ...], Check] = {}
    for check in checks:
        other = kept.get(check.said)
        if other is None or (other.match != "vouches" and check.match == "vouches"):
            kept[check.said] = check
    return [c for c in checks if kept[c.said] is c]


def by_told(
    checks: Sequence[Check],
    recorded: StepTold | None,
    today: StepTold | None,
    masks: Sequence[Box],
    options: VerifyOptions,
) -> list[Check]:
    """`checks` with the objects' own checks (told_checks) added last, and each failed
    effect inside an object that vouches for it passed by it. The step's own object, judged
    by what it said (meaning.py), is not judged twice."""
    own = {c.box for c in checks if c.kind == "meaning"}
    told = [c for c in told_checks(recorded, today, masks) if c.box not in own]
    if not told:
        return list(checks)
    vouching = [c for c in told if c.passed and c.match == "vouches"]
    out = []
    for check in checks:
        inside = next((t for t in vouching if _vouched(check, t)), None)
        if inside is not None:
            check = replace(check, passed=True, match="meaning", label=inside.label)
        out.append(replace(check, difference=check.differs(options)))
    return out + [replace(c, difference=c.differs(options)) for c in told]


def _vouched(effect: Check, told: Check) -> bool:
    """Whether a failed effect lies inside `told`'s object, as recorded and today."""
    today = effect.found_at or effect.expected
    return (
        effect.kind == "effect"
        and not effect.passed
        and today is not None
        and told.found_at is not None
        and within(effect.box, told.box)
        and within(today, told.found_at, effect.scale)
    )


def _same(today: Told, recorded: ToldObject) -> bool:
    """Whether today's window, before the step, has at `recorded`'s place an object of its
    role that tells what it told then."""
    there = today.at(recorded.path, recorded.role)
    return there is not None and there.known and there.meaning() == recorded.meaning()


def _check(
    before: ToldObject, recorded: ToldObject, later: ToldObject | None, today: ToldObject
) -> Check:
    same = today.meaning() == recorded.meaning()
    passed = same or (later is not None and later.known and today.meaning() == later.meaning())
    return Check(
        kind="meaning",
        match="vouches" if same and _text_only(before, recorded) else "near",
        box=recorded.box,
        found_at=today.box,
        score=1.0 if passed else 0.0,
        changed=0.0 if passed else 1.0,
        patch=0,
        passed=passed,
        label=before.label,
        said=(recorded.says(), today.says()),
    )


def _text_only(before: ToldObject, after: ToldObject) -> bool:
    """Whether what `after` tells is all it shows that the step changed: see the module."""
    return (
        after.role in TEXT_ONLY
        and after.leaf
        and after.whole_text
        and before.whole_text
        and before.text != after.text
        and EMBEDDED not in (after.text or "")
    )


def _masked(box: Box, masks: Sequence[Box]) -> bool:
    x, y, w, h = box
    return any(
        x < mx + mw and mx < x + w and y < my + mh and my < y + h for mx, my, mw, mh in masks
    )

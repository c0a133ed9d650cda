"""--verify's checks of one step on synthetic screens, at 1x with no masks, the press found
where it was recorded: what the pure tests of matching/compare/ call."""

from __future__ import annotations

from typing import Any

from deskreel.matching import Check, VerifyOptions, checks_for


def step_checks(
    before: Any,
    after: Any,
    today: Any,
    earlier: Any,
    target: tuple[int, int] | None,
    *,
    action: str = "left_click",
    **more: Any,
) -> list[Check]:
    """The checks of a step recorded from `before` to `after`, replayed from `earlier` to
    `today`; `more`: the rest of checks_for's arguments (restorable, aimed, ...)."""
    return checks_for(
        action=action,
        before=before,
        after=after,
        screen=today,
        target=target,
        located=target,
        scale=1.0,
        region=None,
        masks=[],
        options=VerifyOptions(),
        earlier=earlier,
        **more,
    )


def effects_of(checks: list[Check]) -> list[Check]:
    """The effect checks and the changes the recording did not show."""
    return [c for c in checks if c.kind in ("effect", "unrecorded")]

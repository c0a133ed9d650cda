"""The table rows a recording's values are stored as, and the values read back from them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, overload

from sqlalchemy import CursorResult, RowMapping

from .errors import StorageError
from .values import Anchor, Step, StepResult
from .vocabulary import Action
from .told import step_told_from_json, step_told_to_json
from .widgets import widget_from_json, widget_to_json

__all__ = [
    "DamagedStep",
    "anchor_row",
    "inserted_id",
    "result_of",
    "result_row",
    "step_of",
    "step_row",
    "stored_action",
    "utc",
]


class DamagedStep(StorageError):
    """A stored step that cannot be read back as an action."""


@overload
def utc(value: datetime) -> datetime: ...
@overload
def utc(value: None) -> None: ...
def utc(value: datetime | None) -> datetime | None:
    """A stored time, aware and in UTC: SQLite hands back naive UTC, a server its own zone."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def inserted_id(result: CursorResult[Any]) -> int:
    """The id the database gave the row that a one-row INSERT added."""
    key = result.inserted_primary_key
    # SQLAlchemy gives None only for an executemany or a statement that is no INSERT
    assert key is not None, "inserted_id wants the result of a one-row INSERT"
    return int(key[0])


def anchor_row(anchor: Anchor) -> dict[str, Any]:
    x, y, w, h = anchor.box
    return dict(
        png=anchor.png,
        box_x=x,
        box_y=y,
        box_w=w,
        box_h=h,
        offset_x=anchor.offset[0],
        offset_y=anchor.offset[1],
        score=anchor.score,
        margin=anchor.margin,
        hover_png=anchor.hover_png,
        twins=anchor.twins,
    )


def step_row(step: Step) -> dict[str, Any]:
    first, last = step.events or (None, None)
    return dict(
        step=step.step,
        kind=step.action.action,
        body=json.dumps(step.action.to_json(), ensure_ascii=False),
        t_start=step.t_start,
        t_end=step.t_end,
        disabled=step.disabled,
        event_first=first,
        event_last=last,
        before_frame=step.before_frame,
        after_frame=step.after_frame,
        window_class=step.window_class,
        window_title=step.window_title,
        widget=widget_to_json(step.widget),
        note=step.note,
        after_settled=step.after_settled,
        told=step_told_to_json(step.told),
    )


def step_of(row: RowMapping) -> Step:
    """A step from its actions row joined with its anchors row (all None: no anchor)."""
    anchor = None
    if row["anchor_id"] is not None:
        anchor = Anchor(
            png=bytes(row["png"]),
            box=(row["box_x"], row["box_y"], row["box_w"], row["box_h"]),
            offset=(row["offset_x"], row["offset_y"]),
            score=row["score"],
            margin=row["margin"],
            hover_png=bytes(row["hover_png"]) if row["hover_png"] is not None else None,
            twins=row["twins"],
        )
    events = None if row["event_first"] is None else (row["event_first"], row["event_last"])
    return Step(
        step=row["step"],
        action=stored_action(row["body"], row["step"]),
        t_start=row["t_start"],
        t_end=row["t_end"],
        disabled=bool(row["disabled"]),
        events=events,
        before_frame=row["before_frame"],
        after_frame=row["after_frame"],
        anchor=anchor,
        window_class=row["window_class"],
        window_title=row["window_title"],
        widget=widget_from_json(row["widget"]),
        note=row["note"],
        after_settled=None if row["after_settled"] is None else bool(row["after_settled"]),
        told=step_told_from_json(row["told"]),
    )


def result_row(run_id: int, result: StepResult) -> dict[str, Any]:
    shift = result.shift or (None, None)
    return dict(
        run_id=run_id,
        step=result.step,
        status=result.status,
        message=result.message,
        t_start=result.t_start,
        t_end=result.t_end,
        score=result.score,
        margin=result.margin,
        scale=result.scale,
        shift_x=shift[0],
        shift_y=shift[1],
        details=json.dumps(result.details),
    )


def result_of(row: RowMapping) -> StepResult:
    return StepResult(
        step=row["step"],
        status=row["status"],
        message=row["message"],
        t_start=row["t_start"],
        t_end=row["t_end"],
        score=row["score"],
        margin=row["margin"],
        scale=row["scale"],
        shift=(None if row["shift_x"] is None else (row["shift_x"], row["shift_y"])),
        details=_details(row["details"]),
    )


def stored_action(body: str, step: int) -> Action:
    """A step's stored action; DamagedStep when its body is no action (the file was damaged
    or written by something else), which `deskreel doctor` reports too."""
    try:
        return Action.from_json(json.loads(body))
    except (ValueError, TypeError) as err:  # JSONDecodeError and ActionError are ValueErrors
        raise DamagedStep(
            f"step {step}: its stored action is damaged ({str(err)[:80]}): restore a backup, "
            f"or drop the step with 'deskreel edit --drop {step}'"
        ) from None


def _details(text: str | None) -> dict[str, Any]:
    """A step result's details; empty when they are damaged (`deskreel doctor` says so):
    the rest of the run still reads."""
    try:
        details = json.loads(text or "{}")
    except ValueError:
        return {}
    return details if isinstance(details, dict) else {}

"""Edits to one recording, each in one transaction: drop, disable, enable, insert, trim,
rename, its instruction and its steps' notes, and all of them on a copy.

Steps are renumbered 1..n in order; each keeps its frames, anchor, masks, raw-event range
and the results past runs gave it. Dropping or trimming a step also deletes the raw events
that only it came from, so that `deskreel reduce` cannot bring it back, its masks, its
results, and the frames nothing else uses. Frames are shared by content and are not copied.
Inserted actions must lie on the recording's screen, when its size is known.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, ColumnDefault, Connection, bindparam, case, literal, select
from sqlalchemy.exc import IntegrityError

from . import schema as s
from .bulk import chunks
from .errors import StorageError
from .recordings import checked_name, new_uid
from .script import checked_text
from .rows import inserted_id
from .store import Store
from .unused_frames import delete_unused_frames, details_frames
from .vocabulary import Action

__all__ = ["EditError", "EditSummary", "RecordingEdit", "edit_recording", "off_screen"]

Row = dict[str, Any]


class EditError(StorageError):
    """An edit that cannot apply (an unknown step, nothing left); nothing was changed."""


@dataclass(frozen=True, slots=True)
class RecordingEdit:
    """What to change. Step numbers are those before the edit, as `deskreel show` lists them."""

    drop: frozenset[int] = frozenset()
    disable: frozenset[int] = frozenset()
    enable: frozenset[int] = frozenset()
    insert_after: tuple[tuple[int, Action], ...] = ()  # after step 0: before the first step
    trim_start: float | None = None  # drop steps starting earlier; the first left starts at 0
    trim_end: float | None = None  # drop steps starting later than the duration minus this
    rename: str | None = None
    instruction: str | None = None  # the recording's new instruction; "": none
    notes: tuple[tuple[int, str], ...] = ()  # (step, its new note; "": none)


@dataclass(frozen=True, slots=True)
class EditSummary:
    """What an edit did, in numbers."""

    recording_id: int
    name: str
    dropped: int
    inserted: int
    disabled: int
    enabled: int
    noted: int
    instruction: str | None  # as the edit gave it: None unchanged, "" removed
    steps: int  # after the edit
    shift: float  # seconds every step moved earlier


def edit_recording(
    store: Store, recording_id: int, edit: RecordingEdit, *, copy_to: str | None = None
) -> EditSummary:
    """Apply `edit` to a recording, or to a new copy of it named `copy_to`, atomically."""
    for name in (edit.rename, copy_to):
        if name is not None:
            checked_name(name)
    checked_text(edit.instruction, "--instruction")
    for step, note in edit.notes:
        checked_text(note, f"the note of step {step}")
    try:
        with store.engine.begin() as conn:
            target = recording_id if copy_to is None else _copy(conn, recording_id, copy_to)
            r = s.recordings.c
            rec = conn.execute(
                select(r.id, r.name, r.screen_width, r.screen_height).where(r.id == target)
            ).one()
            what = f"recording {rec.id} {rec.name!r}"
            if rec.screen_width:
                _check_inserts(edit, (rec.screen_width, rec.screen_height), what)
            plan = _plan(_rows(conn, target), edit, what=what)
            _apply(conn, target, plan)
            header = {"name": edit.rename, "instruction": edit.instruction}
            if changed := {k: v or None for k, v in header.items() if v is not None}:
                conn.execute(
                    s.recordings.update().where(s.recordings.c.id == target).values(**changed)
                )
    except IntegrityError:
        raise EditError(
            f"{store.label} already holds a recording named "
            f"{edit.rename or copy_to!r}: choose another name"
        ) from None
    return EditSummary(
        target,
        edit.rename or rec.name,
        len(plan.dropped),
        plan.inserted,
        plan.disabled,
        plan.enabled,
        len(edit.notes),
        edit.instruction,
        len(plan.rows),
        plan.shift,
    )


@dataclass
class _Plan:
    rows: list[Row]  # the new action rows, renumbered
    dropped: list[Row]  # the old rows that go
    kept: list[Row]  # the old rows that stay (with their event ranges)
    renumbered: dict[int, int]  # old step number to new, for the steps that stay
    inserted: int
    disabled: int
    enabled: int
    shift: float
    events_before: float | None  # raw events earlier than this (old time) go, unless kept
    events_after: float | None  # raw events later than this (old time) go, unless kept


def _plan(rows: list[Row], edit: RecordingEdit, *, what: str) -> _Plan:
    """The new rows, from the old ones and the edit; pure, raises EditError."""
    _check(edit, [r["step"] for r in rows], what)
    duration = max((r["t_end"] for r in rows), default=0.0)
    end = duration - edit.trim_end if edit.trim_end is not None else None
    start = edit.trim_start
    notes = dict(edit.notes)
    inserts: dict[int, list[Action]] = {}
    for after, action in edit.insert_after:
        inserts.setdefault(after, []).append(action)
    new, dropped, kept = [_new_row(a, 0.0) for a in inserts.get(0, [])], [], []
    moved: list[tuple[int, Row]] = []
    for row in rows:
        n, t = row["step"], row["t_start"]
        if n in edit.drop or (start is not None and t < start) or (end is not None and t > end):
            dropped.append(row)
        else:
            disabled = (bool(row["disabled"]) or n in edit.disable) and n not in edit.enable
            new.append({**row, "disabled": disabled, "note": notes.get(n, row["note"]) or None})
            kept.append(row)
            moved.append((n, new[-1]))
        new += [_new_row(a, row["t_end"]) for a in inserts.get(n, [])]
    if not new:
        raise EditError(f"the edit would leave {what} without steps: drop or trim less")
    if trimmed := sorted(r["step"] for r in dropped if r["step"] in notes):
        raise EditError(f"step {trimmed[0]} cannot be both trimmed and noted")
    shift = min(r["t_start"] for r in kept) if start is not None and kept else 0.0
    for number, row in enumerate(new, start=1):
        row.update(
            step=number,
            t_start=max(0.0, row["t_start"] - shift),
            t_end=max(0.0, row["t_end"] - shift),
        )
    return _Plan(
        rows=new,
        dropped=dropped,
        kept=kept,
        renumbered={n: r["step"] for n, r in moved},
        inserted=len(edit.insert_after),
        disabled=sum(1 for r in kept if r["step"] in edit.disable and not r["disabled"]),
        enabled=sum(1 for r in kept if r["step"] in edit.enable and r["disabled"]),
        shift=shift,
        events_before=shift if start is not None else None,
        events_after=end,
    )


def _check(edit: RecordingEdit, numbers: list[int], what: str) -> None:
    known = set(numbers)
    span = f"steps 1 to {max(numbers)}" if numbers else "no steps"
    noted = frozenset(n for n, _ in edit.notes)
    if len(noted) != len(edit.notes):
        twice = next(n for n in noted if sum(m == n for m, _ in edit.notes) > 1)
        raise EditError(f"step {twice} is given two notes: give one --note per step")
    asked = [*edit.drop, *edit.disable, *edit.enable, *noted]
    asked += [n for n, _ in edit.insert_after if n]
    for n in sorted(set(asked)):
        if n not in known:
            raise EditError(f"{what} has no step {n} (it has {span})")
    for a, b, verbs in (
        (edit.drop, edit.disable, "dropped and disabled"),
        (edit.drop, edit.enable, "dropped and enabled"),
        (edit.disable, edit.enable, "disabled and enabled"),
        (edit.drop, noted, "dropped and noted"),
    ):
        if a & b:
            raise EditError(f"step {min(a & b)} cannot be both {verbs}")
    for name, value in (("trim-start", edit.trim_start), ("trim-end", edit.trim_end)):
        if value is not None and value < 0:
            raise EditError(f"{name} must be zero or more seconds, got {value:g}")


def off_screen(action: Action, screen: tuple[int, int] | None) -> str | None:
    """Why `action` reaches outside a screen of `screen` pixels; None when it does not, or
    when the screen size is unknown."""
    if screen is None:
        return None
    w, h = screen
    for name in ("start_coordinate", "coordinate"):
        point = getattr(action, name)
        if point is not None and (point[0] >= w or point[1] >= h):
            return f"{name} {list(point)} is off the {w}x{h} screen"
    if action.region is not None:
        x, y, width, height = action.region
        if x + width > w or y + height > h:
            return f"region {list(action.region)} is off the {w}x{h} screen"
    return None


def _check_inserts(edit: RecordingEdit, screen: tuple[int, int], what: str) -> None:
    for after, action in edit.insert_after:
        if why := off_screen(action, screen):
            raise EditError(
                f"cannot insert after step {after}: its {why} of {what} (x 0 to "
                f"{screen[0] - 1}, y 0 to {screen[1] - 1})"
            )


def _rows(conn: Connection, recording_id: int) -> list[Row]:
    a = s.actions.c
    query = select(s.actions).where(a.recording_id == recording_id).order_by(a.step)
    return [dict(row) for row in conn.execute(query).mappings()]


def _new_row(action: Action, t: float) -> Row:
    row: Row = {c.name: _default(c) for c in s.actions.c}
    row.update(
        step=None,
        kind=action.action,
        t_start=t,
        t_end=t,
        disabled=False,
        body=json.dumps(action.to_json(), ensure_ascii=False),
    )
    return row


def _default(column: Column[Any]) -> Any:
    default = column.default  # the actions table's defaults are all plain values
    return default.arg if isinstance(default, ColumnDefault) and not callable(default.arg) else None


def _apply(conn: Connection, recording_id: int, plan: _Plan) -> None:
    conn.execute(s.actions.delete().where(s.actions.c.recording_id == recording_id))
    gone = [r["anchor_id"] for r in plan.dropped if r["anchor_id"] is not None]
    for chunk in chunks(gone):
        conn.execute(s.anchors.delete().where(s.anchors.c.id.in_(chunk)))
    conn.execute(s.actions.insert(), [{**r, "recording_id": recording_id} for r in plan.rows])
    _edit_masks(conn, recording_id, plan.renumbered)
    named = _edit_results(conn, recording_id, plan.renumbered)
    _edit_events(conn, recording_id, plan)
    delete_unused_frames(
        conn, named | {r[k] for r in plan.dropped for k in ("before_frame", "after_frame") if r[k]}
    )


def _edit_masks(conn: Connection, recording_id: int, renumbered: dict[int, int]) -> None:
    """A step's masks follow it to its new number; those of steps that went, go."""
    m = s.masks.c
    rows = conn.execute(
        select(m.id, m.step).where(m.recording_id == recording_id, m.step.is_not(None))
    ).all()
    for chunk in chunks([id_ for id_, step in rows if step not in renumbered]):
        conn.execute(s.masks.delete().where(m.id.in_(chunk)))
    for id_, step in rows:  # by id: a mask moved to step 2 must not move again with step 2
        if step in renumbered and renumbered[step] != step:
            conn.execute(s.masks.update().where(m.id == id_).values(step=renumbered[step]))


def _edit_results(conn: Connection, recording_id: int, renumbered: dict[int, int]) -> set[str]:
    """Past runs' step results follow their steps to their new numbers, so that a report of
    a run before the edit pins them on the right steps; those of steps that went, go.
    Inserted steps have none: no run before the edit did them. Returns the frames that the
    deleted results named."""
    r = s.step_results.c
    runs = select(s.runs.c.id).where(s.runs.c.recording_id == recording_id).scalar_subquery()
    rows = conn.execute(select(r.run_id, r.step, r.details).where(r.run_id.in_(runs))).all()
    gone = [row for row in rows if row.step not in renumbered]
    if gone:
        conn.execute(
            s.step_results.delete().where(
                r.run_id == bindparam("b_run"), r.step == bindparam("b_step")
            ),
            [{"b_run": row.run_id, "b_step": row.step} for row in gone],
        )
    moves = [
        {"b_run": row.run_id, "b_step": row.step, "b_new": -renumbered[row.step]}
        for row in rows
        if renumbered.get(row.step, row.step) != row.step
    ]
    if moves:  # through -new: a result may move onto a number that another one is leaving
        conn.execute(
            s.step_results.update()
            .where(r.run_id == bindparam("b_run"), r.step == bindparam("b_step"))
            .values(step=bindparam("b_new")),
            moves,
        )
        conn.execute(
            s.step_results.update().where(r.run_id.in_(runs), r.step < 0).values(step=-r.step)
        )
    return set().union(*(details_frames(row.details) for row in gone))


def _edit_events(conn: Connection, recording_id: int, plan: _Plan) -> None:
    """Delete the raw events only dropped steps (or the trimmed ends) came from; shift the rest."""
    e = s.events.c
    kept = _seqs(plan.kept)
    dropped = _seqs(plan.dropped)
    gone = []
    for seq, t in conn.execute(select(e.seq, e.t).where(e.recording_id == recording_id)):
        if seq in kept:
            continue
        if (
            seq in dropped
            or (plan.events_before is not None and t < plan.events_before)
            or (plan.events_after is not None and t > plan.events_after)
        ):
            gone.append(seq)
    for chunk in chunks(gone):
        conn.execute(s.events.delete().where(e.recording_id == recording_id, e.seq.in_(chunk)))
    if plan.shift:
        conn.execute(
            s.events.update()
            .where(e.recording_id == recording_id)
            .values(t=case((e.t > plan.shift, e.t - plan.shift), else_=0.0))
        )


def _seqs(rows: Iterable[Row]) -> set[int]:
    out: set[int] = set()
    for r in rows:
        if r["event_first"] is not None:
            out.update(range(r["event_first"], r["event_last"] + 1))
    return out


def _copy(conn: Connection, source: int, name: str) -> int:
    """A new recording with the source's header, raw events, anchors, steps and masks."""
    r = s.recordings
    row = dict(conn.execute(select(r).where(r.c.id == source)).mappings().one())
    extra = json.loads(row.pop("extra") or "{}")
    extra["copied_from"] = {"id": source, "name": row["name"]}
    row.pop("id")
    row.update(name=name, created=datetime.now(UTC), extra=json.dumps(extra), uid=new_uid())
    new = inserted_id(conn.execute(r.insert().values(**row)))
    columns = [c for c in s.events.c if c.name != "recording_id"]
    conn.execute(
        s.events.insert().from_select(
            ["recording_id", *(c.name for c in columns)],
            select(literal(new), *columns).where(s.events.c.recording_id == source),
        )
    )
    anchors: dict[int, int] = {}
    for anchor in conn.execute(
        select(s.anchors).where(s.anchors.c.recording_id == source)
    ).mappings():
        values = {k: v for k, v in anchor.items() if k != "id"}
        anchors[anchor["id"]] = inserted_id(
            conn.execute(s.anchors.insert().values({**values, "recording_id": new}))
        )
    steps = [
        {**row, "recording_id": new, "anchor_id": anchors.get(row["anchor_id"])}
        for row in _rows(conn, source)
    ]
    if steps:
        conn.execute(s.actions.insert(), steps)
    columns = [c for c in s.masks.c if c.name not in ("id", "recording_id")]
    conn.execute(
        s.masks.insert().from_select(
            ["recording_id", *(c.name for c in columns)],
            select(literal(new), *columns)
            .where(s.masks.c.recording_id == source)
            .order_by(s.masks.c.id),
        )
    )
    return new

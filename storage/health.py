"""`deskreel doctor`: is a database whole, and what would repair it.

Checks the file's integrity (SQLite's quick_check), the schema version, frames and anchors
that nothing refers to, steps that refer to frames the file lacks, step results whose details
are not readable JSON, and recordings whose last raw events never became steps (a recorder
killed before it could reduce them).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.exc import DatabaseError

from . import schema as s
from .store import Store, chunks, delete_unused_frames, details_frames, numbered_events
from .values import RawEvent, Step

__all__ = ["Health", "Tail", "examine", "recover_tail", "remove_orphans"]


@dataclass(frozen=True, slots=True)
class Tail:
    """Presses after a recording's last step: what a killed recorder left unreduced (a clean
    recording ends, at most, with pointer motion after its last step)."""

    recording_id: int
    name: str
    first_seq: int
    events: int  # key and button presses among them


@dataclass
class Health:
    integrity: str = "ok"
    schema_version: int = 0
    recordings: int = 0
    frames: int = 0
    orphan_frames: list[str] = field(default_factory=list)
    orphan_anchors: list[int] = field(default_factory=list)
    missing_frames: list[tuple[int, int, str]] = field(default_factory=list)  # rec, step, hash
    tails: list[Tail] = field(default_factory=list)
    unreadable_results: list[tuple[int, int]] = field(default_factory=list)  # run, step

    @property
    def problems(self) -> list[str]:
        out = []
        if self.integrity != "ok":
            out.append(f"integrity check failed: {self.integrity}")
        if self.missing_frames:
            rec, step, key = self.missing_frames[0]
            out.append(f"{len(self.missing_frames)} step frames are missing (first: recording "
                       f"{rec} step {step}, frame {key[:12]})")
        for run, step in self.unreadable_results:
            out.append(f"run {run} step {step}: its result details are unreadable")
        for tail in self.tails:
            out.append(f"recording {tail.recording_id} {tail.name!r} has {tail.events} key or "
                       f"button presses after its last step (its recorder stopped early)")
        if self.orphan_frames:
            out.append(f"{len(self.orphan_frames)} frames belong to no step or run")
        if self.orphan_anchors:
            out.append(f"{len(self.orphan_anchors)} anchors belong to no step")
        return out


def examine(store: Store) -> Health:
    """Everything `doctor` reports, read in one pass; a file that fails SQLite's integrity
    check is reported as such and not read further (reading it could fail anywhere)."""
    health = Health()
    with store.engine.connect() as conn:
        if store.engine.dialect.name == "sqlite":
            try:
                rows = conn.execute(text("PRAGMA quick_check")).scalars().all()
            except DatabaseError as err:  # SQLite gives up on a badly damaged file
                rows = [str(err.orig or err).splitlines()[0]]
                if "locked" in rows[0] or "busy" in rows[0]:
                    raise  # another writer, not damage
            if rows != ["ok"]:
                health.integrity = "; ".join(" ".join(str(row).split()) for row in rows[:3])
                return health
        health.schema_version = store.schema_version()
        health.recordings = conn.scalar(select(func.count()).select_from(s.recordings))
        frames = set(conn.scalars(select(s.frames.c.hash)))
        health.frames = len(frames)
        a = s.actions.c
        used: set[str] = set()
        for rec, step, before, after in conn.execute(
                select(a.recording_id, a.step, a.before_frame, a.after_frame)):
            for key in (before, after):
                if key is None:
                    continue
                used.add(key)
                if key not in frames:
                    health.missing_frames.append((rec, step, key))
        sr = s.step_results.c
        for run, step, details in conn.execute(
                select(sr.run_id, sr.step, sr.details).order_by(sr.run_id, sr.step)):
            try:
                json.loads(details or "{}")
            except ValueError:  # damaged: the frames whose hash its text holds count as used
                health.unreadable_results.append((run, step))
            used |= details_frames(details)
        health.orphan_frames = sorted(frames - used)
        anchored = select(a.anchor_id).where(a.anchor_id.is_not(None))
        health.orphan_anchors = list(conn.scalars(
            select(s.anchors.c.id).where(s.anchors.c.id.not_in(anchored))))
        health.tails = _tails(conn)
    return health


def remove_orphans(store: Store, health: Health) -> tuple[int, int]:
    """Delete the frames and anchors nothing refers to; returns how many of each."""
    an = s.anchors.c
    anchors = 0
    with store.engine.begin() as conn:
        # checked again as they go: a recorder may have started to use one since `examine`
        frames = delete_unused_frames(conn, health.orphan_frames)
        anchored = select(s.actions.c.anchor_id).where(s.actions.c.anchor_id.is_not(None))
        for chunk in chunks(health.orphan_anchors):
            anchors += conn.execute(s.anchors.delete().where(
                an.id.in_(chunk), an.id.not_in(anchored))).rowcount
    return frames, anchors


Reduce = Callable[[Sequence[RawEvent]], Sequence[Any]]


def recover_tail(store: Store, tail: Tail, *, reduce: Reduce) -> int:
    """Reduce a tail's raw events into steps appended to its recording; how many.

    `reduce` is the recorder's reducer (storage does not import the recorder): it returns
    actions with `action`, `t_start`, `t_end`, and `first`/`last` indices into the events.
    """
    a = s.actions.c
    with store.engine.connect() as conn:
        numbered = numbered_events(conn, tail.recording_id, since_seq=tail.first_seq)
        last = conn.scalar(select(func.max(a.step)).where(a.recording_id == tail.recording_id))
    seqs = [seq for seq, _ in numbered]
    reduced = reduce([event for _, event in numbered])
    number = last or 0
    store.add_steps(tail.recording_id, [
        Step(step=number + i, action=r.action, t_start=r.t_start, t_end=r.t_end,
             events=(seqs[r.first], seqs[r.last]) if r.first >= 0 else None)
        for i, r in enumerate(reduced, start=1)])
    return len(reduced)


def _tails(conn: Any) -> list[Tail]:
    a, e, r = s.actions.c, s.events.c, s.recordings.c
    last = (select(a.recording_id, func.max(a.event_last).label("last"))
            .group_by(a.recording_id).subquery())
    query = (select(r.id, r.name, func.coalesce(last.c.last, -1), func.count(e.seq))
             .select_from(s.recordings.join(s.events, e.recording_id == r.id)
                          .outerjoin(last, last.c.recording_id == r.id))
             .where(e.seq > func.coalesce(last.c.last, -1),
                    e.kind.in_(("key_down", "button_down")))
             .group_by(r.id, r.name, last.c.last))
    return [Tail(rec, name, int(after) + 1, int(count))
            for rec, name, after, count in conn.execute(query)]

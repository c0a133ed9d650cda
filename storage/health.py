"""`deskreel doctor`: is a database whole, and what would repair it.

Checks the file's integrity (SQLite's quick_check), the schema version, frames and anchors
that nothing refers to, steps that refer to frames the file lacks, and recordings whose
last raw events never became steps (a recorder killed before it could reduce them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select, text

from . import schema as s
from .store import Store

__all__ = ["Health", "Tail", "examine", "remove_orphans"]


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

    @property
    def problems(self) -> list[str]:
        out = []
        if self.integrity != "ok":
            out.append(f"integrity check failed: {self.integrity}")
        if self.missing_frames:
            rec, step, key = self.missing_frames[0]
            out.append(f"{len(self.missing_frames)} step frames are missing (first: recording "
                       f"{rec} step {step}, frame {key[:12]})")
        for tail in self.tails:
            out.append(f"recording {tail.recording_id} {tail.name!r} has {tail.events} key or "
                       f"button presses after its last step (its recorder stopped early)")
        if self.orphan_frames:
            out.append(f"{len(self.orphan_frames)} frames belong to no step or run")
        if self.orphan_anchors:
            out.append(f"{len(self.orphan_anchors)} anchors belong to no step")
        return out


def examine(store: Store) -> Health:
    """Everything `doctor` reports, read in one pass."""
    health = Health(schema_version=store.schema_version())
    with store.engine.connect() as conn:
        if store.engine.dialect.name == "sqlite":
            rows = conn.execute(text("PRAGMA quick_check")).scalars().all()
            health.integrity = "ok" if rows == ["ok"] else "; ".join(rows[:3])
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
        for (details,) in conn.execute(select(s.step_results.c.details)):
            data = json.loads(details or "{}")
            used.update(data[k] for k in ("replay_before", "replay_after", "diff")
                        if isinstance(data.get(k), str))
        health.orphan_frames = sorted(frames - used)
        anchored = select(a.anchor_id).where(a.anchor_id.is_not(None))
        health.orphan_anchors = list(conn.scalars(
            select(s.anchors.c.id).where(s.anchors.c.id.not_in(anchored))))
        health.tails = _tails(conn)
    return health


def remove_orphans(store: Store, health: Health) -> tuple[int, int]:
    """Delete the frames and anchors nothing refers to; returns how many of each."""
    with store.engine.begin() as conn:
        if health.orphan_frames:
            conn.execute(s.frames.delete().where(s.frames.c.hash.in_(health.orphan_frames)))
        if health.orphan_anchors:
            conn.execute(s.anchors.delete().where(s.anchors.c.id.in_(health.orphan_anchors)))
    return len(health.orphan_frames), len(health.orphan_anchors)


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

"""`deskreel doctor`: is a database whole, and what would repair it.

Checks the file's integrity (SQLite's quick_check), the schema version, the migration
record and that every step's action reads back (storage/shape.py; a file lacking a column
is refused on opening), frames and anchors
that nothing refers to, steps that refer to frames the file lacks, step results whose details
are not readable JSON, and recordings whose last raw events never became steps (a recorder
killed before it could reduce them).

A store that other programs have open (a shared server, or a file a recorder is writing)
may hold recordings and runs still being written: a running recorder's newest events are
not reduced yet, and a frame it or a replay has just stored is used by no step or result
yet. Those are what `writing` and `running` name; they are not problems, and a repair
leaves them alone unless forced.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import Connection, func, select, text
from sqlalchemy.exc import DatabaseError

from . import schema as s
from .bulk import chunks
from .grouping import InputSettings
from .recordings import numbered_events
from .rows import utc
from .shape import damaged_steps, migration_problem
from .store import Store
from .unused_frames import delete_unused_frames, details_frames
from .values import RawEvent, Step
from .vocabulary import SECRET

__all__ = ["Health", "Tail", "examine", "recover_tail", "remove_orphans"]

# While another program has the store open: a recording written to this recently may still
# have its recorder running (it reduces its events within seconds of a pause in them), and
# an unfinished run started this recently may still be replaying (it names its frames only
# when it ends).
WRITING = timedelta(minutes=10)
RUNNING = timedelta(hours=24)


@dataclass(frozen=True, slots=True)
class Tail:
    """Presses after a recording's last step: what a killed recorder left unreduced (a clean
    recording ends, at most, with pointer motion after its last step)."""

    recording_id: int
    name: str
    first_seq: int
    events: int  # key and button presses among them
    live: bool = False  # its recorder may still be running: see `Health.writing`


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
    migration: str | None = None  # what is wrong with its migration record
    damaged_steps: list[tuple[int, int]] = field(default_factory=list)  # recording, step
    others: bool = False  # another program has the store open
    writing: dict[int, float] = field(default_factory=dict)  # recording: s since last write
    running: dict[int, float] = field(default_factory=dict)  # unfinished run: s since start

    @property
    def busy(self) -> bool:
        """Something may still be writing into the store: orphans may be frames in flight."""
        return bool(self.writing or self.running)

    @property
    def problems(self) -> list[str]:
        out = []
        if self.integrity != "ok":
            out.append(f"integrity check failed: {self.integrity}")
        if self.migration is not None:
            out.append(self.migration)
        for rec, step in self.damaged_steps:
            out.append(
                f"recording {rec} step {step}: its stored action is damaged: restore a "
                f"backup, or drop the step (deskreel edit -r {rec} --drop {step})"
            )
        if self.missing_frames:
            rec, step, key = self.missing_frames[0]
            out.append(
                f"{len(self.missing_frames)} step frames are missing (first: recording "
                f"{rec} step {step}, frame {key[:12]})"
            )
        for run, step in self.unreadable_results:
            out.append(f"run {run} step {step}: its result details are unreadable")
        for tail in self.tails:
            if not tail.live:
                out.append(
                    f"recording {tail.recording_id} {tail.name!r} has {tail.events} "
                    f"key or button presses after its last step (its recorder "
                    f"stopped early)"
                )
        if self.orphan_frames and not self.busy:
            out.append(f"{len(self.orphan_frames)} frames belong to no step or run")
        if self.orphan_anchors:
            out.append(f"{len(self.orphan_anchors)} anchors belong to no step")
        return out

    @property
    def notes(self) -> list[str]:
        """What was not counted as a problem because it may still be being written."""
        out = [
            f"recording {tail.recording_id} {tail.name!r} is still being written (last "
            f"write {self.writing[tail.recording_id]:.0f} s ago): its {tail.events} key or "
            f"button presses after its last step may not be reduced yet"
            for tail in self.tails
            if tail.live
        ]
        if self.orphan_frames and self.busy:
            out.append(
                f"{len(self.orphan_frames)} frames belong to no step or run yet: not "
                f"counted while {self.busy_names} may still be being written"
            )
        return out

    @property
    def busy_names(self) -> str:
        """The recordings and runs that may still be being written, for messages."""
        names = [f"recording {rec}" for rec in sorted(self.writing)]
        names += [f"run {run}" for run in sorted(self.running)]
        return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def examine(store: Store, *, now: datetime | None = None) -> Health:
    """Everything `doctor` reports, read in one pass; a file that fails SQLite's integrity
    check is reported as such and not read further (reading it could fail anywhere)."""
    health = Health()
    now = now or datetime.now(UTC)
    store.engine.dispose()  # our own idle sessions, which the pool keeps, are not others'
    with store.engine.connect() as conn:
        health.others = _opened_elsewhere(store, conn)  # before any second session of ours
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
        health.migration = migration_problem(conn)
        health.damaged_steps = damaged_steps(conn)
        health.recordings = conn.execute(
            select(func.count()).select_from(s.recordings)
        ).scalar_one()
        frames = set(conn.scalars(select(s.frames.c.hash)))
        health.frames = len(frames)
        a = s.actions.c
        used: set[str] = set()
        for rec, step, before, after in conn.execute(
            select(a.recording_id, a.step, a.before_frame, a.after_frame)
        ):
            for key in (before, after):
                if key is None:
                    continue
                used.add(key)
                if key not in frames:
                    health.missing_frames.append((rec, step, key))
        sr = s.step_results.c
        for run, step, details in conn.execute(
            select(sr.run_id, sr.step, sr.details).order_by(sr.run_id, sr.step)
        ):
            try:
                json.loads(details or "{}")
            except ValueError:  # damaged: the frames whose hash its text holds count as used
                health.unreadable_results.append((run, step))
            used |= details_frames(details)
        health.orphan_frames = sorted(frames - used)
        anchored = select(a.anchor_id).where(a.anchor_id.is_not(None))
        health.orphan_anchors = list(
            conn.scalars(select(s.anchors.c.id).where(s.anchors.c.id.not_in(anchored)))
        )
        if health.others:
            health.writing, health.running = _recent_writes(conn, now)
        health.tails = [
            replace(tail, live=tail.recording_id in health.writing) for tail in _tails(conn)
        ]
    return health


def remove_orphans(store: Store, health: Health, *, keep_frames: bool = False) -> tuple[int, int]:
    """Delete the frames (unless `keep_frames`) and anchors nothing refers to; returns how
    many of each."""
    an = s.anchors.c
    frames = anchors = 0
    with store.engine.begin() as conn:
        # checked again as they go: a recorder may have started to use one since `examine`
        if not keep_frames:
            frames = delete_unused_frames(conn, health.orphan_frames)
        anchored = select(s.actions.c.anchor_id).where(s.actions.c.anchor_id.is_not(None))
        for chunk in chunks(health.orphan_anchors):
            anchors += conn.execute(
                s.anchors.delete().where(an.id.in_(chunk), an.id.not_in(anchored))
            ).rowcount
    return frames, anchors


class Reduce(Protocol):
    """The recorder's reducer, as `recover_tail` calls it."""

    def __call__(
        self, events: Sequence[RawEvent], *, first_secret: int, settings: InputSettings
    ) -> Sequence[Any]: ...


def recover_tail(store: Store, tail: Tail, *, reduce: Reduce) -> int:
    """Reduce a tail's raw events into steps appended to its recording; how many.

    `reduce` is the recorder's reducer (storage does not import the recorder), given the
    events and `first_secret`, the number the recording's next {{secret:N}} takes (typing
    whose keys were redacted is stored as one): it returns actions with `action`,
    `t_start`, `t_end`, and `first`/`last` indices into the events.
    """
    a = s.actions.c
    with store.engine.connect() as conn:
        numbered = numbered_events(conn, tail.recording_id, since_seq=tail.first_seq)
        last = conn.scalar(select(func.max(a.step)).where(a.recording_id == tail.recording_id))
        secrets = [
            int(n)
            for body in conn.scalars(select(a.body).where(a.recording_id == tail.recording_id))
            for n in SECRET.findall(body)
        ]
    seqs = [seq for seq, _ in numbered]
    settings = store.recording(tail.recording_id).input_settings
    reduced = reduce(
        [event for _, event in numbered],
        first_secret=max(secrets, default=0) + 1,
        settings=settings,
    )
    number = last or 0
    store.add_steps(
        tail.recording_id,
        [
            Step(
                step=number + i,
                action=r.action,
                t_start=r.t_start,
                t_end=r.t_end,
                events=(seqs[r.first], seqs[r.last]) if r.first >= 0 else None,
            )
            for i, r in enumerate(reduced, start=1)
        ],
    )
    return len(reduced)


def _tails(conn: Connection) -> list[Tail]:
    a, e, r = s.actions.c, s.events.c, s.recordings.c
    last = (
        select(a.recording_id, func.max(a.event_last).label("last"))
        .group_by(a.recording_id)
        .subquery()
    )
    query = (
        select(r.id, r.name, func.coalesce(last.c.last, -1), func.count(e.seq))
        .select_from(
            s.recordings.join(s.events, e.recording_id == r.id).outerjoin(
                last, last.c.recording_id == r.id
            )
        )
        .where(e.seq > func.coalesce(last.c.last, -1), e.kind.in_(("key_down", "button_down")))
        .group_by(r.id, r.name, last.c.last)
    )
    return [
        Tail(rec, name, int(after) + 1, int(count))
        for rec, name, after, count in conn.execute(query)
    ]


def _opened_elsewhere(store: Store, conn: Connection) -> bool:
    """Whether another program has the store open: another session on the server's
    database, or another process holding SQLite's lock on the file's shared memory (every
    connection to a WAL database holds one while it is open)."""
    if conn.dialect.name == "postgresql":
        others = text(
            "select count(*) from pg_stat_activity where datname = "
            "current_database() and backend_type = 'client backend' and "
            "pid <> pg_backend_pid()"
        )
        for _ in range(10):  # a session closed a moment ago is listed until its backend exits
            if not conn.scalar(others):
                return False
            time.sleep(0.05)
            conn.execute(text("select pg_stat_clear_snapshot()"))  # else the same list again
        return True
    if store.path is None:
        return True
    try:
        inode = os.stat(f"{store.path}-shm").st_ino
    except FileNotFoundError:
        return False  # nobody has it open in WAL mode
    try:  # read, never opened: closing a descriptor of the file would drop our own locks
        with open("/proc/locks") as locks:
            held = [[field for field in line.split() if field != "->"] for line in locks]
    except OSError:
        return True  # cannot tell: assume the worst
    me = str(os.getpid())  # "1: POSIX ADVISORY READ <pid> <major>:<minor>:<inode> 128 128"
    return any(len(f) > 5 and f[5].rsplit(":", 1)[-1] == str(inode) and f[4] != me for f in held)


def _recent_writes(conn: Connection, now: datetime) -> tuple[dict[int, float], dict[int, float]]:
    """Recordings written to within WRITING, and unfinished runs started within RUNNING: s
    since then. A recording's last write is its start plus the time of its newest event or
    step (events and steps carry times from the recording's start)."""
    r, e, a, ru = s.recordings.c, s.events.c, s.actions.c, s.runs.c
    latest: dict[int, float] = {}
    for table, column in ((s.events, e.t), (s.actions, a.t_end)):
        owner = table.c.recording_id
        for rec, t in conn.execute(select(owner, func.max(column)).group_by(owner)):
            latest[rec] = max(latest.get(rec, 0.0), t or 0.0)
    writing = {}
    for rec, created in conn.execute(select(r.id, r.created)):
        written = utc(created) + timedelta(seconds=latest.get(rec, 0.0))
        if now - written < WRITING:  # a clock ahead of ours counts as just now
            writing[rec] = max(0.0, (now - written).total_seconds())
    running = {}
    for run, started in conn.execute(select(ru.id, ru.started).where(ru.ended.is_(None))):
        if now - utc(started) < RUNNING:
            running[run] = max(0.0, (now - utc(started)).total_seconds())
    return writing, running

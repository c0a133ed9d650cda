"""Copying a recording from one store to another: `deskreel push` to a shared server, and
`deskreel pull` back to a file.

A recording is known in every store by its uid. A copy is one transaction on the target:
its header, raw events, frames, anchors, steps, masks, runs and step results arrive
together or not at all, so an interrupted copy leaves nothing, and copying what the target
already holds changes nothing. Frames are shared by content: only those the target lacks
are sent. A recording edited or redacted on one side after it was copied is not copied
again over the other: `Copied.differs` says so, and the caller decides what to advise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, Table, select
from sqlalchemy.exc import IntegrityError

from . import schema as s
from .bulk import chunks, insert_ignore, insert_rows
from .recordings import free_name
from .rows import inserted_id, utc
from .store import Store
from .unused_frames import details_frames, recording_frames
from .vocabulary import SECRET

__all__ = ["Copied", "copy_recording"]

_ROWS = 5000  # raw events per INSERT
_FRAMES = 20  # frames per INSERT (a few MB)
_KEYS = 500  # frame hashes per IN (...)


@dataclass(frozen=True, slots=True)
class Copied:
    """What copying one recording did."""

    uid: str
    source_id: int
    name: str  # in the source
    target_id: int
    target_name: str  # differs from `name` when the target holds another recording so named
    copied: bool  # False: the target held this recording already; nothing changed
    frames: int = 0  # frames the target did not have before
    bytes: int = 0  # frame and anchor bytes sent
    # not copied, the target's copy has other raw events, steps, anchors or masks (one side
    # was edited or redacted since the copy); `redacted`: steps redacted only in the source
    differs: bool = False
    redacted: tuple[int, ...] = ()

    @property
    def renamed(self) -> bool:
        return self.target_name != self.name


def copy_recording(
    source: Store, target: Store, ref: str | int | None, *, attempts: int = 3
) -> Copied:
    """Copy one recording (id, name, or None for the latest) from `source` to `target`."""
    rec = source.recording(ref)
    uid = source.ensure_uid(rec.id)
    for _ in range(attempts - 1):
        try:
            return _copy_once(source, target, rec.id, uid)
        except IntegrityError:
            # Another copy of the same recording, or another recording taking the same free
            # name, committed first. Look again: the uid is there now, or a name is free.
            continue
    return _copy_once(source, target, rec.id, uid)


def _copy_once(source: Store, target: Store, source_id: int, uid: str) -> Copied:
    with source.engine.connect() as src, target.engine.begin() as dst:
        return _copy(src, dst, source_id, uid)


def _copy(src: Connection, dst: Connection, source_id: int, uid: str) -> Copied:
    r = s.recordings.c
    header = dict(src.execute(select(s.recordings).where(r.id == source_id)).mappings().one())
    name = header["name"]
    held = dst.execute(select(r.id, r.name).where(r.uid == uid)).first()
    if held is not None:
        ours, theirs = _content(src, source_id), _content(dst, held.id)
        redacted = tuple(
            n
            for n, body in ours[1].items()
            if SECRET.search(body) and not SECRET.search(theirs[1].get(n, ""))
        )
        return Copied(
            uid,
            source_id,
            name,
            held.id,
            held.name,
            copied=False,
            differs=ours != theirs,
            redacted=redacted,
        )
    taken = dst.scalar(select(r.id).where(r.name == name)) is not None
    header.update(
        name=free_name(dst, name) if taken else name, uid=uid, created=utc(header["created"])
    )
    header.pop("id")
    new_id = inserted_id(dst.execute(s.recordings.insert().values(**header)))
    frames, frame_bytes = _copy_frames(src, dst, source_id)
    _copy_events(src, dst, source_id, new_id)
    anchors, anchor_bytes = _copy_anchors(src, dst, source_id, new_id)
    steps = [
        {**row, "recording_id": new_id, "anchor_id": anchors.get(row["anchor_id"])}
        for row in _select(
            src, s.actions, s.actions.c.recording_id == source_id, order=s.actions.c.step
        )
    ]
    insert_rows(dst, s.actions, steps)
    masks = [
        {**_without(row, "id"), "recording_id": new_id}
        for row in _select(src, s.masks, s.masks.c.recording_id == source_id, order=s.masks.c.id)
    ]
    insert_rows(dst, s.masks, masks)
    _copy_runs(src, dst, source_id, new_id)
    return Copied(
        uid,
        source_id,
        name,
        new_id,
        header["name"],
        copied=True,
        frames=frames,
        bytes=frame_bytes + anchor_bytes,
    )


def _copy_frames(src: Connection, dst: Connection, source_id: int) -> tuple[int, int]:
    """Send the frames of the recording's steps and runs that the target lacks; their count
    and bytes."""
    f, sr = s.frames.c, s.step_results.c
    keys = recording_frames(src, source_id)
    runs = select(s.runs.c.id).where(s.runs.c.recording_id == source_id)
    for (details,) in src.execute(select(sr.details).where(sr.run_id.in_(runs))):
        keys |= details_frames(details)  # damaged text travels as it is, with its frames
    missing = []
    for chunk in chunks(sorted(keys), _KEYS):
        there = set(dst.scalars(select(f.hash).where(f.hash.in_(chunk))))
        missing += [k for k in chunk if k not in there]
    count = size = 0
    for chunk in chunks(missing, _FRAMES):
        rows = [
            dict(row)
            for row in src.execute(
                select(s.frames).where(f.hash.in_(chunk)).order_by(f.hash)
            ).mappings()
        ]
        if not rows:  # a result naming a frame the source lacks (doctor reports those)
            continue
        # in hash order, as every copy does: two copies sharing frames never deadlock
        # ON CONFLICT DO NOTHING: another machine may be sending the same frame right now
        dst.execute(insert_ignore(dst, s.frames), rows)
        count += len(rows)
        size += sum(len(row["data"]) for row in rows)
    return count, size


def _copy_events(src: Connection, dst: Connection, source_id: int, new_id: int) -> None:
    e = s.events.c
    last = -1
    while True:  # in slices by sequence number: a long recording never sits in memory
        rows = [
            {**row, "recording_id": new_id}
            for row in src.execute(
                select(s.events)
                .where(e.recording_id == source_id, e.seq > last)
                .order_by(e.seq)
                .limit(_ROWS)
            ).mappings()
        ]
        if not rows:
            return
        insert_rows(dst, s.events, rows)
        last = rows[-1]["seq"]


def _copy_anchors(
    src: Connection, dst: Connection, source_id: int, new_id: int
) -> tuple[dict[int, int], int]:
    """Anchors get new ids in the target; the old-to-new map, and their bytes."""
    rows = _select(src, s.anchors, s.anchors.c.recording_id == source_id, order=s.anchors.c.id)
    if not rows:
        return {}, 0
    new_ids = (
        dst.execute(
            s.anchors.insert().returning(s.anchors.c.id, sort_by_parameter_order=True),
            [{**_without(row, "id"), "recording_id": new_id} for row in rows],
        )
        .scalars()
        .all()
    )
    return (
        {row["id"]: new for row, new in zip(rows, new_ids, strict=True)},
        sum(len(row["png"]) + len(row["hover_png"] or b"") for row in rows),
    )


def _copy_runs(src: Connection, dst: Connection, source_id: int, new_id: int) -> None:
    for run in _select(src, s.runs, s.runs.c.recording_id == source_id, order=s.runs.c.id):
        row = {
            **_without(run, "id"),
            "recording_id": new_id,
            "started": utc(run["started"]),
            "ended": utc(run["ended"]),
        }
        run_id = inserted_id(dst.execute(s.runs.insert().values(row)))
        results = [
            {**result, "run_id": run_id}
            for result in _select(
                src,
                s.step_results,
                s.step_results.c.run_id == run["id"],
                order=s.step_results.c.step,
            )
        ]
        insert_rows(dst, s.step_results, results)


def _content(conn: Connection, recording_id: int) -> tuple[str, dict[int, str]]:
    """A digest of what a copy carries and an edit or a redaction changes (the instruction,
    raw events, steps with their anchors, masks; not the name, ids or runs), and each step's
    body."""
    a, an, e, m = s.actions.c, s.anchors.c, s.events.c, s.masks.c
    digest = hashlib.sha256()
    instruction = conn.execute(
        select(s.recordings.c.instruction).where(s.recordings.c.id == recording_id)
    ).scalar_one()
    digest.update(repr(("instruction", instruction)).encode())
    steps = conn.execute(
        select(
            *(c for c in s.actions.c if c.name not in ("recording_id", "anchor_id")),
            *(c for c in s.anchors.c if c.name not in ("id", "recording_id")),
        )
        .select_from(s.actions.outerjoin(s.anchors, a.anchor_id == an.id))
        .where(a.recording_id == recording_id)
        .order_by(a.step)
    ).all()
    masks = conn.execute(
        select(m.step, m.x, m.y, m.w, m.h).where(m.recording_id == recording_id).order_by(m.id)
    ).all()
    for row in [*steps, ("masks",), *masks, ("events",)]:
        digest.update(repr(_plain(row)).encode())
    last = -1
    while True:  # in slices, as copies go: a long recording never sits in memory
        events = conn.execute(
            select(*(c for c in s.events.c if c.name != "recording_id"))
            .where(e.recording_id == recording_id, e.seq > last)
            .order_by(e.seq)
            .limit(_ROWS)
        ).all()
        if not events:
            return digest.hexdigest(), {row.step: row.body for row in steps}
        for row in events:
            digest.update(repr(_plain(row)).encode())
        last = events[-1].seq


def _plain(row: Iterable[Any]) -> tuple[Any, ...]:
    """A row's values as both backends give them back (PostgreSQL may give memoryviews)."""
    return tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)


def _select(
    conn: Connection, table: Table, where: ColumnElement[bool], *, order: ColumnElement[Any]
) -> list[dict[str, Any]]:
    return [
        dict(row) for row in conn.execute(select(table).where(where).order_by(order)).mappings()
    ]


def _without(row: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != key}

"""Reading and writing recordings: their headers, raw events, frames, steps with their
anchors, and masks. `Store` has these methods; each is a transaction of its own."""

from __future__ import annotations

import hashlib
import json
import socket
import unicodedata
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, Row, func, select
from sqlalchemy.exc import IntegrityError

from . import schema as s
from .bulk import insert_ignore, insert_rows
from .errors import NotFoundError, StorageError
from .rows import anchor_row, inserted_id, step_of, step_row, utc
from .script import checked_text
from .unused_frames import delete_unused_frames, details_frames, recording_frames
from .values import RawEvent, Recording, Step

__all__ = ["RecordingMethods", "checked_name", "free_name", "new_uid", "numbered_events"]

_EVENT_ROW_BYTES = 48  # a raw-event row's size on disk, roughly; for the size column only


class RecordingMethods:
    """The recording half of `Store`."""

    engine: Engine
    label: str

    # -- recordings -------------------------------------------------------------------

    def create_recording(
        self,
        name: str,
        *,
        source: str,
        screen: tuple[int, int] | None = None,
        dpi: float | None = None,
        keyboard_layout: str | None = None,
        extra: dict[str, Any] | None = None,
        instruction: str | None = None,
    ) -> int:
        """Add an empty recording and return its id; names are unique per database."""
        row = dict(
            instruction=checked_text(instruction, "the instruction"),
            name=checked_name(name),
            created=datetime.now(UTC),
            source=source,
            screen_width=screen[0] if screen else None,
            screen_height=screen[1] if screen else None,
            dpi=dpi,
            keyboard_layout=keyboard_layout,
            host=socket.gethostname(),
            deskreel_version=_version(),
            extra=json.dumps(extra or {}),
            uid=new_uid(),
        )
        try:
            with self.engine.begin() as conn:
                return inserted_id(conn.execute(s.recordings.insert().values(**row)))
        except IntegrityError:
            raise StorageError(
                f"{self.label} already holds a recording named {name!r}: choose another with --name"
            ) from None

    def free_name(self, base: str) -> str:
        """`base`, or `base-2`, `base-3`... whichever is not taken yet."""
        with self.engine.connect() as conn:
            return free_name(conn, base)

    def recordings(self) -> list[Recording]:
        """Every recording, oldest first, with step counts, durations and sizes."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(s.recordings).order_by(s.recordings.c.id)).all()
            return [_recording(conn, row) for row in rows]

    def recording(self, ref: str | int | None = None) -> Recording:
        """A recording by id or name; None means the latest."""
        r = s.recordings.c
        query = select(s.recordings)
        if ref is None:
            query = query.order_by(r.id.desc()).limit(1)
        elif isinstance(ref, int) or str(ref).isdigit():
            query = query.where(r.id == int(ref))
        else:
            query = query.where(r.name == str(ref))
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
            if row is None:
                names = conn.scalars(select(r.name).order_by(r.id.desc()).limit(5)).all()
                if ref is None:
                    raise NotFoundError(
                        f"{self.label} holds no recordings yet: "
                        f"make one with 'deskreel record' or 'deskreel import'"
                    )
                known = ", ".join(names) or "none"
                raise NotFoundError(
                    f"{self.label} has no recording {str(ref)!r} (latest: "
                    f"{known}): see 'deskreel list {self.label}'"
                )
            return _recording(conn, row)

    def recording_ids(self) -> list[int]:
        """Every recording's id, oldest first (without the sizes `recordings` adds up)."""
        with self.engine.connect() as conn:
            return list(conn.scalars(select(s.recordings.c.id).order_by(s.recordings.c.id)))

    def delete_recording(self, recording_id: int) -> None:
        """Delete a recording with everything it owns, and the frames only it used."""
        a, sr = s.actions.c, s.step_results.c
        with self.engine.begin() as conn:
            keys = set(recording_frames(conn, recording_id))
            runs = select(s.runs.c.id).where(s.runs.c.recording_id == recording_id)
            for (details,) in conn.execute(select(sr.details).where(sr.run_id.in_(runs))):
                keys |= details_frames(details)
            conn.execute(s.actions.delete().where(a.recording_id == recording_id))
            conn.execute(s.recordings.delete().where(s.recordings.c.id == recording_id))
            delete_unused_frames(conn, keys)

    def ensure_uid(self, recording_id: int) -> str:
        """The recording's uid, given one now if it has none (rows from before schema 3)."""
        r = s.recordings.c
        with self.engine.begin() as conn:
            uid: str | None = conn.scalar(select(r.uid).where(r.id == recording_id))
            if uid is None:
                uid = new_uid()
                conn.execute(
                    s.recordings.update()
                    .where(r.id == recording_id, r.uid.is_(None))
                    .values(uid=uid)
                )
                # another process may have given it one first: theirs is the one that stays
                uid = conn.execute(select(r.uid).where(r.id == recording_id)).scalar_one()
        return uid

    def add_extra(self, recording_id: int, values: dict[str, Any]) -> None:
        """Set keys of the recording's `extra` (how it was made), keeping the others."""
        r = s.recordings.c
        with self.engine.begin() as conn:
            extra = json.loads(conn.scalar(select(r.extra).where(r.id == recording_id)) or "{}")
            extra.update(values)
            conn.execute(
                s.recordings.update().where(r.id == recording_id).values(extra=json.dumps(extra))
            )

    # -- raw events -------------------------------------------------------------------

    def add_events(self, recording_id: int, events: Sequence[RawEvent], *, first_seq: int) -> None:
        """Append raw events, numbered from `first_seq`, in one transaction."""
        if not events:
            return
        rows = [
            dict(
                recording_id=recording_id,
                seq=first_seq + i,
                t=e.t,
                kind=e.kind,
                x=e.x,
                y=e.y,
                button=e.button,
                keycode=e.keycode,
                keysym=e.keysym,
                char=e.char,
            )
            for i, e in enumerate(events)
        ]
        with self.engine.begin() as conn:
            insert_rows(conn, s.events, rows)

    def events(self, recording_id: int, *, since_seq: int | None = None) -> list[RawEvent]:
        """A recording's raw events in order; from sequence number `since_seq` on if given."""
        with self.engine.connect() as conn:
            return [event for _, event in numbered_events(conn, recording_id, since_seq=since_seq)]

    # -- frames -----------------------------------------------------------------------

    def put_frame(
        self, data: bytes, *, width: int, height: int, fmt: str, pixel_hash: str | None = None
    ) -> str:
        """Store an encoded frame once, keyed by the hash of its pixels (or its bytes)."""
        key = pixel_hash or hashlib.sha256(data).hexdigest()
        with self.engine.begin() as conn:
            exists = conn.scalar(select(s.frames.c.hash).where(s.frames.c.hash == key))
            if exists is None:
                conn.execute(
                    insert_ignore(conn, s.frames).values(
                        hash=key, width=width, height=height, format=fmt, data=data
                    )
                )
        return key

    def frame(self, key: str) -> tuple[bytes, str]:
        """The encoded bytes and format of a stored frame."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(s.frames.c.data, s.frames.c.format).where(s.frames.c.hash == key)
            ).first()
        if row is None:
            raise NotFoundError(f"{self.label} has no frame {key[:12]}: run 'deskreel doctor'")
        return bytes(row[0]), row[1]

    # -- steps ------------------------------------------------------------------------

    def add_steps(self, recording_id: int, steps: Iterable[Step]) -> None:
        """Append steps (with their anchors) in one transaction."""
        with self.engine.begin() as conn:
            for step in steps:
                anchor_id = None
                if step.anchor is not None:
                    anchor_id = inserted_id(
                        conn.execute(
                            s.anchors.insert().values(
                                recording_id=recording_id, **anchor_row(step.anchor)
                            )
                        )
                    )
                conn.execute(
                    s.actions.insert().values(
                        recording_id=recording_id, anchor_id=anchor_id, **step_row(step)
                    )
                )

    def replace_steps(self, recording_id: int, steps: Iterable[Step]) -> None:
        """Drop a recording's steps and anchors and write these instead, atomically."""
        steps = list(steps)
        with self.engine.begin() as conn:
            conn.execute(s.actions.delete().where(s.actions.c.recording_id == recording_id))
            conn.execute(s.anchors.delete().where(s.anchors.c.recording_id == recording_id))
        self.add_steps(recording_id, steps)

    def set_disabled(self, recording_id: int, step: int, disabled: bool) -> None:
        a = s.actions.c
        with self.engine.begin() as conn:
            done = conn.execute(
                s.actions.update()
                .where(a.recording_id == recording_id, a.step == step)
                .values(disabled=disabled)
            ).rowcount
        if not done:
            raise NotFoundError(f"recording {recording_id} has no step {step}")

    def steps(self, recording_id: int) -> list[Step]:
        """A recording's steps in order, with anchors."""
        a, an = s.actions.c, s.anchors.c
        query = (
            select(s.actions, s.anchors)
            .select_from(s.actions.outerjoin(s.anchors, a.anchor_id == an.id))
            .where(a.recording_id == recording_id)
            .order_by(a.step)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return [step_of(row) for row in rows]

    # -- masks ------------------------------------------------------------------------

    def add_mask(
        self, recording_id: int, box: tuple[int, int, int, int], *, step: int | None = None
    ) -> None:
        """A region that verification ignores: for one step, or (step None) for all."""
        x, y, w, h = box
        with self.engine.begin() as conn:
            conn.execute(
                s.masks.insert().values(recording_id=recording_id, step=step, x=x, y=y, w=w, h=h)
            )

    def masks(self, recording_id: int) -> dict[int | None, list[tuple[int, int, int, int]]]:
        """Masks by step number (None: the recording-wide ones)."""
        m = s.masks.c
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(m.step, m.x, m.y, m.w, m.h)
                .where(m.recording_id == recording_id)
                .order_by(m.id)
            ).all()
        out: dict[int | None, list[tuple[int, int, int, int]]] = {}
        for step, x, y, w, h in rows:
            out.setdefault(step, []).append((x, y, w, h))
        return out


def new_uid() -> str:
    """A recording's uid: the same in every store it is copied to."""
    return uuid.uuid4().hex


def checked_name(name: str) -> str:
    """`name` as a recording may have it, or StorageError saying why not: some text, in
    UTF-8 (a file name that is not arrives with lone surrogates), without control
    characters, at most NAME_MAX characters long."""
    if not name.strip():
        raise StorageError("a recording name cannot be empty: give one with --name")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in name):
        raise StorageError(f"recording name {name!r} is not UTF-8 text: give another with --name")
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise StorageError(
            f"recording name {name!r} holds control characters: give another with --name"
        )
    if len(name) > s.NAME_MAX:
        raise StorageError(
            f"a recording name has at most {s.NAME_MAX} characters, {name[:24]!r}... has "
            f"{len(name)}: give a shorter one with --name"
        )
    return name


def free_name(conn: Connection, base: str) -> str:
    """`base`, or `base-2`, `base-3`... whichever no recording in that database has (`base`
    shortened to leave room for the number)."""
    base = base[: s.NAME_MAX - 8]
    taken = set(
        conn.scalars(select(s.recordings.c.name).where(s.recordings.c.name.like(f"{base}%")))
    )
    n, name = 1, base
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def numbered_events(
    conn: Connection, recording_id: int, *, since_seq: int | None = None
) -> list[tuple[int, RawEvent]]:
    """(sequence number, event) pairs in order; numbers have gaps where an edit deleted some."""
    e = s.events.c
    query = (
        select(e.seq, e.t, e.kind, e.x, e.y, e.button, e.keycode, e.keysym, e.char)
        .where(e.recording_id == recording_id)
        .order_by(e.seq)
    )
    if since_seq is not None:
        query = query.where(e.seq >= since_seq)
    return [(seq, RawEvent(*rest)) for seq, *rest in conn.execute(query)]


def _recording(conn: Connection, row: Row[Any]) -> Recording:
    """A recording's header row, with its step count, duration and size added up."""
    a, an = s.actions.c, s.anchors.c
    count, duration, body = conn.execute(
        select(
            func.count(),
            func.coalesce(func.max(a.t_end), 0.0),
            func.coalesce(func.sum(func.length(a.body)), 0),
        ).where(a.recording_id == row.id)
    ).one()
    frames = (
        select(a.before_frame.label("h"))
        .where(a.recording_id == row.id)
        .union(select(a.after_frame).where(a.recording_id == row.id))
        .subquery()
    )
    frame_bytes = conn.execute(
        select(func.coalesce(func.sum(func.length(s.frames.c.data)), 0)).where(
            s.frames.c.hash.in_(select(frames.c.h))
        )
    ).scalar_one()
    anchor_bytes = conn.execute(
        select(
            func.coalesce(
                func.sum(func.length(an.png) + func.coalesce(func.length(an.hover_png), 0)), 0
            )
        ).where(an.recording_id == row.id)
    ).scalar_one()
    n_events = conn.execute(
        select(func.count()).where(s.events.c.recording_id == row.id)
    ).scalar_one()
    screen = (row.screen_width, row.screen_height) if row.screen_width else None
    return Recording(
        id=row.id,
        name=row.name,
        created=utc(row.created),
        source=row.source,
        screen=screen,
        dpi=row.dpi,
        keyboard_layout=row.keyboard_layout,
        host=row.host,
        deskreel_version=row.deskreel_version,
        steps=count,
        duration=float(duration),
        size=int(body + frame_bytes + anchor_bytes + n_events * _EVENT_ROW_BYTES),
        extra=json.loads(row.extra or "{}"),
        uid=row.uid,
        instruction=row.instruction,
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deskreel")
    except PackageNotFoundError:
        return "unknown"

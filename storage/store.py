"""The recording store: the only code that touches deskreel's tables.

`open_store("rec.db")` opens (or creates, mode 0600) an SQLite file; an SQLAlchemy URL
(`postgresql://user@host/db`) opens a shared server, through psycopg 3. Schema versions are
checked on open. Messages name a server by host, port and database, never with a password.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import socket
import uuid
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote
from typing import Any, overload

from sqlalchemy import Engine, case, create_engine, event, func, inspect, or_, select
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, SQLAlchemyError

from . import schema as s
from .values import RESULT_FRAME_KEYS, Anchor, RawEvent, Recording, Run, Step, StepResult
from .vocabulary import Action

__all__ = ["Store", "StorageError", "NotFoundError", "open_store", "utc"]

_MIGRATIONS = Path(__file__).with_name("migrations")
_SCHEMA_LOCK = 0x6465736B7265656C  # "deskreel": the advisory lock around schema set-up
_COPY_ROWS = 10  # from this many rows on, PostgreSQL gets COPY instead of INSERTs
_HASH_RUN = re.compile(r"(?=([0-9a-f]{64}))")  # overlapping: any 64 hex digits in a row
_CONNECT_TIMEOUT = 10  # seconds, unless the URL says otherwise (libpq waits forever)


class StorageError(Exception):
    """A database that cannot be used as asked; the message says what to do."""

    def __init__(self, message: str, *, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.details = details or {}


class NotFoundError(StorageError):
    """A recording, frame or run that the database does not hold."""


def open_store(
    target: str | os.PathLike[str], *, create: bool = True, readonly: bool = False
) -> Store:
    """Open a database file or URL, creating a new file (0600) when allowed.

    `readonly` opens the store so that nothing can write through it (a replay reads its
    recording this way): an SQLite file with query_only, a server's sessions with read-only
    transactions. It must already exist at the current schema version.
    """
    text = os.fspath(target)
    if "://" in text:
        return _open_url(text, readonly=readonly)
    path = Path(text)
    _prepare_file(path, create=create and not readonly)
    if readonly:
        engine = create_engine(f"sqlite:///file:{quote(str(path.resolve()))}?mode=ro&uri=true")
        event.listen(engine, "connect", _sqlite_readonly_pragmas)
    else:
        engine = create_engine(f"sqlite:///{path}")
        event.listen(engine, "connect", _sqlite_pragmas)
    return Store(engine, label=str(path), path=path, readonly=readonly)


def new_uid() -> str:
    """A recording's uid: the same in every store it is copied to."""
    return uuid.uuid4().hex


class Store:
    """A deskreel database; methods are transactions of their own."""

    def __init__(
        self, engine: Engine, *, label: str, path: Path | None = None, readonly: bool = False
    ):
        self.engine, self.label, self.path, self.readonly = engine, label, path, readonly
        try:
            self._check_schema()
        except SQLAlchemyError as err:
            engine.dispose()
            if path is None:
                raise StorageError(
                    f"{label} cannot be used as a deskreel database "
                    f"({_reason(err)}): check the URL and the rights of its "
                    f"user on that database"
                ) from None
            if "not a database" in _reason(err):
                raise StorageError(
                    f"{label} is not a deskreel database (not an SQLite "
                    f"file): give a deskreel database or a new file name"
                ) from None
            raise StorageError(
                f"{label} cannot be read as a deskreel database "
                f"({_reason(err)}): check the path or restore a backup"
            ) from None
        except BaseException:
            engine.dispose()
            raise

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
    ) -> int:
        """Add an empty recording and return its id; names are unique per database."""
        row = dict(
            name=name,
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
                return conn.execute(s.recordings.insert().values(**row)).inserted_primary_key[0]
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
            return [self._recording(conn, row) for row in rows]

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
            return self._recording(conn, row)

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
            uid = conn.scalar(select(r.uid).where(r.id == recording_id))
            if uid is None:
                uid = new_uid()
                conn.execute(
                    s.recordings.update()
                    .where(r.id == recording_id, r.uid.is_(None))
                    .values(uid=uid)
                )
                uid = conn.scalar(select(r.uid).where(r.id == recording_id))
        return uid

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
                    anchor_id = conn.execute(
                        s.anchors.insert().values(
                            recording_id=recording_id, **_anchor_row(step.anchor)
                        )
                    ).inserted_primary_key[0]
                conn.execute(
                    s.actions.insert().values(
                        recording_id=recording_id, anchor_id=anchor_id, **_step_row(step)
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
        return [_step(row) for row in rows]

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

    # -- runs -------------------------------------------------------------------------

    def start_run(self, recording_id: int, *, mode: str, options: dict[str, Any]) -> int:
        with self.engine.begin() as conn:
            return conn.execute(
                s.runs.insert().values(
                    recording_id=recording_id,
                    started=datetime.now(UTC),
                    status="running",
                    mode=mode,
                    host=socket.gethostname(),
                    options=json.dumps(options),
                )
            ).inserted_primary_key[0]

    def add_step_results(self, run_id: int, results: Sequence[StepResult]) -> None:
        """Store the outcomes of a run's steps in one transaction."""
        if not results:
            return
        with self.engine.begin() as conn:
            conn.execute(s.step_results.insert(), [_result_row(run_id, r) for r in results])

    def finish_run(self, run_id: int, status: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                s.runs.update()
                .where(s.runs.c.id == run_id)
                .values(status=status, ended=datetime.now(UTC))
            )

    def runs(self, recording_id: int | None = None) -> list[Run]:
        r, sr = s.runs.c, s.step_results.c
        passed = func.sum(case((sr.status == "passed", 1), else_=0))
        failed = func.sum(case((sr.status == "failed", 1), else_=0))
        query = (
            select(
                r.id,
                r.recording_id,
                r.started,
                r.ended,
                r.status,
                r.mode,
                func.coalesce(passed, 0),
                func.coalesce(failed, 0),
            )
            .select_from(s.runs.outerjoin(s.step_results, sr.run_id == r.id))
            .group_by(r.id)
            .order_by(r.id)
        )
        if recording_id is not None:
            query = query.where(r.recording_id == recording_id)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [
            Run(id_, rec, utc(started), utc(ended), *rest)
            for id_, rec, started, ended, *rest in rows
        ]

    def step_results(self, run_id: int) -> list[StepResult]:
        sr = s.step_results.c
        with self.engine.connect() as conn:
            rows = (
                conn.execute(select(s.step_results).where(sr.run_id == run_id).order_by(sr.step))
                .mappings()
                .all()
            )
        return [
            StepResult(
                step=row["step"],
                status=row["status"],
                message=row["message"],
                t_start=row["t_start"],
                t_end=row["t_end"],
                score=row["score"],
                margin=row["margin"],
                scale=row["scale"],
                shift=(None if row["shift_x"] is None else (row["shift_x"], row["shift_y"])),
                details=json.loads(row["details"]),
            )
            for row in rows
        ]

    # -- internals --------------------------------------------------------------------

    def schema_version(self) -> int:
        with self.engine.connect() as conn:
            value = conn.scalar(select(s.meta.c.value).where(s.meta.c.key == "schema_version"))
        return int(value)

    def _check_schema(self) -> None:
        """Create the tables in an empty database, migrate old ones, refuse the rest."""
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # Many recorders may open one new shared database at once: one of them sets
                # it up (or migrates it) while the others wait, then they find it done.
                conn.execute(select(func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
            tables = set(inspect(conn).get_table_names())
            if not tables:
                _create_schema(conn)
                return
            if s.meta.name not in tables:
                what = "file name" if self.path else "empty database (createdb deskreel)"
                raise StorageError(
                    f"{self.label} is a database but not a deskreel database "
                    f"(no {s.meta.name} table): give a deskreel database or a "
                    f"new {what}"
                )
            version = int(
                conn.scalar(select(s.meta.c.value).where(s.meta.c.key == "schema_version"))
            )
            if version > s.SCHEMA_VERSION:
                raise StorageError(
                    f"{self.label} has schema version {version}, newer than "
                    f"this deskreel understands ({s.SCHEMA_VERSION}): upgrade "
                    f"deskreel",
                    details={"schema_version": version},
                )
            if version < s.SCHEMA_VERSION and self.readonly:
                raise StorageError(
                    f"{self.label} has schema version {version} and must be "
                    f"upgraded before it can be read: run 'deskreel doctor "
                    f"{self.label}' once"
                )
            if version < s.SCHEMA_VERSION:
                from alembic import command

                command.upgrade(_alembic_config(conn), "head")

    def _recording(self, conn: Any, row: Any) -> Recording:
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
        frame_bytes = conn.scalar(
            select(func.coalesce(func.sum(func.length(s.frames.c.data)), 0)).where(
                s.frames.c.hash.in_(select(frames.c.h))
            )
        )
        anchor_bytes = conn.scalar(
            select(func.coalesce(func.sum(func.length(an.png)), 0)).where(an.recording_id == row.id)
        )
        n_events = conn.scalar(select(func.count()).where(s.events.c.recording_id == row.id))
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
        )


_EVENT_ROW_BYTES = 48  # a raw-event row's size on disk, roughly; for the size column only


def free_name(conn: Any, base: str) -> str:
    """`base`, or `base-2`, `base-3`... whichever no recording in that database has."""
    taken = set(
        conn.scalars(select(s.recordings.c.name).where(s.recordings.c.name.like(f"{base}%")))
    )
    n, name = 1, base
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def _create_schema(conn: Any) -> None:
    from alembic import command

    s.metadata.create_all(conn)
    conn.execute(
        s.meta.insert(),
        [
            {"key": "schema_version", "value": str(s.SCHEMA_VERSION)},
            {"key": "created", "value": datetime.now(UTC).isoformat()},
        ],
    )
    command.stamp(_alembic_config(conn), "head")


def _open_url(text: str, *, readonly: bool = False) -> Store:
    """A server's store; `postgresql://` URLs get the psycopg 3 driver."""
    label = _hide_password(text)
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):
        raise StorageError(
            "the database URL cannot be parsed (is the port a number?): write "
            "it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
        ) from None
    url = driver_url(url)
    if url.get_backend_name() not in ("postgresql", "sqlite"):
        raise StorageError(
            f"{label}: deskreel stores recordings in SQLite files and in "
            f"PostgreSQL; write postgresql://USER@HOST:PORT/DATABASE"
        )
    options: dict[str, Any] = {"pool_pre_ping": True}
    if url.get_backend_name() == "postgresql":
        args: dict[str, Any] = {"application_name": "deskreel"}
        if "connect_timeout" not in url.query:
            args["connect_timeout"] = _CONNECT_TIMEOUT
        options["connect_args"] = args
    try:
        engine = create_engine(url, **options)
    except ImportError as err:
        raise StorageError(
            f"{label} needs a database driver that is not installed "
            f"({err.name or err}): pip install 'psycopg[binary]'"
        ) from None
    except ArgumentError as err:
        raise StorageError(
            f"{label} is not a URL deskreel can use ({err}): write it as "
            f"postgresql://USER@HOST:PORT/DATABASE"
        ) from None
    if readonly:
        event.listen(
            engine,
            "connect",
            _sqlite_readonly_pragmas
            if url.get_backend_name() == "sqlite"
            else _postgresql_readonly,
        )
    if url.get_backend_name() == "postgresql":
        event.listen(engine, "handle_error", _naming_the_server(server_name(url)))
        # psycopg logs what it ignores while a lost connection unwinds ("error ignored
        # terminating <psycopg.Pipeline [BAD]>"); unconfigured, that is a second line on
        # stderr next to the one the error itself gives
        psycopg_log = logging.getLogger("psycopg")
        if not psycopg_log.handlers:
            psycopg_log.addHandler(logging.NullHandler())
        try:
            with engine.connect():
                pass
        except DBAPIError as err:
            engine.dispose()
            raise StorageError(
                connect_failure(url, err), details={"server": server_name(url)}
            ) from None
    return Store(engine, label=label, readonly=readonly)


def server_name(url: URL) -> str:
    """host:port/database, the way messages name a server."""
    host = url.host or "localhost"
    return f"{host}:{url.port or 5432}/{url.database or url.username or ''}"


def _naming_the_server(name: str) -> Any:
    """An engine's error hook: every database error it raises carries `server` (host:port/
    database), so that a connection lost mid-command can say which one it was."""

    def handle(context: Any) -> None:
        if context.sqlalchemy_exception is not None:
            context.sqlalchemy_exception.server = name

    return handle


def connect_failure(url: URL, err: DBAPIError) -> str:
    """One line: which server, what failed, what to do; never the password."""
    text = " ".join(str(err.orig or err).split())
    lower = text.lower()
    hint = "check that the server runs and the URL is right"
    if "connection refused" in lower:
        reason = "connection refused"
    elif "timeout expired" in lower or "timed out" in lower:
        reason = "no answer (timed out)"
    elif "resolve host" in lower or "translate host name" in lower:
        reason = f"unknown host {url.host!r}"
    elif "password authentication failed" in lower or "authentication failed" in lower:
        reason = f"authentication failed for user {url.username!r}"
        hint = "check the user and the password (in the URL, $PGPASSWORD or ~/.pgpass)"
    elif "no password supplied" in lower:
        reason = f"the server wants a password for user {url.username!r}"
        hint = "give it in the URL, $PGPASSWORD or ~/.pgpass"
    elif "does not exist" in lower and "database" in lower:
        reason = f"database {url.database!r} does not exist"
        hint = f"create it (createdb {url.database}) or fix the URL"
    elif "pg_hba.conf" in lower:
        reason = "the server does not accept this client (pg_hba.conf)"
        hint = "ask its administrator to allow this host and user"
    else:  # the server's own words; libpq never quotes a password, but make sure
        reason = text.split(" failed: ", 1)[-1].removeprefix("FATAL: ").strip() or "unknown error"
        for secret in _secrets(url):
            reason = reason.replace(secret, "***")
    return f"cannot connect to PostgreSQL at {server_name(url)}: {reason}: {hint}"


@overload
def utc(value: datetime) -> datetime: ...
@overload
def utc(value: None) -> None: ...
def utc(value: datetime | None) -> datetime | None:
    """A stored time, aware and in UTC: SQLite hands back naive UTC, a server its own zone."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def driver_url(url: URL) -> URL:
    """`postgresql://` and `postgres://` URLs with the psycopg 3 driver; others as given."""
    if url.drivername in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+psycopg")
    return url


def numbered_events(
    conn: Any, recording_id: int, *, since_seq: int | None = None
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


def recording_frames(conn: Any, recording_id: int) -> set[str]:
    """The frames a recording's steps use."""
    a = s.actions.c
    keys: set[str] = set()
    for before, after in conn.execute(
        select(a.before_frame, a.after_frame).where(a.recording_id == recording_id)
    ):
        keys.update(k for k in (before, after) if k is not None)
    return keys


def result_frames(details: dict[str, Any]) -> set[str]:
    """The frames a step result's details name."""
    return {details[k] for k in RESULT_FRAME_KEYS if isinstance(details.get(k), str)}


def details_frames(details: str | None) -> set[str]:
    """The frames a step result's stored details text names; of damaged (unparsable) text,
    every 64-hex-digit run in it (candidates only: what else uses a frame still keeps it)."""
    try:
        parsed = json.loads(details or "{}")
    except ValueError:
        return set(_HASH_RUN.findall(details or ""))
    return result_frames(parsed) if isinstance(parsed, dict) else set()


def delete_unused_frames(conn: Any, keys: Iterable[str]) -> int:
    """Delete those of these frames that no step and no step result uses; how many went."""
    a, sr, f = s.actions.c, s.step_results.c, s.frames.c
    gone = 0
    for chunk in chunks(sorted(set(keys))):
        used: set[str] = set()
        for before, after in conn.execute(
            select(a.before_frame, a.after_frame).where(
                or_(a.before_frame.in_(chunk), a.after_frame.in_(chunk))
            )
        ):
            used.update((before, after))
        left = [k for k in chunk if k not in used]
        if left:  # a hash is 64 hex digits: a substring match finds the details naming it;
            # not parsed, so damaged JSON cannot stop an edit (a stray match only keeps a frame)
            named = or_(*(sr.details.contains(k, autoescape=True) for k in left))
            texts = list(conn.scalars(select(sr.details).where(named)))
            left = [k for k in left if not any(k in text for text in texts if text)]
        if left:
            gone += conn.execute(s.frames.delete().where(f.hash.in_(left))).rowcount
    return gone


def chunks(items: Sequence[Any], size: int = 500) -> Iterator[list[Any]]:
    """Slices of `items` short enough for one IN (...): SQLite caps the bound values."""
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


def _prepare_file(path: Path, *, create: bool) -> None:
    """Refuse what is not a deskreel file early; create a new one private (0600)."""
    if path.is_dir():
        raise StorageError(f"{path} is a directory: give a database file name such as rec.db")
    if path.exists():
        # Never open the file here: closing any descriptor of a database drops every POSIX
        # lock this process holds on it (SQLite's included), and another process may then
        # delete the -wal file under an open connection. SQLite itself tells a non-database.
        if not os.access(path, os.R_OK):
            raise StorageError(f"{path} cannot be read (permission denied): check its permissions")
        return
    if not create:
        raise StorageError(f"{path} does not exist: give the path of a deskreel database")
    if not path.parent.is_dir():
        raise StorageError(f"cannot create {path}: directory {path.parent} does not exist")
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass  # another process created it between our check and now
    except OSError as err:
        raise StorageError(
            f"cannot create {path} ({err.strerror}): choose a writable place"
        ) from None


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_readonly_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()


def _postgresql_readonly(dbapi_connection: Any, _record: Any) -> None:
    # psycopg begins every transaction of this session READ ONLY: the server refuses writes
    dbapi_connection.read_only = True


def _alembic_config(conn: Any) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["connection"] = conn
    return config


def insert_rows(conn: Any, table: Any, rows: list[dict[str, Any]]) -> None:
    """INSERT many rows with the same keys; on PostgreSQL through COPY, which takes one round
    trip where INSERTs take one per row (several times faster for raw events)."""
    if not rows:
        return
    if conn.dialect.name != "postgresql" or len(rows) < _COPY_ROWS:
        conn.execute(table.insert(), rows)
        return
    names = list(rows[0])
    quote = conn.dialect.identifier_preparer.quote
    statement = f"COPY {quote(table.name)} ({', '.join(map(quote, names))}) FROM STDIN"
    cursor = conn.connection.dbapi_connection.cursor()  # inside the same transaction
    with cursor, cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row([row[name] for name in names])


def insert_ignore(conn: Any, table: Any) -> Any:
    """INSERT that skips rows whose key is there already (frames, shared by content)."""
    if conn.dialect.name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    elif conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        return table.insert()
    return insert(table).on_conflict_do_nothing()


def _anchor_row(anchor: Anchor) -> dict[str, Any]:
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
    )


def _step_row(step: Step) -> dict[str, Any]:
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
    )


def _result_row(run_id: int, result: StepResult) -> dict[str, Any]:
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


def _step(row: Any) -> Step:
    anchor = None
    if row["anchor_id"] is not None:
        anchor = Anchor(
            png=bytes(row["png"]),
            box=(row["box_x"], row["box_y"], row["box_w"], row["box_h"]),
            offset=(row["offset_x"], row["offset_y"]),
            score=row["score"],
            margin=row["margin"],
        )
    events = None if row["event_first"] is None else (row["event_first"], row["event_last"])
    return Step(
        step=row["step"],
        action=Action.from_json(json.loads(row["body"])),
        t_start=row["t_start"],
        t_end=row["t_end"],
        disabled=bool(row["disabled"]),
        events=events,
        before_frame=row["before_frame"],
        after_frame=row["after_frame"],
        anchor=anchor,
        window_class=row["window_class"],
        window_title=row["window_title"],
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deskreel")
    except PackageNotFoundError:
        return "unknown"


def _reason(err: SQLAlchemyError) -> str:
    orig = getattr(err, "orig", None) if isinstance(err, DBAPIError) else None
    return str(orig or err).splitlines()[0]


def _hide_password(url: str) -> str:
    """The URL for messages: its password, and any given as a query parameter
    (`?password=`, `?sslpassword=`), shown as ***."""
    try:
        parsed = make_url(url)
        hidden = parsed.update_query_dict({key: "***" for key in _secret_keys(parsed)})
        return hidden.render_as_string(hide_password=True).replace("%2A", "*")
    except Exception:  # a malformed URL: show none of it rather than leak a secret
        return "the database URL"


def _secret_keys(url: URL) -> list[str]:
    """The query parameters of a URL that libpq reads as passwords."""
    return [key for key in url.query if "password" in key.lower()]


def _secrets(url: URL) -> list[str]:
    """Every password a URL holds, in its user part or in its query."""
    values = [url.password] if url.password else []
    for key in _secret_keys(url):
        given = url.query[key]
        values += [given] if isinstance(given, str) else list(given)
    return [str(value) for value in values if value]

"""The schema gate every store passes on open: create the tables in an empty database,
migrate an older one with Alembic, refuse a newer or a foreign one.

Setting up and upgrading are one transaction that holds the database's write lock (on a
shared server, an advisory lock): many recorders may open one new database at once, and one
of them sets it up while the others wait; a crash between two migrations leaves the file as
it was. An older database opened read-only is never upgraded here (storage/store.py reads an
upgraded private copy of it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, func, inspect, select
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from . import schema as s
from .errors import StorageError
from .upgrade import Upgrade, keep_backup

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["DamagedSchema", "OlderSchema", "check_schema", "schema_version"]

_MIGRATIONS = Path(__file__).with_name("migrations")
_SCHEMA_LOCK = 0x6465736B7265656C  # "deskreel": the advisory lock around schema set-up


def check_schema(
    engine: Engine, *, label: str, path: Path | None, readonly: bool, backup: bool = True
) -> Upgrade | None:
    """Let a database in at the current schema version, or raise StorageError saying why not.

    `label` names the database in messages; `path` is its SQLite file, None for a server.
    An empty database gets the tables; an older one is upgraded when it may be written
    (`backup`: the previous file is kept beside it first), and the `Upgrade` says so; opened
    `readonly`, an older one raises OlderSchema, since reading never changes a database.
    """
    try:
        with engine.connect() as conn:
            version = _found_version(conn, label=label, path=path)
        upgrade = None
        if version != s.SCHEMA_VERSION:
            if readonly:
                raise OlderSchema(label, version)
            upgrade = _set_up(engine, label=label, path=path, backup=backup)
        with engine.connect() as conn:
            _check_shape(conn, label)
        if path is not None and not readonly:
            # Only now, a deskreel file: a foreign one is refused above, unchanged. (WAL
            # cannot be entered inside a transaction; it stays with the file.)
            with engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA journal_mode=WAL")
        return upgrade
    except SQLAlchemyError as err:
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
        raise StorageError(f"{label} cannot be used ({_reason(err)}): {_advice(err)}") from None


class DamagedSchema(StorageError):
    """A deskreel database whose own record of its schema is damaged: no deskreel can say
    what its tables hold, so none reads or changes them."""


def schema_version(conn: Connection) -> int:
    """The schema version a deskreel database says it has; DamagedSchema when it says none
    that is a number."""
    value = conn.execute(
        select(s.meta.c.value).where(s.meta.c.key == "schema_version")
    ).scalar_one_or_none()
    if value is None or not str(value).strip().isdigit():
        said = "no schema version" if value is None else f"schema version {str(value)[:20]!r}"
        raise DamagedSchema(f"its {s.meta.name} table says {said}")
    return int(value)


class OlderSchema(StorageError):
    """A database opened read-only that is older than this deskreel (or empty): reading it
    takes an upgraded private copy (storage/store.py), which a server cannot give."""

    def __init__(self, label: str, version: int | None):
        if version is None:
            message = f"{label} holds no deskreel tables yet: record or import into it first"
        else:
            message = (
                f"{label} has schema version {version}, older than this deskreel's "
                f"({s.SCHEMA_VERSION}), and was opened read-only: upgrade it once with "
                f"'deskreel doctor --upgrade {label}'"
            )
        super().__init__(message, details={"schema_version": version})
        self.version = version


def _found_version(conn: Connection, *, label: str, path: Path | None) -> int | None:
    """The schema version of a deskreel database, None for an empty one; refuse a foreign,
    a damaged or a newer one."""
    tables = set(inspect(conn).get_table_names())
    if not tables:
        return None
    if s.meta.name not in tables:
        what = "file name" if path else "empty database (createdb deskreel)"
        raise StorageError(
            f"{label} is a database but not a deskreel database "
            f"(no {s.meta.name} table): give a deskreel database or a "
            f"new {what}"
        )
    try:
        version = schema_version(conn)
    except DamagedSchema as err:
        raise DamagedSchema(f"{label} is damaged ({err}): restore a backup") from None
    if version > s.SCHEMA_VERSION:
        raise StorageError(
            f"{label} has schema version {version}, newer than "
            f"this deskreel understands ({s.SCHEMA_VERSION}): upgrade "
            f"deskreel",
            details={"schema_version": version},
        )
    return version


def _set_up(engine: Engine, *, label: str, path: Path | None, backup: bool) -> Upgrade | None:
    """Create the tables in an empty database or upgrade an older one, in one transaction
    that holds the database's write lock: another process that got there first has done
    it, and a failure (or a crash) at any migration leaves the database as it was."""
    with _one_transaction(engine) as conn:
        version = _found_version(conn, label=label, path=path)  # again, under the lock
        if version is None:
            _create_schema(conn)
            return None
        if version == s.SCHEMA_VERSION:
            return None
        kept = keep_backup(path, version, label=label) if backup and path is not None else None
        try:
            _migrate(conn, label=label, version=version)
            _check_shape(conn, label)  # a wrong shape is rolled back with the rest
        except BaseException:
            if kept is not None:  # the file stays as it was: its copy has no use
                kept.unlink(missing_ok=True)
            raise
        return Upgrade(label=label, old=version, new=s.SCHEMA_VERSION, backup=kept)


@contextlib.contextmanager
def _one_transaction(engine: Engine) -> Iterator[Connection]:
    """A transaction holding the database's write lock from its first statement."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # Many recorders may open one new shared database at once: one of them sets
            # it up (or migrates it) while the others wait, then they find it done.
            conn.execute(select(func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
        else:
            # pysqlite begins a transaction only before a change of rows: without this,
            # each ALTER or CREATE of a migration would be committed on its own, and a crash
            # between two migrations would leave a file half upgraded
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        yield conn


def _migrate(conn: Connection, *, label: str, version: int) -> None:
    from alembic import command
    from alembic.util.exc import CommandError

    try:
        command.upgrade(alembic_config(conn), "head")
    except CommandError as err:  # its migration record names no revision we know
        raise DamagedSchema(
            f"{label} has schema version {version} but cannot be upgraded ({err}): its "
            f"migration record is damaged; restore a backup"
        ) from None


def _check_shape(conn: Connection, label: str) -> None:
    """Refuse a database that lacks a table or column this deskreel reads and writes."""
    from .shape import missing_columns

    lacking = missing_columns(conn)
    if lacking:
        more = f" and {len(lacking) - 1} more" if len(lacking) > 1 else ""
        raise DamagedSchema(f"{label} is damaged ({lacking[0]}{more}): restore a backup")


def _create_schema(conn: Connection) -> None:
    from alembic import command

    s.metadata.create_all(conn)
    conn.execute(
        s.meta.insert(),
        [
            {"key": "schema_version", "value": str(s.SCHEMA_VERSION)},
            {"key": "created", "value": datetime.now(UTC).isoformat()},
        ],
    )
    command.stamp(alembic_config(conn), "head")


def alembic_config(conn: Connection) -> Config:
    # imported here, not on top: Alembic is only needed to set up or migrate a database
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["connection"] = conn  # what migrations/env.py runs on
    return config


def _advice(err: SQLAlchemyError) -> str:
    """What to do about a file SQLite could not read: restoring a backup only where the file
    itself is damaged, never for a full disk or a permission (following that advice would
    overwrite good data)."""
    reason = _reason(err).lower()
    if "full" in reason:
        return "free some space on its disk"
    if "readonly" in reason or "read-only" in reason or "unable to open" in reason:
        return "check that the file and its folder may be read and written, or copy it"
    if "locked" in reason or "busy" in reason:
        return "another program is writing to it: try again when it is done"
    if "malformed" in reason or "corrupt" in reason or "not a database" in reason:
        return "it is damaged: restore a backup"
    return "check the path, and run 'deskreel doctor' on it"


def _reason(err: SQLAlchemyError) -> str:
    orig = getattr(err, "orig", None) if isinstance(err, DBAPIError) else None
    return str(orig or err).splitlines()[0]

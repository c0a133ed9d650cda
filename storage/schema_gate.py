"""The schema gate every store passes on open: create the tables in an empty database,
migrate an older one with Alembic, refuse a newer or a foreign one.

On a shared server many recorders may open one new database at once; an advisory lock lets
one of them set it up while the others wait.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, func, inspect, select
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from . import schema as s
from .errors import StorageError

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["DamagedSchema", "check_schema", "schema_version"]

_MIGRATIONS = Path(__file__).with_name("migrations")
_SCHEMA_LOCK = 0x6465736B7265656C  # "deskreel": the advisory lock around schema set-up


def check_schema(engine: Engine, *, label: str, path: Path | None, readonly: bool) -> None:
    """Let a database in at the current schema version, or raise StorageError saying why not.

    `label` names the database in messages; `path` is its SQLite file, None for a server.
    """
    try:
        with engine.begin() as conn:
            _check(conn, label=label, path=path, readonly=readonly)
        if path is not None and not readonly:
            # Only now, a deskreel file: a foreign one is refused above, unchanged. (WAL
            # cannot be entered inside a transaction; it stays with the file.)
            with engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA journal_mode=WAL")
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


def _check(conn: Connection, *, label: str, path: Path | None, readonly: bool) -> None:
    """Create the tables in an empty database, migrate old ones, refuse the rest."""
    if conn.dialect.name == "postgresql":
        # Many recorders may open one new shared database at once: one of them sets
        # it up (or migrates it) while the others wait, then they find it done.
        conn.execute(select(func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
    tables = set(inspect(conn).get_table_names())
    if not tables:
        _create_schema(conn)
        return
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
    if version < s.SCHEMA_VERSION and readonly:
        raise StorageError(
            f"{label} has schema version {version} and must be "
            f"upgraded before it can be read: run 'deskreel doctor "
            f"{label}' once"
        )
    if version < s.SCHEMA_VERSION:
        from alembic import command
        from alembic.util.exc import CommandError

        try:
            command.upgrade(alembic_config(conn), "head")
        except CommandError as err:  # its migration record names no revision we know
            raise DamagedSchema(
                f"{label} has schema version {version} but cannot be upgraded ({err}): its "
                f"migration record is damaged; restore a backup"
            ) from None
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

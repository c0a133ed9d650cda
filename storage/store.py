"""The recording store: the only code that touches deskreel's tables.

`open_store("rec.db")` opens (or creates, mode 0600) an SQLite file; an SQLAlchemy URL
(`postgresql://user@host/db`) opens a shared server, through psycopg 3. Schema versions are
checked on open. Messages name a server by host, port and database, never with a password.

`Store` gathers the methods of `recordings` and `runs`; opening is `engine`'s job, the
version check and upgrades `schema_gate`'s, an older file's backup and private copy
`upgrade`'s.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Engine

from .engine import Opened, open_engine, remove_created, server_name
from .errors import NotFoundError, StorageError
from .recordings import RecordingMethods
from .rows import utc
from .runs import RunMethods
from .schema_gate import OlderSchema, check_schema, schema_version
from .upgrade import COPY_NAME, Upgrade, private_copy, remove_private

# StorageError, NotFoundError and utc were defined here, server_name too (bench_fleet
# imports it from here): re-exported so that code importing them from here keeps working
__all__ = [
    "NotFoundError",
    "StorageError",
    "Store",
    "Upgrade",
    "open_store",
    "server_name",
    "store_to_fill",
    "utc",
]


def open_store(
    target: str | os.PathLike[str],
    *,
    create: bool = True,
    readonly: bool = False,
    backup: bool = True,
) -> Store:
    """Open a database file or URL, creating a new file (0600) when allowed.

    `readonly` opens the store so that nothing can write through it and the database never
    changes (a command that only reads, a replay reading its recording): an SQLite file with
    query_only, read through an upgraded private copy when its schema is older; a server's
    sessions with read-only transactions, an older server refused. Opened to write, an older
    database is upgraded first, keeping the previous file beside it unless not `backup`:
    `Store.upgrade` says so.
    """
    opened = open_engine(target, create=create, readonly=readonly)
    try:
        return Store(
            opened.engine,
            label=opened.label,
            path=opened.path,
            readonly=readonly,
            read_only_medium=opened.read_only_medium,
            backup=backup,
        )
    except OlderSchema as older:
        if opened.path is None or older.version is None:
            raise
        return _read_upgraded(opened, older.version)


@contextlib.contextmanager
def store_to_fill(target: str | os.PathLike[str], *, backup: bool = True) -> Iterator[Store]:
    """A store to write into, created when missing (as open_store does). When the block (or
    setting the new file up) fails, a file this call created and that holds no recording is
    removed: a command that failed leaves no empty database behind."""
    opened = open_engine(target, create=True, readonly=False)
    try:
        medium = opened.read_only_medium
        with Store(
            opened.engine,
            label=opened.label,
            path=opened.path,
            read_only_medium=medium,
            backup=backup,
        ) as store:
            yield store
    except BaseException:
        if opened.created and opened.path is not None and _holds_nothing(opened.engine):
            opened.engine.dispose()
            remove_created(opened.path)
        raise


def _read_upgraded(opened: Opened, version: int) -> Store:
    """A read-only store on an upgraded private copy of an older file (the file itself is
    only read); the copy goes when the store closes."""
    assert opened.path is not None
    source = open_engine(opened.path, create=False, readonly=True)
    try:
        folder = private_copy(source.engine, label=opened.label)
    finally:
        source.engine.dispose()
    copy = folder / COPY_NAME
    try:
        writer = open_engine(copy, create=False, readonly=False)
        Store(writer.engine, label=opened.label, path=copy, backup=False).close()
        return Store(
            open_engine(copy, create=False, readonly=True).engine,
            label=opened.label,
            path=opened.path,
            readonly=True,
            read_only_medium=opened.read_only_medium,
            older_schema=version,
            private=folder,
        )
    except BaseException:
        remove_private(folder)
        raise


def _holds_nothing(engine: Engine) -> bool:
    """Whether a database holds no recording (or cannot be read at all): what a failed
    command that created it may remove; one with a recording in it (a pull that copied
    some before it failed) stays."""
    from sqlalchemy import func, select
    from sqlalchemy.exc import SQLAlchemyError

    from . import schema as s

    try:
        with engine.connect() as conn:
            return not conn.execute(select(func.count()).select_from(s.recordings)).scalar_one()
    except SQLAlchemyError:
        return True


class Store(RecordingMethods, RunMethods):
    """A deskreel database; methods are transactions of their own."""

    def __init__(
        self,
        engine: Engine,
        *,
        label: str,
        path: Path | None = None,
        readonly: bool = False,
        read_only_medium: bool = False,  # its file is on a read-only file system
        backup: bool = True,  # an older file upgraded to write to it is kept beside it first
        older_schema: int | None = None,  # the file's, when `engine` reads an upgraded copy
        private: Path | None = None,  # that copy's folder, removed on close
    ):
        readonly = readonly or read_only_medium
        self.engine, self.label, self.path, self.readonly = engine, label, path, readonly
        self.read_only_medium = read_only_medium
        self.older_schema, self._private = older_schema, private
        try:
            self.upgrade: Upgrade | None = check_schema(
                engine, label=label, path=path, readonly=readonly, backup=backup
            )
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.engine.dispose()
        if self._private is not None:
            remove_private(self._private)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def schema_version(self) -> int:
        with self.engine.connect() as conn:
            return schema_version(conn)

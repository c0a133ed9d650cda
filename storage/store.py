"""The recording store: the only code that touches deskreel's tables.

`open_store("rec.db")` opens (or creates, mode 0600) an SQLite file; an SQLAlchemy URL
(`postgresql://user@host/db`) opens a shared server, through psycopg 3. Schema versions are
checked on open. Messages name a server by host, port and database, never with a password.

`Store` gathers the methods of `recordings` and `runs`; opening is `engine`'s job, the
version check `schema_gate`'s.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Engine

from .engine import open_engine, remove_created, server_name
from .errors import NotFoundError, StorageError
from .recordings import RecordingMethods
from .rows import utc
from .runs import RunMethods
from .schema_gate import check_schema, schema_version

# StorageError, NotFoundError and utc were defined here, server_name too (bench_fleet
# imports it from here): re-exported so that code importing them from here keeps working
__all__ = [
    "NotFoundError",
    "StorageError",
    "Store",
    "open_store",
    "server_name",
    "store_to_fill",
    "utc",
]


def open_store(
    target: str | os.PathLike[str], *, create: bool = True, readonly: bool = False
) -> Store:
    """Open a database file or URL, creating a new file (0600) when allowed.

    `readonly` opens the store so that nothing can write through it (a replay reads its
    recording this way): an SQLite file with query_only, a server's sessions with read-only
    transactions. It must already exist at the current schema version.
    """
    opened = open_engine(target, create=create, readonly=readonly)
    return Store(
        opened.engine,
        label=opened.label,
        path=opened.path,
        readonly=readonly,
        read_only_medium=opened.read_only_medium,
    )


@contextlib.contextmanager
def store_to_fill(target: str | os.PathLike[str]) -> Iterator[Store]:
    """A store to write into, created when missing (as open_store does). When the block (or
    setting the new file up) fails, a file this call created and that holds no recording is
    removed: a command that failed leaves no empty database behind."""
    opened = open_engine(target, create=True, readonly=False)
    try:
        medium = opened.read_only_medium
        with Store(
            opened.engine, label=opened.label, path=opened.path, read_only_medium=medium
        ) as store:
            yield store
    except BaseException:
        if opened.created and opened.path is not None and _holds_nothing(opened.engine):
            opened.engine.dispose()
            remove_created(opened.path)
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
    ):
        readonly = readonly or read_only_medium
        self.engine, self.label, self.path, self.readonly = engine, label, path, readonly
        self.read_only_medium = read_only_medium
        try:
            check_schema(engine, label=label, path=path, readonly=readonly)
        except BaseException:
            engine.dispose()
            raise

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def schema_version(self) -> int:
        with self.engine.connect() as conn:
            return schema_version(conn)

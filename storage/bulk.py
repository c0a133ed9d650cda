"""Writing and reading many rows at once: COPY on PostgreSQL, INSERTs that skip rows the
table holds already, and keys in chunks small enough for one IN (...)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sqlalchemy import Connection, Insert, Table

if TYPE_CHECKING:
    import psycopg

__all__ = ["chunks", "insert_ignore", "insert_rows"]

_COPY_ROWS = 10  # from this many rows on, PostgreSQL gets COPY instead of INSERTs

T = TypeVar("T")


def insert_rows(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
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
    # the PostgreSQL dialect deskreel opens is psycopg 3's, whose connections can COPY
    raw = cast("psycopg.Connection[Any]", conn.connection.dbapi_connection)
    cursor = raw.cursor()  # inside the same transaction
    with cursor, cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row([row[name] for name in names])


def insert_ignore(conn: Connection, table: Table) -> Insert:
    """INSERT that skips rows whose key is there already (frames, shared by content)."""
    if conn.dialect.name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table).on_conflict_do_nothing()
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table).on_conflict_do_nothing()
    return table.insert()


def chunks(items: Sequence[T], size: int = 500) -> Iterator[list[T]]:
    """Slices of `items` short enough for one IN (...): SQLite caps the bound values."""
    for i in range(0, len(items), size):
        yield list(items[i : i + size])

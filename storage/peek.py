"""A look into a database file without opening it as a store: no migration, no write, so
that a suite may name a committed file of an older schema (`deskreel test`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .errors import StorageError

__all__ = ["recording_names"]


def recording_names(path: Path) -> list[str]:
    """The names of the recordings in an SQLite file, oldest first, read only; every schema
    version has them. StorageError when the file is no deskreel database."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as err:
        raise StorageError(f"cannot open {path}: {err}") from None
    try:
        rows = conn.execute("SELECT name FROM recordings ORDER BY id").fetchall()
    except sqlite3.DatabaseError as err:
        raise StorageError(f"{path} is not a deskreel database ({err})") from None
    finally:
        conn.close()
    return [str(name) for (name,) in rows]

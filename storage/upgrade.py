"""Files of an older schema: what is kept when a command upgrades one, and the private copy a
command that only reads takes of one.

A command that writes upgrades the file itself (storage/schema_gate.py, one transaction),
after keeping the previous file beside it as `rec.db.schema3.bak` unless asked not to, and
says so with the `Upgrade` it returns. A command that only reads upgrades a private copy,
in a folder of its own (0700) under $TMPDIR that goes when the store closes, and reads
that: the file itself, which an older deskreel may still need, never changes.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from sqlalchemy import Engine

from .errors import StorageError

__all__ = ["COPY_NAME", "Upgrade", "keep_backup", "private_copy", "remove_private"]

COPY_NAME = "copy.db"  # the database in a private copy's folder


@dataclass(frozen=True, slots=True)
class Upgrade:
    """A database a command brought from schema `old` to `new` before writing to it."""

    label: str
    old: int
    new: int
    backup: Path | None = None  # the previous file, kept beside it (None: not asked, a server)


def keep_backup(path: Path, version: int, *, label: str) -> Path:
    """Copy an SQLite file at schema `version` (what its write-ahead log holds included) to
    a free name beside it, `rec.db.schemaN.bak`: one private (0600) file that opens by
    itself, written under a temporary name and renamed, so that no half copy is left."""
    target = _free_name(path, version)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    temp = Path(name)
    try:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            _copy(source, temp)
        finally:
            source.close()
        os.replace(temp, target)
    except (OSError, sqlite3.Error) as err:
        temp.unlink(missing_ok=True)
        raise StorageError(
            f"cannot keep a backup of {label} before upgrading it ({_reason(err)}): free "
            f"some space beside it, or upgrade it without one (--no-backup)"
        ) from None
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return target


def private_copy(engine: Engine, *, label: str) -> Path:
    """A copy of the SQLite database `engine` reads (what its write-ahead log holds
    included) in a new private folder under $TMPDIR: that folder, holding COPY_NAME."""
    folder = Path(tempfile.mkdtemp(prefix="deskreel-read-"))
    try:
        target = folder / COPY_NAME
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        raw = engine.raw_connection()
        try:
            _copy(cast(sqlite3.Connection, raw.driver_connection), target)
        finally:
            raw.close()
    except (OSError, sqlite3.Error) as err:
        remove_private(folder)
        raise StorageError(
            f"cannot read {label} through an upgraded copy in {folder.parent} "
            f"({_reason(err)}): free some space there, or set TMPDIR to a folder with room"
        ) from None
    except BaseException:
        remove_private(folder)
        raise
    return folder


def remove_private(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def _copy(source: sqlite3.Connection, target: Path) -> None:
    """SQLite's online backup of `source` into the file `target`, left in rollback-journal
    mode: one file, with no write-ahead log beside it to lose."""
    copy = sqlite3.connect(target)
    try:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")
    finally:
        copy.close()


def _free_name(path: Path, version: int) -> Path:
    """`rec.db.schema3.bak`, or `rec.db.schema3-2.bak` and on when that is taken: an earlier
    backup is never replaced."""
    name = path.with_name(f"{path.name}.schema{version}.bak")
    number = 2
    while name.exists() or name.is_symlink():
        name = path.with_name(f"{path.name}.schema{version}-{number}.bak")
        number += 1
    return name


def _reason(err: OSError | sqlite3.Error) -> str:
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return (str(err).splitlines() or [type(err).__name__])[0]

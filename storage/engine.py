"""Opening a database: an SQLite file (created private, 0600, with its pragmas) or a server
URL (PostgreSQL through psycopg 3), as an SQLAlchemy engine.

Messages name a server by host, port and database, never with a password.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, ExceptionContext, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.pool import ConnectionPoolEntry

from .errors import StorageError
from .paths import unusable_path

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "Opened",
    "connect_failure",
    "driver_url",
    "open_engine",
    "remove_created",
    "server_name",
]

_CONNECT_TIMEOUT = 10  # seconds, unless the URL says otherwise (libpq waits forever)


@dataclass(frozen=True, slots=True)
class Opened:
    """An engine on a database, and how messages name that database."""

    engine: Engine
    label: str
    path: Path | None = None  # the SQLite file, when a path (not a URL) was given
    created: bool = False  # that file is new: this open created it
    read_only_medium: bool = False  # that file is on a read-only file system: opened read-only


def open_engine(target: str | os.PathLike[str], *, create: bool, readonly: bool) -> Opened:
    """An engine on a database file or URL, creating a new file (0600) when allowed.

    `readonly`: an SQLite file with query_only, a server's sessions with read-only
    transactions.
    """
    text = os.fspath(target)
    if "://" in text:
        path_in_url = _sqlite_file(text)
        if path_in_url is None:
            return _open_url(text, readonly=readonly)
        text = path_in_url  # a file however it is named: created private, with its pragmas
    if (why := unusable_path(text)) is not None:
        raise StorageError(f"{text!r} cannot be a database file: {why}: give another")
    path = Path(text)
    medium = _on_read_only_medium(path)
    created = _prepare_file(path, create=create and not readonly and not medium)
    if readonly or medium:
        # On a read-only medium nothing can change the file, so SQLite may read it as
        # immutable: without the -shm file of WAL mode, which it could not create there.
        options = "mode=ro&immutable=1" if medium or _unshared(path) else "mode=ro"
        engine = create_engine(f"sqlite:///file:{quote(str(path.resolve()))}?{options}&uri=true")
        event.listen(engine, "connect", _sqlite_readonly_pragmas)
    else:
        engine = create_engine(f"sqlite:///{path}")
        event.listen(engine, "connect", _sqlite_pragmas)
    return Opened(engine, label=str(path), path=path, created=created, read_only_medium=medium)


def _unshared(path: Path) -> bool:
    """Whether SQLite must read a file as immutable to read it at all: in WAL mode it needs
    a -shm file beside it, which it cannot create in a folder we may not write to (a file of
    another user's, a read-only checkout). Only when no write-ahead log holds anything: a
    file with none is not being written (a writer in WAL mode keeps one beside it)."""
    shm, wal = Path(f"{path}-shm"), Path(f"{path}-wal")
    try:
        if os.access(path.parent, os.W_OK) or shm.exists():
            return False
        return not wal.exists() or wal.stat().st_size == 0
    except OSError:
        return False


def _on_read_only_medium(path: Path) -> bool:
    """Whether an existing `path` lies on a file system mounted read-only. Refused when its
    write-ahead log holds anything: read as immutable, SQLite would not see it."""
    try:
        medium = path.exists() and bool(os.statvfs(path).f_flag & os.ST_RDONLY)
        wal = Path(f"{path}-wal")
        pending = medium and wal.exists() and wal.stat().st_size > 0
    except OSError:
        return False
    if pending:
        raise StorageError(
            f"{path} is on a read-only file system with changes still in {wal.name}, which "
            f"cannot be applied there: copy both files to a writable place"
        )
    return medium


def _open_url(text: str, *, readonly: bool = False) -> Opened:
    """A server's engine; `postgresql://` URLs get the psycopg 3 driver."""
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
        _reach_server(engine, url)
    return Opened(engine, label=label)


def _reach_server(engine: Engine, url: URL) -> None:
    """Connect once now, so that a server out of reach is one clear message at open."""
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


def server_name(url: URL) -> str:
    """host:port/database, the way messages name a server."""
    host = url.host or "localhost"
    return f"{host}:{url.port or 5432}/{url.database or url.username or ''}"


def _naming_the_server(name: str) -> Callable[[ExceptionContext], None]:
    """An engine's error hook: every database error it raises carries `server` (host:port/
    database), so that a connection lost mid-command can say which one it was."""

    def handle(context: ExceptionContext) -> None:
        if context.sqlalchemy_exception is not None:
            # an attribute of our own, not SQLAlchemy's: the CLI reads it with getattr
            setattr(context.sqlalchemy_exception, "server", name)  # noqa: B010

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


def driver_url(url: URL) -> URL:
    """`postgresql://` and `postgres://` URLs with the psycopg 3 driver; others as given."""
    if url.drivername in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+psycopg")
    return url


def _sqlite_file(text: str) -> str | None:
    """The file a `sqlite:///PATH` URL names; None for any other URL (a server, or an
    in-memory database, which has no file to keep private)."""
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):
        return None  # _open_url says what is wrong with it
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    if url.query:
        raise StorageError(
            f"{_hide_password(text)}: give the SQLite file's path instead of a URL with options"
        )
    return url.database


def _prepare_file(path: Path, *, create: bool) -> bool:
    """Refuse what is not a deskreel file early; create a new one private (0600), and make
    an empty file private before it becomes one. Whether the file was created here."""
    if path.is_dir():
        raise StorageError(f"{path} is a directory: give a database file name such as rec.db")
    if path.exists():
        # Never open the file here: closing any descriptor of a database drops every POSIX
        # lock this process holds on it (SQLite's included), and another process may then
        # delete the -wal file under an open connection. SQLite itself tells a non-database.
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a device or a FIFO is left as it is
            raise StorageError(f"{path} is not a regular file: give a database file")
        if not os.access(path, os.R_OK):
            raise StorageError(f"{path} cannot be read (permission denied): check its permissions")
        if info.st_size == 0:  # not a database yet: it becomes ours, or is refused
            if not create:
                raise StorageError(f"{path} is empty, no deskreel database: give one")
            _make_private(path)
        return False
    if path.is_symlink():  # dangling: SQLite would create its target with the umask
        raise StorageError(
            f"{path} is a symbolic link to {os.readlink(path)}, which does not exist: "
            f"give a path that is no link"
        )
    if not create:
        raise StorageError(f"{path} does not exist: give the path of a deskreel database")
    if not path.parent.is_dir():
        raise StorageError(f"cannot create {path}: directory {path.parent} does not exist")
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False  # another process created it between our check and now
    except OSError as err:
        raise StorageError(
            f"cannot create {path} ({err.strerror}): choose a writable place"
        ) from None
    return True


def remove_created(path: Path) -> None:
    """Remove an SQLite file this process created, with its -wal and -shm files: what a
    command that failed made is not left behind."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        with contextlib.suppress(FileNotFoundError):
            name.unlink()


def _make_private(path: Path) -> None:
    try:
        os.chmod(path, 0o600)
    except OSError as err:
        raise StorageError(
            f"cannot make {path} private ({err.strerror}): give a file of your own"
        ) from None


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    # Per connection, so nothing in the file changes: WAL, which stays with the file, is set
    # once the file is known to be a deskreel database (schema_gate.py).
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_readonly_pragmas(
    dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry
) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()


def _postgresql_readonly(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    # psycopg begins every transaction of this session READ ONLY: the server refuses writes.
    # This hook is only listened for on psycopg engines, whose DBAPI connection is psycopg's.
    cast("psycopg.Connection[Any]", dbapi_connection).read_only = True


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

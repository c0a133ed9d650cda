"""PostgreSQL for the tests: the server named by $DESKREEL_TEST_PG, a new database per test.

Without the variable, or when its server does not answer, the tests that need it are
skipped and `pytest -ra` prints why; with DESKREEL_REQUIRE_PG=1 (set by CI) they fail
instead. `.ci/postgres` starts a local server and prints a URL for the variable.
"""

from __future__ import annotations

from typing import NoReturn

import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError

from deskreel.storage.engine import connect_failure, driver_url, server_name

ENV = "DESKREEL_TEST_PG"
REQUIRE_ENV = "DESKREEL_REQUIRE_PG"


@dataclass(frozen=True, slots=True)
class PgServer:
    url: URL  # as given in $DESKREEL_TEST_PG, for the databases the tests make
    admin: Engine  # autocommit, on the given database: CREATE and DROP DATABASE

    def database_url(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The test server, checked once per session."""
    given = os.environ.get(ENV)
    if not given:
        _unavailable(
            f"no PostgreSQL: {ENV} is not set (.ci/postgres starts a local server "
            f"and prints a URL for it)"
        )
    try:
        url = make_url(given)
    except ArgumentError:
        _unavailable(f"{ENV} is not one database URL (not echoed: it may hold a password)")
    admin = create_engine(
        driver_url(url), isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5}
    )
    try:
        with admin.connect() as conn:
            conn.execute(text("select 1"))
    except DBAPIError as err:
        admin.dispose()
        _unavailable(f"{ENV} is set but unusable: {connect_failure(url, err)}")
    yield PgServer(url, admin)
    admin.dispose()


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """The URL of a new, empty database on the test server; dropped after the test."""
    name = create_database(pg_server.admin, "deskreel_t")
    try:
        yield pg_server.database_url(name)
    finally:
        drop_database(pg_server.admin, name)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    """A new store, once as an SQLite file and once as a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "rec.db")
    return request.getfixturevalue("pg_url")


def create_database(admin: Engine, prefix: str) -> str:
    """A new database with a unique name; its name."""
    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    return name


def drop_database(admin: Engine, name: str, *, timeout: float = 30.0) -> None:
    """Drop a test database, ending our own sessions left on it first.

    Not DROP ... WITH (FORCE): that also needs the right to end the server's autovacuum
    workers, which a plain role lacks; a plain DROP ends those itself.
    """
    deadline = time.monotonic() + timeout
    with admin.connect() as conn:
        while True:
            conn.execute(
                text(
                    "select pg_terminate_backend(pid) from pg_stat_activity where "
                    "datname = :name and usename = current_user and "
                    "pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
            try:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
                return
            except OperationalError:  # a session was still closing: "being accessed by..."
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)


def raw_engine(target: str) -> Engine:
    """An engine on a store's database that bypasses deskreel (no schema checks, no migrations)."""
    return create_engine(driver_url(make_url(target if "://" in target else f"sqlite:///{target}")))


def run_sql(target: str, statements: str) -> list[object]:
    """Run `;`-separated SQL on a store's database behind deskreel's back; first columns."""
    engine = raw_engine(target)
    try:
        with engine.begin() as conn:
            results = [conn.execute(text(s)) for s in statements.split(";") if s.strip()]
            return [r.scalar() if r.returns_rows else None for r in results]
    finally:
        engine.dispose()


def pg_label(url: str) -> str:
    """host:port/db of a test URL, the way deskreel's messages name it."""
    return server_name(make_url(url))


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get(REQUIRE_ENV):
        pytest.fail(f"{reason} ({REQUIRE_ENV} is set)", pytrace=False)
    pytest.skip(reason)

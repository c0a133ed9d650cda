"""Issue 40: a command that writes to a file of an older schema upgrades it, and says so in
one line: from which schema to which, that older releases cannot read it, and where the
previous file is kept (beside it, unless --no-backup). The upgrade is one transaction: a
crash or a failure between two migrations leaves the file as it was, readable and
upgradable. Real files (tests/data/demo-schema3.db), the real command line."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from deskreel.storage import SCHEMA_VERSION
from tests.commands import deskreel

FIXTURE = Path(__file__).resolve().parent / "data" / "demo-schema3.db"

# commands that write to DB, and so upgrade it first ({db}, {script}: a script to import)
WRITES = [
    ("edit", "{db}", "-r", "demo", "--rename", "renamed"),
    ("import", "{script}", "{db}", "--name", "imported"),
    ("mask", "{db}", "0,0,10,10", "-r", "demo"),
    ("redact", "{db}", "-r", "demo", "--step", "3"),
    ("reduce", "{db}", "-r", "demo"),
    ("doctor", "{db}", "--upgrade"),
    ("doctor", "{db}", "--repair"),
]

# `deskreel ARGS`, with `{what}` done right after migration 0004 is applied (0005 is next)
BETWEEN_MIGRATIONS = """
import os, sys
from alembic.runtime import migration

applied = migration.HeadMaintainer.update_to_step

def update_to_step(self, step):
    applied(self, step)
    if "0004" in self.heads:
        {what}

migration.HeadMaintainer.update_to_step = update_to_step
from deskreel.cli import main
main(sys.argv[1:])
"""
CRASH = "os._exit(9)"  # a kill: no rollback, no clean-up, nothing unwinds
FAILURE = (
    "import sqlite3; from sqlalchemy.exc import OperationalError; "
    "raise OperationalError('ALTER', {}, sqlite3.OperationalError('database or disk is full'))"
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read(path: Path, sql: str) -> list[tuple[object, ...]]:
    """Rows of a query on a file and its write-ahead log (what a crash left committed
    there included), read only."""
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as conn:
        rows = conn.execute(sql).fetchall()
    conn.close()
    return rows


def schema_of(path: Path) -> tuple[int, str]:
    """(the schema version a file says, its migration record's revision)."""
    [(version,)] = read(path, "SELECT value FROM deskreel_meta WHERE key = 'schema_version'")
    [(revision,)] = read(path, "SELECT version_num FROM alembic_version")
    return int(str(version)), str(revision)


def shown_fixture(tmp_path: Path) -> str:
    """What `deskreel show` says of the fixture's recording (read from a copy of it: nothing
    appears beside the committed file)."""
    pristine = tmp_path / "pristine" / "demo.db"
    pristine.parent.mkdir()
    shutil.copyfile(FIXTURE, pristine)
    done = deskreel("show", pristine, "-r", "demo")
    assert done.returncode == 0, done.stderr
    return done.stdout


def upgrade_line(db: Path, kept: str) -> str:
    return (
        f"deskreel: upgraded {db} from schema 3 to {SCHEMA_VERSION}, which older deskreel "
        f"releases cannot read; {kept}"
    )


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    db = tmp_path / "old.db"
    shutil.copyfile(FIXTURE, db)
    return db


@pytest.mark.parametrize("command", WRITES, ids=[" ".join(c[:1] + c[2:3]) for c in WRITES])
def test_a_write_upgrades_an_older_file_says_so_and_keeps_the_previous_one(
    old_file: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    script = tmp_path / "script.json"
    script.write_text('[{"action": "key", "text": "Return"}]')
    done = deskreel(*(a.format(db=old_file, script=script) for a in command))
    assert done.returncode == 0, done.stderr
    backup = tmp_path / "old.db.schema3.bak"
    said = [line for line in done.stderr.splitlines() if "upgraded" in line]
    assert said == [upgrade_line(old_file, f"the schema-3 file is kept as {backup}")]
    assert schema_of(old_file) == (SCHEMA_VERSION, f"{SCHEMA_VERSION:04d}")
    assert schema_of(backup) == (3, "0003")
    assert backup.stat().st_mode & 0o777 == 0o600
    again = deskreel(*(a.format(db=old_file, script=script) for a in command))
    assert "upgraded" not in again.stderr  # once upgraded, said once


def test_the_backup_is_the_previous_file_whole(old_file: Path) -> None:
    before = read(old_file, "SELECT name, uid FROM recordings")
    done = deskreel("edit", old_file, "-r", "demo", "--rename", "renamed")
    assert done.returncode == 0, done.stderr
    backup = old_file.with_name("old.db.schema3.bak")
    assert read(backup, "SELECT name, uid FROM recordings") == before
    shown = deskreel("show", backup, "-r", "demo")  # read, as a file of schema 3 is
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == shown_fixture(old_file.parent)
    assert schema_of(backup) == (3, "0003")  # and reading it left it so


def test_no_backup_keeps_none(old_file: Path, tmp_path: Path) -> None:
    done = deskreel("mask", old_file, "0,0,10,10", "-r", "demo", "--no-backup")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == upgrade_line(old_file, "no backup was kept (--no-backup)")
    assert schema_of(old_file)[0] == SCHEMA_VERSION
    assert not list(tmp_path.glob("*.bak"))


def test_an_earlier_backup_is_never_replaced(old_file: Path) -> None:
    earlier = old_file.with_name("old.db.schema3.bak")
    earlier.write_text("mine")
    done = deskreel("doctor", old_file, "--upgrade")
    assert done.returncode == 0, done.stderr
    assert earlier.read_text() == "mine"
    assert schema_of(old_file.with_name("old.db.schema3-2.bak")) == (3, "0003")


def _between_migrations(what: str, *args: object) -> subprocess.CompletedProcess[str]:
    code = BETWEEN_MIGRATIONS.format(what=what)
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=120
    )


def test_a_crash_between_two_migrations_leaves_the_file_readable(old_file: Path) -> None:
    crashed = _between_migrations(CRASH, "edit", old_file, "-r", "demo", "--rename", "renamed")
    assert crashed.returncode == 9, crashed.stderr
    # nothing of migration 0004 stayed: the file is schema 3 through and through
    assert schema_of(old_file) == (3, "0003")
    columns = {row[1] for row in read(old_file, "PRAGMA table_info(anchors)")}
    assert "hover_png" not in columns and "twins" not in columns
    shown = deskreel("show", old_file, "-r", "demo")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == shown_fixture(old_file.parent)
    done = deskreel("edit", old_file, "-r", "demo", "--rename", "renamed")  # and upgradable
    assert done.returncode == 0, done.stderr
    assert "upgraded" in done.stderr and schema_of(old_file)[0] == SCHEMA_VERSION


def test_a_failure_between_two_migrations_changes_nothing(old_file: Path) -> None:
    before = sha256(old_file)
    failed = _between_migrations(FAILURE, "edit", old_file, "-r", "demo", "--rename", "renamed")
    assert failed.returncode == 2, failed.stderr
    assert failed.stderr == (
        f"deskreel: {old_file} cannot be used (database or disk is full): free some space "
        f"on its disk\n"
    )
    assert sha256(old_file) == before
    assert not list(old_file.parent.glob("*.bak"))  # the file is as it was: no copy of it

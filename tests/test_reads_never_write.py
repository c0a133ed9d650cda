"""Issue 40: a command that only reads a recording never changes it. Every read command, on
a file of an older schema (tests/data/demo-schema3.db, samples/demo.db as it was committed
at schema 3) and on a file that may not be written, answers as on any other file and
leaves it the same byte for byte; the file's folder gets no backup and no upgrade."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from deskreel.storage import SCHEMA_VERSION, open_store
from tests.commands import deskreel

FIXTURE = Path(__file__).resolve().parent / "data" / "demo-schema3.db"
NOBODY = 65534

# every command that only reads DB, with what it needs ({db}: the file, {out}: a folder the
# command may write its output into)
READS = [
    ("list", "{db}"),
    ("show", "{db}", "-r", "demo"),
    ("export", "{db}", "-r", "demo", "--format", "actions", "--out", "{out}/lines.jsonl"),
    ("export", "{db}", "--all", "--format", "actions", "--out", "{out}/dataset"),
    ("report", "{db}", "-r", "demo", "--out", "{out}/report"),
    ("runs", "{db}"),
    ("doctor", "{db}"),
    ("replay", "{db}", "-r", "demo", "--dry-run"),
    ("reduce", "{db}", "-r", "demo", "--dry-run"),
]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def file_schema(path: Path, *, options: str = "mode=ro") -> int:
    """The schema version a file says it has, read only."""
    with sqlite3.connect(f"{path.as_uri()}?{options}", uri=True) as conn:
        row = conn.execute("SELECT value FROM deskreel_meta WHERE key = 'schema_version'")
        version = int(row.fetchone()[0])
    conn.close()
    return version


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    """A copy of the schema-3 fixture."""
    db = tmp_path / "old.db"
    shutil.copyfile(FIXTURE, db)
    return db


def test_the_fixture_is_of_an_older_schema() -> None:
    # immutable: nothing beside the committed file, which has no write-ahead log
    assert file_schema(FIXTURE, options="immutable=1") == 3 < SCHEMA_VERSION


@pytest.mark.parametrize("command", READS, ids=[" ".join(c[:1] + c[2:3]) for c in READS])
def test_a_read_command_leaves_an_older_file_as_it_was(
    old_file: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    before = sha256(old_file)
    done = deskreel(*(a.format(db=old_file, out=tmp_path) for a in command))
    assert done.returncode == 0, done.stderr
    assert "upgraded" not in done.stderr and "Traceback" not in done.stderr
    assert sha256(old_file) == before
    assert file_schema(old_file) == 3
    assert not list(tmp_path.glob("*.bak"))


def test_reads_of_an_older_file_see_the_recording_whole(old_file: Path) -> None:
    shown = deskreel("show", old_file, "-r", "demo")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("recording 1 'demo': 8 steps, 11.1s, 1280x800, recorder\n")
    doctor = deskreel("doctor", old_file)
    assert doctor.returncode == 0, doctor.stderr
    lines = doctor.stdout.splitlines()
    assert lines[-1] == f"{old_file}: healthy (schema 3, 1 recordings, 13 frames)"
    assert lines[0] == (
        f"  note: schema 3 is older than this deskreel's ({SCHEMA_VERSION}): checked through "
        f"an upgraded copy, the file unchanged; the first command that writes to it upgrades "
        f"it (or 'deskreel doctor --upgrade {old_file}'), and older releases cannot read it then"
    )


def test_an_older_file_read_in_process_is_read_from_a_copy_that_goes(old_file: Path) -> None:
    before = sha256(old_file)
    with open_store(old_file, readonly=True) as store:
        assert (store.older_schema, store.upgrade) == (3, None)
        assert store.schema_version() == SCHEMA_VERSION
        assert [r.name for r in store.recordings()] == ["demo"]
        copy = store._private
        assert copy is not None and copy.is_dir() and copy.stat().st_mode & 0o777 == 0o700
    assert not copy.exists()
    assert sha256(old_file) == before


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder that an unprivileged user may reach (pytest's own are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="deskreel-test-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path in (folder, *folder.rglob("*")):
            if path.is_dir():
                path.chmod(0o755)
        shutil.rmtree(folder)


def as_reader(*args: object) -> subprocess.CompletedProcess[str]:
    """deskreel run by a user to whom a file's permissions apply: this one, or nobody when
    this is root (root may write whatever the permissions say)."""
    if os.geteuid() != 0:
        return deskreel(*args)
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a read-only file cannot be made here")
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return subprocess.run(
        [*drop, sys.executable, "-m", "deskreel", *map(str, args)],
        env={**os.environ, "TMPDIR": tempfile.gettempdir(), "HOME": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.parametrize("schema", ["older", "current"])
def test_a_read_only_file_in_a_read_only_folder_reads_as_any_other(
    shared_folder: Path, schema: str
) -> None:
    folder = shared_folder / "recordings"
    folder.mkdir()
    db = folder / "demo.db"
    shutil.copyfile(FIXTURE, db)
    if schema == "current":
        upgraded = deskreel("doctor", "--upgrade", "--no-backup", db)
        assert upgraded.returncode == 0, upgraded.stderr
        assert file_schema(db) == SCHEMA_VERSION
    out = shared_folder / "out"
    out.mkdir(mode=0o777)
    out.chmod(0o777)
    db.chmod(0o444)
    folder.chmod(0o555)
    before, files = sha256(db), sorted(folder.iterdir())
    for command in READS:
        done = as_reader(*(a.format(db=db, out=out) for a in command))
        assert done.returncode == 0, (command, done.stderr)
        assert "read-only" not in done.stderr and "upgraded" not in done.stderr, done.stderr
        assert sha256(db) == before, command
        assert sorted(folder.iterdir()) == files, command

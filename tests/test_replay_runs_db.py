"""Issue 40: a replay can leave its recording alone. `--runs-db FILE` stores the run in FILE
(the recording copied there once) and `--no-runs` stores it nowhere: DB, a recording kept in
a repository, of an older schema here, is only read. Without either, a replay stores its
run in DB, upgrading an older one first and saying so. On the test Xvfb, with real input."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from deskreel.storage import SCHEMA_VERSION, open_store
from tests.commands import deskreel, imported

FIXTURE = Path(__file__).resolve().parent / "data" / "demo-schema3.db"
# the fixture's first step alone, where it was recorded: a click on the bare test screen
FIRST_STEP = ("-r", "demo", "--from", "1", "--to", "1", "--no-anchor")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    db = tmp_path / "repo" / "demo.db"
    db.parent.mkdir()
    shutil.copyfile(FIXTURE, db)
    return db


def test_runs_db_stores_the_run_there_and_only_reads_the_recording(
    old_file: Path, tmp_path: Path, xvfb
) -> None:
    before = sha256(old_file)
    runs = tmp_path / "runs.db"
    done = deskreel("replay", old_file, *FIRST_STEP, "--runs-db", runs, env=xvfb.env())
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == (
        f"deskreel: copied recording 'demo' into {runs}, where its runs are stored"
    )
    again = deskreel("replay", old_file, *FIRST_STEP, "--runs-db", runs, env=xvfb.env())
    assert again.returncode == 0, again.stderr
    assert "copied" not in again.stderr  # the copy made the first time is used
    assert sha256(old_file) == before
    assert sorted(p.name for p in old_file.parent.iterdir() if "-" not in p.name) == ["demo.db"]
    with open_store(runs, readonly=True) as store:
        assert store.schema_version() == SCHEMA_VERSION
        [rec] = store.recordings()
        assert [(r.recording_id, r.status) for r in store.runs()] == [(rec.id, "passed")] * 2
    listed = deskreel("runs", runs)
    assert listed.returncode == 0 and "demo" in listed.stdout, listed.stderr


def test_no_runs_stores_nothing_and_still_writes_the_reports(
    old_file: Path, tmp_path: Path, xvfb
) -> None:
    before = sha256(old_file)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    done = deskreel(
        "replay",
        old_file,
        *FIRST_STEP,
        "--no-runs",
        "--junit",
        out / "junit.xml",
        "--report",
        out / "report",
        env={**xvfb.env(), "TMPDIR": str(scratch)},
    )
    assert done.returncode == 0, done.stderr
    assert "copied" not in done.stderr and "upgraded" not in done.stderr
    assert (out / "junit.xml").is_file() and (out / "report" / "index.html").is_file()
    assert sha256(old_file) == before
    assert list(scratch.iterdir()) == []  # the private runs file went with its folder


def test_a_replay_without_either_upgrades_an_older_recording_and_says_so(
    old_file: Path, xvfb
) -> None:
    done = deskreel("replay", old_file, *FIRST_STEP, env=xvfb.env())
    assert done.returncode == 0, done.stderr
    backup = old_file.with_name("demo.db.schema3.bak")
    assert done.stderr.splitlines()[0] == (
        f"deskreel: upgraded {old_file} from schema 3 to {SCHEMA_VERSION}, which older "
        f"deskreel releases cannot read; the schema-3 file is kept as {backup}"
    )
    with sqlite3.connect(f"{backup.as_uri()}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    conn.close()
    with open_store(old_file, readonly=True) as store:
        assert [r.status for r in store.runs()] == ["passed"]


def test_runs_db_refuses_a_copy_older_than_the_recording(tmp_path: Path, xvfb) -> None:
    db = imported(
        tmp_path,
        "moves",
        [
            {"action": "mouse_move", "coordinate": [10, 10]},
            {"action": "mouse_move", "coordinate": [20, 20]},
        ],
    )
    runs = tmp_path / "runs.db"
    assert deskreel("replay", db, "--runs-db", runs, env=xvfb.env()).returncode == 0
    assert deskreel("edit", db, "-r", "moves", "--disable", "2").returncode == 0
    done = deskreel("replay", db, "--runs-db", runs, env=xvfb.env())
    assert done.returncode == 2
    assert done.stderr == (
        f"deskreel: {runs} holds recording 'moves' as it was before it was edited in {db}: "
        f"give another --runs-db, or make the edited one a recording of its own (deskreel "
        f"edit --copy-to)\n"
    )


def test_runs_db_and_no_runs_are_one_choice(tmp_path: Path) -> None:
    done = deskreel("replay", tmp_path / "x.db", "--runs-db", tmp_path / "r.db", "--no-runs")
    assert (done.returncode, done.stderr) == (
        2,
        "deskreel: give --runs-db FILE or --no-runs, not both\n",
    )

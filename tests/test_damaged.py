"""Issue 21: a database damaged in each way a bad copy, another program or a half-applied
migration leaves one. Every command gives one line and a documented exit code, never a
traceback, and `deskreel doctor` says what is wrong: healthy means every command works."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from deskreel.storage import StepResult, open_store
from tests.commands import deskreel
from tests.fixture_recording import build_recording

DAMAGES = {
    "schema version abc": "UPDATE deskreel_meta SET value = 'abc' WHERE key = 'schema_version'",
    "no schema version": "DELETE FROM deskreel_meta WHERE key = 'schema_version'",
    "bogus revision, old version": (
        "UPDATE deskreel_meta SET value = '2' WHERE key = 'schema_version';"
        "UPDATE alembic_version SET version_num = 'bogus'"
    ),
    "bogus revision": "UPDATE alembic_version SET version_num = 'bogus'",
    "dropped column": "DROP INDEX ix_recordings_uid; ALTER TABLE recordings DROP COLUMN uid",
    "damaged action": "UPDATE actions SET body = '{not json' WHERE step = 2",
    "another vocabulary": """UPDATE actions SET body = '{"action": "fly"}' WHERE step = 2""",
    "damaged result details": "UPDATE step_results SET details = '{not json'",
}
# what doctor says of each: the line it refuses the file with (exit 2), or a problem (exit 1)
SAID = {
    "schema version abc": (2, "says schema version 'abc'"),
    "no schema version": (2, "says no schema version"),
    "bogus revision, old version": (2, "migration record is damaged"),
    "bogus revision": (1, "its migration record says 'bogus'"),
    "dropped column": (2, "table recordings lacks column uid"),
    "damaged action": (1, "step 2: its stored action is damaged"),
    "another vocabulary": (1, "step 2: its stored action is damaged"),
    "damaged result details": (1, "its result details are unreadable"),
}
# damages no command may read past: each refuses the file when it opens it
REFUSED_AT_OPEN = {
    "schema version abc",
    "no schema version",
    "bogus revision, old version",
    "dropped column",
}
COMMANDS = [
    ("list",),
    ("show",),
    ("export", "--format", "actions", "--out", "{out}/x.jsonl"),
    ("report", "--out", "{out}/report"),
    ("report", "--last-run", "--out", "{out}/run-report"),
    ("import", "{script}"),
    ("edit", "-r", "1", "--rename", "renamed"),
]


def _damaged(tmp_path: Path, damage: str) -> Path:
    db = tmp_path / "r.db"
    fixture = build_recording(db)
    with open_store(db) as store:
        run = store.start_run(fixture.recording_id, mode="replay", options={})
        store.add_step_results(run, [StepResult(step=1, status="passed", details={"a": 1})])
        store.finish_run(run, "passed")
    with sqlite3.connect(db) as conn:
        conn.executescript(DAMAGES[damage])
    conn.close()
    return db


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_every_command_gives_one_line_on_a_damaged_database(tmp_path: Path, damage: str) -> None:
    db = _damaged(tmp_path, damage)
    script = tmp_path / "s.json"
    script.write_text('[{"action": "key", "text": "Return"}]')
    for command in COMMANDS:
        args = [a.format(out=tmp_path, script=script) for a in command]
        args.insert(2 if command[0] == "import" else 1, str(db))
        done = deskreel(*args)
        assert "Traceback" not in done.stderr, (damage, command, done.stderr)
        assert done.returncode in (0, 1, 2), (damage, command, done.returncode)
        if done.returncode:
            assert len(done.stderr.strip().splitlines()) == 1, (damage, command, done.stderr)
        if damage in REFUSED_AT_OPEN:
            assert done.returncode == 2 and "damaged" in done.stderr, (damage, command, done)
        if damage in ("damaged action", "another vocabulary") and command[0] in ("show", "export"):
            assert done.returncode == 2 and "step 2" in done.stderr, (damage, command, done)


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_doctor_says_what_is_damaged(tmp_path: Path, damage: str) -> None:
    db = _damaged(tmp_path, damage)
    done = deskreel("doctor", db)
    code, said = SAID[damage]
    assert done.returncode == code and said in done.stdout + done.stderr, done
    assert "healthy" not in done.stdout

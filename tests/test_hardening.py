"""Issue 21: the defects a hostile user, a bad file or a full disk found, each held by a test
that failed before its fix. Without X: every command here works on files alone."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
from pathlib import Path

import pytest

from recorder.privacy import Redactor
from storage.keys import types_character
from storage.vocabulary import Action
from tests.commands import deskreel, imported
from tests.fixture_recording import build_recording
from xsession.files import LinkedPath, PrivateFolder


@pytest.mark.parametrize(
    ("chord", "types"),
    [
        ("n", True),
        ("shift+n", True),
        ("space", True),
        ("eacute", True),
        ("dead_acute", True),
        ("KP_1", True),
        ("Cyrillic_pe", True),
        ("ctrl+n", False),
        ("alt+shift+n", False),
        ("super+l", False),
        ("Return", False),
        ("Tab", False),
        ("F5", False),
        ("shift", False),
    ],
)
def test_which_keys_type_a_character(chord: str, types: bool) -> None:
    assert types_character(chord) is types


def test_redact_typing_keeps_no_held_key_that_types_a_character() -> None:
    # one character of a password, held past key-hold, is a `key` step of its own
    redactor = Redactor(enabled=True)
    held = redactor.action(Action(action="key", text="n", duration=0.8))
    typed = redactor.action(Action(action="type", text="hunter"))
    shortcut = redactor.action(Action(action="key", text="ctrl+a"))
    assert held == Action(action="type", text="{{secret:1}}")
    assert typed == Action(action="type", text="{{secret:2}}")
    assert shortcut == Action(action="key", text="ctrl+a")


def test_the_redact_command_takes_a_held_key_out_of_a_step(tmp_path) -> None:
    db = imported(
        tmp_path,
        "held",
        [{"action": "key", "text": "n", "duration": 0.8}, {"action": "key", "text": "Return"}],
    )
    done = deskreel("redact", db, "-r", "1", "--step", "1", "--step", "2")
    assert done.returncode == 0, done.stderr
    shown = deskreel("show", db, "-r", "1")
    assert shown.returncode == 0, shown.stderr
    with sqlite3.connect(db) as conn:
        bodies = [body for (body,) in conn.execute("SELECT body FROM actions ORDER BY step")]
    assert '"n"' not in "".join(bodies) and "{{secret:1}}" in bodies[0], bodies
    assert "Return" in bodies[1]  # no character: a key, as recorded
    assert not re.search(r"text=n\b", shown.stdout) and "secret:1" in shown.stdout, shown.stdout


def _victim(tmp_path: Path) -> tuple[Path, int, list[str]]:
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o755)
    victim.chmod(0o755)
    (victim / "theirs.txt").write_text("someone else's")
    return victim, stat.S_IMODE(victim.stat().st_mode), sorted(os.listdir(victim))


@pytest.mark.parametrize("link", ["img", "crops", "."])
def test_a_report_follows_no_link_in_its_folder(tmp_path: Path, link: str) -> None:
    db = tmp_path / "r.db"
    build_recording(db)
    victim, mode, names = _victim(tmp_path)
    trap = tmp_path / "trap"
    if link == ".":
        trap.symlink_to(victim)
    else:
        trap.mkdir()
        (trap / link).symlink_to(victim)
    done = deskreel("report", db, "--out", trap)
    assert done.returncode == 2, done.stderr
    assert "symbolic link" in done.stderr and "Traceback" not in done.stderr
    assert stat.S_IMODE(victim.stat().st_mode) == mode and sorted(os.listdir(victim)) == names


def test_a_private_folder_replaces_a_planted_link_and_refuses_a_linked_folder(
    tmp_path: Path,
) -> None:
    victim, mode, names = _victim(tmp_path)
    mine = tmp_path / "report" / "crops"
    with PrivateFolder(mine, own=False) as folder:
        (mine / "step0001-anchor.png").symlink_to(victim / "theirs.txt")
        written = folder.write("step0001-anchor.png", b"png")
    assert not written.is_symlink() and written.read_bytes() == b"png"
    assert (victim / "theirs.txt").read_text() == "someone else's"
    assert stat.S_IMODE(mine.stat().st_mode) == 0o700
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    linked = tmp_path / "linked"
    linked.symlink_to(victim)
    with pytest.raises(LinkedPath):
        PrivateFolder(linked, own=False)
    assert stat.S_IMODE(victim.stat().st_mode) == mode and sorted(os.listdir(victim)) == names


def _script(tmp_path: Path) -> Path:
    script = tmp_path / "s.json"
    script.write_text('[{"action": "key", "text": "Return"}]')
    return script


@pytest.mark.parametrize("how", ["url", "empty file"])
def test_every_database_deskreel_creates_is_private(tmp_path: Path, how: str) -> None:
    db = tmp_path / "new.db"
    target: object = f"sqlite:///{db}" if how == "url" else db
    if how == "empty file":
        db.write_bytes(b"")
        db.chmod(0o644)
    done = deskreel("import", _script(tmp_path), target)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    with sqlite3.connect(db) as conn:  # the URL's file has deskreel's pragmas (WAL)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_dangling_link_is_refused_not_created_through(tmp_path: Path) -> None:
    link, target = tmp_path / "link.db", tmp_path / "elsewhere.db"
    link.symlink_to(target)
    done = deskreel("import", _script(tmp_path), link)
    assert done.returncode == 2 and "symbolic link" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not target.exists()


OSC52 = "\x1b]52;c;aGVsbG8=\x07"  # writes "hello" to the clipboard of the terminal showing it


def test_nothing_a_recording_or_a_server_wrote_reaches_the_terminal_raw(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"action": "type", "text": f"a{OSC52}b\u202e"}]))
    db = tmp_path / "r.db"
    done = deskreel("import", script, db, "--name", f"n{OSC52}")
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET window_title = ?", (f"t{OSC52}",))
    printed = [deskreel("list", db), deskreel("show", db)]
    printed.append(deskreel("list", f"postgresql://u@127.0.0.1:1/d{OSC52}"))
    assert printed[-1].returncode == 2
    for done in printed:
        out = done.stdout + done.stderr
        assert not any(c in out for c in "\x1b\x07\u202e"), out
    assert "\\x1b]52" in printed[1].stdout  # shown, escaped


def test_a_foreign_sqlite_file_is_refused_unchanged(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.close()
    before = foreign.read_bytes()
    done = deskreel("list", foreign)
    assert done.returncode == 2 and "not a deskreel database" in done.stderr, done.stderr
    assert foreign.read_bytes() == before  # still in its own journal mode, byte for byte
    assert not (tmp_path / "foreign.db-wal").exists()

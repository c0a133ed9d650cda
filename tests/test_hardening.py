"""Issue 21: the defects a hostile user, a bad file or a full disk found, each held by a test
that failed before its fix. Without X: every command here works on files alone."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from deskreel.recorder.privacy import Redactor
from deskreel.storage import open_store
from deskreel.storage.keys import types_character
from deskreel.storage.script import MAX_SCRIPT_BYTES
from deskreel.storage.vocabulary import Action
from tests.commands import deskreel, imported
from tests.fixture_recording import build_recording
from deskreel.xsession.files import LinkedPath, PrivateFolder


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
    done = deskreel("import", script, db)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:  # as a shared store may hold them: the door is elsewhere
        conn.execute("UPDATE actions SET window_title = ?", (f"t{OSC52}",))
        conn.execute("UPDATE recordings SET name = ?", (f"n{OSC52}",))
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


HUGE = "1" + "0" * 400


@pytest.mark.parametrize(
    ("script", "said"),
    [
        (f'[{{"action": "wait", "duration": {HUGE}}}]', "401 digits"),
        (f'[{{"action": "key", "text": "a", "t": {HUGE}}}]', "401 digits"),
        ('[{"action": "wait", "duration": ' + "7" * 5000 + "}]", "5000 digits"),
        ('[{"action": "key", "text": "a", "t": 1e300}]', "at most 604800, got 1e+300"),
        ('[{"action": "type", "text": "a\\ud800"}]', "half of a character"),
        ('[{"action": "type", "text": "\\udc00b"}]', "half of a character"),
    ],
)
def test_a_hostile_script_gets_one_line_and_leaves_no_database(
    tmp_path: Path, script: str, said: str
) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(script)
    db = tmp_path / "r.db"
    done = deskreel("import", path, db)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not db.exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--insert-after", "1", f'{{"action": "wait", "duration": {HUGE}}}'), "401 digits"),
        (("--insert-after", "1", '{"action": "type", "text": "\\ud800"}'), "half of a character"),
        (("--insert-after", "1", "[" * 5000 + "]" * 5000), "nested too deeply"),
        (("--rename", "a\udcff"), "not UTF-8 text"),
        (("--rename", "a\x1b[2Jb"), "control characters"),
        (("--rename", "x" * 201), "at most 200 characters"),
    ],
)
def test_a_hostile_edit_gets_one_line_and_changes_nothing(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    db = imported(tmp_path, "kept", [{"action": "key", "text": "Return"}])
    before = db.read_bytes()
    done = deskreel("edit", db, "-r", "1", *args)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and db.read_bytes() == before


@pytest.mark.parametrize("name", ["a\udcff", "two\nlines", "x" * 201, "  "])
def test_a_bad_name_is_refused_before_anything_is_created(tmp_path: Path, name: str) -> None:
    db = tmp_path / "r.db"
    done = deskreel("import", _script(tmp_path), db, "--name", name)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert not db.exists()


def test_a_pull_of_nothing_leaves_no_new_database(tmp_path: Path) -> None:
    shared = imported(tmp_path, "shared", [{"action": "key", "text": "Return"}])
    db = tmp_path / "offline.db"
    done = deskreel("pull", f"sqlite:///{shared}", db, "-r", "nosuch")
    assert done.returncode == 2 and "no recording 'nosuch'" in done.stderr, done.stderr
    assert not db.exists() and not (tmp_path / "offline.db-wal").exists()


def test_import_refuses_a_fifo_and_a_huge_script_and_reads_a_bom(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    done = deskreel("import", fifo, tmp_path / "f.db", timeout=20)  # no writer: never blocks
    assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr
    huge = tmp_path / "huge.json"
    with huge.open("wb") as f:
        f.truncate(MAX_SCRIPT_BYTES + 1)
    done = deskreel("import", huge, tmp_path / "h.db")
    assert done.returncode == 2 and "over 64 MB" in done.stderr, done.stderr
    bom = tmp_path / "bom.json"
    bom.write_bytes(b'\xef\xbb\xbf[{"action": "key", "text": "Return"}]')
    done = deskreel("import", bom, tmp_path / "b.db")
    assert done.returncode == 0, done.stderr
    assert not any((tmp_path / n).exists() for n in ("f.db", "h.db"))


def test_no_export_or_junit_overwrites_a_file_deskreel_did_not_write(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    fixture = build_recording(db)
    with open_store(db) as store:
        run = store.start_run(fixture.recording_id, mode="replay", options={})
        store.finish_run(run, "passed")
    lines, junit = tmp_path / "mine.jsonl", tmp_path / "mine.xml"
    for mine, args in (
        (lines, ("export", db, "--format", "actions", "--out", lines)),
        (junit, ("report", db, "--last-run", "--out", tmp_path / "rep", "--junit", junit)),
    ):
        mine.write_text("precious")
        done = deskreel(*args)
        assert done.returncode == 2 and "add --force" in done.stderr, done.stderr
        assert mine.read_text() == "precious"
        again = deskreel(*args[:1], *args[1:], "--force")
        assert again.returncode == 0, again.stderr
        assert deskreel(*args).returncode == 0  # its own file: replaced without --force


def test_export_all_keeps_a_long_name_whole_in_its_lines(tmp_path: Path) -> None:
    db = imported(tmp_path, "long", [{"action": "key", "text": "Return"}])
    done = deskreel("edit", db, "-r", "1", "--rename", "録" * 200)  # 600 bytes in UTF-8
    assert done.returncode == 0, done.stderr
    out = tmp_path / "dataset"
    done = deskreel("export", db, "--all", "--format", "actions", "--out", out)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "frames", "metadata.jsonl"]
    (line,) = [json.loads(x) for x in (out / "metadata.jsonl").read_text().splitlines()]
    assert line["recording"] == "録" * 200


@pytest.fixture
def read_only_copy(tmp_path: Path) -> Iterator[Path]:
    """A deskreel database on a file system mounted read-only (a bind mount of its folder)."""
    source, mounted = tmp_path / "source", tmp_path / "mounted"
    source.mkdir()
    mounted.mkdir()
    imported(source, "kept", [{"action": "key", "text": "Return"}])
    bind = subprocess.run(["mount", "--bind", source, mounted], capture_output=True, text=True)
    if bind.returncode != 0:
        pytest.skip(f"cannot bind-mount here (root with CAP_SYS_ADMIN needed): {bind.stderr}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", mounted], check=True)
        yield mounted / "kept.db"
    finally:
        subprocess.run(["umount", mounted], check=True)


def test_a_database_on_a_read_only_medium_is_read_and_not_written(
    read_only_copy: Path, tmp_path: Path
) -> None:
    for args in (
        ("list", read_only_copy),
        ("show", read_only_copy),
        ("export", read_only_copy, "--format", "actions", "--out", tmp_path / "x.jsonl"),
        ("report", read_only_copy, "--out", tmp_path / "report"),
        ("doctor", read_only_copy),
    ):
        done = deskreel(*args)
        assert done.returncode == 0, (args, done.stderr)
        # a command that only reads never writes: it reads here as anywhere, saying nothing
        assert "read-only" not in done.stderr and "backup" not in done.stderr
    done = deskreel("edit", read_only_copy, "-r", "1", "--rename", "other")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "backup" not in done.stderr and "read-only" in done.stderr, done.stderr


def test_a_full_disk_leaves_no_new_database_and_no_advice_to_restore(tmp_path: Path) -> None:
    full = tmp_path / "full"
    full.mkdir()
    small = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=40k", "tmpfs", full], capture_output=True, text=True
    )
    if small.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (root needed): {small.stderr}")
    try:
        done = deskreel("import", _script(tmp_path), full / "r.db")
        assert done.returncode == 2 and "free some space" in done.stderr, done.stderr
        assert "backup" not in done.stderr and os.listdir(full) == []
    finally:
        subprocess.run(["umount", full], check=True)


def test_a_fifo_or_an_empty_file_is_no_database_to_take_over(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.db"
    os.mkfifo(fifo)
    fifo.chmod(0o666)
    done = deskreel("import", _script(tmp_path), fifo, timeout=20)
    assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr
    assert stat.S_IMODE(fifo.stat().st_mode) == 0o666  # left as it was
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for command in ("list", "doctor"):  # commands that create nothing
        done = deskreel(command, empty)
        assert done.returncode == 2 and "is empty" in done.stderr, done.stderr
        assert empty.read_bytes() == b""


def test_a_pull_that_copied_some_keeps_them(tmp_path: Path) -> None:
    shared = imported(tmp_path, "shared", [{"action": "key", "text": "Return"}])
    db = tmp_path / "offline.db"
    done = deskreel("pull", f"sqlite:///{shared}", db, "-r", "1", "-r", "nosuch")
    assert done.returncode == 2 and "pulled recording 1" in done.stderr, done.stderr
    assert "shared" in deskreel("list", db).stdout


def test_an_own_looking_script_is_not_replaced_and_stdout_is_escaped(tmp_path: Path) -> None:
    db = imported(tmp_path, "odd", [{"action": "type", "text": "a\x9b[2J\u202eb"}])
    mine = tmp_path / "mine.jsonl"
    mine.write_text('// notes\n[{"step": 1, "action": "key", "text": "Return"}]\n')
    done = deskreel("export", db, "--format", "actions", "--out", mine)
    assert done.returncode == 2 and "add --force" in done.stderr, done.stderr
    printed = deskreel("export", db, "--format", "actions").stdout
    assert "\x9b" not in printed and "\u202e" not in printed
    assert json.loads(printed)["text"] == "a\x9b[2J\u202eb"  # the same JSON, escaped


def test_a_missing_cookie_file_means_no_cookie(xvfb, tmp_path: Path) -> None:
    """python-xlib refuses to connect without ~/.Xauthority; X's own clients connect to a
    server that asks for no cookie (Xvfb without -auth), and so does deskreel."""
    env = {**os.environ, "HOME": str(tmp_path), "DISPLAY": xvfb.display}
    env.pop("XAUTHORITY", None)
    done = deskreel("doctor", env=env)
    assert done.stderr == "" and done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"display {xvfb.display}: RECORD and XTEST present\n")

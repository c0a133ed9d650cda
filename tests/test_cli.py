"""The command line: import/export round trip, tables, exit codes, no display needed."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deskreel.cli import run

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def deskreel(*args):
    return run([str(a) for a in args])


def test_import_export_round_trip(tmp_path, capsys):
    db = tmp_path / "rec.db"
    script = SAMPLES / "scripts" / "every-action.json"
    assert deskreel("import", script, db, "--name", "first") == 0
    capsys.readouterr()
    assert deskreel("export", db, "-r", "first") == 0
    exported = capsys.readouterr().out
    lines = [json.loads(line) for line in exported.splitlines()]
    original = json.loads(script.read_text())
    assert [{k: v for k, v in line.items() if k not in ("step", "t")} for line in lines] == [
        {k: v for k, v in obj.items()} for obj in _canonical(original)
    ]
    assert [line["step"] for line in lines] == list(range(1, len(original) + 1))

    again = tmp_path / "again.jsonl"
    again.write_text(exported)
    assert deskreel("import", again, db, "--name", "second") == 0
    capsys.readouterr()
    assert deskreel("export", db, "-r", "second") == 0
    assert capsys.readouterr().out == exported


def test_recorded_waits_round_trip(tmp_path, capsys):
    """A recorded wait is rounded to the millisecond, so the step after it may start a hair
    before the previous step's t plus the wait: the export still imports, unchanged."""
    script = tmp_path / "recorded.jsonl"
    script.write_text(
        '{"step": 1, "t": 1.0, "action": "key", "text": "a"}\n'
        '{"step": 2, "t": 1.0, "action": "wait", "duration": 2.001}\n'
        '{"step": 3, "t": 3.0006, "action": "key", "text": "b"}\n'
    )
    db = tmp_path / "rec.db"
    assert deskreel("import", script, db) == 0
    capsys.readouterr()
    assert deskreel("export", db) == 0
    assert capsys.readouterr().out == script.read_text()


def _canonical(objects):
    from deskreel.storage import Action

    return [Action.from_json(o).to_json() for o in objects]


def test_list_and_show(tmp_path, capsys):
    db = tmp_path / "rec.db"
    deskreel("import", SAMPLES / "scripts" / "every-action.json", db)
    capsys.readouterr()
    assert deskreel("list", db) == 0
    out = capsys.readouterr().out
    assert "every-action" in out and "script" in out
    assert deskreel("show", db) == 0
    out = capsys.readouterr().out
    assert "left_click_drag" in out and "start_coordinate=[" in out


@pytest.mark.parametrize(
    "content,message",
    [
        (
            '[{"action": "left_click", "coordinate": [12]}]',
            "step 1 (left_click): coordinate must be two integers, got [12]",
        ),
        ('{"action": "key", "text": "a"}\n{"action": "fly"}\n', "step 2: unknown action 'fly'"),
        ('[{"action": "key", "text": "ctrl+Retrun"}]', "'Retrun' is not an X key name"),
        ('[{"action": "key", "text": "a"', "not valid JSON"),
        ('{"action": "key"\n', "line 1 is not valid JSON"),
        ("[]", "holds no actions"),
        ('[{"action": "key", "text": "a", "t": Infinity}]', "step 1 (key): t must be finite"),
        ('[{"action": "key", "text": "a", "t": NaN}]', "step 1 (key): t must be finite"),
        (
            '[{"action": "key", "text": "a", "t": 2}, {"action": "key", "text": "b", "t": 1}]',
            "step 2 (key): t must be finite seconds, not before the previous step's and at most "
            "604800, got 1",
        ),
        ('[{"action": "key", "text": "a", "step": "x"}]', "step 1 (key): step must be a whole"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_bad_scripts_write_nothing(tmp_path, capsys, content, message):
    db = tmp_path / "rec.db"
    deskreel("import", SAMPLES / "scripts" / "every-action.json", db, "--name", "kept")
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    capsys.readouterr()
    assert deskreel("import", bad, db) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert deskreel("list", db) == 0
    assert "bad" not in capsys.readouterr().out


def test_user_errors_are_one_line(tmp_path, capsys):
    notdb = tmp_path / "notes.txt"
    notdb.write_text("not a database")
    cases = [
        (["list", notdb], "not a deskreel database"),
        (["show", tmp_path / "rec.db", "-r", "nope"], "does not exist"),
        (["import", tmp_path / "missing.json", tmp_path / "rec.db"], "cannot read script"),
        (["export", tmp_path / "rec.db", "--format", "klingon"], "Invalid value"),
        (["frobnicate"], "No such command"),
    ]
    for args, message in cases:
        assert deskreel(*args) == 2, args
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err


def test_duplicate_name_is_refused(tmp_path, capsys):
    db = tmp_path / "rec.db"
    script = SAMPLES / "scripts" / "every-action.json"
    assert deskreel("import", script, db) == 0
    assert deskreel("import", script, db) == 2
    assert "already holds a recording named 'every-action'" in capsys.readouterr().err


def test_help_and_import_work_without_a_display(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    exe = Path(sys.executable).with_name("deskreel")
    done = subprocess.run([str(exe), "--help"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "Record and replay" in done.stdout
    code = (
        "import sys, deskreel, storage, deskreel.cli\n"
        "assert 'pynput' not in sys.modules and 'cv2' not in sys.modules\n"
        "assert 'Xlib.display' not in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_a_bad_abort_key_names_the_option(tmp_path, capsys):
    db = tmp_path / "rec.db"
    deskreel("import", SAMPLES / "scripts" / "every-action.json", db)
    capsys.readouterr()
    assert deskreel("replay", db, "--abort-key", "ctrl+Retrun") == 2
    err = capsys.readouterr().err
    assert err.strip() == "deskreel: --abort-key: 'Retrun' is not an X key name"

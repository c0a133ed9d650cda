"""Task instructions and step notes: set by `record` and `edit`, shown, exported and
imported back; `import --screen` and the screen an `actions` export carries."""

from __future__ import annotations

import json

import pytest

from deskreel.cli import run
from deskreel.storage import open_store
from tests.fixture_recording import SCREEN, build_recording

INSTRUCTION = 'Save the letter as "draft 2"\nthen close it'


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


@pytest.fixture
def fixture(tmp_path):
    return build_recording(tmp_path / "rec.db")


def header(db, ref):
    with open_store(db) as store:
        rec = store.recording(ref)
        return rec, {st.step: st.note for st in store.steps(rec.id) if st.note is not None}


def test_edit_sets_and_removes_instruction_and_notes(fixture, capsys):
    assert (
        deskreel(
            "edit",
            fixture.db,
            "-r",
            fixture.name,
            "--instruction",
            INSTRUCTION,
            "--note",
            "2",
            "the Save button, not Save As",
            "--note",
            "5",
            "ctrl+s saves",
        )  # fmt: skip
        == 0
    )
    assert "2 noted, instruction set" in capsys.readouterr().err
    rec, notes = header(fixture.db, fixture.name)
    assert rec.instruction == INSTRUCTION
    assert notes == {2: "the Save button, not Save As", 5: "ctrl+s saves"}
    assert deskreel("show", fixture.db) == 0
    shown = capsys.readouterr().out
    assert "instruction: " in shown and "note=the Save button" in shown
    # notes follow their steps through a drop; "" removes
    assert deskreel("edit", fixture.db, "-r", fixture.name, "--drop", "1", "--note", "5", "") == 0
    rec, notes = header(fixture.db, fixture.name)
    assert notes == {1: "the Save button, not Save As"}
    assert deskreel("edit", fixture.db, "-r", fixture.name, "--instruction", "") == 0
    assert "instruction removed" in capsys.readouterr().err
    assert header(fixture.db, fixture.name)[0].instruction is None


@pytest.mark.parametrize(
    "args,message",
    [
        (("--note", "99", "x"), "has no step 99"),
        (("--note", "x", "y"), "--note 'x': not a step number"),
        (("--note", "0", "y"), "--note '0': not a step number"),
        (("--drop", "2", "--note", "2", "y"), "cannot be both dropped and noted"),
        (("--trim-start", "1", "--note", "1", "y"), "step 1 cannot be both trimmed and noted"),
        (("--note", "2", "a", "--note", "2", "b"), "step 2 is given two notes"),
        (("--instruction", "a\x1b[2Jb"), "holds control characters"),
        (("--instruction", "x" * 20_001), "at most 20000"),
    ],
)
def test_bad_instructions_and_notes_are_one_line(fixture, capsys, args, message):
    before = header(fixture.db, fixture.name)
    assert deskreel("edit", fixture.db, "-r", fixture.name, *args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert header(fixture.db, fixture.name) == before


def test_instruction_notes_and_screen_round_trip_through_export_and_import(
    fixture, tmp_path, capsys
):
    assert (
        deskreel(
            "edit",
            fixture.db,
            "-r",
            fixture.name,
            "--instruction",
            INSTRUCTION,
            "--note",
            "3",
            "type the greeting ✓\u2028second line",
        )  # fmt: skip
        == 0
    )
    out = tmp_path / "steps.jsonl"
    assert deskreel("export", fixture.db, "-r", fixture.name, "--out", out) == 0
    lines = [json.loads(line) for line in out.read_text().split("\n") if line]  # not at U+2028
    assert all(line["instruction"] == INSTRUCTION for line in lines)
    assert all(line["screen"] == list(SCREEN) for line in lines)
    assert [x.get("note") for x in lines if "note" in x] == ["type the greeting ✓\u2028second line"]
    again = tmp_path / "again.db"
    assert deskreel("import", out, again, "--name", "back") == 0
    assert f"({SCREEN[0]}x{SCREEN[1]})" in capsys.readouterr().err
    original, notes = header(fixture.db, fixture.name)
    back, back_notes = header(again, "back")
    assert back.instruction == INSTRUCTION and back.screen == SCREEN
    with open_store(fixture.db) as a, open_store(again) as b:
        enabled = [st for st in a.steps(original.id) if not st.disabled]
        assert [(st.action, st.note) for st in enabled] == [
            (st.action, st.note) for st in b.steps(back.id)
        ]
    # and again, unchanged: the export of the import is the export
    second = tmp_path / "second.jsonl"
    assert deskreel("export", again, "--out", second) == 0
    assert [{**json.loads(x), "t": 0} for x in second.read_text().split("\n") if x] == [
        {**x, "t": 0, "step": n} for n, x in enumerate(lines, start=1)
    ]


def test_import_screen_gives_a_script_its_screen(tmp_path, capsys):
    script = tmp_path / "clicks.json"
    script.write_text(json.dumps([{"action": "left_click", "coordinate": [1270, 790]}]))
    assert deskreel("import", script, tmp_path / "a.db", "--screen", "1280x800") == 0
    assert header(tmp_path / "a.db", "clicks")[0].screen == (1280, 800)
    assert deskreel("import", script, tmp_path / "b.db", "--screen", "1024x768") == 2
    err = capsys.readouterr().err
    assert "step 1: its coordinate [1270, 790] is off the 1024x768 screen" in err
    assert not (tmp_path / "b.db").exists()  # nothing left behind


@pytest.mark.parametrize(
    "lines,args,message",
    [
        (
            [{"action": "wait", "duration": 1, "screen": [800, 600]}],
            ("--screen", "1280x800"),
            "says its screen is 800x600, --screen says 1280x800",
        ),
        (
            [
                {"action": "wait", "duration": 1, "screen": [800, 600]},
                {"action": "wait", "duration": 1, "screen": [640, 480]},
            ],
            (),
            "step 2: its screen differs from an earlier line's",
        ),
        (
            [
                {"action": "wait", "duration": 1, "instruction": "a"},
                {"action": "wait", "duration": 1, "instruction": "b"},
            ],
            (),
            "step 2: its instruction differs",
        ),
        ([{"action": "wait", "duration": 1, "screen": [0, 600]}], (), "screen must be"),
        ([{"action": "wait", "duration": 1, "screen": "800x600"}], (), "screen must be"),
        ([{"action": "wait", "duration": 1, "note": 3}], (), "step 1: note must be text"),
        (
            [
                {"recording": "a", "action": '[{"action": "wait", "duration": 1}]'},
                {"recording": "b", "action": '[{"action": "wait", "duration": 1}]'},
            ],
            (),
            "step 2: the lines hold more than one recording",
        ),
        (
            [{"recording": "a", "action": '[{"action": "wait", "duration": 1}]', "image": "x"}],
            (),
            "a dataset line has no field 'image'",
        ),
        (
            [{"recording": "a", "action": None, "unexpressed": "no"}],
            (),
            "the line's action is null (no)",
        ),
        ([{"action": "wait", "duration": 1, "note": "\x07"}], (), "control characters"),
    ],
)
def test_bad_script_headers_are_one_line(tmp_path, capsys, lines, args, message):
    script = tmp_path / "s.jsonl"
    script.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert deskreel("import", script, tmp_path / "x.db", *args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_a_bad_screen_option_is_a_usage_error(tmp_path, capsys):
    script = tmp_path / "s.json"
    script.write_text('[{"action": "wait", "duration": 1}]')
    assert deskreel("import", script, tmp_path / "x.db", "--screen", "12x") == 2
    assert "write WIDTHxHEIGHT" in capsys.readouterr().err


def test_an_actions_dataset_without_a_screen_imports_without_one(tmp_path):
    script = tmp_path / "s.json"
    script.write_text('[{"action": "left_click", "coordinate": [5, 5]}]')
    assert deskreel("import", script, tmp_path / "a.db") == 0
    assert (
        deskreel("export", tmp_path / "a.db", "--format", "actions", "--out", tmp_path / "d") == 0
    )
    (line,) = (tmp_path / "d" / "metadata.jsonl").read_text().splitlines()
    assert json.loads(line)["screen"] == []
    assert deskreel("import", tmp_path / "d" / "metadata.jsonl", tmp_path / "b.db") == 0
    assert header(tmp_path / "b.db", "s")[0].screen is None  # named as its lines say

"""Issue 21: the commands that take files and names, driven with generated hostile input:
huge and odd numbers, odd Unicode (lone surrogates, controls, reordering marks), deep
nesting, odd paths. Each exits 0 or 2 in one line, never with a traceback, and a refusal
(exit 2) leaves the database byte for byte as it was. Run in-process (deskreel.cli.run),
where an escaping exception is the traceback a user would see."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deskreel.cli import run
from tests.commands import imported

ODD = ["\x00", "\x1b]52;c;aGk=\x07", "\ud800", "\udcff", "\u202e", "\n", "..", "%s", "'", "\\"]
odd_text = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(ODD), min_size=1, max_size=4).map("".join),
    st.text(st.characters(min_codepoint=0, max_codepoint=0x20), max_size=10),
    st.just("x" * 300),
)
numbers = st.one_of(
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=False, allow_infinity=False),
    st.just(-0.0),
)
values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers, odd_text),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(odd_text, inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = ["action", "text", "coordinate", "duration", "t", "scroll_amount", "region", "step"]
ACTIONS = ["key", "type", "left_click", "wait", "scroll", "left_click_drag", "screenshot"]
actions = st.fixed_dictionaries(
    {"action": st.one_of(st.sampled_from(ACTIONS), odd_text)},
    optional={name: values for name in FIELDS[1:]},
)
scripts = st.one_of(
    st.lists(actions, max_size=4).map(json.dumps),
    st.lists(actions, min_size=1, max_size=3).map(lambda a: "\n".join(map(json.dumps, a))),
    st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n),
    st.binary(max_size=64).map(lambda b: b.decode("latin-1")),
)
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _deskreel(*args: Any) -> tuple[int, str]:
    """`deskreel ARGS` in this process: its exit code and what it printed on stderr. An
    exception escaping it fails the test: a user would have seen a traceback."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = run([str(a) if isinstance(a, Path) else a for a in args])
    return code, err.getvalue()


def _kept(tmp_path: Path) -> Path:
    db = tmp_path / "kept.db"
    if not db.exists():
        made = imported(tmp_path, "kept", [{"action": "key", "text": "Return"}])
        shutil.move(made, db)
    return db


def _refused_cleanly(code: int, said: str, db: Path, before: bytes) -> None:
    assert code in (0, 2), (code, said)
    if code == 2:
        # one line, or click's usage lines ending in the one that says what is wrong
        lines = said.strip().splitlines()
        assert len(lines) == 1 or lines[0].startswith("Usage:"), said
        assert db.read_bytes() == before


@FUZZ
@given(script=scripts, name=st.one_of(st.none(), odd_text))
def test_import_takes_any_script_and_name(tmp_path: Path, script: str, name: str | None) -> None:
    db = _kept(tmp_path)
    path = tmp_path / "script.json"
    path.write_text(script, encoding="utf-8", errors="surrogateescape")
    before = db.read_bytes()
    code, said = _deskreel("import", path, db, *(["--name", name] if name is not None else []))
    _refused_cleanly(code, said, db, before)


@FUZZ
@given(inserted=st.one_of(actions.map(json.dumps), odd_text), rename=st.one_of(st.none(), odd_text))
def test_edit_takes_any_inserted_action_and_name(
    tmp_path: Path, inserted: str, rename: str | None
) -> None:
    db = _kept(tmp_path)
    before = db.read_bytes()
    args = ["edit", db, "-r", "kept", "--copy-to", "copy", "--insert-after", "1", inserted]
    code, said = _deskreel(*args, *(["--rename", rename] if rename is not None else []))
    _refused_cleanly(code, said, db, before)


@FUZZ
@given(box=st.one_of(odd_text, st.lists(numbers, max_size=5).map(lambda v: ",".join(map(str, v)))))
def test_mask_takes_any_box(tmp_path: Path, box: str) -> None:
    db = _kept(tmp_path)
    before = db.read_bytes()
    code, said = _deskreel("mask", db, "-r", "kept", "--step", "1", box)
    _refused_cleanly(code, said, db, before)


@FUZZ
@given(
    name=odd_text,
    command=st.sampled_from(["export", "report"]),
    linked=st.sampled_from([None, "out", "img"]),
)
def test_export_and_report_take_any_output_name(
    tmp_path: Path, name: str, command: str, linked: str | None
) -> None:
    db = _kept(tmp_path)
    before = db.read_bytes()
    out = tmp_path / "outputs" / name.replace("/", "_")
    out.parent.mkdir(exist_ok=True)
    victim = tmp_path / "victim"
    victim.mkdir(exist_ok=True)
    if linked is not None and not os.path.lexists(out):
        with contextlib.suppress(OSError, ValueError):  # a name no file system takes
            if linked == "out":
                out.symlink_to(victim)
            else:
                out.mkdir()
                (out / "img").symlink_to(victim)
    args = (
        ["export", db, "--format", "actions", "--out"]
        if command == "export"
        else ["report", db, "--out"]
    )
    code, said = _deskreel(*args, out)
    assert code in (0, 2), (code, said)
    assert db.read_bytes() == before  # exports and reports never write the database
    assert list(victim.iterdir()) == []  # nothing written through a link

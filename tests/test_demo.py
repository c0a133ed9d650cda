"""`make demo`: the committed sample recording replays with --verify against the sample app,
moved and shifted, on the demo's own Xvfb, and the committed file stays as it was."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from deskreel import demo

# Skipped without Xvfb, except in CI (DESKREEL_REQUIRE_X), where it must run.
needs_xvfb = pytest.mark.skipif(
    shutil.which("Xvfb") is None and not os.environ.get("DESKREEL_REQUIRE_X"),
    reason="Xvfb is not installed (apt-get install xvfb)",
)


@needs_xvfb
def test_demo_verifies_the_committed_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    committed = _sha256(demo.SAMPLE)
    out = tmp_path / "demo"

    code = demo.main(["--out", str(out)])

    attempt = out / "tests" / "demo" / "attempt-1"  # as `deskreel test` lays it out
    page = attempt / "report" / "index.html"
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"deskreel demo: verdict passed (8 of 8 steps passed); report: {page}"
    )
    assert code == 0
    assert page.is_file() and (out / "index.html").is_file()
    steps = ET.parse(attempt / "junit.xml").getroot()
    assert (steps.get("tests"), steps.get("failures")) == ("8", "0")
    suite = ET.parse(out / "junit.xml").getroot()
    assert (suite.get("tests"), suite.get("failures")) == ("1", "0")
    assert (attempt / "run.db").stat().st_mode & 0o777 == 0o600
    assert _sha256(demo.SAMPLE) == committed
    # what the replayed session did to the app, independently of the screens compared
    events = [json.loads(line) for line in (attempt / "app.jsonl").read_text().splitlines()]
    assert [
        (e["event"], e["widget"])
        for e in events
        if e["event"] in ("click", "double_click", "drag_end")
    ] == [
        ("click", "button:Open"),
        ("click", "button:OK"),
        ("double_click", "label:double"),
        ("drag_end", "canvas"),
        ("click", "button:Save"),
    ]
    assert [e["value"] for e in events if e["event"] == "text_changed"][-1] == "Hello from deskreel"


def test_demo_without_its_sample_says_how_to_make_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.db"

    code = demo.main(["--out", str(tmp_path / "demo"), "--sample", str(missing)])

    assert code == 2
    assert capsys.readouterr().err == (
        f"deskreel demo: the sample recording {missing} is missing: `make samples` records it\n"
    )
    assert not (tmp_path / "demo").exists()


def test_demo_never_clears_a_folder_it_did_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "notes.txt"
    kept.write_text("mine")

    assert demo.main(["--out", str(tmp_path)]) == 2
    assert "holds no deskreel test report" in capsys.readouterr().err
    assert kept.read_text() == "mine"


def test_every_committed_sample_database_is_at_the_current_schema() -> None:
    """A sample someone copies must open in every deskreel of today, and be read as it is
    committed: an older one is upgraded by each write, leaving `git status` dirty."""
    from deskreel.storage import SCHEMA_VERSION

    samples = sorted((demo.ROOT / "samples").rglob("*.db"))
    assert demo.SAMPLE in samples
    for sample in samples:
        # immutable: what a fresh clone holds (no write-ahead log), and nothing left beside it
        with sqlite3.connect(f"{sample.as_uri()}?immutable=1", uri=True) as conn:
            [(version,)] = conn.execute(
                "SELECT value FROM deskreel_meta WHERE key = 'schema_version'"
            ).fetchall()
            [(revision,)] = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        conn.close()
        assert (int(version), revision) == (SCHEMA_VERSION, f"{SCHEMA_VERSION:04d}"), (
            f"{sample.relative_to(demo.ROOT)} is at schema {version}, this deskreel at "
            f"{SCHEMA_VERSION}: run 'deskreel doctor --upgrade --no-backup' on it and commit it"
        )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()

"""`deskreel test`: suites of recordings against the sample app on private Xvfbs, in
parallel, with retries, shards, one report, and nothing left running afterwards."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.commands import deskreel

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "samples" / "app.py"
SAMPLE = ROOT / "samples" / "demo.db"
NAMES = ("demo", "demo-2", "demo-3", "demo-4")


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database holding the sample recording four times, as demo .. demo-4."""
    db = tmp_path_factory.mktemp("suite") / "four.db"
    with sqlite3.connect(f"{SAMPLE.as_uri()}?mode=ro", uri=True) as src:
        dst = sqlite3.connect(db)
        src.backup(dst)
        dst.close()
    for name in NAMES[1:]:
        done = deskreel("edit", db, "-r", "demo", "--copy-to", name)
        assert done.returncode == 0, done.stderr
    return db


def suite(folder: Path, db: Path, *, app: list[str] | None = None, extra: str = "") -> Path:
    """A suite file running the recordings of `db` against the sample app."""
    command = app or [sys.executable, str(APP), "--log", "{attempt_dir}/app.jsonl"]
    command += ["--geometry", "+180+120", "--banner"]
    path = folder / "deskreel.toml"
    path.write_text(
        f"""[suite]
recordings = [{json.dumps(str(db))}]

[app]
command = {json.dumps(command)}
ready = {{ window_title = "deskreel sample", timeout = 30 }}

[verify]
max_idle = 0.5
{extra}"""
    )
    return path


def results(report: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((report / "results.json").read_text())
    return data


def alive(pattern: str) -> set[int]:
    """The processes whose command line holds `pattern`."""
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if pattern in argv:
            found.add(int(proc.name))
    return found


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid`."""
    out = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if f"\nPPid:\t{pid}\n" in text:
            out.add(int(status.parent.name))
    return out


def left_behind(
    folder: Path, displays: set[str] | None = None, pids: frozenset[int] = frozenset()
) -> set[int]:
    """Processes of this test still running: any whose command line names its folder
    (applications, replays), the X servers of `displays`, and `pids`."""
    time.sleep(0.3)  # the last ones are being reaped
    found = alive(str(folder)) | {p for p in pids if Path(f"/proc/{p}").exists()}
    for display in displays or ():
        found |= alive(f"Xvfb {display} ")
    return found


def test_four_recordings_on_two_workers_at_once(four: Path, tmp_path: Path) -> None:
    report = tmp_path / "report"
    done = deskreel("test", suite(tmp_path, four), "--workers", "2", "--report", report)
    assert done.returncode == 0, done.stdout + done.stderr
    data = results(report)
    assert sorted(t["name"] for t in data["tests"]) == sorted(NAMES)
    assert all(t["verdict"] == "passed" for t in data["tests"])
    attempts = [t["attempts"][0] for t in data["tests"]]
    displays = {a["display"] for a in attempts}
    assert len(displays) == 2  # each worker its own X server
    spans = sorted((a["started"], a["ended"], a["display"]) for a in attempts)
    assert any(  # two tests on different displays ran at the same time
        b[0] < a[1] and a[2] != b[2] for i, a in enumerate(spans) for b in spans[i + 1 :]
    )
    for name in NAMES:  # a progress line per test
        assert f"  passed  {name}  (" in done.stdout
    assert "4 tests: 4 passed" in done.stdout
    junit = ET.parse(report / "junit.xml").getroot()
    assert (junit.get("tests"), junit.get("failures")) == ("4", "0")
    index = (report / "index.html").read_text()
    assert all(f'href="tests/{n}/attempt-1/report/index.html"' in index for n in NAMES)
    assert not left_behind(tmp_path, displays)


def test_a_failing_recording_names_its_step(four: Path, tmp_path: Path) -> None:
    """The Save button renamed Store: step 8 clicks it, and the test fails there."""
    renamed = [sys.executable, str(APP), "--log", "{attempt_dir}/app.jsonl", "--layout", "renamed"]
    extra = f"""
[[test]]
recordings = [{json.dumps(f"{four}:demo-2")}]
app = {{ command = {json.dumps(renamed)} }}
"""
    path = suite(tmp_path, four, extra=extra)
    report = tmp_path / "report"
    done = deskreel(
        "test", path, "--grep", "^demo-2$", "--report", report, "--junit", tmp_path / "j.xml"
    )
    assert done.returncode == 1, done.stdout + done.stderr
    (test,) = results(report)["tests"]
    assert test["verdict"] == "failed" and test["attempts"][0]["step"] == 8
    assert "FAILED  demo-2" in done.stdout and "step 8: " in done.stdout
    case = ET.parse(tmp_path / "j.xml").getroot().find("testcase")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None and "attempt 1: step 8: " in failure.get("message", "")
    assert (report / "tests" / "demo-2" / "attempt-1" / "report" / "index.html").is_file()


def test_a_pass_on_a_retry_is_flaky(four: Path, tmp_path: Path) -> None:
    marker = tmp_path / "started-once"
    starter = tmp_path / "start.sh"
    starter.write_text(
        f'if [ ! -e {marker} ]; then touch {marker}; exit 3; fi\nexec {sys.executable} {APP} "$@"\n'
    )
    app = ["sh", str(starter), "--log", "{attempt_dir}/app.jsonl"]
    path = suite(tmp_path, four, app=app, extra="")
    report = tmp_path / "report"
    done = deskreel("test", path, "--grep", "^demo$", "--retries", "1", "--report", report)
    assert done.returncode == 1, done.stdout + done.stderr  # flaky fails the run...
    (test,) = results(report)["tests"]
    assert test["verdict"] == "flaky"
    first, second = test["attempts"]
    assert first["verdict"] == "error" and "exited with code 3" in first["check"]
    assert second["verdict"] == "passed"
    assert "FLAKY   demo" in done.stdout
    failure = ET.parse(report / "junit.xml").getroot().find("testcase/failure")
    assert failure is not None and failure.get("type") == "flaky"
    marker.unlink()
    again = tmp_path / "again"
    done = deskreel(  # ...unless allowed
        "test", path, "--grep", "^demo$", "--retries", "1", "--report", again, "--allow-flaky"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    case = ET.parse(again / "junit.xml").getroot().find("testcase")
    assert case is not None and case.find("failure") is None
    assert case.find("flakyFailure") is not None


def test_an_app_that_hangs_at_exit_is_killed_with_its_children(four: Path, tmp_path: Path) -> None:
    starter = tmp_path / "stubborn.sh"
    starter.write_text(  # ignores SIGTERM, and leaves a child behind
        f'trap "" TERM\nsleep 1234.5 &\n{sys.executable} {APP} "$@"\n'
    )
    app = ["sh", str(starter), "--log", "{attempt_dir}/app.jsonl"]
    report = tmp_path / "report"
    began = time.monotonic()
    done = deskreel("test", suite(tmp_path, four, app=app), "--grep", "^demo$", "--report", report)
    assert done.returncode == 0, done.stdout + done.stderr
    (test,) = results(report)["tests"]
    assert test["attempts"][0]["phases"]["teardown"] >= 4  # SIGTERM was ignored, then killed
    assert time.monotonic() - began < 90
    assert not left_behind(tmp_path, {test["attempts"][0]["display"]})


def test_shards_run_every_test_once_and_merge_into_one_report(four: Path, tmp_path: Path) -> None:
    path = suite(tmp_path, four)
    reports = [tmp_path / "one", tmp_path / "two"]
    for n, report in enumerate(reports, start=1):
        done = deskreel("test", path, "--shard", f"{n}/2", "--workers", "2", "--report", report)
        assert done.returncode == 0, done.stdout + done.stderr
    ran = [t["name"] for r in reports for t in results(r)["tests"]]
    assert sorted(ran) == sorted(NAMES)  # each exactly once
    merged = tmp_path / "merged"
    done = deskreel("report", "--merge", *reports, "--out", merged)
    assert done.returncode == 0, done.stderr
    assert sorted(t["name"] for t in results(merged)["tests"]) == sorted(NAMES)
    junit = ET.parse(merged / "junit.xml").getroot()
    assert (junit.get("tests"), junit.get("failures")) == ("4", "0")
    assert all(
        (merged / "tests" / n / "attempt-1" / "report" / "index.html").is_file() for n in NAMES
    )


@pytest.mark.parametrize(
    "change,message",
    [
        (("recordings = [", "wrongkey = ["), "line 2: suite.wrongkey is not a key here"),
        (
            ("max_idle = 0.5", 'max_idle = "fast"'),
            "line 9: verify.max_idle must be seconds above 0",
        ),
        (("ready = {", 'colour = "red"\nready = {'), "line 6: app.colour is not a key here"),
        (("four.db", "none.db"), "line 2: suite.recordings names"),
        (("[suite]\nrecordings", "[suite]\nworkers = 2\n#"), "suite.recordings is missing"),
        (("command = ", "command = 3 #"), "line 5: app.command must be a command"),
    ],
)
def test_a_bad_suite_file_is_one_line(
    four: Path, tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    path = suite(tmp_path, four)
    path.write_text(path.read_text().replace(*change, 1))
    done = deskreel("test", path, "--report", tmp_path / "report")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert not (tmp_path / "report").exists()


def test_a_recording_the_database_lacks_is_named(four: Path, tmp_path: Path) -> None:
    path = suite(tmp_path, four, extra=f'\n[[test]]\nrecordings = ["{four}:nobody"]\n')
    done = deskreel("test", path)
    assert done.returncode == 2
    assert "line 12: test[1].recordings has" in done.stderr and "names no recording" in done.stderr


def test_ctrl_c_stops_every_app_and_x_server(four: Path, tmp_path: Path) -> None:
    report = tmp_path / "report"
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "test", str(suite(tmp_path, four)), "--workers", "2"]
        + ["--report", str(report)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(report.glob("tests/*/attempt-1/replay.log")):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.1)
    time.sleep(1.0)  # the replays are under way
    servers = frozenset(p for p in children(proc.pid) if p in alive("Xvfb"))
    assert len(servers) == 2
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert "interrupted" in err
    assert not left_behind(tmp_path, pids=servers)


def test_each_server_takes_only_its_own_cookie(four: Path, tmp_path: Path) -> None:
    """The setup command runs on the worker's display: xdpyinfo with the run's cookies
    connects, without them it is refused (and so are other users' clients)."""
    probe = (
        "xdpyinfo >/dev/null 2>&1 && touch {attempt_dir}/with-cookie; "
        "XAUTHORITY=/dev/null xdpyinfo >/dev/null 2>&1 && touch {attempt_dir}/without; true"
    )
    path = suite(tmp_path, four, extra="")
    text = path.read_text().replace(
        "[app]\n", f"[app]\nsetup = {json.dumps(['sh', '-c', probe])}\n"
    )
    path.write_text(text)
    report = tmp_path / "report"
    done = deskreel("test", path, "--grep", "^demo$", "--report", report)
    assert done.returncode == 0, done.stdout + done.stderr
    attempt = report / "tests" / "demo" / "attempt-1"
    assert (attempt / "with-cookie").exists() and not (attempt / "without").exists()


def test_update_masks_accepts_a_changed_screen_and_nothing_else(tmp_path: Path) -> None:
    """The OK button's status text changed today: --update-masks masks that region in the
    suite's database, and the next run passes; a recording whose target is gone is not
    masked."""
    db = tmp_path / "mine.db"
    with sqlite3.connect(f"{SAMPLE.as_uri()}?mode=ro", uri=True) as src:
        dst = sqlite3.connect(db)
        src.backup(dst)
        dst.close()
    changed = [sys.executable, str(APP), "--log", "{attempt_dir}/app.jsonl", "--effect", "changed"]
    path = suite(tmp_path, db, app=changed)
    done = deskreel("test", path, "--update-masks", "--report", tmp_path / "first")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "masked demo step 4: " in done.stdout and "not masked" not in done.stdout
    shown = deskreel("show", db)
    assert "masked for step 4: " in shown.stdout
    done = deskreel("test", path, "--report", tmp_path / "second")
    assert done.returncode == 0, done.stdout + done.stderr

    renamed = [sys.executable, str(APP), "--log", "{attempt_dir}/app.jsonl", "--layout", "renamed"]
    path = suite(tmp_path, db, app=renamed)
    done = deskreel("test", path, "--update-masks", "--report", tmp_path / "third")
    assert done.returncode == 1
    assert "not masked: demo step 8: " in done.stdout
    assert "masked for step 8" not in deskreel("show", db).stdout


def test_a_window_manager_and_an_accessibility_bus_where_the_suite_asks(
    four: Path, tmp_path: Path
) -> None:
    """Each worker's server gets the suite's window manager (here a stand-in that only
    runs) and a private accessibility bus, which deskreel's own doctor finds there; both
    stop with the server."""
    probe = (
        f"{sys.executable} -m deskreel doctor > {{attempt_dir}}/doctor.txt 2>&1; "
        "pgrep -f 'sleep 4321.5' > {attempt_dir}/manager.txt; true"
    )
    path = suite(tmp_path, four)
    text = path.read_text().replace(
        "[app]\n", f"[app]\nsetup = {json.dumps(['sh', '-c', probe])}\n"
    )
    manager = ["sleep", "4321.5"]
    text += f"\n[screen]\nwindow_manager = {json.dumps(manager)}\naccessibility = true\n"
    path.write_text(text)
    report = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, "-m", "deskreel", "test", str(path), "--grep", "^demo$"]
        + ["--report", str(report)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    doctor = (report / "tests" / "demo" / "attempt-1" / "doctor.txt").read_text()
    assert "no accessibility bus" not in doctor and "accessib" in doctor, doctor
    assert (report / "tests" / "demo" / "attempt-1" / "manager.txt").read_text().strip()
    assert not alive("sleep 4321.5") and not left_behind(tmp_path)


def test_the_report_folder_never_takes_what_a_run_did_not_write(four: Path, tmp_path: Path) -> None:
    path = suite(tmp_path, four)
    mine = tmp_path / "project"
    mine.mkdir()
    for name in ("main.py", "results.json", "index.html"):
        (mine / name).write_text("mine")
    done = deskreel("test", path, "--report", mine)
    assert done.returncode == 2 and "holds no deskreel test report" in done.stderr
    here = subprocess.run(
        [sys.executable, "-m", "deskreel", "test", str(path), "--report", "."],
        cwd=mine,
        capture_output=True,
        text=True,
    )
    assert here.returncode == 2 and "is this folder or one above it" in here.stderr
    assert sorted(p.name for p in mine.iterdir()) == ["index.html", "main.py", "results.json"]


def test_recordings_of_one_name_in_two_databases_are_two_tests(four: Path, tmp_path: Path) -> None:
    from deskreel.suite.config import load_suite

    for folder in ("s1", "s2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "rec.db").write_bytes(four.read_bytes())
    path = suite(tmp_path, tmp_path / "s1" / "rec.db")
    path.write_text(path.read_text().replace(str(tmp_path / "s1" / "rec.db"), "s*/rec.db"))
    names = [t.name for t in load_suite(path).tests]
    assert sorted(names) == sorted(f"s{n}/rec.db:{r}" for n in (1, 2) for r in NAMES)

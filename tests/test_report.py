"""`deskreel report` and `deskreel runs`: the HTML page and JUnit XML of a failed verify run."""

from __future__ import annotations

import os
import json
import re
import stat
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from deskreel.cli import run
from deskreel.xsession.images import encode_webp
from deskreel.report import write_junit, write_report
from deskreel.storage import Action, Anchor, Step, StepResult, Store, open_store

W, H = 320, 200
SCRIPT = "<script>alert(1)</script>"
FAILED = "step 3 (left_click): the screen differs from the recording: effect [150, 60, 90, 50]"


@dataclass
class Fixture:
    db: Path
    recording_id: int
    run_id: int


def screen(*, dialog: bool = False, pressed: bool = False, moved: int = 0) -> np.ndarray:
    """A small desktop: a title bar, two buttons and, after a click, a dialog."""
    img = np.full((H, W, 3), 235, np.uint8)
    cv2.rectangle(img, (0, 0), (W, 18), (40, 70, 140), -1)
    colour = (90, 160, 90) if pressed else (60, 120, 200)
    cv2.rectangle(img, (40 + moved, 30), (100 + moved, 50), colour, -1)
    cv2.putText(img, "OK", (58 + moved, 46), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1)
    cv2.rectangle(img, (40, 120), (100, 140), (200, 90, 60), -1)
    if dialog:
        cv2.rectangle(img, (150, 60), (240, 110), (30, 30, 30), -1)
        cv2.putText(img, "Saved", (165, 90), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 0), 1)
    return img


def put(store: Store, img: np.ndarray) -> str:
    return store.put_frame(encode_webp(img), width=W, height=H, fmt="webp")


def anchor_of(img: np.ndarray, box: tuple[int, int, int, int], target: tuple[int, int]) -> Anchor:
    x, y, w, h = box
    ok, png = cv2.imencode(".png", img[y : y + h, x : x + w, ::-1])
    assert ok
    return Anchor(
        png=png.tobytes(), box=box, offset=(target[0] - x, target[1] - y), score=1.0, margin=0.4
    )


def build(db: Path) -> Fixture:
    """Four steps; a verify run where 1 passed, 2 was skipped, 3 failed and 4 never ran."""
    with open_store(db) as store:
        rec = store.create_recording("login <form>", source="recorder", screen=(W, H))
        plain, pressed, dialog = screen(), screen(pressed=True), screen(dialog=True)
        f_plain, f_pressed, f_dialog = put(store, plain), put(store, pressed), put(store, dialog)
        click = Action.from_json({"action": "left_click", "coordinate": [70, 40]})
        store.add_steps(
            rec,
            [
                Step(
                    step=1,
                    action=click,
                    t_start=0.5,
                    t_end=0.6,
                    before_frame=f_plain,
                    after_frame=f_pressed,
                    anchor=anchor_of(plain, (30, 25, 80, 30), (70, 40)),
                    window_class="App",
                    window_title="Login & <friends>",
                ),
                Step(
                    step=2,
                    action=Action.from_json({"action": "left_click", "coordinate": [70, 130]}),
                    t_start=1.0,
                    t_end=1.1,
                    before_frame=f_pressed,
                    after_frame=f_pressed,
                    anchor=anchor_of(pressed, (35, 115, 70, 30), (70, 130)),
                ),
                Step(
                    step=3,
                    action=click,
                    t_start=2.0,
                    t_end=2.1,
                    before_frame=f_pressed,
                    after_frame=f_dialog,
                    anchor=anchor_of(pressed, (30, 25, 80, 30), (70, 40)),
                ),
                Step(
                    step=4,
                    action=Action.from_json({"action": "type", "text": SCRIPT}),
                    t_start=3.0,
                    t_end=3.5,
                    before_frame=f_dialog,
                    after_frame=f_dialog,
                ),
            ],
        )
        today = screen(pressed=True, moved=8)  # the button moved 8 px; no dialog appears
        diff = today.copy()
        cv2.rectangle(diff, (150, 60), (240, 110), (255, 200, 0), 2)
        run_id = store.start_run(rec, mode="verify", options={})
        store.add_step_results(
            run_id,
            [
                StepResult(
                    step=1,
                    status="passed",
                    message="2 checks passed",
                    t_start=0.51,
                    t_end=0.92,
                    score=0.991,
                    margin=0.31,
                    scale=1.0,
                    shift=(8, 0),
                    details={
                        "late_ms": 3.2,
                        "locate_ms": 12.5,
                        "attempts": 1,
                        "searched": "window",
                        "rung": "window",
                        "trail": [{"rung": "window", "outcome": "found", "score": 0.991}],
                        "replay_before": put(store, screen(moved=8)),
                        "replay_after": put(store, screen(pressed=True, moved=8)),
                        "checks": [
                            {
                                "kind": "target",
                                "box": [22, 16, 96, 48],
                                "found_at": [30, 16, 96, 48],
                                "score": 0.99,
                                "changed": 0.0,
                                "passed": True,
                            }
                        ],
                    },
                ),
                StepResult(
                    step=2,
                    status="skipped",
                    message="step 2 (left_click): target not found: best score 0.412",
                    t_start=1.0,
                    t_end=2.0,
                    score=0.412,
                    margin=0.01,
                    scale=1.0,
                    details={"late_ms": 1.0, "attempts": 9},
                ),
                StepResult(
                    step=3,
                    status="failed",
                    message=FAILED,
                    t_start=2.01,
                    t_end=5.2,
                    score=0.987,
                    margin=0.3,
                    scale=1.0,
                    shift=(8, 0),
                    details={
                        "late_ms": 2.0,
                        "locate_ms": 8.0,
                        "attempts": 1,
                        "searched": "window",
                        "replay_before": put(store, today),
                        "replay_after": put(store, today),
                        "diff": put(store, diff),
                        "checks": [
                            {
                                "kind": "target",
                                "box": [22, 16, 96, 48],
                                "found_at": [30, 16, 96, 48],
                                "score": 0.98,
                                "changed": 0.01,
                                "passed": True,
                            },
                            {
                                "kind": "effect",
                                "box": [150, 60, 90, 50],
                                "found_at": None,
                                "score": 0.31,
                                "changed": 1.0,
                                "passed": False,
                            },
                        ],
                    },
                ),
            ],
        )
        store.finish_run(run_id, "failed")
    return Fixture(db, rec, run_id)


@pytest.fixture
def fixture(tmp_path: Path) -> Fixture:
    return build(tmp_path / "r.db")


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


def test_the_failed_step_comes_first_and_the_page_is_offline(fixture, tmp_path):
    out = tmp_path / "report"
    assert deskreel("report", fixture.db, "--run", fixture.run_id, "--out", out) == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert stat.S_IMODE((out / "img").stat().st_mode) == 0o700
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page.lower().replace("&lt;script", "")
    assert page.index(FAILED) < page.index('id="step-1"')
    assert page.index('id="failure"') < page.index('id="steps"')
    sources = re.findall(r'(?:src|href)="([^"#]+)"', page)
    assert sources and all((out / s).is_file() for s in sources)
    for path in (out / "img").iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((out / "index.html").stat().st_mode) == 0o600
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Login &amp; &lt;friends&gt;" in page and "login &lt;form&gt;" in page
    assert "not run: the replay stopped at step 3" in page
    assert "match 0.987" in page  # the anchor's match box on the replay-before frame


def test_the_header_counts_steps_as_the_summary_does(fixture, tmp_path):
    out = tmp_path / "report"
    assert deskreel("report", fixture.db, "--run", fixture.run_id, "--out", out) == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    header = page[page.index("<header") : page.index("</header>")]
    summary = page[page.index('<table class="summary">') :]
    summary = summary[: summary.index("</table>")]
    counts = "1 passed, 1 failed, 1 skipped, 0 aborted, 1 not run, of 4"
    assert counts in header and counts in summary, header


def test_a_report_can_be_written_again_and_made_private(fixture, tmp_path):
    out = tmp_path / "report"
    out.mkdir(mode=0o755)
    os.chmod(out, 0o755)
    with open_store(fixture.db) as store:
        rec = store.recording(fixture.recording_id)
        runs = store.runs(rec.id)
        first = write_report(store, rec, out, run=runs[0]).read_bytes()
        again = write_report(store, rec, out, run=runs[0]).read_bytes()
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert first.split(b"<footer>")[0] == again.split(b"<footer>")[0]
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []


def test_a_directory_holding_other_things_is_refused(fixture, tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    os.chmod(tmp_path, 0o755)
    assert deskreel("report", fixture.db, "--out", tmp_path) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no deskreel report" in err
    assert not (tmp_path / "index.html").exists()
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755  # left as it was


def test_the_recording_alone(fixture, tmp_path, capsys):
    out = tmp_path / "alone"
    assert deskreel("report", fixture.db, "-r", "login <form>", "--out", out) == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "no run shown" in page and "anchor crop" in page and "replay before" not in page
    assert "anchor margin" in page and "took" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Login &amp; &lt;friends&gt;" in page
    assert all((out / s).is_file() for s in re.findall(r'src="([^"]+)"', page))


def test_junit(fixture, tmp_path):
    path = tmp_path / "junit.xml"
    with open_store(fixture.db) as store:
        rec = store.recording(fixture.recording_id)
        run_ = store.runs(rec.id)[0]
        write_junit(path, rec, run_, store.steps(rec.id), store.step_results(run_.id))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    suite = ET.parse(path).getroot()
    assert suite.tag == "testsuite" and suite.get("name") == "login <form>"
    assert (
        suite.get("tests"),
        suite.get("failures"),
        suite.get("errors"),
        suite.get("skipped"),
    ) == ("4", "1", "0", "2")
    assert float(suite.get("time")) >= 0 and re.fullmatch(
        r"\d{4}-\d\d-\d\dT[\d:]{8}", suite.get("timestamp")
    )
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [
        "step 001 left_click",
        "step 002 left_click",
        "step 003 left_click",
        "step 004 type",
    ]
    assert {c.get("classname") for c in cases} == {"deskreel.login <form>"}
    assert cases[0].find("failure") is None and cases[0].find("skipped") is None
    assert cases[1].find("skipped").get("message").startswith("step 2 (left_click): target")
    failure = cases[2].find("failure")
    assert failure.get("message") == FAILED and failure.get("type") == "VerificationFailed"
    assert "FAILED effect [150, 60, 90, 50]: best match 0.310 nowhere" in failure.text
    assert SCRIPT not in failure.text
    assert cases[3].find("skipped").get("message") == "not run: the replay stopped at step 3"


def test_report_writes_junit_too(fixture, tmp_path):
    path = tmp_path / "j.xml"
    assert (
        deskreel("report", fixture.db, "--last-run", "--out", tmp_path / "o", "--junit", path) == 0
    )
    assert ET.parse(path).getroot().get("failures") == "1"


def test_runs_lists_the_run(fixture, capsys):
    assert deskreel("runs", fixture.db) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == [
        "run",
        "recording",
        "started",
        "mode",
        "status",
        "passed",
        "failed",
        "duration",
    ]
    assert re.match(
        rf"{fixture.run_id}\s+login <form>\s+\S+ \S+\s+verify\s+failed\s+1\s+1\s+", out[1]
    )


def test_runs_of_one_recording(fixture, capsys):
    with open_store(fixture.db) as store:
        other = store.create_recording("other", source="script")
        unfinished = store.start_run(other, mode="replay", options={})
    assert deskreel("runs", fixture.db) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [row.split()[:2] for row in rows] == [
        [str(fixture.run_id), "login"],
        [str(unfinished), "other"],
    ]
    assert rows[1].split()[-1] == "-"  # a run that never ended has no duration
    assert re.search(r"\d+(\.\d+)?(ms|s)$", rows[0]), rows[0]
    assert deskreel("runs", fixture.db, "-r", "other") == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [row.split()[:2] for row in rows] == [[str(unfinished), "other"]]
    assert deskreel("runs", fixture.db, "-r", fixture.recording_id) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [row.split()[:2] for row in rows] == [[str(fixture.run_id), "login"]]


def test_runs_tells_one_run_step_by_step_and_as_json(fixture, capsys):
    assert deskreel("runs", fixture.db, "--run", fixture.run_id) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split() == ["step", "status", "rung", "score", "scale", "message"]
    assert rows[1].split()[:5] == ["1", "passed", "window", "0.991", "1.00"]
    assert rows[3].split()[:2] == ["3", "failed"] and rows[3].endswith(FAILED)
    assert deskreel("runs", fixture.db, "--run", fixture.run_id, "--json") == 0
    steps = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(s["step"], s["status"]) for s in steps] == [(1, "passed"), (2, "skipped"),
                                                         (3, "failed")]  # fmt: skip
    assert steps[0]["details"]["trail"] == [{"rung": "window", "outcome": "found", "score": 0.991}]
    assert steps[0]["shift"] == [8, 0] and steps[2]["message"] == FAILED
    assert deskreel("runs", fixture.db, "--json") == 0
    (run,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert run["run"] == fixture.run_id and run["recording"] == "login <form>"
    assert (run["status"], run["passed"], run["failed"]) == ("failed", 1, 1)
    assert deskreel("runs", fixture.db, "--run", 99) == 2
    assert "has no run 99" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (("--run", "99"), "has no run 99"),
        (("--run", "1", "--last-run"), "not both"),
        (("--junit", "x.xml"), "--junit needs a run"),
        (("-r", "nope"), "no recording 'nope'"),
    ],
)
def test_user_errors_are_one_line(fixture, tmp_path, capsys, args, message):
    assert deskreel("report", fixture.db, *args, "--out", tmp_path / "o") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "junit", ["/proc/deskreel-junit.xml", "{tmp}/file/j.xml", "{tmp}/no/such/j.xml"]
)
def test_an_unwritable_junit_target_writes_nothing(fixture, tmp_path, capsys, junit):
    (tmp_path / "file").write_text("a regular file, not a directory")
    path = Path(junit.replace("{tmp}", str(tmp_path)))
    assert (
        deskreel("report", fixture.db, "--last-run", "--out", tmp_path / "o", "--junit", path) == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"deskreel: cannot write {path}"), err
    left = {p.name for p in tmp_path.iterdir()} - {fixture.db.name}
    assert left == {"file"}  # no report directory, no temporary file
    assert not path.exists()


def test_lost_frames_and_odd_details_still_render(tmp_path):
    """Frames the database lost, a hash that is a path, control characters: no crash."""
    with open_store(tmp_path / "odd.db") as store:
        rec = store.create_recording("odd", source="script")
        with store.engine.begin() as conn:  # as an older deskreel let names in
            conn.exec_driver_sql("UPDATE recordings SET name = ?", ("odd\x1bname",))
        store.add_steps(
            rec,
            [Step(step=1, action=Action.from_json({"action": "left_click", "coordinate": [5, 5]}))],
        )
        run_id = store.start_run(rec, mode="verify", options={})
        store.add_step_results(
            run_id,
            [
                StepResult(
                    step=1,
                    status="failed",
                    message="bad\x00thing",
                    details={
                        "replay_before": "0" * 64,
                        "replay_after": "../../etc/passwd",
                        "checks": [{"kind": "effect"}, "junk"],
                    },
                )
            ],
        )
        store.finish_run(run_id, "failed")
        recording, run_ = store.recording(rec), store.runs(rec)[0]
        index = write_report(store, recording, tmp_path / "out", run=run_)
        junit = write_junit(
            tmp_path / "j.xml", recording, run_, store.steps(rec), store.step_results(run_id)
        )
    page = index.read_text(encoding="utf-8")
    assert "no frame" in page and "not kept" not in page and "frame lost or unreadable" in page
    assert list((tmp_path / "out" / "img").iterdir()) == []
    suite = ET.parse(junit).getroot()
    assert suite.get("failures") == "1" and suite.get("name") == "odd\ufffdname"


def test_an_anchor_in_two_looks_shows_both(tmp_path):
    from deskreel.xsession.images import encode_png

    rest, hovered = np.full((20, 30, 3), 180, np.uint8), np.full((20, 30, 3), 230, np.uint8)
    anchor = Anchor(png=encode_png(rest), box=(0, 0, 30, 20), offset=(15, 10), margin=0.3)
    click = Action.from_json({"action": "left_click", "coordinate": [15, 10]})
    with open_store(tmp_path / "looks.db") as store:
        rec = store.create_recording("looks", source="script")
        store.add_steps(
            rec, [Step(step=1, action=click, anchor=replace(anchor, hover_png=encode_png(hovered)))]
        )
        index = write_report(store, store.recording(rec), tmp_path / "out")
    page = index.read_text(encoding="utf-8")
    assert "anchor crop, at rest" in page and "anchor crop, hovered" in page
    assert len(list((tmp_path / "out" / "img").iterdir())) == 2


def test_a_failed_check_shows_what_was_said_then_and_today() -> None:
    # the object's name and both states (meaning), a region's both texts (text)
    from html import unescape

    from deskreel.matching.compare.checks import Check, VerifyOptions
    from deskreel.report.steps import checks_table

    label = "check box 'Keep a copy'"
    meaning = Check(
        "meaning", (10, 10, 80, 20), None, 0.0, 1.0, 0, False, label=label,
        said=("'Keep a copy' (checked)", "'Keep a copy' (none set)"),
    )  # fmt: skip
    text = Check(
        "effect", (268, 63, 34, 29), (268, 63, 34, 29), 0.2, 0.3, 80, False,
        (268, 63, 34, 29), "none", said=("46", "47"),
    )  # fmt: skip
    checked = [replace(c, difference=c.differs(VerifyOptions())).to_json() for c in (meaning, text)]
    table = unescape(checks_table(checked))
    assert f"({label}: recorded 'Keep a copy' (checked), today 'Keep a copy' (none set))" in table
    assert "(reads '47' there, recorded '46')" in table

"""`deskreel replay --verify` on a real Xvfb with the sample app: verdicts per step, exit
codes, JUnit XML and the HTML report."""

import re
import time
from contextlib import closing
import xml.etree.ElementTree as ET

from deskreel.storage import open_store
from samples.person import Person
from tests.test_anchoring import record_clicks
from tests.test_record import record
from tests.commands import deskreel, screen_differs


def recorded(launch_app, run_deskreel, xvfb, tmp_path, **app_options):
    """A real recording: click Open, OK and Save (each changes the status line)."""
    app = launch_app(**app_options)
    db = tmp_path / "rec.db"
    record_clicks(app, run_deskreel, xvfb, db, "button:Open", "button:OK", "button:Save")
    app.stop()
    return db, app


def test_same_layout_passes_with_junit_and_report(launch_app, run_deskreel, xvfb, tmp_path):
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    launch_app()
    junit, report = tmp_path / "junit.xml", tmp_path / "report"
    done = deskreel("replay", db, "--verify", "--junit", junit, "--report", report, env=xvfb.env())
    assert done.returncode == 0, done.stderr
    suite = ET.parse(junit).getroot()
    suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
    assert suite.get("tests") == "3" and suite.get("failures") == "0"
    assert (report / "index.html").exists() and (report.stat().st_mode & 0o777) == 0o700
    with open_store(db, create=False) as store:
        run = store.runs()[-1]
        results = store.step_results(run.id)
    assert run.mode == "verify" and run.status == "passed"
    assert all(r.details["checks"] for r in results)
    assert any(c["kind"] == "effect" for r in results for c in r.details["checks"])


def test_moved_and_reordered_pass(launch_app, run_deskreel, xvfb, tmp_path):
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    for options in ({"geometry": "+240+90"}, {"layout": "reordered"}):
        app = launch_app(**options)
        done = deskreel("replay", db, "--verify", env=xvfb.env())
        app.stop()
        assert done.returncode == 0, (options, done.stderr)
        assert [e["widget"] for e in app.events("click")] == [
            "button:Open",
            "button:OK",
            "button:Save",
        ]


def test_renamed_target_fails_at_that_step(launch_app, run_deskreel, xvfb, tmp_path):
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    launch_app(layout="renamed")
    junit = tmp_path / "junit.xml"
    done = deskreel("replay", db, "--verify", "--timeout", "1", "--junit", junit, env=xvfb.env())
    assert done.returncode == 1, done.stderr
    assert "step 3 (left_click): target not found" in done.stderr
    failures = ET.parse(junit).getroot().iter("failure")
    assert any("step 3" in (f.get("message") or "") for f in failures)


def test_removed_target_fails_and_the_report_shows_todays_screen(
    launch_app, run_deskreel, xvfb, tmp_path
):
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    launch_app(layout="removed")  # no Save button
    report = tmp_path / "report"
    done = deskreel("replay", db, "--verify", "--timeout", "1", "--report", report, env=xvfb.env())
    assert done.returncode == 1, done.stderr
    assert "step 3 (left_click): target not found" in done.stderr
    with open_store(db, create=False) as store:
        failed = store.step_results(store.runs()[-1].id)[-1]
    assert failed.step == 3 and failed.status == "failed"
    crops = ["crops/step0003-anchor.png", "crops/step0003-best-match.png"]
    assert failed.message.endswith(f"(crops in the report: {', '.join(crops)})")
    assert str(tmp_path) not in failed.message
    assert failed.details["replay_before"] and failed.details["crops"] == crops
    x, y, w, h = failed.details["best_match"]
    assert w > 0 and h > 0
    page = (report / "index.html").read_text(encoding="utf-8")
    failure = page[page.index('id="failure"') : page.index('id="steps"')]
    today = f"img/{failed.details['replay_before']}.webp"
    assert f'src="{today}"' in failure and "not kept" not in failure
    assert "(refused)" in failure and "recorded place" in failure
    assert all(f'href="{c}"' in failure and (report / c).is_file() for c in crops)
    links = re.findall(r'(?:src|href)="([^"#]+)"', page)
    assert all((report / link).is_file() for link in links)


def test_changed_effect_fails_with_the_diff(launch_app, run_deskreel, xvfb, tmp_path):
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    app = launch_app(effect="changed")
    done = deskreel("replay", db, "--verify", "--report", tmp_path / "report", env=xvfb.env())
    assert done.returncode == 1, done.stderr
    assert screen_differs(done.stderr, 2) and "recording: effect" in done.stderr
    assert "% of pixels differ" in done.stderr
    with open_store(db, create=False) as store:
        results = store.step_results(store.runs()[-1].id)
    failed = [r for r in results if r.status == "failed"]
    assert [r.step for r in failed] == [2] and failed[0].details["diff"]
    assert len(results) == 2  # stopped at the first failure
    # the failure shows the status line, where "OK clicked" was expected, not the best
    # look-alike elsewhere on the screen
    [effect] = [c for c in failed[0].details["checks"] if not c["passed"]]
    assert effect["match"] == "none" and f"not found near {effect['expected']}" in done.stderr
    # it reads another text there, and says both (compare/text.py)
    assert effect["said"][0] == "OK clicked" and "recorded 'OK clicked'" in done.stderr
    status = app.widgets["label:status"]
    for x, y, _, h in (effect["expected"], effect["found_at"]):
        assert status[1] - h <= y <= status[1] + status[3] and x < status[0] + status[2]


def test_keep_going_reports_every_step(launch_app, run_deskreel, xvfb, tmp_path):
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    launch_app(effect="changed")
    done = deskreel("replay", db, "--verify", "--keep-going", env=xvfb.env())
    assert done.returncode == 1
    with open_store(db, create=False) as store:
        results = store.step_results(store.runs()[-1].id)
    assert [r.status for r in results] == ["passed", "failed", "passed"]


def test_keep_going_goes_past_a_target_not_found(launch_app, run_deskreel, xvfb, tmp_path):
    app = launch_app()
    db = tmp_path / "rec.db"
    record_clicks(app, run_deskreel, xvfb, db, "button:Save", "button:Open", "button:OK")
    app.stop()
    app = launch_app(layout="removed", effect="changed")  # no Save; OK shows other text
    done = deskreel("replay", db, "--verify", "--keep-going", "--timeout", "1", env=xvfb.env())
    assert done.returncode == 1, done.stderr
    with open_store(db, create=False) as store:
        results = store.step_results(store.runs()[-1].id)
    assert [r.status for r in results] == ["failed", "passed", "failed"], done.stderr
    assert "step 1 (left_click): target not found" in results[0].message
    assert screen_differs(results[2].message, 3)
    # the missing step sent no input; the others ran for real
    assert [e["widget"] for e in app.events("button_press")] == ["button:Open", "button:OK"]


def test_masked_clock_passes(launch_app, run_deskreel, xvfb, tmp_path):
    db, app = recorded(launch_app, run_deskreel, xvfb, tmp_path, clock=True)
    x, y, w, h = app.widgets["label:clock"]
    assert deskreel("mask", db, f"{x},{y},{w},{h}").returncode == 0
    import time

    time.sleep(1.2)  # the clock shows another time than in any recorded frame
    launch_app(clock=True)
    done = deskreel("replay", db, "--verify", env=xvfb.env())
    assert done.returncode == 0, done.stderr


def test_a_blinking_caret_fails_no_step(launch_app, run_deskreel, xvfb, tmp_path):
    # The caret blinks 500 ms on, 500 ms off, as toolkits' carets do: each step's after-frame
    # caught it in one phase, and each replay's screen settles in either. Five replays on
    # freshly started applications all pass: the failed look is watched for one blink.
    app = launch_app(blink=500)
    db = tmp_path / "rec.db"

    def drive(person):
        person.click(*app.center("entry"))
        person.type("hello")
        person.click(*app.center("entry"), count=3)
        person.click(*app.center("text"))
        time.sleep(0.5)  # the last step's after-frame settles

    record(run_deskreel, xvfb, db, drive, "--name", "caret")
    app.stop()
    blinked = 0
    for _ in range(5):
        app = launch_app(blink=500)
        done = deskreel("replay", db, "--verify", env=xvfb.env())
        app.stop()
        assert done.returncode == 0, done.stderr
        with open_store(db, create=False) as store:
            results = store.step_results(store.runs()[-1].id)
        blinked += sum("text caret in its other phase" in r.message for r in results)
    assert blinked, "no step needed the caret's other phase: the test shows nothing"


def test_a_failed_step_whose_after_frame_never_settled_says_so(
    launch_app, run_deskreel, xvfb, tmp_path
):
    # Typing and Tab at once: the typing's after-frame is taken when Tab began, before the
    # screen stayed still. Replayed on an application whose entry shows other text, the
    # typing fails, and its message says why the recording may show it half drawn.
    from deskreel.replayer.verify import UNSETTLED_HINT

    app = launch_app()
    db = tmp_path / "rec.db"

    def drive(person):
        person.click(*app.center("entry"))
        person.step_delay = 0.0
        person.type("fox")
        person.press("Tab", hold=0.02)
        time.sleep(0.8)  # the last step's after-frame settles

    record(run_deskreel, xvfb, db, drive, "--name", "cut")
    app.stop()
    with open_store(db, create=False) as store:
        steps = store.steps(store.recording("cut").id)
    typed, tab = steps[-2], steps[-1]
    assert (typed.action.text, tab.action.text) == ("fox", "Tab"), steps
    assert (typed.after_settled, tab.after_settled) == (False, True)
    other = launch_app()
    with closing(Person(xvfb.display)) as person:  # text already there: the effect differs
        person.click(*other.center("entry"))
        person.type("wolf")
    done = deskreel("replay", db, "--verify", "--keep-going", env=xvfb.env())
    assert done.returncode == 1, done.stderr
    with open_store(db, create=False) as store:
        result = store.step_results(store.runs()[-1].id)[typed.step - 1]
    assert result.status == "failed" and result.message.endswith(f"({UNSETTLED_HINT})")

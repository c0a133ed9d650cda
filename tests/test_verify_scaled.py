"""`deskreel replay --verify` on a scaled screen (real Xvfb, the sample app drawn at 1.25x
and 0.8x): a recording made at 1x passes where the app does the same, and fails at the step
whose effect changed."""

import signal
import subprocess
import time

import pytest

from samples.person import Person
from deskreel.storage import open_store
from tests.commands import deskreel, screen_differs
from tests.test_verify import recorded


def last_run(db):
    with open_store(db, create=False) as store:
        run = store.runs()[-1]
        return run, store.step_results(run.id)


@pytest.mark.parametrize("scale", [1.25, 0.8])
def test_same_effects_at_another_scale_pass(launch_app, run_deskreel, xvfb, tmp_path, scale):
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    app = launch_app(scale=scale)
    done = deskreel("replay", db, "--verify", env=xvfb.env())
    assert done.returncode == 0, done.stderr
    assert [e["widget"] for e in app.events("click")] == ["button:Open", "button:OK", "button:Save"]
    run, results = last_run(db)
    assert run.status == "passed" and [r.status for r in results] == ["passed"] * 3
    for result in results:
        assert abs(result.scale - scale) < 0.02, result
        checks = result.details["checks"]
        # the status line's new text was compared at the scale, where it is today
        assert {c["kind"] for c in checks} == {"object", "effect"}, checks
        effects = [c for c in checks if c["kind"] == "effect"]
        assert all(c["match"] == "near" and c["scale"] == result.scale for c in effects)
        status = app.widgets["label:status"]
        assert any(
            c["kind"] == "effect" and abs(c["found_at"][1] - status[1]) < status[3] for c in checks
        ), (checks, status)


def test_the_scale_the_desktops_tell_is_searched_first(launch_app, run_deskreel, xvfb, tmp_path):
    # Recorded where the desktop told no Xft.dpi (96); replayed where it tells 120, and the
    # application follows it: the first target is looked for at 1.25x before any other.
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    subprocess.run(
        ["xrdb", "-merge"], input="Xft.dpi: 120\n", text=True, env=xvfb.env(), check=True
    )
    try:
        launch_app(scale=1.25)
        done = deskreel("replay", db, "--verify", env=xvfb.env())
    finally:
        subprocess.run(
            ["xprop", "-root", "-remove", "RESOURCE_MANAGER"], env=xvfb.env(), check=True
        )
    assert done.returncode == 0, done.stderr
    assert "settings ask for 1.25x, the recording's for 1x" in done.stderr, done.stderr
    _, results = last_run(db)
    ranges = [
        [t["rung"] for t in r.details["trail"] if t["rung"] in ("hint", "told", "all")]
        for r in results
    ]
    # the first that searched other scales (an earlier one may be found by its X window)
    # settled at the told scale; the others at the one it was found at, or before
    searched = [r for r in ranges if r]
    assert searched and searched[0] == ["told"], ranges
    assert not any("all" in r for r in ranges), ranges


def test_changed_effect_at_another_scale_fails_at_that_step(
    launch_app, run_deskreel, xvfb, tmp_path
):
    db, _ = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    launch_app(scale=1.25, effect="changed")  # OK shows "Something else happened"
    report = tmp_path / "report"
    done = deskreel("replay", db, "--verify", "--report", report, env=xvfb.env())
    assert done.returncode == 1, done.stderr
    assert "compared at 1.2" in (report / "index.html").read_text(encoding="utf-8")
    assert screen_differs(done.stderr, 2) and "recording: effect" in done.stderr
    assert "% of pixels differ" in done.stderr and "compared at 1.2" in done.stderr
    run, results = last_run(db)
    assert run.status == "failed" and [r.status for r in results] == ["passed", "failed"]
    failed = [c for c in results[1].details["checks"] if not c["passed"]]
    assert [c["kind"] for c in failed] == ["effect"] and results[1].details["diff"]


def test_typed_text_at_another_scale_is_found_where_the_screen_maps_it(
    launch_app, run_deskreel, xvfb, tmp_path
):
    # A type step has no target of its own: its effect (the text in the entry) is mapped
    # through where the last target put the recorded screen, at the scale it was found at.
    app = launch_app()
    db = tmp_path / "rec.db"
    recorder = run_deskreel("record", db, "--name", "typing")
    recorder.wait_for_output("recording into")
    person = Person(xvfb.display)
    try:
        person.click(*app.center("entry"))
        person.type("hello world")
    finally:
        person.close()
    time.sleep(0.5)
    recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr
    app.stop()
    with open_store(db, create=False) as store:
        actions = [s.action.action for s in store.steps(store.recordings()[0].id)]
    assert actions == ["left_click", "type"], actions
    app = launch_app(scale=1.25)
    done = deskreel("replay", db, "--verify", env=xvfb.env())
    assert done.returncode == 0, done.stderr
    assert app.events("text_changed")[-1]["value"] == "hello world"
    _, results = last_run(db)
    [typed] = [c for c in results[1].details["checks"] if c["kind"] == "effect"]
    assert typed["match"] == "near" and typed["passed"], typed
    # both windows at +0+0: the recorded screen's origin stays put, and places scale from it
    (x, y, _, _), (ex, ey, _, _) = typed["box"], typed["expected"]
    assert abs(ex - x * 1.25) <= 2 and abs(ey - y * 1.25) <= 2, typed

"""`replay --verify`'s options on the command line: refused without --verify, the warning
for steps without recorded frames, and --mask, `mask --step` and --tolerance changing
verdicts on a real Xvfb with the sample app."""

import pytest

from deskreel.storage import open_store
from tests.commands import deskreel, imported, screen_differs
from tests.test_replay import one_wait_step, runs_in
from tests.test_verify import recorded


@pytest.mark.parametrize(
    "option",
    [("--keep-going",), ("--tolerance", "0.5"), ("--tolerance", "0.02"), ("--mask", "0,0,10,10")],
)
def test_verify_options_without_verify_are_refused(xvfb, tmp_path, option):
    db = one_wait_step(tmp_path)
    done = deskreel("replay", db, *option, env=xvfb.env())
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"deskreel: {option[0]} only applies with --verify: add --verify or drop {option[0]}\n"
    )
    assert runs_in(db) == []


def test_steps_without_frames_are_not_compared_and_say_so(xvfb, tmp_path):
    db = imported(tmp_path, "waits", [{"action": "wait", "duration": 0.1}] * 2)
    report = tmp_path / "report"
    done = deskreel("replay", db, "--verify", "--report", report, env=xvfb.env())
    assert done.returncode == 0, done.stderr
    assert (
        "deskreel: warning: 2 of 2 steps have no recorded frames (steps 1, 2): --verify "
        "checks only that their targets are found, not what the screen shows"
    ) in done.stderr.splitlines()
    with open_store(db, create=False) as store:
        results = store.step_results(store.runs()[-1].id)
    assert [r.message for r in results] == [
        "passed without comparing the screen: the recording has no frames of this step"
    ] * 2
    page = (report / "index.html").read_text(encoding="utf-8")
    assert (
        "<th>not compared</th><td>2 steps ran without a recorded frame to compare the "
        "screen with (steps 1, 2): only their targets were checked</td>"
    ) in page


def status_line_effect(launch_app, run_deskreel, xvfb, tmp_path):
    """A recording of Open, OK and Save replayed where OK shows other text: step 2's effect
    differs on the status line, and only there. Returns the database and the status line."""
    db, app = recorded(launch_app, run_deskreel, xvfb, tmp_path)
    launch_app(effect="changed")
    return db, app.widgets["label:status"]


def statuses(db):
    with open_store(db, create=False) as store:
        return [r.status for r in store.step_results(store.runs()[-1].id)]


def test_masks_on_the_command_line_and_per_step(launch_app, run_deskreel, xvfb, tmp_path):
    db, (x, y, w, h) = status_line_effect(launch_app, run_deskreel, xvfb, tmp_path)
    status = f"{x},{y},{w},{h}"
    done = deskreel("replay", db, "--verify", "--mask", status, env=xvfb.env())
    assert done.returncode == 0, done.stderr
    # a mask stored for another step leaves step 2 compared
    assert deskreel("mask", db, "--step", "1", status).returncode == 0
    done = deskreel("replay", db, "--verify", "--keep-going", env=xvfb.env())
    assert done.returncode == 1 and statuses(db) == ["passed", "failed", "passed"], done.stderr
    assert screen_differs(done.stderr, 2)
    added = deskreel("mask", db, "--step", "2", status)
    assert added.returncode == 0 and "for step 2 of 'clicks'" in added.stderr
    done = deskreel("replay", db, "--verify", env=xvfb.env())
    assert done.returncode == 0 and statuses(db) == ["passed"] * 3, done.stderr


def test_tolerance_changes_the_verdict(launch_app, run_deskreel, xvfb, tmp_path):
    db, (_, y, _, _) = status_line_effect(launch_app, run_deskreel, xvfb, tmp_path)
    # Compare one pixel row through the status text only (row y + 7 crosses "OK clicked"
    # and "Something else happened" alike): many pixels differ there, in small patches
    # (a stroke's width), which the patch limit lets through and the tolerance decides.
    row = y + 7
    masks = ("--mask", f"0,{row - 30},800,30", "--mask", f"0,{row + 1},800,40")
    done = deskreel("replay", db, "--verify", "--keep-going", *masks, env=xvfb.env())
    assert done.returncode == 1 and statuses(db) == ["passed", "failed", "passed"], done.stderr
    with open_store(db, create=False) as store:
        result = store.step_results(store.runs()[-1].id)[1]
    failed = [c for c in result.details["checks"] if not c["passed"]]
    assert failed and all(0.02 < c["changed"] < 0.5 and c["patch"] <= 12 for c in failed), failed
    done = deskreel("replay", db, "--verify", "--tolerance", "0.5", *masks, env=xvfb.env())
    assert done.returncode == 0 and statuses(db) == ["passed"] * 3, done.stderr

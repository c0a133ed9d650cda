"""Re-anchoring on a real Xvfb: recordings made on the sample app's default layout replay on
a moved window, a shifted layout and a scaled UI; gone, ambiguous and late targets."""

import os
import signal
import time
from pathlib import Path

from deskreel.storage import open_store
from samples.person import Person
from tests.test_record import record_session
from tests.commands import deskreel

COORDINATES = ("x", "y", "item_pos")


def without_coordinates(events):
    return [{k: v for k, v in e.items() if k not in COORDINATES} for e in events]


def record_clicks(app, run_deskreel, xvfb, db, *widgets, name="clicks"):
    """A short real recording: the person clicks each widget in turn."""
    recorder = run_deskreel("record", db, "--name", name)
    recorder.wait_for_output("recording into")
    person = Person(xvfb.display)
    try:
        for widget in widgets:
            person.click(*app.center(widget))
    finally:
        person.close()
    time.sleep(0.5)
    recorder.proc.send_signal(signal.SIGINT)
    assert recorder.finish() == 0, recorder.stderr


def test_replays_on_moved_shifted_and_scaled_layouts(launch_app, run_deskreel, xvfb, tmp_path):
    original = launch_app()
    db = tmp_path / "rec.db"
    record_session(original, run_deskreel, xvfb, db)
    original.stop()
    expected = original.comparable_events()
    for options, exact in (
        ({"geometry": "+230+140"}, True),
        ({"banner": True}, True),
        ({"scale": 1.25}, False),
    ):
        app = launch_app(**options)
        done = deskreel("replay", db, "--max-idle", "0.5", env=xvfb.env())
        app.stop()
        assert done.returncode == 0, (options, done.stderr)
        got = app.comparable_events()
        if exact:
            assert got == expected, options
        else:
            assert without_coordinates(got) == without_coordinates(expected), options
    with open_store(db, create=False) as store:
        runs = store.runs()
        scaled = store.step_results(runs[-1].id)
        moved = store.step_results(runs[0].id)
    assert any(r.shift == (230, 140) for r in moved)
    # Once a target was found by its pixels in the moved window, the later ones the pixels
    # find are looked for where the window moved them first (the sample app is Tk: most
    # targets are found by their X window, which leaves the shift as it was).
    searched = [str(r.details["searched"]) for r in moved if r.details.get("searched")]
    by_pixels = [s for s in searched if s != "xwindow"]
    assert all("shifted" in s.split("+") for s in by_pixels[1:]), searched
    assert any(r.scale and abs(r.scale - 1.25) < 0.05 for r in scaled)


def test_gone_or_renamed_target_fails_and_nothing_is_clicked(
    launch_app, run_deskreel, xvfb, tmp_path
):
    original = launch_app()
    db = tmp_path / "rec.db"
    record_clicks(original, run_deskreel, xvfb, db, "entry", "button:Save")
    original.stop()
    for layout in ("removed", "renamed"):
        app = launch_app(layout=layout)
        done = deskreel("replay", db, "--timeout", "1", env=xvfb.env())
        app.stop()
        assert done.returncode == 1, done.stderr
        assert "step 2 (left_click): target not found: best score" in done.stderr
        assert "threshold 0.85" in done.stderr
        clicks = [e for e in app.events() if e["event"] in ("click", "button_press")]
        assert [c.get("widget") for c in clicks] == ["entry"], clicks


def test_identical_buttons_are_never_confused(launch_app, run_deskreel, xvfb, tmp_path):
    for layout in ("duplicate", "duplicate-context"):
        original = launch_app(layout=layout)
        db = tmp_path / f"{layout}.db"
        record_clicks(original, run_deskreel, xvfb, db, "button:OK#2", name=layout)
        original.stop()
        app = launch_app(layout=layout, geometry="+40+30")
        done = deskreel("replay", db, "--timeout", "1", env=xvfb.env())
        app.stop()
        clicked = [e["widget"] for e in app.events("click")]
        assert "button:OK" not in clicked, (layout, done.stderr)
        if layout == "duplicate-context":
            assert done.returncode == 0, done.stderr
        # either the context told the twins apart and the intended one was clicked, or the
        # replay refused (exit 1) and clicked nothing
        if done.returncode == 0:
            assert clicked == ["button:OK#2"], (layout, done.stderr)
        else:
            assert done.returncode == 1, (layout, done.stderr)
            assert "target not found" in done.stderr and clicked == [], (layout, clicked)


def test_late_target_is_waited_for(launch_app, run_deskreel, xvfb, tmp_path):
    original = launch_app()
    db = tmp_path / "rec.db"
    record_clicks(original, run_deskreel, xvfb, db, "button:Save")
    original.stop()
    # The replay starts first: started after the app, its own start-up (3-5 s of imports on
    # a busy machine) could outlast the 2 s, and it would find Save at its first look.
    replay = run_deskreel("replay", db, "--timeout", "30")
    _wait_until_open(replay.proc, db)
    app = launch_app(late=2.0)
    assert replay.finish() == 0, replay.stderr
    appeared = app.wait_for({"event": "appeared", "widget": "button:Save"})
    click = app.wait_for({"event": "click", "widget": "button:Save"})
    assert appeared["t"] - app.ready["t"] >= 1.5 and click["t"] >= appeared["t"]
    with open_store(db, create=False) as store:
        [result] = store.step_results(store.runs()[-1].id)
    assert result.details["attempts"] > 1 and result.status == "passed"


def _wait_until_open(proc, path, timeout=30.0):
    """Until process `proc` has `path` open: its imports are done, its first look is near.
    (Linux /proc, not the database: a reader closing it while the replay writes is unsafe.)"""
    target = os.path.realpath(path)
    deadline = time.monotonic() + timeout
    while True:
        try:
            links = [os.readlink(fd) for fd in Path(f"/proc/{proc.pid}/fd").iterdir()]
        except OSError:  # a descriptor closed while we looked: look again
            links = []
        if target in links:
            return
        assert proc.poll() is None, f"the replay exited with {proc.returncode}"
        assert time.monotonic() < deadline, f"the replay never opened {path}"
        time.sleep(0.02)


def test_no_anchor_replays_raw_coordinates(launch_app, run_deskreel, xvfb, tmp_path):
    original = launch_app()
    db = tmp_path / "rec.db"
    record_clicks(original, run_deskreel, xvfb, db, "button:Save")
    original.stop()
    app = launch_app(geometry="+300+200")
    done = deskreel("replay", db, "--no-anchor", env=xvfb.env())
    app.stop()
    assert done.returncode == 0
    assert not [e for e in app.events("click") if e["widget"] == "button:Save"]


def _missed_step_and_finding():
    import numpy as np

    from deskreel.xsession.images import encode_png
    from deskreel.matching import Located, Refusal
    from deskreel.replayer.anchoring import Finding
    from deskreel.storage import Action, Anchor, Step

    crop = np.zeros((10, 20, 3), np.uint8)
    crop[2:8, 4:16] = 200
    anchor = Anchor(png=encode_png(crop), box=(40, 50, 20, 10), offset=(10, 5))
    step = Step(
        step=3,
        action=Action.from_json({"action": "left_click", "coordinate": [50, 55]}),
        anchor=anchor,
    )
    located = Located(
        found=False,
        point=None,
        score=0.61,
        margin=0.2,
        scale=1.0,
        top_left=(100, 120),
        best_elsewhere=None,
        elapsed_ms=1.0,
        refusal=Refusal("score", 0.61, 0.85),
        rung="coarse",
    )
    return step, Finding(located, (50, 55), attempts=3, waited=1.0)


def test_missing_target_message_says_where_the_best_match_was():
    step, finding = _missed_step_and_finding()
    message = finding.message(step, 0.85)
    assert "best score 0.610 at [110, 125], margin 0.200, threshold 0.85" in message


def test_crops_are_private_and_an_existing_report_folder_keeps_its_mode(tmp_path):
    import numpy as np

    from deskreel.xsession.images import decode_image
    from deskreel.replayer.anchoring import Locator

    step, finding = _missed_step_and_finding()
    report = tmp_path / "report"
    report.mkdir(mode=0o755)
    report.chmod(0o755)
    (report / "mine.txt").write_text("a person's own file")
    locator = Locator(":0")  # grabs nothing here
    locator.last_screen = np.full((300, 400, 3), 90, np.uint8)
    saved = locator.save_crops(step, finding, report / "crops")
    assert (report.stat().st_mode & 0o777) == 0o755
    assert ((report / "crops").stat().st_mode & 0o777) == 0o700
    assert [p.name for p in saved] == ["step0003-anchor.png", "step0003-best-match.png"]
    assert all((p.stat().st_mode & 0o777) == 0o600 for p in saved)
    assert saved[0].read_bytes() == step.anchor.png
    assert decode_image(saved[1].read_bytes()).shape == (10, 20, 3)
    fresh = tmp_path / "new" / "report" / "crops"
    locator.save_crops(step, finding, fresh)
    assert all((p.stat().st_mode & 0o777) == 0o700 for p in (fresh, fresh.parent))

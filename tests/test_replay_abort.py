"""Aborts wherever they land in a replay (regressions from the replayer's audit): after a
keycode was bound, inside a long step, with every later step already due; and the replay's
own moves into a screen corner, which are no abort."""

import importlib
import signal
import subprocess
import sys
import time
from pathlib import Path

from deskreel.xsession.display import connect
from deskreel.xsession.xvfb import VirtualDisplay
from deskreel.storage import open_store
from deskreel.storage.keys import keysym_of
from tests.commands import deskreel, imported
from tests.test_replay import held_state, one_wait_step


def start(display, db, tmp_path):
    """`deskreel replay DB` in the background; its stderr goes to a file (it may be long)."""
    stderr = (tmp_path / "replay.stderr").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "deskreel", "replay", db], env=display.env(), stderr=stderr
    )
    stderr.close()
    return proc


def wait_until(condition, proc, what, timeout=15.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, f"the replay ended before {what}"
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.01)


def keyboard_mapping(display_name):
    conn = connect(display_name)
    try:
        first = conn.display.info.min_keycode
        count = conn.display.info.max_keycode - first + 1
        return [list(row) for row in conn.get_keyboard_mapping(first, count)]
    finally:
        conn.close()


def holding_only_shift(display_name, steady=0.2):
    """A check that Shift_L alone is down, and still is `steady` seconds later: a type
    step's own key presses (shifted letters, a re-bound keycode) come and go within
    milliseconds. Shift's keycode is looked up once, not on every poll."""
    conn = connect(display_name)
    try:
        shift = [conn.keysym_to_keycode(keysym_of("Shift_L"))]
    finally:
        conn.close()

    def holds() -> bool:
        if held_state(display_name)[0] != shift:
            return False
        time.sleep(steady)
        return held_state(display_name)[0] == shift

    return holds


def stored_run(db):
    with open_store(db, create=False) as store:
        [run] = store.runs()
        return run.status, [(r.step, r.status) for r in store.step_results(run.id)]


def test_abort_after_a_keycode_was_bound_restores_the_keymap_and_stores_the_run(tmp_path):
    db = imported(
        tmp_path,
        "bound",
        [{"action": "type", "text": "東京ü"}, {"action": "key", "text": "shift", "duration": 30}],
    )
    with VirtualDisplay() as display:  # its own server: a keymap left changed stays here
        before = keyboard_mapping(display.display)
        proc = start(display, db, tmp_path)
        # not any key down: the type step's own presses would abort step 1 instead
        wait_until(holding_only_shift(display.display), proc, "held shift")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 130, (tmp_path / "replay.stderr").read_text()
        assert held_state(display.display) == ([], 0)
        assert keyboard_mapping(display.display) == before, "the keymap was not restored"
    assert stored_run(db) == ("aborted", [(1, "passed"), (2, "aborted")])


def test_sigint_during_a_long_type_step_stops_it(xvfb, tmp_path):
    # 20,000 characters take several seconds to type; the shift before them says when
    # typing starts (it lets go of shift)
    db = imported(
        tmp_path,
        "long_type",
        [
            {"action": "key", "text": "shift", "duration": 0.5},
            {"action": "type", "text": "a" * 20_000},
            {"action": "wait", "duration": 0.1},
        ],
    )
    proc = start(xvfb, db, tmp_path)
    wait_until(lambda: held_state(xvfb.display)[0], proc, "held shift")
    wait_until(lambda: not held_state(xvfb.display)[0], proc, "let go of shift")
    time.sleep(0.3)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    assert proc.wait(30) == 130, (tmp_path / "replay.stderr").read_text()
    assert time.monotonic() - sent < 2.0, "the type step ran on after SIGINT"
    assert held_state(xvfb.display) == ([], 0)
    assert stored_run(db) == ("aborted", [(1, "passed"), (2, "aborted")])


def test_sigint_with_every_later_step_already_due_is_not_lost(xvfb, tmp_path):
    # steps without t follow the shift at once: when it is let go, they are all past due,
    # and none of them sends input, so only the schedule can notice the abort
    steps = [{"action": "key", "text": "shift", "duration": 0.5}]
    steps += [{"action": "cursor_position"}] * 4_000  # a few seconds of work
    db = imported(tmp_path, "due", steps)
    proc = start(xvfb, db, tmp_path)
    wait_until(lambda: held_state(xvfb.display)[0], proc, "held shift")
    wait_until(lambda: not held_state(xvfb.display)[0], proc, "let go of shift")
    time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(60) == 130, (tmp_path / "replay.stderr").read_text()[-500:]
    status, results = stored_run(db)
    assert status == "aborted" and len(results) < len(steps)


def test_a_move_is_the_replays_before_its_motion_is_sent(xdisplay):
    from deskreel.replayer import Injector

    injector = Injector(xdisplay)
    known = []
    send = injector._fake
    injector._fake = lambda kind, **fields: known.append(injector.last_move) or send(kind, **fields)
    injector.move(0, 0)
    injector.move(1279, 799)
    assert known == [((0, 0),), ((0, 0), (1279, 799))]


def test_the_replays_own_moves_into_corners_do_not_abort_it(xvfb, tmp_path):
    w, h = 1280, 800  # the fixture's screen
    corners = [[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]]
    # 20 ms apart, as the watcher polls: the rhythm that let it catch the replay's own
    # moves half done (a run of 300 such steps seldom got to the end)
    steps = []
    for i in range(150):
        into = "mouse_move" if i % 2 else "left_click"
        steps.append({"action": into, "coordinate": corners[i % 4], "t": i * 0.04})
        steps.append({"action": "left_click", "coordinate": [w // 2, h // 2], "t": i * 0.04 + 0.02})
    db = imported(tmp_path, "corners", steps)
    done = deskreel("replay", db, "-q", env=xvfb.env())
    assert done.returncode == 0, done.stderr
    assert held_state(xvfb.display) == ([], 0)


def test_release_all_restores_the_keycodes_a_killed_replay_bound(tmp_path):
    db = imported(
        tmp_path,
        "killed",
        [{"action": "type", "text": "東京ü"}, {"action": "key", "text": "shift", "duration": 30}],
    )
    with VirtualDisplay() as display:
        before = keyboard_mapping(display.display)
        proc = start(display, db, tmp_path)
        wait_until(holding_only_shift(display.display), proc, "held shift")
        proc.kill()
        proc.wait()
        assert keyboard_mapping(display.display) != before, "SIGKILL should leave bindings"
        done = deskreel("release-all", env=display.env())
        assert done.returncode == 0, done.stderr
        assert "re-bound by a replay" in done.stderr
        assert keyboard_mapping(display.display) == before
        assert held_state(display.display) == ([], 0)
        again = deskreel("release-all", env=display.env())
        assert again.stderr.strip() == "nothing was held"


def test_a_failing_close_still_stores_the_run(xvfb, tmp_path, monkeypatch):
    import pytest

    replay_module = importlib.import_module("deskreel.replayer.replay")
    from deskreel.replayer import Progress, ReplayOptions
    from deskreel.storage import open_store

    db = one_wait_step(tmp_path, "close")
    real_close = replay_module.Injector.close

    def close_then_fail(self):
        real_close(self)
        raise OSError("the X connection broke")

    monkeypatch.setattr(replay_module.Injector, "close", close_then_fail)
    with open_store(db, create=False) as store:
        with pytest.raises(OSError, match="connection broke"):
            replay_module.replay(
                store,
                store.recording(None),
                options=ReplayOptions(),
                display=xvfb.display,
                progress=Progress(total=1, quiet=True),
            )
        [run] = store.runs()
        assert run.status == "passed" and [r.status for r in store.step_results(run.id)] == [
            "passed"
        ]


def test_ctrl_c_before_the_switch_takes_over_is_stored_as_an_abort(xvfb, tmp_path, monkeypatch):
    import pytest

    replay_module = importlib.import_module("deskreel.replayer.replay")
    from deskreel.replayer import Progress, ReplayOptions

    db = one_wait_step(tmp_path, "early")

    def interrupted(*args, **kwargs):  # Ctrl-C while the replay still sets itself up
        raise KeyboardInterrupt

    monkeypatch.setattr(replay_module, "AbortWatcher", interrupted)
    with open_store(db, create=False) as store:
        with pytest.raises(KeyboardInterrupt):
            replay_module.replay(
                store,
                store.recording(None),
                options=ReplayOptions(),
                display=xvfb.display,
                progress=Progress(total=1, quiet=True),
            )
        [run] = store.runs()
        assert run.status == "aborted"
    assert held_state(xvfb.display) == ([], 0)


def test_an_x_server_that_goes_away_ends_the_replay_in_one_line(tmp_path):
    # the X server exits (a crash, a nested Xephyr closed) during a step: an abort,
    # said once, stored as the run's end; no traceback from any thread
    db = imported(
        tmp_path,
        "gone",
        [
            {"action": "left_click", "coordinate": [10, 10]},
            {"action": "wait", "duration": 5},  # under way when the server goes
            {"action": "type", "text": "never typed"},
        ],
    )
    with VirtualDisplay() as display:
        replay = subprocess.Popen(
            [sys.executable, "-m", "deskreel", "replay", db],
            env=display.env(),
            stderr=subprocess.PIPE,
            text=True,
        )
        assert replay.stderr is not None
        said = [replay.stderr.readline()]
        assert "step 1/3" in said[0], said
        time.sleep(1.0)
        name = display.display
        display.stop()
        err = "".join(said) + replay.communicate(timeout=60)[1]
    assert replay.returncode == 130, err
    assert f"replay aborted: the X display {name} went away" in err, err
    assert "Traceback" not in err and "Exception in thread" not in err, err
    with open_store(db, create=False) as store:
        run = store.runs()[-1]
    assert run.status == "aborted", run


def test_an_x_server_that_goes_away_during_a_screen_grab_ends_the_replay(tmp_path, monkeypatch):
    # the grabs' library raises errors of its own when the server is gone (an assertion,
    # its XError): the server's socket says it went away
    import shutil

    from deskreel.replayer import Progress, ReplayOptions
    from deskreel.xsession.grab import Grabber

    replay_module = importlib.import_module("deskreel.replayer.replay")
    demo = tmp_path / "demo.db"
    shutil.copy(Path(__file__).resolve().parent.parent / "samples" / "demo.db", demo)
    real_rgb = Grabber.rgb
    with VirtualDisplay() as display:

        def server_gone_first(self):
            display.stop()
            return real_rgb(self)

        monkeypatch.setattr(Grabber, "rgb", server_gone_first)
        name = display.display
        with open_store(demo, create=False) as store:
            outcome = replay_module.replay(
                store,
                store.recording(None),
                options=ReplayOptions(),
                display=name,
                progress=Progress(total=8, quiet=True),
            )
            [run] = store.runs()
    assert outcome.status == "aborted" and run.status == "aborted", outcome
    assert outcome.message == f"replay aborted: the X display {name} went away"

"""`deskreel reduce` on a real SQLite file: other thresholds, the same recording's frames,
anchors and windows kept where they still belong."""

import pytest

from deskreel.recorder.reduce import reduce_events
from deskreel.storage import Action, Anchor, Step, open_store
from tests.commands import deskreel
from tests.test_reduce import click, events, move, typing


def recorded(db):
    """A recording as the recorder leaves it: a click, a hover, a click, typing; each step
    with its own frames and window, the pointer steps with anchors."""
    evs = events(click(0, 100, 100), move(0.5, 400, 300), click(2.0, 700, 500), typing(2.5, "hi"))
    with open_store(db) as store:
        rec = store.create_recording("r", source="recorder")
        store.add_events(rec, evs, first_seq=0)
        steps = []
        for n, r in enumerate(reduce_events(evs), start=1):
            before, after = (
                store.put_frame(f"{side} {n}".encode(), width=2, height=2, fmt="webp")
                for side in ("before", "after")
            )
            anchor = None
            if r.action.is_pointer:
                anchor = Anchor(png=f"anchor {n}".encode(), box=(0, 0, 2, 2), offset=(1, 1))
            steps.append(
                Step(
                    step=n,
                    action=r.action,
                    t_start=r.t_start,
                    t_end=r.t_end,
                    events=(r.first, r.last),
                    before_frame=before,
                    after_frame=after,
                    anchor=anchor,
                    window_class="app",
                    window_title=f"window {n}",
                )
            )
        store.add_steps(rec, steps)
    return [s.action.action for s in steps]


def stored(db):
    with open_store(db, create=False) as store:
        return store.steps(store.recording("r").id)


def test_reduce_keeps_frames_anchors_and_windows_of_unchanged_steps(tmp_path):
    db = tmp_path / "rec.db"
    assert recorded(db) == ["left_click", "mouse_move", "left_click", "type"]
    original = {s.events: s for s in stored(db)}

    done = deskreel("reduce", db, "--hover-time", "2")  # the hover (1.5 s) is gone
    assert done.returncode == 0, done.stderr
    steps = stored(db)
    assert [s.action.action for s in steps] == ["left_click", "left_click", "type"]
    for step in steps:  # the same events: the same frames, anchor and window
        was = original[step.events]
        assert (
            step.before_frame,
            step.after_frame,
            step.anchor,
            step.window_class,
            step.window_title,
        ) == (was.before_frame, was.after_frame, was.anchor, "app", was.window_title), step
    assert steps[0].anchor is not None
    assert "now has 3 steps (3 with their recorded frames)" in done.stderr

    done = deskreel("reduce", db)  # back to the defaults: the hover is a new step
    assert done.returncode == 0, done.stderr
    steps = stored(db)
    assert [s.action.action for s in steps] == ["left_click", "mouse_move", "left_click", "type"]
    hover = steps[1]
    assert hover.before_frame is None and hover.anchor is None  # nothing recorded it
    assert (hover.window_class, hover.window_title) == ("app", "window 1")  # the one then
    assert [s.window_title for s in steps] == ["window 1", "window 1", "window 3", "window 4"]
    assert all(s.before_frame is not None for s in steps if s is not hover)


def test_reduce_dry_run_changes_nothing(tmp_path):
    db = tmp_path / "rec.db"
    recorded(db)
    before = stored(db)
    done = deskreel("reduce", db, "--dry-run", "--hover-time", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 3 and "would have 3 steps" in done.stderr
    assert stored(db) == before


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--idle", "-1", "deskreel: --idle must be seconds >= 0, got -1"),
        ("--drag-distance", "-0.5", "deskreel: --drag-distance must be pixels >= 0, got -0.5"),
        ("--hover-time", "nan", "deskreel: --hover-time must be seconds >= 0, got nan"),
    ],
)
def test_reduce_refuses_negative_thresholds(tmp_path, option, value, message):
    db = tmp_path / "rec.db"
    recorded(db)
    before = stored(db)
    done = deskreel("reduce", db, option, value)
    assert done.returncode == 2
    assert done.stderr.strip() == message and done.stdout == ""
    assert stored(db) == before


def test_reduce_refuses_a_recording_with_redacted_typing(tmp_path):
    # its typed keys were stored without names: reducing would drop the secret's step
    from deskreel.storage.vocabulary import Action

    db = tmp_path / "rec.db"
    with open_store(db) as store:
        rec = store.create_recording("r", source="recorder")
        store.add_steps(rec, [Step(step=1, action=Action("type", text="{{secret:1}}"))])
    done = deskreel("reduce", db)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "deskreel: recording 1 'r' has redacted typing, whose key "
        "events are gone: reducing it would lose those steps; "
        "change its steps with 'deskreel edit' instead"
    )
    assert [s.action.text for s in stored(db)] == ["{{secret:1}}"]


def test_reduce_gives_an_old_recording_its_doubled_letters(tmp_path):
    # A recording from before the settings were stored: xdotool's `type --delay 12` raw
    # events intact, its steps as the old 20 ms re-press rule reduced them.
    from tests.test_reduce import xdotool_type

    db = tmp_path / "old.db"
    evs = xdotool_type(0, "Hello balloon 1000: aa bb ccc!", delay=0.012)
    with open_store(db) as store:
        rec = store.create_recording("old", source="recorder", extra={"fps": 10.0})
        store.add_events(rec, evs, first_seq=0)
        store.add_steps(
            rec,
            [
                Step(
                    step=1,
                    action=Action("type", text="Helo balon 10: abc!"),
                    t_start=0.0,
                    t_end=evs[-1].t,
                    events=(0, len(evs) - 1),
                )
            ],
        )
    done = deskreel("reduce", db, "-r", "old")
    assert done.returncode == 0, done.stderr
    with open_store(db, create=False) as store:
        steps = store.steps(store.recording("old").id)
    assert [s.action for s in steps] == [Action("type", text="Hello balloon 1000: aa bb ccc!")]


def test_reduce_takes_a_repeat_delay_for_a_recording_that_has_none(tmp_path):
    from tests.test_reduce import tap

    db = tmp_path / "old.db"
    with open_store(db) as store:
        rec = store.create_recording("old", source="recorder")
        store.add_events(rec, tap(0, "Return", hold=0.4), first_seq=0)
    plain = deskreel("reduce", db, "--dry-run")  # X's 660 ms: a tap
    quick = deskreel("reduce", db, "--dry-run", "--repeat-delay", "0.25")  # held 0.4 s
    assert '{"action": "key", "text": "Return"}' in plain.stdout, plain.stderr
    assert '"duration": 0.4' in quick.stdout and "duration" not in plain.stdout, quick.stderr

"""`deskreel edit` and storage.edit: one transaction each, renumbered steps, nothing half-done."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import func, select

from deskreel.cli import run
from deskreel.edit_cmd import parse_steps
from deskreel.storage import (
    Action,
    EditError,
    RecordingEdit,
    StepResult,
    edit_recording,
    open_store,
)
from deskreel.storage import schema as s
from deskreel.xsession.images import encode_png
from tests.fixture_recording import build_recording, draw


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


@pytest.fixture
def fixture(tmp_path):
    return build_recording(tmp_path / "rec.db")


def state(db) -> dict:
    """Everything an edit may touch, to prove that a refused edit touched nothing."""
    with open_store(db) as store, store.engine.connect() as conn:
        return {
            t.name: sorted(map(tuple, conn.execute(select(t)).all()), key=repr)
            for t in (
                s.recordings,
                s.actions,
                s.anchors,
                s.events,
                s.frames,
                s.masks,
                s.step_results,
            )
        }


def steps(db, ref="every-kind"):
    with open_store(db) as store:
        return store.steps(store.recording(ref).id)


@pytest.mark.parametrize(
    "text,expected",
    [("3", {3}), ("3,5,9-12", {3, 5, 9, 10, 11, 12}), (" 2 - 4 , 7 ", {2, 3, 4, 7}), ("5-5", {5})],
)
def test_steps_syntax(text, expected):
    assert parse_steps(text) == expected


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "'' is not a step or a range"),
        ("a", "'a' is not a step or a range"),
        ("9-", "'9-' is not a step"),
        ("3,,4", "'' is not a step"),
        ("0", "numbered from 1"),
        ("12-9", "the range 12-9 runs backwards (write 9-12)"),
        ("1-999999", "longer than"),
    ],
)
def test_bad_steps_syntax(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_steps(text)


def test_drop_renumbers_and_keeps_frames_and_anchors(fixture, capsys):
    before = {st.step: st for st in fixture.steps}
    assert deskreel("edit", fixture.db, "-r", fixture.name, "--drop", "2,5-6") == 0
    assert "3 dropped; it now has 25 steps" in capsys.readouterr().err
    after = steps(fixture.db)
    assert [st.step for st in after] == list(range(1, 26))
    old_numbers = [n for n in before if n not in (2, 5, 6)]
    for st, old in zip(after, old_numbers, strict=True):
        was = before[old]
        assert (
            st.action,
            st.t_start,
            st.before_frame,
            st.after_frame,
            st.anchor,
            st.window_title,
            st.disabled,
            st.events,
        ) == (
            was.action,
            was.t_start,
            was.before_frame,
            was.after_frame,
            was.anchor,
            was.window_title,
            was.disabled,
            was.events,
        )
    with open_store(fixture.db) as store, store.engine.connect() as conn:
        anchors = conn.scalar(select(func.count()).select_from(s.anchors))
        dropped_events = [was.events for n, was in before.items() if n in (2, 5, 6)]
        seqs = set(conn.scalars(select(s.events.c.seq)))
    assert anchors == sum(1 for st in after if st.anchor)  # step 2's anchor went with it
    for first, last in dropped_events:
        assert not seqs & set(range(first, last + 1))  # reduce cannot bring them back


def test_disable_enable_and_show(fixture, capsys):
    assert deskreel("edit", fixture.db, "-r", "1", "--disable", "3-4", "--enable", "24") == 0
    assert "2 disabled, 1 enabled" in capsys.readouterr().err
    flags = {st.step: st.disabled for st in steps(fixture.db)}
    assert [n for n, off in flags.items() if off] == [3, 4]
    assert deskreel("show", fixture.db, "-r", "1") == 0
    shown = [line for line in capsys.readouterr().out.splitlines() if line.endswith("disabled")]
    assert [line.split()[0] for line in shown] == ["3", "4"]


def test_insert_after_takes_the_previous_steps_end(fixture):
    wait = '{"action": "wait", "duration": 2}'
    click = '{"action": "left_click", "coordinate": [5, 6]}'
    assert (
        deskreel(
            "edit",
            fixture.db,
            "-r",
            "1",
            "--insert-after",
            "3",
            wait,
            "--insert-after",
            "3",
            click,
            "--insert-after",
            "0",
            '{"action": "screenshot"}',
        )
        == 0
    )
    after = steps(fixture.db)
    assert len(after) == len(fixture.steps) + 3
    assert after[0].action == Action("screenshot") and after[0].t_start == 0.0
    third = fixture.steps[2]
    assert [st.action.action for st in after[4:6]] == ["wait", "left_click"]
    assert all(st.t_start == st.t_end == third.t_end for st in after[4:6])
    assert after[4].before_frame is None and after[4].anchor is None
    assert after[6].action == fixture.steps[3].action  # the old step 4 follows


def test_inserted_coordinates_may_reach_the_screens_edge(fixture, tmp_path):
    corner = '{"action": "left_click_drag", "start_coordinate": [0, 0], "coordinate": [319, 199]}'
    region = '{"action": "screenshot", "region": [300, 180, 20, 20]}'
    assert (
        deskreel(
            "edit",
            fixture.db,
            "-r",
            "1",
            "--insert-after",
            "1",
            corner,
            "--insert-after",
            "1",
            region,
        )
        == 0
    )
    assert [st.action.action for st in steps(fixture.db)[1:3]] == ["left_click_drag", "screenshot"]
    # an imported script has no screen size: nothing to check against
    script, db = tmp_path / "s.jsonl", tmp_path / "script.db"
    script.write_text('{"action": "wait", "duration": 1}\n')
    assert deskreel("import", script, db, "--name", "script") == 0
    far = '{"action": "left_click", "coordinate": [5000, 4000]}'
    assert deskreel("edit", db, "-r", "script", "--insert-after", "1", far) == 0


def test_trim_start_and_end(fixture, capsys):
    # Steps start at 0.5, 1.5, 2.5...; the recording lasts until 29.6 s.
    assert deskreel("edit", fixture.db, "-r", "1", "--trim-start", "2", "--trim-end", "4") == 0
    assert "moved 2.5s earlier" in capsys.readouterr().err
    after = steps(fixture.db)
    kept = [st for st in fixture.steps if 2 <= st.t_start <= 29.6 - 4]
    assert [st.action for st in after] == [st.action for st in kept]
    assert after[0].t_start == 0.0
    assert [round(st.t_start, 6) for st in after] == [round(st.t_start - 2.5, 6) for st in kept]
    with open_store(fixture.db) as store:
        events = store.events(fixture.recording_id)
    assert min(e.t for e in events) == 0.0
    assert max(e.t for e in events) <= kept[-1].t_end - 2.5 + 1e-9


def test_rename_and_an_edit_survive_a_reopen(fixture):
    assert deskreel("edit", fixture.db, "-r", fixture.name, "--rename", "clean", "--drop", "1") == 0
    with open_store(fixture.db) as store:
        rec = store.recording("clean")
        assert rec.id == fixture.recording_id and rec.steps == len(fixture.steps) - 1
        assert store.steps(rec.id)[0].action == fixture.steps[1].action


def test_copy_to_leaves_the_original_and_shares_frames(fixture, capsys):
    original = state(fixture.db)
    assert deskreel("edit", fixture.db, "-r", "1", "--copy-to", "copy", "--drop", "1-3") == 0
    assert "copied recording 1 'every-kind' to 2 'copy'" in capsys.readouterr().err
    now = state(fixture.db)
    assert now["frames"] == original["frames"]  # shared by content, not copied
    assert steps(fixture.db) == fixture.steps  # the original is untouched
    copy = steps(fixture.db, "copy")
    assert [st.action for st in copy] == [st.action for st in fixture.steps[3:]]
    assert [st.anchor for st in copy] == [st.anchor for st in fixture.steps[3:]]
    with open_store(fixture.db) as store:
        rec = store.recording("copy")
        assert rec.extra["copied_from"] == {"id": 1, "name": "every-kind"}
        assert rec.screen == (320, 200)
        kept = store.events(rec.id)
        assert 0 < len(kept) < len(store.events(1))
        with store.engine.connect() as conn:
            anchors = set(conn.scalars(select(s.anchors.c.recording_id)))
    assert anchors == {1, 2}


def test_a_plain_copy(fixture):
    assert deskreel("edit", fixture.db, "-r", "1", "--copy-to", "backup") == 0
    assert steps(fixture.db, "backup") == steps(fixture.db)  # anchors equal by value


@pytest.mark.parametrize(
    "args,message",
    [
        (["--drop", "99"], "recording 1 'every-kind' has no step 99 (it has steps 1 to 28)"),
        (["--drop", "3-1"], "--drop '3-1': the range 3-1 runs backwards"),
        (["--disable", "x"], "--disable 'x': 'x' is not a step or a range"),
        (["--insert-after", "3", "{bad"], "--insert-after 3: not valid JSON"),
        (["--insert-after", "3", '{"action": "fly"}'], "--insert-after 3: unknown action 'fly'"),
        (["--insert-after", "3", '{"action": "left_click"}'], "coordinate is required"),
        (["--insert-after", "40", '{"action": "wait", "duration": 1}'], "has no step 40"),
        (["--insert-after", "three", "{}"], "'three' is not a step number"),
        # the fixture's screen is 320x200
        (
            ["--insert-after", "3", '{"action": "left_click", "coordinate": [320, 10]}'],
            "cannot insert after step 3: its coordinate [320, 10] is off the 320x200 screen of "
            "recording 1 'every-kind' (x 0 to 319, y 0 to 199)",
        ),
        (
            ["--insert-after", "3", '{"action": "mouse_move", "coordinate": [10, 200]}'],
            "coordinate [10, 200] is off the 320x200 screen",
        ),
        (
            [
                "--insert-after",
                "0",
                '{"action": "left_click_drag", "start_coordinate": [640, 400], '
                '"coordinate": [1, 1]}',
            ],
            "start_coordinate [640, 400] is off the 320x200 screen",
        ),
        (
            ["--insert-after", "3", '{"action": "screenshot", "region": [300, 0, 21, 10]}'],
            "region [300, 0, 21, 10] is off the 320x200 screen",
        ),
        (["--drop", "2", "--disable", "2"], "step 2 cannot be both dropped and disabled"),
        (["--trim-start", "-1"], "--trim-start must be zero or more seconds"),
        (["--trim-start", "nan"], "--trim-start must be zero or more seconds"),
        (["--trim-start", "100"], "without steps: drop or trim less"),
        (["--drop", "1-28"], "without steps"),
        (["--rename", "taken"], "already holds a recording named 'taken'"),
        (["--drop", "1", "--rename", "taken"], "already holds a recording named 'taken'"),
        (["--copy-to", "taken", "--drop", "1"], "already holds a recording named 'taken'"),
        (["--rename", "x", "--copy-to", "y"], "give --rename or --copy-to, not both"),
        (["--rename", " "], "a recording name cannot be empty"),
        ([], "nothing to do"),
    ],
)
def test_bad_edits_change_nothing(fixture, capsys, args, message):
    build_recording(fixture.db, name="taken")
    with open_store(fixture.db) as store:
        store.add_mask(fixture.recording_id, (1, 2, 3, 4), step=3)
    _name_in_a_run(fixture, fixture.steps[0].before_frame)
    before = state(fixture.db)
    capsys.readouterr()
    assert deskreel("edit", fixture.db, "-r", "1", *args) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert state(fixture.db) == before


def test_edit_needs_a_recording(fixture, capsys):
    assert deskreel("edit", fixture.db, "--drop", "1") == 2
    assert deskreel("edit", fixture.db, "-r", "nope", "--drop", "1") == 2
    assert "has no recording 'nope'" in capsys.readouterr().err


def test_the_storage_function_is_one_transaction(fixture):
    """A failure after the steps were rewritten (the rename) rolls the steps back too."""
    build_recording(fixture.db, name="taken")
    with open_store(fixture.db) as store:
        with pytest.raises(EditError):
            edit_recording(
                store, fixture.recording_id, RecordingEdit(drop=frozenset({1, 2}), rename="taken")
            )
        assert store.steps(fixture.recording_id) == fixture.steps
        summary = edit_recording(
            store,
            fixture.recording_id,
            RecordingEdit(drop=frozenset({1}), insert_after=((2, Action("cursor_position")),)),
        )
    assert (summary.dropped, summary.inserted, summary.steps) == (1, 1, len(fixture.steps))
    assert summary.name == "every-kind"


def test_a_mask_follows_its_step_through_drop_and_copy(fixture):
    with open_store(fixture.db) as store:
        store.add_mask(fixture.recording_id, (0, 0, 9, 9))  # every step
        store.add_mask(fixture.recording_id, (1, 1, 5, 5), step=2)
        store.add_mask(fixture.recording_id, (3, 3, 7, 7), step=3)
        store.add_mask(fixture.recording_id, (4, 4, 8, 8), step=5)
    assert deskreel("edit", fixture.db, "-r", "1", "--drop", "2,4") == 0
    with open_store(fixture.db) as store:
        # step 2's mask went with it; step 3 is now 2 and step 5 is now 3
        assert store.masks(fixture.recording_id) == {
            None: [(0, 0, 9, 9)],
            2: [(3, 3, 7, 7)],
            3: [(4, 4, 8, 8)],
        }
    assert deskreel("edit", fixture.db, "-r", "1", "--copy-to", "copy", "--drop", "1") == 0
    with open_store(fixture.db) as store:
        assert store.masks(fixture.recording_id) == {
            None: [(0, 0, 9, 9)],
            2: [(3, 3, 7, 7)],
            3: [(4, 4, 8, 8)],
        }
        assert store.masks(store.recording("copy").id) == {
            None: [(0, 0, 9, 9)],
            1: [(3, 3, 7, 7)],
            2: [(4, 4, 8, 8)],
        }
        assert [st.action for st in store.steps(store.recording("copy").id)[:2]] == [
            fixture.steps[2].action,
            fixture.steps[4].action,
        ]  # the steps the masks were on


def test_dropped_steps_take_the_frames_only_they_used(fixture):
    before = {k for st in fixture.steps for k in (st.before_frame, st.after_frame) if k}
    assert deskreel("edit", fixture.db, "-r", "1", "--drop", "1-3,20-27") == 0
    with open_store(fixture.db) as store, store.engine.connect() as conn:
        used = {
            k
            for st in store.steps(fixture.recording_id)
            for k in (st.before_frame, st.after_frame)
            if k
        }
        held = set(conn.scalars(select(s.frames.c.hash)))
    assert used < before and held == used


def _name_in_a_run(fixture, key: str) -> int:
    """A run of the recording whose step 2 result names `key`; the run's id."""
    with open_store(fixture.db) as store:
        run = store.start_run(fixture.recording_id, mode="verify", options={})
        store.add_step_results(run, [StepResult(2, "failed", details={"replay_after": key})])
        store.finish_run(run, "failed")
    return run


def test_a_frame_a_step_result_names_outlives_the_step_that_used_it(fixture):
    key = fixture.steps[0].before_frame  # step 1's alone: step 2 saw the next one
    assert key and all(key not in (st.before_frame, st.after_frame) for st in fixture.steps[1:])
    _name_in_a_run(fixture, key)  # step 2's result names it, and step 2 stays
    assert deskreel("edit", fixture.db, "-r", "1", "--drop", "1") == 0
    with open_store(fixture.db) as store, store.engine.connect() as conn:
        held = set(conn.scalars(select(s.frames.c.hash)))
    assert key in held and fixture.steps[0].after_frame in held  # step 2 still uses that


def test_a_dropped_steps_results_take_the_frames_only_they_named(fixture):
    with open_store(fixture.db) as store:
        screen = store.put_frame(encode_png(draw(99)), width=320, height=200, fmt="png")
        run = store.start_run(fixture.recording_id, mode="verify", options={})
        store.add_step_results(run, [StepResult(1, "failed", details={"replay_after": screen})])
    assert deskreel("edit", fixture.db, "-r", "1", "--drop", "1") == 0
    with open_store(fixture.db) as store, store.engine.connect() as conn:
        assert screen not in set(conn.scalars(select(s.frames.c.hash)))
        assert store.step_results(run) == []


def results(db, run_id) -> dict[int, str]:
    with open_store(db) as store:
        return {r.step: r.message for r in store.step_results(run_id)}


def test_past_results_follow_their_steps(store_url):
    """A report of a run before the edit pins each result on the step it was about (on
    SQLite and PostgreSQL, which check the (run, step) key row by row)."""
    fixture = build_recording(store_url)
    with open_store(fixture.db) as store:
        runs = [store.start_run(fixture.recording_id, mode="verify", options={}) for _ in range(2)]
        for run in runs:
            store.add_step_results(
                run,
                [StepResult(st.step, "passed", message=st.action.action) for st in fixture.steps],
            )
    wait = '{"action": "wait", "duration": 1}'
    # step 1 moves onto step 2's number before step 2 has left it
    assert (
        deskreel(
            "edit",
            fixture.db,
            "-r",
            "1",
            "--drop",
            "5-6",
            "--insert-after",
            "0",
            wait,
            "--insert-after",
            "9",
            wait,
            "--insert-after",
            "9",
            wait,
        )
        == 0
    )
    after = steps(fixture.db)
    for run in runs:
        got = results(fixture.db, run)
        assert {after[n - 1].action.action for n in set(range(1, len(after) + 1)) - set(got)} == {
            "wait"
        }  # the inserted steps only: no run before the edit did them
        assert got == {st.step: st.action.action for st in after if st.step in got}
        assert len(got) == len(fixture.steps) - 2  # those of dropped steps went
    assert results(fixture.db, runs[0])[2] == "mouse_move"  # the old step 1 is now step 2
    # trimming drops and moves results alike; a copy leaves the original's runs alone
    assert deskreel("edit", fixture.db, "-r", "1", "--copy-to", "copy", "--drop", "1") == 0
    assert deskreel("edit", fixture.db, "-r", "1", "--trim-start", "3") == 0
    after = steps(fixture.db)
    got = results(fixture.db, runs[1])
    assert got == {st.step: st.action.action for st in after if st.step in got} and got


@pytest.mark.parametrize(
    "damaged,kept", [("{not json", False), ('{not json "replay_after": "KEY"', True)]
)
def test_an_edit_is_not_stopped_by_damaged_result_details(fixture, capsys, damaged, kept):
    key = fixture.steps[0].before_frame
    run_id = _name_in_a_run(fixture, key)
    with sqlite3.connect(fixture.db) as conn:
        conn.execute(
            "UPDATE step_results SET details = ? WHERE run_id = ?",
            (damaged.replace("KEY", key), run_id),
        )
    conn.close()
    capsys.readouterr()
    assert deskreel("edit", fixture.db, "-r", "1", "--drop", "1") == 0
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "1 dropped; it now has" in err
    assert "Traceback" not in out + err
    with open_store(fixture.db) as store, store.engine.connect() as conn:
        held = set(conn.scalars(select(s.frames.c.hash)))
    assert (key in held) is kept  # named in the damaged text: kept, the safe side

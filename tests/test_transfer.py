"""push and pull: a recording travels whole, once, between an SQLite file and another store
(`store_url`: another SQLite file, and a real PostgreSQL database when one is configured)."""

from __future__ import annotations

from datetime import UTC

import pytest
from sqlalchemy import func, select

from deskreel.cli import run
from deskreel.storage import RawEvent, StepResult, edit_recording, open_store
from deskreel.storage import schema as s
from deskreel.storage.edit import RecordingEdit
from deskreel.storage import RESULT_FRAME_KEYS
from deskreel.storage.unused_frames import result_frames
from deskreel.storage.transfer import copy_recording
from tests.fixture_recording import build_recording
from tests.pg import run_sql

TABLES = (s.recordings, s.events, s.frames, s.anchors, s.actions, s.masks, s.runs, s.step_results)
SHOTS = 2 * len(RESULT_FRAME_KEYS)  # frames the source's two runs name, besides its steps


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


@pytest.fixture
def source(tmp_path):
    """An SQLite file with a recording of every action kind, with masks and two runs whose
    failed steps name frames of their own (the replay's screens and a diff)."""
    fx = build_recording(tmp_path / "local.db", name="login")
    with open_store(fx.db) as store:
        store.add_mask(fx.recording_id, (0, 0, 50, 10))
        store.add_mask(fx.recording_id, (5, 5, 20, 20), step=3)
        for status in ("passed", "failed"):
            shots = {
                k: store.put_frame(f"{status} {k}".encode(), width=1, height=1, fmt="png")
                for k in RESULT_FRAME_KEYS
            }
            run_id = store.start_run(fx.recording_id, mode="verify", options={"speed": 2.0})
            store.add_step_results(
                run_id,
                [
                    StepResult(
                        step=1,
                        status="passed",
                        t_start=0.1,
                        t_end=0.2,
                        score=0.97,
                        margin=0.2,
                        scale=1.0,
                        shift=(1, -2),
                        details={"looked": "all"},
                    ),
                    StepResult(
                        step=2,
                        status=status,
                        message="no match",
                        t_start=0.3,
                        t_end=0.5,
                        details={"searched": "window", **shots},
                    ),
                ],
            )
            store.finish_run(run_id, status)
    return fx


def snapshot(target, ref):
    """Everything a recording holds, without the ids that differ from store to store."""
    with open_store(target) as store:
        rec = store.recording(ref)
        steps = store.steps(rec.id)
        runs = [
            (r.started, r.status, r.mode, r.steps_passed, r.steps_failed, store.step_results(r.id))
            for r in store.runs(rec.id)
        ]
        keys = {k for st in steps for k in (st.before_frame, st.after_frame) if k is not None}
        keys |= {k for run in runs for result in run[-1] for k in result_frames(result.details)}
        frames = {k: store.frame(k) for k in keys}  # NotFoundError if one did not travel
        assert all(r.started.tzinfo == UTC for r in store.runs(rec.id))
        created = rec.created
        assert created.tzinfo == UTC
        header = (
            rec.name,
            rec.uid,
            created,
            rec.source,
            rec.screen,
            rec.dpi,
            rec.host,
            rec.keyboard_layout,
            rec.deskreel_version,
            rec.steps,
            rec.duration,
            rec.size,
            rec.extra,
        )
        return dict(
            header=header,
            events=store.events(rec.id),
            steps=steps,
            frames=frames,
            masks=store.masks(rec.id),
            runs=runs,
        )


def counts(target):
    with open_store(target) as store, store.engine.connect() as conn:
        return {t.name: conn.scalar(select(func.count()).select_from(t)) for t in TABLES}


def test_push_and_pull_give_the_same_recording_back(source, store_url, tmp_path):
    with open_store(source.db) as local, open_store(store_url) as shared:
        pushed = copy_recording(local, shared, "login")
    assert pushed.copied and pushed.target_name == "login"
    assert pushed.frames == len(source.frames) + SHOTS
    original = snapshot(source.db, "login")
    assert snapshot(store_url, "login") == original
    back = tmp_path / "back.db"
    with open_store(store_url) as shared, open_store(back) as offline:
        pulled = copy_recording(shared, offline, pushed.target_id)
    assert pulled.copied and pulled.uid == pushed.uid
    assert snapshot(back, "login") == original
    assert len(original["runs"]) == 2 and original["masks"] and original["events"]


def test_pushing_twice_changes_nothing(source, store_url, capsys):
    assert deskreel("push", source.db, store_url, "-r", "login") == 0
    err = capsys.readouterr().err
    assert f"as recording 1 'login': {len(source.frames) + SHOTS} new frames" in err
    before = counts(store_url)
    assert deskreel("push", source.db, store_url, "--all") == 0
    assert "holds recording 1 'login' already (as recording 1 'login'): nothing to do" in (
        capsys.readouterr().err
    )
    assert counts(store_url) == before
    assert before["recordings"] == 1 and before["frames"] == len(source.frames) + SHOTS


def test_a_name_taken_by_another_machine_gets_a_free_name(source, store_url, capsys):
    with open_store(store_url) as shared:
        other = shared.create_recording("login", source="recorder")
    assert deskreel("push", source.db, store_url) == 0
    err = capsys.readouterr().err
    assert "as recording 2 'login-2'" in err
    assert "renamed because" in err and "holds another recording named 'login'" in err
    with open_store(store_url) as shared:
        assert shared.recording("login").id == other
        assert shared.recording("login-2").uid == snapshot(source.db, "login")["header"][1]


def test_frames_are_sent_once_across_recordings(source, store_url):
    with open_store(source.db) as local:
        edit_recording(local, source.recording_id, RecordingEdit(), copy_to="login-copy")
        with open_store(store_url) as shared:
            first = copy_recording(local, shared, "login")
            second = copy_recording(local, shared, "login-copy")
    assert first.frames == len(source.frames) + SHOTS and second.copied and second.frames == 0
    assert second.uid != first.uid  # an edited copy is a recording of its own
    assert counts(store_url)["frames"] == len(source.frames) + SHOTS


def test_a_recording_from_before_uids_gets_one_on_first_push(source, store_url):
    run_sql(str(source.db), "update recordings set uid = null")
    with open_store(source.db) as local, open_store(store_url) as shared:
        pushed = copy_recording(local, shared, "login")
        assert local.recording("login").uid == pushed.uid
        assert not copy_recording(local, shared, "login").copied


def test_a_pulled_recording_pushed_back_is_not_copied_again(source, store_url, tmp_path, capsys):
    assert deskreel("push", source.db, store_url) == 0
    offline = tmp_path / "offline.db"
    assert deskreel("pull", store_url, offline, "-r", "login") == 0
    assert deskreel("pull", store_url, offline, "-r", "1") == 0
    assert deskreel("push", offline, store_url, "--all") == 0
    assert "nothing to do" in capsys.readouterr().err
    assert counts(store_url)["recordings"] == 1 and counts(offline)["recordings"] == 1


def test_push_every_recording(source, tmp_path, capsys):
    with open_store(source.db) as local:
        rec = local.create_recording("typed", source="script")
        local.add_events(rec, [RawEvent(t=0.1, kind="motion", x=1, y=1)], first_seq=0)
    shared = tmp_path / "shared.db"
    assert deskreel("push", source.db, shared, "--all") == 0
    assert "pushed 2 of 2 recordings (0 were there already)" in capsys.readouterr().err
    assert deskreel("push", source.db, shared, "--all") == 0
    assert "pushed 0 of 2 recordings (2 were there already)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (("-r", "1", "--all"), "give -r or --all, not both"),
        (("-r", "nope"), "has no recording 'nope'"),
    ],
)
def test_bad_push_requests_change_nothing(source, tmp_path, capsys, args, message):
    shared = tmp_path / "shared.db"
    assert deskreel("push", source.db, shared, *args) == 2
    assert message in capsys.readouterr().err
    assert not shared.exists() or counts(shared)["recordings"] == 0


def test_pull_needs_a_recording(tmp_path, capsys):
    assert deskreel("pull", tmp_path / "shared.db", tmp_path / "local.db") == 2
    assert "Missing option '-r'" in capsys.readouterr().err


def test_damaged_result_details_travel_as_they_are(source, store_url, tmp_path, capsys):
    with open_store(source.db) as local:  # a screen that only the damaged details name
        key = local.put_frame(b"replay screen", width=1, height=1, fmt="webp")
    damaged = f'{{not json "replay_after": "{key}"'
    run_sql(
        str(source.db),
        f"update step_results set details = '{damaged}' where run_id = 2 and step = 2",
    )
    back = tmp_path / "back.db"
    assert deskreel("push", source.db, store_url) == 0
    assert deskreel("pull", store_url, back, "-r", "login") == 0
    err = capsys.readouterr().err
    assert "pushed recording 1 'login'" in err and "pulled recording 1 'login'" in err
    for target in (store_url, back):
        assert run_sql(
            str(target), "select details from step_results where details like '{not json%'"
        ) == [damaged]
        with open_store(target) as store:
            assert store.frame(key)[0] == b"replay screen"


def test_a_recording_redacted_after_its_push_is_not_pushed_over(source, store_url, capsys):
    typed = "hello world"  # what step 3 of the fixture recording types
    assert deskreel("push", source.db, store_url) == 0
    assert deskreel("redact", source.db, "-r", "login", "--step", "3") == 0
    capsys.readouterr()
    assert deskreel("push", source.db, store_url) == 2
    err = capsys.readouterr().err
    with open_store(store_url) as shared:
        label = shared.label
        assert shared.steps(1)[2].action.text == typed  # still there, and said so:
    assert err == (
        f"deskreel: {label} holds recording 1 'login' from an earlier push (as "
        f"recording 1 'login'), but one of the two was edited or redacted since: "
        f"nothing was pushed; its copy there still holds what steps 3 typed: "
        f"redact them there too (deskreel redact {label} -r 1 --step 3)\n"
    )
    assert deskreel("redact", store_url, "-r", "1", "--step", "3") == 0  # as advised
    assert deskreel("push", source.db, store_url) == 0
    assert "nothing to do" in capsys.readouterr().err
    with open_store(store_url) as shared:
        assert shared.steps(1)[2].action.text == "{{secret:1}}"


def test_a_recording_edited_after_its_push_is_not_pushed_over(source, store_url, capsys):
    assert deskreel("push", source.db, store_url) == 0
    with open_store(source.db) as local:  # a local replay afterwards changes nothing shared
        local.finish_run(local.start_run(source.recording_id, mode="replay", options={}), "passed")
    assert deskreel("push", source.db, store_url) == 0
    assert "nothing to do" in capsys.readouterr().err
    before = counts(store_url)
    assert deskreel("edit", source.db, "-r", "login", "--drop", "1") == 0
    capsys.readouterr()
    assert deskreel("push", source.db, store_url, "--all") == 2
    err = capsys.readouterr().err
    assert (
        "but one of the two was edited or redacted since: nothing was pushed; to share "
        f"this version, make it a recording of its own (deskreel edit {source.db} -r 1 "
        "--copy-to NEW-NAME) and push that"
    ) in err
    assert "typed" not in err and counts(store_url) == before
    assert deskreel("edit", source.db, "-r", "login", "--copy-to", "login-v2") == 0
    assert deskreel("push", source.db, store_url, "--all") == 2
    assert (
        "pushed 1 of 2 recordings (1 were there already, 1 of them changed since)"
        in capsys.readouterr().err
    )
    with open_store(store_url) as shared:
        assert [st.action for st in shared.steps(shared.recording("login-v2").id)] == [
            st.action for st in source.steps[1:]
        ]

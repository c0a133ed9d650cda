"""`deskreel edit` and `deskreel redact` through the command line, on an SQLite file and on a
real PostgreSQL database (`store_url`, see tests/pg.py), each followed by `doctor`."""

from __future__ import annotations

from sqlalchemy import select

from deskreel.cli import run
from deskreel.storage import StepResult, open_store
from deskreel.storage import schema as s
from deskreel.storage import Evidence
from tests.fixture_recording import build_recording

TYPED = "hello world"  # step 3 of the fixture recording


def deskreel(*args: object) -> int:
    return run([str(a) for a in args])


def everything(target: str) -> str:
    """Every row of every table, as text."""
    with open_store(target) as store, store.engine.connect() as conn:
        return repr([conn.execute(select(t)).all() for t in s.metadata.sorted_tables])


def test_edit_then_doctor(store_url, capsys):
    fx = build_recording(store_url)
    assert deskreel("edit", store_url, "-r", "1", "--drop", "2-4") == 0
    assert deskreel("edit", store_url, "-r", "1", "--copy-to", "copy", "--drop", "1") == 0
    assert deskreel("edit", store_url, "-r", "copy", "--disable", "2") == 0
    with open_store(store_url) as store:
        original = store.steps(fx.recording_id)
        copy = store.steps(store.recording("copy").id)
    kept = [st.action for st in fx.steps if st.step not in (2, 3, 4)]
    assert [st.action for st in original] == kept
    assert [st.action for st in copy] == kept[1:]
    assert [st.step for st in copy if st.disabled] == [2, 20]  # fixture step 24 was
    capsys.readouterr()
    assert deskreel("doctor", store_url) == 0, capsys.readouterr().out


def test_redact_then_doctor(store_url, capsys):
    fx = build_recording(store_url)
    with open_store(store_url) as store:  # a replay's screens of the typing step
        shots = {
            k: store.put_frame(f"replay {k}".encode(), width=1, height=1, fmt="webp")
            for k in (Evidence.BEFORE, Evidence.AFTER)
        }
        run_id = store.start_run(fx.recording_id, mode="verify", options={})
        store.add_step_results(run_id, [StepResult(3, "passed", details=shots)])
        store.finish_run(run_id, "passed")
    assert TYPED in everything(store_url)
    assert deskreel("redact", store_url, "-r", fx.name, "--step", "3") == 0
    assert f"redacted 1 step(s) of {fx.name!r}" in capsys.readouterr().err
    with open_store(store_url) as store:
        step = store.steps(fx.recording_id)[2]
        events = store.events(fx.recording_id)[step.events[0] : step.events[1] + 1]
        results = store.step_results(run_id)
    assert step.action.text == "{{secret:1}}" and step.before_frame is None
    assert step.after_frame is None and step.anchor is None
    assert events and all(e.keysym is None and e.char is None for e in events)
    assert results[0].details == {}
    stored = everything(store_url)
    assert TYPED not in stored and "replay " not in stored
    assert deskreel("doctor", store_url) == 0, capsys.readouterr().out

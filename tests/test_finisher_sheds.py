"""The finisher sheds what matters least when it falls behind or is told to hurry (issue
39): the looks at rest and the animation masks, never a step or its frames."""

from __future__ import annotations

import time
from typing import Any

from deskreel.recorder.finisher import SHED_MASKS, SHED_REST, Finisher
from deskreel.recorder.jobs import JobQueue
from deskreel.recorder.pieces import Job
from deskreel.recorder.privacy import TypingRedaction
from deskreel.recorder.reduce import reduce_events
from tests.commands import deskreel
from tests.test_retention import SECONDS, Writes, person, timeline


def finish(*, behind: bool, hurry: bool, busy: bool = True) -> tuple[Finisher, Any]:
    events = person()
    jobs = JobQueue(time.monotonic)
    writes = Writes()
    finisher = Finisher(
        jobs,
        writes,  # type: ignore[arg-type]  # the finisher only calls store methods through it
        1,
        frames=True,
        settle=0.4,
        settle_cap=2.0,
        redaction=TypingRedaction(enabled=False),
    )
    job = Job(
        list(enumerate(reduce_events(events), 1)),
        0,
        timeline(events, busy=busy),
        0.0,
        SECONDS,
        False,
        events,
    )
    if behind:
        jobs.put(job)  # another job waits meanwhile
    if hurry:
        finisher.hurry.set()
    finisher._store_steps(job)
    return finisher, writes.store


def test_on_time_nothing_is_shed() -> None:
    finisher, store = finish(behind=False, hurry=False)
    assert finisher.shed == {} and store.masks
    finisher, store = finish(behind=False, hurry=False, busy=False)  # the button lit, alone
    assert any(s.anchor is not None and s.anchor.hover_png is not None for s in store.steps)


def test_behind_the_anchor_has_the_hovered_look_alone() -> None:
    finisher, store = finish(behind=True, hurry=False, busy=False)
    anchors = [s.anchor for s in store.steps if s.anchor is not None]
    assert anchors and all(a.hover_png is None for a in anchors)


def test_behind_it_sheds_the_looks_at_rest_and_the_masks_but_no_frame() -> None:
    on_time = finish(behind=False, hurry=False)[1]
    for behind, hurry in ((True, False), (False, True)):
        finisher, store = finish(behind=behind, hurry=hurry)
        inputs = [s for s in store.steps if s.action.action != "wait"]
        pointer = [s for s in inputs if s.action.action in ("mouse_move", "left_click")]
        assert finisher.shed == {SHED_MASKS: len(inputs), SHED_REST: len(pointer)}
        assert store.masks == []
        assert [s.action for s in store.steps] == [s.action for s in on_time.steps]
        for lean, full in zip(store.steps, on_time.steps):
            assert (lean.before_frame, lean.after_frame) == (full.before_frame, full.after_frame)
            assert (lean.anchor is None) == (full.anchor is None)
            assert lean.anchor == full.anchor  # this busy screen has no look at rest anyway


def test_a_slow_finish_is_counted_down_and_a_second_signal_hurries_it(
    xvfb: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    """After the stop, `record` says how many steps are left each second; told to hurry,
    it stores them without what may be shed, and the recording keeps what was shed."""
    import threading
    from contextlib import closing

    from deskreel.recorder import Recorder, RecordOptions
    from deskreel.storage import open_store
    from deskreel.storage.values import SHED
    from samples.person import Person

    slow = Finisher._store_steps

    def store_slowly(self: Finisher, job: Job) -> None:
        time.sleep(1.5)  # a finisher far behind a busy desktop
        slow(self, job)

    monkeypatch.setattr(Finisher, "_store_steps", store_slowly)
    said: list[str] = []
    with open_store(tmp_path / "rec.db", create=True) as store:
        recorder = Recorder(
            store, options=RecordOptions(name="slow"), display=xvfb.display, say=said.append
        )
        stop, started = threading.Event(), threading.Event()
        done: dict[str, Any] = {}
        thread = threading.Thread(
            target=lambda: done.update(
                s=recorder.run(stop.is_set, on_start=lambda n: started.set())
            )
        )
        thread.start()
        assert started.wait(10)
        with closing(Person(xvfb.display)) as person:
            for x in (100, 200, 300):
                person.click(x, 100)
                time.sleep(0.7)  # within the multi-click time of nothing: three clicks
        stop.set()
        while not recorder.finishing:
            time.sleep(0.05)
        while not any(line.startswith("finishing:") for line in said):
            time.sleep(0.05)
        recorder.hurry()
        thread.join(30)
        summary = done["s"]
        extra = store.recording("slow").extra
    countdown = [line for line in said if line.startswith("finishing:")]
    assert countdown[0].startswith("finishing: 3 steps to store (Ctrl-C"), countdown
    assert summary.steps == 3 and summary.shed
    assert extra[SHED] == summary.shed
    shown = deskreel("show", tmp_path / "rec.db", "-r", "slow")
    assert shown.returncode == 0, shown.stderr
    assert (
        "left out to keep up: animation masks of 3 steps, looks at rest of 3 steps" in shown.stdout
    )

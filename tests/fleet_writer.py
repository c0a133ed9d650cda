"""A recorder's writes without X, for tests/test_postgres.py and bench/bench_fleet.py.

It makes the Store calls that recorder/session.py makes, in the same order and sizes:
create_recording, add_events in batches of 100 rows with increasing first_seq, put_frame
(a frame of its own and one that every writer shares, as identical screens are), add_steps
with an anchor. It runs as fast as the store lets it, for `seconds`.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from deskreel.storage import Action, Anchor, RawEvent, Step, open_store

BATCH_ROWS = 100  # as recorder.writing.BATCH_ROWS
SHARED_FRAMES = 4


@dataclass(frozen=True, slots=True)
class Written:
    recording_id: int
    name: str
    events: int
    steps: int
    frames: int  # put_frame calls, shared frames included
    frame_bytes: int
    seconds: float


def write_like_a_recorder(
    url: str,
    name: str,
    *,
    seconds: float,
    rows: bool = True,
    frames: bool = True,
    frame_bytes: int = 20_000,
    start_at: float = 0.0,
) -> Written:
    """Record `name` into `url` for `seconds`: event batches, frames and steps, or one kind.

    `start_at` (a time.time()) lets processes started one after another begin together.
    """
    rng = random.Random(name)
    shared = [random.Random(-1 - i).randbytes(frame_bytes) for i in range(SHARED_FRAMES)]
    time.sleep(max(0.0, start_at - time.time()))  # all writers open the store together
    with open_store(url) as store:
        began = time.monotonic()
        rec = store.create_recording(
            name,
            source="recorder",
            screen=(1280, 800),
            extra={"fps": 10.0, "frames": frames, "display": ":0"},
        )
        seq = steps = puts = sent = 0
        while time.monotonic() - began < seconds:
            t = time.monotonic() - began
            if rows:
                batch = [
                    RawEvent(
                        t=t + i / 1000, kind="motion", x=rng.randrange(1280), y=rng.randrange(800)
                    )
                    for i in range(BATCH_ROWS)
                ]
                store.add_events(rec, batch, first_seq=seq)
                seq += BATCH_ROWS
            if frames:
                own = rng.randbytes(frame_bytes)
                before = store.put_frame(own, width=1280, height=800, fmt="webp")
                after = store.put_frame(
                    shared[steps % SHARED_FRAMES], width=1280, height=800, fmt="webp"
                )
                puts, sent, steps = puts + 2, sent + 2 * frame_bytes, steps + 1
                x, y = rng.randrange(16, 1264), rng.randrange(16, 784)
                anchor = Anchor(
                    png=own[:2000],
                    box=(x - 16, y - 16, 32, 32),
                    offset=(16, 16),
                    score=1.0,
                    margin=0.3,
                )
                span = (seq - BATCH_ROWS, seq - 1) if rows else None
                store.add_steps(
                    rec,
                    [
                        Step(
                            step=steps,
                            action=Action(action="left_click", coordinate=(x, y)),
                            t_start=t,
                            t_end=t + 0.05,
                            events=span,
                            before_frame=before,
                            after_frame=after,
                            anchor=anchor,
                            window_class="Bench",
                        )
                    ],
                )
        elapsed = time.monotonic() - began
    return Written(rec, name, seq, steps, puts, sent, elapsed)


def schema_version_of(url: str, start_at: float = 0.0) -> int:
    """Open a store (setting it up if new) at `start_at`, and say its schema version."""
    time.sleep(max(0.0, start_at - time.time()))
    with open_store(url) as store:
        return store.schema_version()

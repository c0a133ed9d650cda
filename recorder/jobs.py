"""The queue between the pieces and the finisher, which knows how long its jobs have waited.

The pieces put a job when they reduce a piece; the finisher takes them in order and says when
it is done with each. `progress` says how far the finisher is behind: the jobs and steps not
yet stored (the one it works on included), and how long the oldest of them has waited (what
`deskreel record` counts down after a stop, and what bench_long_record.py watches).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from .pieces import Job

__all__ = ["JobQueue", "Progress"]


@dataclass(frozen=True, slots=True)
class Progress:
    """What waits for the finisher now, the job it works on included."""

    jobs: int
    steps: int
    oldest_wait: float  # s since the oldest of them was put; 0 when none waits


class JobQueue:
    """Jobs in order, each with the time it was put; None ends the finisher."""

    def __init__(self, clock: Callable[[], float]):
        self._clock = clock
        self._items: deque[tuple[float, Job | None]] = deque()
        self._working: tuple[float, Job] | None = None  # taken, not yet done
        self._ready = threading.Condition()

    def put(self, job: Job | None) -> None:
        with self._ready:
            self._items.append((self._clock(), job))
            self._ready.notify()

    def get(self) -> Job | None:
        """The next job, waiting for one, until `done`; None: no more will come."""
        with self._ready:
            while not self._items:
                self._ready.wait()
            t, job = self._items.popleft()
            self._working = None if job is None else (t, job)
            return job

    def done(self) -> None:
        """The job taken last is stored."""
        with self._ready:
            self._working = None

    def waiting(self) -> int:
        """How many jobs wait to be taken."""
        with self._ready:
            return sum(job is not None for _, job in self._items)

    def progress(self) -> Progress:
        with self._ready:
            items = [*([self._working] if self._working else []), *self._items]
        jobs = [(t, job) for t, job in items if job is not None]
        oldest = self._clock() - jobs[0][0] if jobs else 0.0
        return Progress(len(jobs), sum(len(job.numbered) for _, job in jobs), oldest)

"""Writing a recording to the store: raw events in batches, and what stops a recording when
the store refuses a write.

Raw events are committed every BATCH_ROWS events or BATCH_SECONDS, on the writer loop's
thread; steps and frames are written by the finisher's thread through the same StoreWrites.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deskreel.storage import RawEvent, Store

from .errors import WriteFailed
from .privacy import Redactor

__all__ = ["BATCH_ROWS", "BATCH_SECONDS", "EventBatches", "StoreWrites"]

BATCH_ROWS = 100
BATCH_SECONDS = 0.1


class StoreWrites:
    """Every write of one recording to the store, and how much of it is written."""

    def __init__(self, store: Store):
        self.store = store
        self.events = self.steps = 0  # written
        self.failed = False

    def call(self, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`method(*args, **kwargs)`; a database error becomes WriteFailed, which says what
        is kept."""
        from sqlalchemy.exc import SQLAlchemyError

        try:
            return method(*args, **kwargs)
        except SQLAlchemyError as err:
            self.failed = True
            reason = str(getattr(err, "orig", None) or err).splitlines()[0]
            raise WriteFailed(
                f"cannot write to {self.store.label} ({reason}): recording "
                f"stopped; the {self.events} events and {self.steps} steps "
                f"already written are kept"
            ) from None


class EventBatches:
    """Kept raw events, committed to the recording in batches (redacted as they go)."""

    def __init__(
        self,
        writes: StoreWrites,
        recording_id: int,
        *,
        redactor: Redactor,
        clock: Callable[[], float],
    ):
        self.writes, self.recording_id, self._redactor = writes, recording_id, redactor
        self._clock = clock
        self.pending: list[RawEvent] = []  # kept, not yet committed
        self._last_commit = clock()

    def due(self, now: float) -> bool:
        """Whether the pending events make a batch: enough of them, or waiting long enough."""
        return bool(self.pending) and (
            len(self.pending) >= BATCH_ROWS or now - self._last_commit >= BATCH_SECONDS
        )

    def commit(self) -> int:
        """Write the pending events (if any); the number of events written in all."""
        if self.pending:
            self.writes.call(
                self.writes.store.add_events,
                self.recording_id,
                self._redactor.events(self.pending),
                first_seq=self.writes.events,
            )
            self.writes.events += len(self.pending)
            self.pending = []
            self._last_commit = self._clock()
        return self.writes.events

"""What stops a recording, as values the command line turns into one line and an exit code."""

from __future__ import annotations

__all__ = ["RecordError", "WriteFailed"]


class RecordError(Exception):
    """A recording cannot go on; the message says why and what to do."""


class WriteFailed(RecordError):
    """The database refused a write (a full disk, a lost server): the recording stops."""

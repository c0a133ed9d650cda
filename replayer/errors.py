"""What stops a replay, as values the command line turns into one line and an exit code."""

from __future__ import annotations

__all__ = ["Interrupted", "ReplayError"]


class ReplayError(Exception):
    """A replay that cannot start or go on; the message says why and what to do."""


class Interrupted(ReplayError):
    """The person stopped us: SIGINT, SIGTERM, the abort chord, a pointer thrown to a corner."""

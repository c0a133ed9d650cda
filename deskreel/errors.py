"""Exit codes, and the errors a user can hit that end in one line instead of a traceback.

Only the command line knows exit codes: the layers below raise their own typed errors
(`StorageError`, `DisplayError`, `RecordError`, `ReplayError`, ...) and return verdicts,
and `exit_code` maps both.
"""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1  # a replay step or a verification failed
EXIT_USAGE = 2  # bad input or usage: a file, a script, an option, a missing display
EXIT_INTERRUPTED = 130  # SIGINT, SIGTERM or the abort chord
# a replay's verdict (replayer.ReplayOutcome.status) as the process's exit code
EXIT_FOR_VERDICT = {"passed": EXIT_OK, "failed": EXIT_FAILED, "aborted": EXIT_INTERRUPTED}


class UserError(Exception):
    """Something the user can fix; the message names the thing and what to do."""

    exit_code = EXIT_USAGE

    def __init__(
        self, message: str, *, exit_code: int | None = None, details: dict[str, Any] | None = None
    ):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code
        self.details = details or {}


def exit_code(err: BaseException) -> int:
    """The exit code of an error the user can hit: 130 when the person stopped a replay,
    a UserError's own, else 2 (bad input or usage)."""
    from deskreel.replayer.errors import Interrupted

    if isinstance(err, Interrupted):
        return EXIT_INTERRUPTED
    return err.exit_code if isinstance(err, UserError) else EXIT_USAGE

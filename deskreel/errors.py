"""Exit codes, and the error a user can hit that ends in one line instead of a traceback."""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1  # a replay step or a verification failed
EXIT_USAGE = 2  # bad input or usage: a file, a script, an option, a missing display
EXIT_INTERRUPTED = 130  # SIGINT, SIGTERM or the abort chord


class UserError(Exception):
    """Something the user can fix; the message names the thing and what to do."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, exit_code: int | None = None,
                 details: dict[str, Any] | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code
        self.details = details or {}


class Interrupted(UserError):
    """The person stopped us: SIGINT, SIGTERM, the abort chord, a pointer thrown to a corner."""

    exit_code = EXIT_INTERRUPTED

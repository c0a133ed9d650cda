"""A question to the person at the terminal, with a recommended answer and a timeout.

Modelled on the agents' `ask` tool: on timeout the recommended option is taken; without a
terminal nobody can answer, so the caller's headless answer is used at once.
"""

from __future__ import annotations

import select
import sys
from collections.abc import Sequence
from typing import TextIO

__all__ = ["ask"]


def ask(question: str, options: Sequence[str], *, recommended: str, headless: str,
        timeout: float = 30.0, stdin: TextIO | None = None, stderr: TextIO | None = None) -> str:
    """One of `options` (their first letters also answer); `headless` without a TTY."""
    stdin = stdin or sys.stdin
    stderr = stderr or sys.stderr
    if not stdin.isatty():
        return headless
    labels = "/".join(f"[{o[0]}]{o[1:]}" for o in options)
    stderr.write(f"{question}\n  {labels} (recommended: {recommended}; taken in "
                 f"{timeout:g}s): ")
    stderr.flush()
    while True:
        ready, _, _ = select.select([stdin], [], [], timeout)
        if not ready:
            stderr.write(f"\n  no answer: {recommended}\n")
            return recommended
        answer = stdin.readline().strip().lower()
        if not answer:
            return recommended
        for option in options:
            if answer in (option, option[0]):
                return option
        stderr.write(f"  answer one of {labels}: ")
        stderr.flush()

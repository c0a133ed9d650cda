"""A question to the person at the terminal, with a recommended answer and a timeout.

Modelled on the agents' `ask` tool: on timeout the recommended option is taken; without a
terminal nobody can answer, so the caller's headless answer is used at once. The replay's
abort switch (SIGINT, SIGTERM, the abort chord) ends the wait within a tenth of a second.
"""

from __future__ import annotations

import select
import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from .safety import AbortSwitch

__all__ = ["ask"]

_SLICE = 0.1  # s between looks at the abort switch while waiting for an answer


def ask(
    question: str,
    options: Sequence[str],
    *,
    recommended: str,
    headless: str,
    timeout: float = 30.0,
    stdin: TextIO | None = None,
    stderr: TextIO | None = None,
    switch: AbortSwitch | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> str:
    """One of `options` (their first letters also answer); `headless` without a TTY.

    Raises Interrupted as soon as `switch` is tripped.
    """
    stdin = stdin or sys.stdin
    stderr = stderr or sys.stderr
    if not stdin.isatty():
        return headless
    labels = "/".join(f"[{o[0]}]{o[1:]}" for o in options)
    stderr.write(f"{question}\n  {labels} (recommended: {recommended}; taken in {timeout:g}s): ")
    stderr.flush()
    while True:
        ready = _wait(stdin, clock() + timeout, switch, clock)
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


def _wait(
    stdin: TextIO, deadline: float, switch: AbortSwitch | None, clock: Callable[[], float]
) -> bool:
    """Whether a line can be read before `deadline`; Interrupted when the switch trips."""
    while True:
        if switch is not None:
            switch.pause(0)  # raises Interrupted once tripped
        left = deadline - clock()
        if left <= 0:
            return False
        ready, _, _ = select.select([stdin], [], [], min(left, _SLICE))
        if ready:
            return True

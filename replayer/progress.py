"""Progress of a replay on stderr: a line per step, or one updating line on a terminal."""

from __future__ import annotations

import sys
from typing import TextIO

from deskreel.storage import Step

__all__ = ["Progress"]


class Progress:
    """Step i/N, the action and its result; quiet=True prints only the end."""

    def __init__(self, *, total: int, stream: TextIO | None = None, quiet: bool = False):
        self.total, self.quiet = total, quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._open_line = False

    def step(self, index: int, step: Step, result: str) -> None:
        if self.quiet or (not self.tty and result == "running"):
            return
        action = step.action
        where = action.target or ""
        text = f"step {index}/{self.total} (#{step.step}) {action.action}"
        if where:
            text += f" {list(where)}"
        elif action.text:
            text += f" {_clip(action.text)}"
        text += f": {result}"
        if self.tty:
            self.stream.write("\r\033[K" + text)
            self._open_line = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def note(self, message: str) -> None:
        self._end_line()
        self.stream.write(f"deskreel: {message}\n")

    def done(self, status: str, message: str) -> None:
        self._end_line()
        if message:
            self.stream.write(f"deskreel: {message}\n")
        self.stream.write(f"replay {status}\n")
        self.stream.flush()

    def _end_line(self) -> None:
        if self._open_line:
            self.stream.write("\n")
            self._open_line = False


def _clip(text: str, width: int = 30) -> str:
    text = text.replace("\n", "\\n")
    return repr(text if len(text) <= width else text[: width - 1] + "…")

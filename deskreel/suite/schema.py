"""The suite file's schema: each table's keys and what each value must be, the sizes a
suite may ask for, and the line a key was written on (for one-line errors)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any

from deskreel.storage.script import MAX_SCREEN

__all__ = [
    "APP",
    "DEPTHS",
    "MAX_RETRIES",
    "MAX_WORKERS",
    "READY",
    "REQUIRED",
    "SCREEN",
    "SUITE",
    "TEST",
    "TOP",
    "VERIFY",
    "Check",
    "line_of",
    "parse_size",
]

MAX_SECONDS = 24 * 3600.0  # a longer timeout or idle is a mistake
MAX_WORKERS = 64  # as --workers
MAX_SPEED = 100.0  # a replay's time factor at most
MAX_RETRIES = 10  # as --retries
DEPTHS = (24,)  # what the replay's screen grabs (mss) read


# -- the schema: each table's keys and what each must be -------------------------------------

Check = Callable[[Any], str | None]  # None when the value is right, else what it must be


def _is(kind: type | tuple[type, ...], what: str) -> Check:
    def check(value: Any) -> str | None:
        return None if isinstance(value, kind) and not isinstance(value, bool) else what

    return check


def _strings(value: Any) -> str | None:
    ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    return None if ok else "a list of strings"


def _command(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        try:
            shlex.split(value)
        except ValueError as err:
            return f"a command a shell could split ({err})"
        return None
    ok = isinstance(value, list) and value and all(isinstance(v, str) for v in value)
    return None if ok else "a command: a string, or a list of strings"


def _positive(value: Any) -> str | None:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return (
        None if number and 0 < value <= MAX_SECONDS else f"seconds above 0, at most {MAX_SECONDS:g}"
    )


def _factor(value: Any) -> str | None:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return None if number and 0 < value <= MAX_SPEED else f"a factor above 0, at most {MAX_SPEED:g}"


def _count(least: int, most: int) -> Check:
    def check(value: Any) -> str | None:
        ok = isinstance(value, int) and not isinstance(value, bool) and least <= value <= most
        return None if ok else f"a whole number from {least} to {most}"

    return check


def _env(value: Any) -> str | None:
    ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    return None if ok else 'a table of strings (NAME = "value")'


def _size(value: Any) -> str | None:
    return (
        None if isinstance(value, str) and parse_size(value) else "WIDTHxHEIGHT, such as 1280x800"
    )


def _depth(value: Any) -> str | None:
    ok = value in DEPTHS and not isinstance(value, bool)
    return None if ok else " or ".join(map(str, DEPTHS)) + " (what screen grabs read)"


def _fraction(value: Any) -> str | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1
    return None if ok else "a fraction from 0 to 1"


def _boxes(value: Any) -> str | None:
    pattern = re.compile(r"(\d+),(\d+),([1-9]\d*),([1-9]\d*)")
    ok = isinstance(value, list) and all(isinstance(v, str) and pattern.fullmatch(v) for v in value)
    return None if ok else 'a list of "X,Y,W,H" regions (W and H above 0)'


READY: dict[str, Check] = {
    "window_class": _is(str, "a window class (a glob)"),
    "window_title": _is(str, "a window title (a glob)"),
    "command": _command,
    "timeout": _positive,
}
APP: dict[str, Check] = {
    "command": _command,
    "cwd": _is(str, "a folder"),
    "env": _env,
    "setup": _command,
    "teardown": _command,
    "ready": _is(dict, "a table"),
}
SCREEN: dict[str, Check] = {
    "size": _size,
    "depth": _depth,
    "window_manager": _command,
    "accessibility": lambda v: None if isinstance(v, bool) else "true or false",
}
VERIFY: dict[str, Check] = {
    "tolerance": _fraction,
    "masks": _boxes,
    "timeout": _positive,
    "speed": _factor,
    "max_idle": _positive,
}
SUITE: dict[str, Check] = {
    "recordings": _strings,
    "workers": _count(1, MAX_WORKERS),
    "retries": _count(0, MAX_RETRIES),
}
TEST: dict[str, Check] = {
    "recordings": _strings,
    "app": _is(dict, "a table"),
    "screen": _is(dict, "a table"),
    "verify": _is(dict, "a table"),
}
TOP: dict[str, Check] = {
    "suite": _is(dict, "a table"),
    "app": _is(dict, "a table"),
    "screen": _is(dict, "a table"),
    "verify": _is(dict, "a table"),
    "test": _is(list, "an array of tables ([[test]])"),
}
REQUIRED = {"suite": ("recordings",), "test": ("recordings",)}


def parse_size(text: str) -> tuple[int, int] | None:
    size = re.fullmatch(r"(\d+)x(\d+)", text.lower(), re.ASCII)
    if size is None or not all(0 < int(n) <= MAX_SCREEN for n in size.groups()):
        return None
    return int(size[1]), int(size[2])


def line_of(text: str, where: tuple[Any, ...], key: str) -> int | None:
    """The line of `key` in the table `where` (`("test", 2, "app")`: in the third [[test]]),
    or inline in it; else the table's header line; None when neither is found."""
    lines = text.splitlines()
    names = [str(part) for part in where if not isinstance(part, int)]
    index = next((part for part in where if isinstance(part, int)), None)
    start, end = _span(lines, names, index)
    key_at = re.compile(rf"(^|[{{,])\s*{re.escape(key)}\s*=")
    for number in range(start, end):
        if key_at.search(lines[number]):
            return number + 1
    return start if start > 0 else None


_HEADER = re.compile(r"\s*\[\[?\s*([\w.]+)\s*\]\]?\s*(#.*)?")


def _span(lines: list[str], names: list[str], index: int | None) -> tuple[int, int]:
    """The lines of a table: after its header (`[a.b]`, or the index-th `[[a]]`, or `[a]`
    for a table written inline in it) up to the next header; all lines for the top."""
    if not names:
        return 0, len(lines)
    wanted = [".".join(names), names[0]] if index is None else [names[0]]
    for name in wanted:
        seen = -1
        for number, line in enumerate(lines):
            head = _HEADER.fullmatch(line)
            if head is None or head[1] != name:
                continue
            seen += 1
            if index is None or seen == index:
                end = next(
                    (n for n in range(number + 1, len(lines)) if _HEADER.fullmatch(lines[n])),
                    len(lines),
                )
                return number + 1, end
    return 0, len(lines)

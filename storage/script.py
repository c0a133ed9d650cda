"""Hand-written scripts: a JSON array, or JSON lines, of action objects.

The `actions` export writes the same objects with `step` and `t` (and `screen`,
`instruction` and `note` where known), so importing an export gives the recording back;
the lines of an `actions` dataset directory (the objects under `action`, with the frames
they were paired with beside them) import too.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import schema as s
from .vocabulary import Action, ActionError, is_seconds

__all__ = [
    "MAX_SCRIPT_BYTES",
    "MAX_T",
    "Script",
    "ScriptError",
    "ScriptStep",
    "load_json",
    "checked_text",
    "text_problem",
    "parse_script",
    "script_lines",
]

# What a dataset line holds besides its `action` (deskreel/export/trajectory.py); the
# recording's own fields (`screen`, `instruction`) and the step's `note` are read, the rest
# stays behind.
DATASET_FIELDS = ("recording", "file_name", "image_after_file_name", "unexpressed")
HEADER_FIELDS = ("screen", "instruction")  # the same on every line of a recording
_TOO_DEEP = "the JSON is nested too deeply: a script is a flat list of action objects"
MAX_T = 7 * 24 * 3600.0  # s from a script's start: a longer script is a mistake
MAX_SCRIPT_BYTES = 64 << 20  # a script's size at most: parsing takes ~9 times that in memory
_DIGITS = 18  # digits of a JSON integer at most: more are no seconds, pixels or count
MAX_SCREEN = 16384  # pixels of a screen's side at most


class ScriptError(ValueError):
    """A script that cannot become a recording; the message names the line or step."""


@dataclass(frozen=True, slots=True)
class ScriptStep:
    action: Action
    t: float  # seconds from the start
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Script:
    """A script's steps and what its lines say of the whole recording."""

    steps: tuple[ScriptStep, ...]
    screen: tuple[int, int] | None = None
    instruction: str | None = None
    recording: str | None = None  # the name a dataset's lines give their recording

    def __iter__(self) -> Iterator[ScriptStep]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)


def parse_script(text: str) -> Script:
    """Validate a whole script; steps without `t` follow each other, spaced by their waits."""
    objects = _objects(text)
    if not objects:
        raise ScriptError("the script holds no actions: write a JSON array of action objects")
    steps: list[ScriptStep] = []
    header: dict[str, Any] = {}
    # `clock` is when a step without `t` starts: after the previous one and its wait. A
    # step's own `t` need only not come before the previous step's: a recorded wait is
    # rounded to the millisecond, and may end a hair after the next step started.
    clock = floor = 0.0
    for number, obj in enumerate(objects, start=1):
        line = _Line.of(obj, number, header)
        try:
            action = Action.from_json(line.body, step=number)
        except ActionError as err:
            raise ScriptError(str(err)) from None
        told, t = line.step, line.t
        if told is not None and (isinstance(told, bool) or not isinstance(told, int) or told < 1):
            raise ScriptError(
                f"step {number} ({action.action}): step must be a whole number "
                f"from 1 (it is only informative), got {json.dumps(told)}"
            )
        if t is not None:
            if not is_seconds(t) or not floor <= t <= MAX_T:
                raise ScriptError(
                    f"step {number} ({action.action}): t must be finite seconds, not before "
                    f"the previous step's and at most {MAX_T:g}, got {_shown_number(t)}"
                )
            clock = float(t)
        floor = clock
        steps.append(ScriptStep(action, clock, line.note))
        if action.action == "wait":
            clock += action.duration or 0.0
    screen = header.get("screen")
    return Script(
        tuple(steps),
        tuple(screen) if screen else None,
        header.get("instruction"),
        header.get("recording") if isinstance(header.get("recording"), str) else None,
    )


@dataclass(frozen=True, slots=True)
class _Line:
    """One line of a script: its action object and what it says besides."""

    body: Any  # the action object (Action.from_json says what is wrong with it)
    t: Any = None
    step: Any = None
    note: str | None = None

    @classmethod
    def of(cls, obj: Any, number: int, header: dict[str, Any]) -> _Line:
        if not isinstance(obj, dict):
            return cls(obj)
        body = dict(obj)
        t, told = body.pop("t", None), body.pop("step", None)
        note = _text(body.pop("note", None), f"step {number}: note")
        for key in HEADER_FIELDS:
            if key in body:
                _same(header, key, _header_value(key, body.pop(key), number), number)
        if "recording" in body:  # a line of an `actions` dataset: its frames stay behind
            if header.setdefault("recording", body["recording"]) != body["recording"]:
                raise ScriptError(
                    f"step {number}: the lines hold more than one recording: import one "
                    f"at a time (export it with -r NAME)"
                )
            body = _dataset_action(body, number)
        return cls(body, t, told, note)


def _dataset_action(line: dict[str, Any], number: int) -> Any:
    """The action object of a dataset line: under `action`, as an object (older exports)
    or as the JSON text of a list of one object."""
    unknown = sorted(set(line) - {"action", *DATASET_FIELDS})
    if unknown:
        raise ScriptError(f"step {number}: a dataset line has no field {unknown[0]!r}")
    action = line.get("action")
    if action is None:
        why = line.get("unexpressed")
        raise ScriptError(
            f"step {number}: the line's action is null"
            + (f" ({_printable(str(why))})" if why else "")
            + ": only an `actions` export imports"
        )
    if isinstance(action, str):
        try:
            action = load_json(action)
        except (json.JSONDecodeError, RecursionError):
            raise ScriptError(f"step {number}: the line's action is not JSON text") from None
    if isinstance(action, list):
        if len(action) != 1:
            raise ScriptError(
                f"step {number}: the line holds {len(action)} calls: only an `actions` "
                f"export, one object per line, imports"
            )
        action = action[0]
    return action


def _header_value(key: str, value: Any, number: int) -> Any:
    if key == "instruction":
        return _text(value, f"step {number}: instruction")
    if value is None or value == []:  # unknown, as a dataset line says it
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(type(n) is int and 0 < n <= MAX_SCREEN for n in value)
    ):
        raise ScriptError(
            f"step {number}: screen must be [width, height] in pixels (1 to {MAX_SCREEN}), "
            f"got {_shown_number(value)}"
        )
    return value


def _same(header: dict[str, Any], key: str, value: Any, number: int) -> None:
    if value is None:
        return
    if header.setdefault(key, value) != value:
        raise ScriptError(
            f"step {number}: its {key} differs from an earlier line's: a script is one "
            f"recording, with one {key}"
        )


def _text(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ScriptError(f"{what} must be text, got {_shown_number(value)}")
    if why := text_problem(value):
        raise ScriptError(f"{what} {why}")
    return value or None


def checked_text(text: str | None, what: str) -> str | None:
    """An instruction or a note as stored (None for none, or for empty text), or
    StorageError saying why it cannot be one."""
    from .errors import StorageError

    if text is None:
        return None
    if why := text_problem(text):
        raise StorageError(f"{what} {why}")
    return text or None


def text_problem(text: str) -> str | None:
    """Why `text` cannot be an instruction or a note, or None: it must be UTF-8 text (no
    lone surrogates), without control characters but newlines and tabs, at most TEXT_MAX
    characters long."""
    if len(text) > s.TEXT_MAX:
        return f"has {len(text)} characters: at most {s.TEXT_MAX}"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        return "is not UTF-8 text"
    if any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in text):
        return "holds control characters (only newlines and tabs may be in it)"
    return None


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)[:200]


def script_lines(script: Script) -> str:
    """JSON lines for the `actions` export: each action object plus `step` and `t`, the
    step's `note`, and the recording's `screen` and `instruction`, where known."""
    header: dict[str, Any] = {}
    if script.screen is not None:
        header["screen"] = list(script.screen)
    if script.instruction is not None:
        header["instruction"] = script.instruction
    out = []
    for number, st in enumerate(script.steps, start=1):
        line = {"step": number, "t": round(st.t, 6), **st.action.to_json()}
        if st.note is not None:
            line["note"] = st.note
        out.append(json.dumps({**line, **header}, ensure_ascii=False))
    return "\n".join(out) + ("\n" if out else "")


def load_json(text: str) -> Any:
    """`json.loads`, with integers of at most _DIGITS digits: a longer one is no number a
    script means (and one of thousands of digits costs seconds to convert, or raises)."""
    return json.loads(text, parse_int=_int)


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > _DIGITS:
        raise ScriptError(
            f"a number of {len(digits.lstrip('-'))} digits: numbers in a script have at "
            f"most {_DIGITS}"
        )
    return int(digits)


def _shown_number(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return "that"


def _objects(text: str) -> list[Any]:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = load_json(text)
        except json.JSONDecodeError as err:
            raise ScriptError(
                f"not valid JSON at line {err.lineno}, column {err.colno}: {err.msg}"
            ) from None
        except RecursionError:
            raise ScriptError(_TOO_DEEP) from None
        if not isinstance(data, list):
            raise ScriptError("a script is a JSON array of action objects")
        return data
    objects = []
    # JSON lines end at "\n" only: a note may hold U+2028, which splitlines() splits at
    for lineno, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            objects.append(load_json(line))
        except json.JSONDecodeError as err:
            raise ScriptError(
                f"line {lineno} is not valid JSON ({err.msg}, column "
                f"{err.colno}): write one action object per line"
            ) from None
        except RecursionError:
            raise ScriptError(f"line {lineno}: {_TOO_DEEP}") from None
    return objects

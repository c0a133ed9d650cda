"""Hand-written scripts: a JSON array, or JSON lines, of action objects.

The `actions` export writes the same objects with `step` and `t`, so importing an export
gives the recording back; the lines of an `actions` dataset directory (the object under
`action`, with the frames it was paired with beside it) import too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .vocabulary import Action, ActionError, is_seconds

__all__ = [
    "MAX_SCRIPT_BYTES",
    "MAX_T",
    "ScriptError",
    "ScriptStep",
    "load_json",
    "parse_script",
    "script_lines",
]

# What a dataset line holds besides its `action` object (deskreel/export/trajectory.py).
DATASET_FIELDS = ("recording", "screen", "image", "image_after")
_TOO_DEEP = "the JSON is nested too deeply: a script is a flat list of action objects"
MAX_T = 7 * 24 * 3600.0  # s from a script's start: a longer script is a mistake
MAX_SCRIPT_BYTES = 64 << 20  # a script's size at most: parsing takes ~9 times that in memory
_DIGITS = 18  # digits of a JSON integer at most: more are no seconds, pixels or count


class ScriptError(ValueError):
    """A script that cannot become a recording; the message names the line or step."""


@dataclass(frozen=True, slots=True)
class ScriptStep:
    action: Action
    t: float  # seconds from the start


def parse_script(text: str) -> list[ScriptStep]:
    """Validate a whole script; steps without `t` follow each other, spaced by their waits."""
    objects = _objects(text)
    if not objects:
        raise ScriptError("the script holds no actions: write a JSON array of action objects")
    steps: list[ScriptStep] = []
    # `clock` is when a step without `t` starts: after the previous one and its wait. A
    # step's own `t` need only not come before the previous step's: a recorded wait is
    # rounded to the millisecond, and may end a hair after the next step started.
    clock = floor = 0.0
    for number, obj in enumerate(objects, start=1):
        body = dict(obj) if isinstance(obj, dict) else obj
        t = body.pop("t", None) if isinstance(body, dict) else None
        told = body.pop("step", None) if isinstance(body, dict) else None
        if (
            isinstance(body, dict)
            and isinstance(body.get("action"), dict)
            and set(body) <= {"action", *DATASET_FIELDS}
        ):
            body = body["action"]  # a line of an `actions` dataset: its frames stay behind
        try:
            action = Action.from_json(body, step=number)
        except ActionError as err:
            raise ScriptError(str(err)) from None
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
        steps.append(ScriptStep(action, clock))
        if action.action == "wait":
            clock += action.duration or 0.0
    return steps


def script_lines(steps: list[tuple[Action, float]]) -> str:
    """JSON lines for the `actions` export: each action object plus `step` and `t`."""
    out = []
    for number, (action, t) in enumerate(steps, start=1):
        out.append(
            json.dumps({"step": number, "t": round(t, 6), **action.to_json()}, ensure_ascii=False)
        )
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
    for lineno, line in enumerate(text.splitlines(), start=1):
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

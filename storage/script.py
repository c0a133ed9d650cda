"""Hand-written scripts: a JSON array, or JSON lines, of action objects.

The `actions` export writes the same objects with `step` and `t`, so importing an export
gives the recording back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .vocabulary import Action, ActionError

__all__ = ["ScriptError", "ScriptStep", "parse_script", "script_lines"]

TIMING_FIELDS = ("step", "t")


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
    clock = 0.0
    for number, obj in enumerate(objects, start=1):
        body = dict(obj) if isinstance(obj, dict) else obj
        t = body.pop("t", None) if isinstance(body, dict) else None
        if isinstance(body, dict):
            body.pop("step", None)
        try:
            action = Action.from_json(body, step=number)
        except ActionError as err:
            raise ScriptError(str(err)) from None
        if t is not None:
            if isinstance(t, bool) or not isinstance(t, (int, float)) or t < clock:
                raise ScriptError(f"step {number} ({action.action}): t must be seconds, not "
                                  f"before the previous step's, got {json.dumps(t)}")
            clock = float(t)
        steps.append(ScriptStep(action, clock))
        if action.action == "wait":
            clock += action.duration or 0.0
    return steps


def script_lines(steps: list[tuple[Action, float]]) -> str:
    """JSON lines for the `actions` export: each action object plus `step` and `t`."""
    out = []
    for number, (action, t) in enumerate(steps, start=1):
        out.append(json.dumps({"step": number, "t": round(t, 6), **action.to_json()},
                              ensure_ascii=False))
    return "\n".join(out) + ("\n" if out else "")


def _objects(text: str) -> list[Any]:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ScriptError(f"not valid JSON at line {err.lineno}, column {err.colno}: "
                              f"{err.msg}") from None
        if not isinstance(data, list):
            raise ScriptError("a script is a JSON array of action objects")
        return data
    objects = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            objects.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise ScriptError(f"line {lineno} is not valid JSON ({err.msg}, column "
                              f"{err.colno}): write one action object per line") from None
    return objects

"""The action vocabulary: the one definition that recorder, replayer, exporters and CLI share.

One action is a JSON object whose field names follow the computer-use agents' action
space. `Action` is its frozen value; `Action.from_json` validates and `to_json` writes back.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from .keys import KeyNameError, is_modifier, parse_chord, types_character

__all__ = [
    "ACTIONS",
    "CLICKS",
    "MAX_KEY_HOLD",
    "MAX_SCROLL",
    "MAX_WAIT",
    "POINTER_ACTIONS",
    "SCROLL_DIRECTIONS",
    "SECRET",
    "Action",
    "ActionError",
    "secret",
    "is_seconds",
    "types_text",
]

# What `record --redact-typing` and `deskreel redact` leave of typed text: `{{secret:N}}`,
# typed back by the replayer from $DESKREEL_SECRET_N.
SECRET = re.compile(r"\{\{secret:(\d+)\}\}")


def secret(number: int) -> str:
    """The placeholder text of secret `number`."""
    return f"{{{{secret:{number}}}}}"


def types_text(action: Action) -> bool:
    """Whether `action` types characters: a `type` step, or a `key` step whose key types
    one (held long enough to be a step of its own). Under redaction these are secrets."""
    return action.action == "type" or (
        action.action == "key" and types_character(action.text or "")
    )


CLICKS = ("left_click", "right_click", "middle_click", "double_click", "triple_click")
SCROLL_DIRECTIONS = ("up", "down", "left", "right")
MAX_KEY_HOLD = 60.0  # seconds; a longer hold is a mistake, not a gesture
MAX_WAIT = 24 * 3600.0
MAX_SCROLL = 1000
MAX_COORDINATE = 65535  # X11 coordinates are 16-bit

# action -> (required fields, optional fields)
ACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "key": (("text",), ("duration",)),
    "type": (("text",), ()),
    "mouse_move": (("coordinate",), ()),
    **{click: (("coordinate",), ("with_key",)) for click in CLICKS},
    "left_click_drag": (("start_coordinate", "coordinate"), ("with_key",)),
    "left_mouse_down": ((), ("coordinate",)),
    "left_mouse_up": ((), ("coordinate",)),
    "scroll": (("coordinate", "scroll_direction", "scroll_amount"), ("with_key",)),
    "wait": (("duration",), ()),
    "screenshot": ((), ("region",)),
    "cursor_position": ((), ()),
}
# Actions whose target is a place on the screen (they get anchors and re-anchoring).
POINTER_ACTIONS = frozenset(
    {"mouse_move", *CLICKS, "left_click_drag", "left_mouse_down", "left_mouse_up", "scroll"}
)


class ActionError(ValueError):
    """An action object that is not in the vocabulary; the message names step and field."""

    def __init__(self, message: str, *, step: int | None = None, field: str | None = None):
        self.step, self.field, self.reason = step, field, message
        super().__init__(message)

    def at_step(self, step: int, action: str | None) -> ActionError:
        # a name outside the vocabulary is the input's own (a newline, an escape sequence):
        # the reason names it quoted where it matters, the place does not repeat it raw
        where = f"step {step} ({action})" if action in ACTIONS else f"step {step}"
        return ActionError(f"{where}: {self.reason}", step=step, field=self.field)


@dataclass(frozen=True, slots=True)
class Action:
    """One step in the vocabulary; construction validates and canonicalises it."""

    action: str
    text: str | None = None
    start_coordinate: tuple[int, int] | None = None
    coordinate: tuple[int, int] | None = None
    with_key: str | None = None
    scroll_direction: str | None = None
    scroll_amount: int | None = None
    duration: float | None = None
    region: tuple[int, int, int, int] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.action, str) or self.action not in ACTIONS:
            known = ", ".join(ACTIONS)
            name = repr(self.action) if isinstance(self.action, str) else _show(self.action)
            raise ActionError(f"unknown action {name} (known: {known})", field="action")
        required, optional = ACTIONS[self.action]
        for name in _FIELD_NAMES:
            value = getattr(self, name)
            if value is None:
                if name in required:
                    raise ActionError(f"{name} is required", field=name)
                continue
            if name not in required and name not in optional:
                raise ActionError(f"{name} is not a field of {self.action}", field=name)
            object.__setattr__(self, name, _CHECKS[name](self, value))
        if self.action == "key" and self.duration == 0:
            object.__setattr__(self, "duration", None)  # 0 is the default: one spelling

    @classmethod
    def from_json(cls, obj: Any, *, step: int | None = None) -> Action:
        """Validate one JSON object; errors name the step and the field."""
        name = obj.get("action") if isinstance(obj, dict) else None
        try:
            if not isinstance(obj, dict):
                raise ActionError(f"an action must be a JSON object, got {_show(obj)}")
            if "action" not in obj:
                raise ActionError("the field 'action' is missing", field="action")
            unknown = [k for k in obj if k not in _FIELD_NAMES and k != "action"]
            if unknown:
                raise ActionError(f"unknown field {unknown[0]!r}", field=unknown[0])
            return cls(**obj)
        except ActionError as err:
            raise (
                err.at_step(step, name if isinstance(name, str) else None)
                if step is not None
                else err
            ) from None

    def to_json(self) -> dict[str, Any]:
        """The JSON object, fields in vocabulary order, unset fields left out."""
        out: dict[str, Any] = {"action": self.action}
        for name in _FIELD_NAMES:
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @property
    def is_pointer(self) -> bool:
        return self.action in POINTER_ACTIONS

    @property
    def target(self) -> tuple[int, int] | None:
        """Where the pointer acts first: a drag's start, otherwise the coordinate."""
        return self.start_coordinate or self.coordinate


def _coordinate(action: Action, value: Any, name: str = "coordinate") -> tuple[int, int]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(_is_int(v) for v in value)
    ):
        raise ActionError(f"{name} must be two integers, got {_show(value)}", field=name)
    if not all(0 <= v <= MAX_COORDINATE for v in value):
        raise ActionError(
            f"{name} must be on the screen (0..{MAX_COORDINATE}), got {_show(value)}", field=name
        )
    return (int(value[0]), int(value[1]))


def _text(action: Action, value: Any) -> str:
    if not isinstance(value, str) or value == "":
        raise ActionError(f"text must be a non-empty string, got {_show(value)}", field="text")
    lone = next((c for c in value if 0xD800 <= ord(c) <= 0xDFFF), None)
    if lone is not None:  # JSON may escape half of a character ("\ud800"): no text has it
        raise ActionError(
            f"text holds {lone!r}, half of a character: write the whole character", field="text"
        )
    if action.action == "key":
        try:
            return parse_chord(value).text
        except KeyNameError as err:
            raise ActionError(f"text: {err}", field="text") from None
    return value


def _with_key(action: Action, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ActionError(
            f"with_key must be a chord of modifiers such as 'shift' or "
            f"'ctrl+shift', got {_show(value)}",
            field="with_key",
        )
    try:
        chord = parse_chord(value)
    except KeyNameError as err:
        raise ActionError(f"with_key: {err}", field="with_key") from None
    if not all(is_modifier(k) for k in chord.keys):
        raise ActionError(
            f"with_key must name modifiers only (shift, ctrl, alt, super), got {value!r}",
            field="with_key",
        )
    return "+".join(chord.names)


def _scroll_direction(action: Action, value: Any) -> str:
    if not isinstance(value, str) or value not in SCROLL_DIRECTIONS:
        raise ActionError(
            f"scroll_direction must be one of {', '.join(SCROLL_DIRECTIONS)}, got {_show(value)}",
            field="scroll_direction",
        )
    return value


def _scroll_amount(action: Action, value: Any) -> int:
    if not _is_int(value) or not 1 <= value <= MAX_SCROLL:
        raise ActionError(
            f"scroll_amount must be an integer from 1 to {MAX_SCROLL}, got {_show(value)}",
            field="scroll_amount",
        )
    return int(value)


def _duration(action: Action, value: Any) -> float:
    limit = MAX_KEY_HOLD if action.action == "key" else MAX_WAIT
    if not is_seconds(value) or not 0 <= value <= limit:
        raise ActionError(
            f"duration must be seconds from 0 to {limit:g}, got {_show(value)}", field="duration"
        )
    return float(value)


def _region(action: Action, value: Any) -> tuple[int, int, int, int]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 4
        or not all(_is_int(v) for v in value)
    ):
        raise ActionError(
            f"region must be four integers [x, y, w, h], got {_show(value)}", field="region"
        )
    x, y, w, h = (int(v) for v in value)
    if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > MAX_COORDINATE or y + h > MAX_COORDINATE:
        raise ActionError(
            f"region must be on the screen with a positive width and height, got {_show(value)}",
            field="region",
        )
    return (x, y, w, h)


_CHECKS: dict[str, Callable[[Action, Any], Any]] = {
    "text": _text,
    "coordinate": _coordinate,
    "start_coordinate": lambda a, v: _coordinate(a, v, "start_coordinate"),
    "with_key": _with_key,
    "scroll_direction": _scroll_direction,
    "scroll_amount": _scroll_amount,
    "duration": _duration,
    "region": _region,
}
_FIELD_NAMES = tuple(f.name for f in fields(Action) if f.name != "action")


def is_seconds(value: Any) -> bool:
    """Whether `value` is a finite number (an int too large for a float is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) if isinstance(value, float) else abs(value) < 2**63


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _show(value: Any) -> str:
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

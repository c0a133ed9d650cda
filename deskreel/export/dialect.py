"""What every dialect module shares: the translation, its context and the refusal.

A dialect turns one vocabulary `Action` (already scaled to the exported screen) into the
items an agent family writes for it: objects (anthropic, normalized) or call strings
(browsergym, pyautogui). One step may need several items; `Dialect.render` makes them one
string, as a line stores it: code joined, or the JSON text of the list of objects (as tool
calls carry their arguments). A string in every dialect keeps each column one Arrow type:
the seeds' fields change type between actions (seed 004's `text` is a string for `type`
and a list for `key`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from deskreel.storage import Action

__all__ = [
    "Context",
    "Dialect",
    "NotExpressible",
    "Translation",
    "held",
    "held_losses",
    "one",
    "python_args",
    "seconds",
    "xy",
]


class NotExpressible(Exception):
    """The dialect has no way to say this action; the message says why, in a few words."""


@dataclass(frozen=True, slots=True)
class Context:
    """What a dialect may need besides the action itself."""

    screen: tuple[int, int] | None  # the exported screen size; None when unknown
    pointer: tuple[int, int] | None = None  # where the dialect's earlier lines left it, if known
    following: Action | None = None  # the next exported step's action


@dataclass(frozen=True, slots=True)
class Translation:
    """The dialect's items for one step."""

    items: tuple[Any, ...]
    folds_next: bool = False  # the next step is part of this one (type + Return as submit)
    losses: tuple[str, ...] = ()  # what was left out or changed while expressing the step


@dataclass(frozen=True, slots=True)
class Dialect:
    """One export format: its translation and what the dataset card says about it."""

    name: str
    translate: Callable[[Action, Context], Translation]
    join: str | None  # code dialects join several calls with this; object dialects list them
    summary: str  # the card's paragraph on what a line's "action" holds
    notes: tuple[str, ...] = ()  # conventions and choices, one card bullet each
    variant: str | None = None  # the tool version or coordinate form, when it has several

    def render(self, items: Sequence[Any]) -> str:
        """The line's `action`: code joined, or the JSON text of the list of objects."""
        if self.join is not None:
            return self.join.join(items)
        return json.dumps(list(items), ensure_ascii=False)


def one(*items: Any, folds_next: bool = False, losses: Sequence[str] = ()) -> Translation:
    """A translation from items, spelled short in the dialect tables."""
    return Translation(tuple(items), folds_next=folds_next, losses=tuple(losses))


def python_args(*args: Any, **kwargs: Any) -> str:
    """Arguments as Python literals: `12, 30, button='right'` (any Unicode in strings)."""
    parts = [_literal(a) for a in args]
    parts += [f"{k}={_literal(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def seconds(value: float) -> str:
    """Seconds as code writes them: 0.5, 2, 1.25."""
    return f"{value:g}"


def held(keys: Sequence[str], calls: Sequence[str], *, down: str, up: str) -> list[str]:
    """`calls` with `keys` pressed before them and released after, in reverse order.

    `down` and `up` are the dialect's calls with `{}` for the key: "keyboard_down({})".
    """
    return (
        [down.format(python_args(k)) for k in keys]
        + list(calls)
        + [up.format(python_args(k)) for k in reversed(keys)]
    )


NO_REPEAT = "autorepeat: a held key is one keydown, which does not repeat"


def held_losses(keysyms: Sequence[str]) -> tuple[str, ...]:
    """What holding these keys with one keydown loses: the repeats a held key that types
    would have made (X does not repeat modifiers)."""
    from deskreel.storage.keys import is_modifier

    return () if all(is_modifier(k) for k in keysyms) else (NO_REPEAT,)


def xy(point: tuple[int, int] | None) -> tuple[int, int]:
    """A pointer action's coordinate, which the vocabulary requires."""
    assert point is not None  # the vocabulary requires it for these actions
    return point


def _literal(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)

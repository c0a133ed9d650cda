"""What the recorder must not keep: windows on the deny-list, and typed text when redacting.

Pure: the session asks these for every event, step and frame before anything reaches the
store.
"""

from __future__ import annotations

import fnmatch
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from storage import RawEvent
from storage.grouping import DEFAULT_SETTINGS, InputSettings
from storage.keys import is_modifier
from storage.vocabulary import Action, secret

from .reduce import Reduced, reduce_events

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DEFAULT_DENY", "DenyList", "Redactor", "TypedOnScreen", "reduce_redacted"]

# class:PATTERN or title:PATTERN, shell-style and case-insensitive
DEFAULT_DENY = (
    "class:pinentry*",
    "class:*polkit*",
    "class:gcr-prompter",
    "class:ssh-askpass*",
    "class:keepassxc",
    "class:1password",
    "class:bitwarden",
    "class:seahorse",
    "class:kwalletd*",
    "title:*password*",
    "title:*passphrase*",
    "title:*unlock*keyring*",
)


@dataclass(frozen=True, slots=True)
class DenyList:
    """Windows during which nothing is recorded (classes and titles, shell patterns)."""

    patterns: tuple[str, ...] = DEFAULT_DENY

    def __post_init__(self) -> None:
        for pattern in self.patterns:
            if not pattern.startswith(("class:", "title:")):
                raise ValueError(f"deny pattern {pattern!r} must start with class: or title:")

    def reason(self, window_class: str | None, title: str | None) -> str | None:
        """Why this window is denied ("class pinentry-gtk matches class:pinentry*"), or None."""
        for pattern in self.patterns:
            field, glob = pattern.split(":", 1)
            value = window_class if field == "class" else title
            if value and fnmatch.fnmatchcase(value.lower(), glob.lower()):
                return f"{field} {value!r} matches {pattern}"
        return None


class Redactor:
    """--redact-typing: typed text becomes {{secret:N}}; typed keys lose what they typed."""

    def __init__(self, *, enabled: bool, first: int = 1):
        self.enabled, self.next = enabled, first

    def events(self, events: Iterable[RawEvent]) -> list[RawEvent]:
        """Events as stored: keys other than modifiers keep only that a key went down or up."""
        if not self.enabled:
            return list(events)
        return [
            replace(e, keycode=None, keysym=None, char=None) if _typed(e) else e for e in events
        ]

    def action(self, action: Action) -> Action:
        if not self.enabled or action.action != "type":
            return action
        placeholder = secret(self.next)
        self.next += 1
        return Action(action="type", text=placeholder)


def reduce_redacted(
    events: Sequence[RawEvent], *, first_secret: int = 1, settings: InputSettings = DEFAULT_SETTINGS
) -> list[Reduced]:
    """Reduce raw events as stored, also by a --redact-typing recorder (`doctor --repair`):
    its key presses lost which keys they were, so each run of them the reducer takes for
    typing types {{secret:N}}, numbered from `first_secret`, as the recorder made it. Which
    keys they were is gone: a Return or Tab among them is in the run, and a shortcut (under
    ctrl or alt) or a held key makes no step. Other events reduce as `reduce_events` does."""
    stand_ins, down = [], deque()  # each press a key of its own; releases in press order
    for i, e in enumerate(events):
        if e.kind not in ("key_down", "key_up") or e.keycode is not None or e.keysym:
            stand_ins.append(e)
        elif e.kind == "key_down":
            down.append(i)
            stand_ins.append(replace(e, keycode=-1 - i, char="*"))
        else:
            stand_ins.append(replace(e, keycode=-1 - down.popleft()) if down else e)
    redactor = Redactor(enabled=True, first=first_secret)
    return [
        replace(r, action=redactor.action(r.action))
        if r.action.action == "type" and stand_ins[r.first] is not events[r.first]
        else r
        for r in reduce_events(stand_ins, settings=settings)
    ]


class TypedOnScreen:
    """--redact-typing: what redacted typing left on screen (the entry still reads it when
    the next click is taken), painted out of later frames until one no longer shows it."""

    def __init__(self) -> None:
        # (screen shape, box (x0, y0, x1, y1), before, after): only the part typing changed
        self._typed: list[
            tuple[tuple[int, ...], tuple[int, int, int, int], np.ndarray, np.ndarray]
        ] = []

    def add(self, before: np.ndarray, after: np.ndarray) -> None:
        """A redacted typing step's screens before and after it (RGB, what typed earlier
        already painted out): the part of them that changed is kept."""
        from xsession.hiding import typed_regions

        boxes = typed_regions(before, after) if before.shape == after.shape else []
        if not boxes:
            return
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
        self._typed.append(
            (
                before.shape,
                (x0, y0, x1, y1),
                before[y0:y1, x0:x1].copy(),
                after[y0:y1, x0:x1].copy(),
            )
        )

    def hide(self, rgb: np.ndarray) -> np.ndarray:
        """`rgb` with the typing kept painted back to how it was before, where it still shows
        (a copy; `rgb` itself when none shows); typing it no longer shows is forgotten."""
        from xsession.hiding import hide_typed_text

        shown, showing = rgb, []
        for typed in self._typed:
            shape, (x0, y0, x1, y1), before, after = typed
            part = shown[y0:y1, x0:x1]
            hidden = hide_typed_text(before, after, part) if shown.shape == shape else part
            if hidden is part:  # cleared, or the screen moved on: it shows no more
                continue
            if shown is rgb:
                shown = rgb.copy()
            shown[y0:y1, x0:x1] = hidden
            showing.append(typed)
        self._typed = showing
        return shown


def _typed(event: RawEvent) -> bool:
    """Any key but a modifier: which keys, and how many of each, would tell the secret."""
    return event.kind in ("key_down", "key_up") and not is_modifier(event.keysym or "")

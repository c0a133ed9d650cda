"""What the recorder must not keep: windows on the deny-list, and typed text when redacting.

Pure: the recorder's parts ask these for every event, step and frame before anything
reaches the store.
"""

from __future__ import annotations

import fnmatch
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from deskreel.storage import RawEvent, Widget
from deskreel.storage.grouping import DEFAULT_SETTINGS, InputSettings
from deskreel.storage.keys import is_modifier
from deskreel.storage.vocabulary import Action, secret, types_text

from .reduce import Reduced, reduce_events

if TYPE_CHECKING:
    import numpy as np

    from .screen import Frame

__all__ = [
    "DEFAULT_DENY",
    "DenyList",
    "Redactor",
    "TypedOnScreen",
    "TypingRedaction",
    "reduce_redacted",
]

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
        """`action` as stored: typed text, and a key held long enough to be a `key` step
        of its own when it types a character (one character of a password, and its place
        in it), become {{secret:N}}."""
        if not self.enabled or not types_text(action):
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
    # each press a key of its own; releases in press order
    stand_ins: list[RawEvent] = []
    down: deque[int] = deque()
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
        from deskreel.xsession.hiding import typed_regions

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

    def hide(self, rgb: np.ndarray, *, forget: bool = True) -> np.ndarray:
        """`rgb` with the typing kept painted back to how it was before, where it still shows
        (a copy; `rgb` itself when none shows); typing it no longer shows is forgotten, unless
        `forget` is False (an older frame, looked at after newer ones)."""
        from deskreel.xsession.hiding import hide_typed_text

        shown, showing = rgb, []
        for typed in self._typed:
            shape, (x0, y0, x1, y1), before, after = typed
            part = shown[y0:y1, x0:x1]
            hidden = hide_typed_text(before, after, part) if shown.shape == shape else part
            if hidden is part:  # cleared, or the screen moved on: it shows no more
                if not forget:
                    showing.append(typed)
                continue
            if shown is rgb:
                shown = rgb.copy()
            shown[y0:y1, x0:x1] = hidden
            showing.append(typed)
        self._typed = showing
        return shown


class TypingRedaction:
    """--redact-typing for the steps as they are stored: typed text becomes {{secret:N}}, a
    typing step keeps no frames, and what it typed is painted out of later frames."""

    def __init__(self, *, enabled: bool):
        self.enabled = enabled
        self._actions = Redactor(enabled=enabled)
        self._typed = TypedOnScreen()  # what typing left on screen
        self._unseen = False  # typing without frames: the next step's go too

    def action(self, action: Action) -> Action:
        return self._actions.action(action)

    def widget(self, widget: Widget | None) -> Widget | None:
        """The object a step was on, as stored: none under redaction (a field, a label or
        a list may be named by what was typed; an object without names would be taken
        for any unnamed one)."""
        return None if self.enabled else widget

    def frames(
        self, action: Action, before: Frame | None, after: Frame | None
    ) -> tuple[Frame | None, Frame | None]:
        """The frames a step of `action` (redacted already) may store, of those it has."""
        if self.enabled and action.action == "type":
            # not stored; what it typed is painted out of the frames after it
            self._keep_typed(before, after)
            return None, None
        if self._unseen:  # taken while that typing surely still shows
            self._unseen = False
            return None, None
        return before, after

    def hide(self, rgb: np.ndarray, *, forget: bool = True) -> np.ndarray:
        """`rgb` with what redacted typing left on screen painted out (`forget`: as
        TypedOnScreen.hide)."""
        return self._typed.hide(rgb, forget=forget)

    def _keep_typed(self, before: Frame | None, after: Frame | None) -> None:
        """Keep a redacted typing's screens, to paint what it typed out of later frames;
        without both, the next step stores no frames instead."""
        if before is None or after is None:
            self._unseen = True
            return
        self._typed.add(self._typed.hide(before.pixels()), self._typed.hide(after.pixels()))


def _typed(event: RawEvent) -> bool:
    """Any key but a modifier: which keys, and how many of each, would tell the secret."""
    return event.kind in ("key_down", "key_up") and not is_modifier(event.keysym or "")

"""What the recorder must not keep: windows on the deny-list, and typed text when redacting.

Pure: the session asks these for every event and step before anything reaches the store.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, replace

from storage import RawEvent
from storage.keys import is_modifier
from storage.vocabulary import Action, secret

__all__ = ["DEFAULT_DENY", "DenyList", "Redactor"]

# class:PATTERN or title:PATTERN, shell-style and case-insensitive
DEFAULT_DENY = (
    "class:pinentry*", "class:*polkit*", "class:gcr-prompter", "class:ssh-askpass*",
    "class:keepassxc", "class:1password", "class:bitwarden", "class:seahorse",
    "class:kwalletd*", "title:*password*", "title:*passphrase*", "title:*unlock*keyring*",
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
        return [replace(e, keycode=None, keysym=None, char=None) if _typed(e) else e
                for e in events]

    def action(self, action: Action) -> Action:
        if not self.enabled or action.action != "type":
            return action
        placeholder = secret(self.next)
        self.next += 1
        return Action(action="type", text=placeholder)


def _typed(event: RawEvent) -> bool:
    """Any key but a modifier: which keys, and how many of each, would tell the secret."""
    return event.kind in ("key_down", "key_up") and not is_modifier(event.keysym or "")

"""The recorder's own chords (stop, pause), filtered out of the event stream before storage.

Pure: feed RawEvents in order, get back the events to keep and the chords that fired.
Modifier presses are held back until it is clear they do not start one of our chords, so
that a chord's keystrokes never reach the raw events, the actions or a re-reduction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from deskreel.storage import RawEvent
from deskreel.storage.keys import is_modifier, parse_chord

__all__ = ["ChordError", "ChordFilter", "Filtered"]

_CANONICAL = {
    "Control_L": "ctrl",
    "Control_R": "ctrl",
    "Shift_L": "shift",
    "Shift_R": "shift",
    "Alt_L": "alt",
    "Alt_R": "alt",
    "Meta_L": "alt",
    "Meta_R": "alt",
    "Super_L": "super",
    "Super_R": "super",
    "Hyper_L": "super",
    "Hyper_R": "super",
}


class ChordError(ValueError):
    """A chord the filter could never tell apart or never see fire."""


@dataclass
class Filtered:
    keep: list[RawEvent] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)  # names of chords that fired, in order


class ChordFilter:
    """Swallows the keystrokes of named chords; while `paused`, swallows everything else.

    Raises ChordError for a chord without a key besides its modifiers (it could never fire)
    and for two chords that are the same keys in any order (only the first would fire)."""

    def __init__(self, chords: dict[str, str]):
        self._chords: dict[str, tuple[frozenset[str], str]] = {}
        for name, text in chords.items():
            signature = _signature(text)
            for other, known in self._chords.items():
                if known == signature:
                    raise ChordError(
                        f"the {name} chord {text!r} is the same keys as the "
                        f"{other} chord {chords[other]!r}: choose different keys"
                    )
            self._chords[name] = signature
        self.paused = False
        self._pending: list[RawEvent] = []  # held back since a modifier went down alone
        self._down: dict[int, str] = {}  # keycode -> base keysym, keys held now
        self._swallowed: set[int] = set()  # keycodes whose release we must drop

    def feed(self, event: RawEvent) -> Filtered:
        out = Filtered()
        if event.kind == "key_down" and event.keycode is not None:
            self._key_down(event, event.keycode, out)
        elif event.kind == "key_up" and event.keycode is not None:
            self._key_up(event, event.keycode, out)
        elif event.kind == "button_down" or event.kind == "button_up":
            self._flush(out)
            self._keep(event, out)
        elif self._pending:
            self._pending.append(event)  # motion does not decide whether a chord comes
        else:
            self._keep(event, out)
        return out

    def flush(self) -> list[RawEvent]:
        """Events still held back (at the end of a recording)."""
        out = Filtered()
        self._flush(out)
        return out.keep

    def _key_down(self, event: RawEvent, keycode: int, out: Filtered) -> None:
        name = event.keysym or ""
        self._down[keycode] = name
        if is_modifier(name):
            if self._pending or self._only_modifiers_held(keycode):
                self._pending.append(event)
            else:
                self._keep(event, out)
            return
        held = frozenset(
            _CANONICAL.get(k, k) for c, k in self._down.items() if c != keycode and is_modifier(k)
        )
        for chord, (mods, key) in self._chords.items():
            if held == mods and name.lower() == key:
                out.fired.append(chord)
                self._swallowed |= set(self._down)  # the chord's keys, all of them
                self._keep_all(self._without_keys(self._pending), out)
                self._pending.clear()
                return
        self._flush(out)
        self._keep(event, out)

    def _key_up(self, event: RawEvent, keycode: int, out: Filtered) -> None:
        self._down.pop(keycode, None)
        if keycode in self._swallowed:
            self._swallowed.discard(keycode)
            return
        self._flush(out)
        self._keep(event, out)

    def _only_modifiers_held(self, keycode: int) -> bool:
        return all(is_modifier(k) for c, k in self._down.items() if c != keycode) and not any(
            c in self._swallowed for c in self._down
        )

    def _without_keys(self, events: list[RawEvent]) -> list[RawEvent]:
        return [e for e in events if e.kind not in ("key_down", "key_up")]

    def _flush(self, out: Filtered) -> None:
        self._keep_all(self._pending, out)
        self._pending.clear()

    def _keep_all(self, events: list[RawEvent], out: Filtered) -> None:
        for event in events:
            self._keep(event, out)

    def _keep(self, event: RawEvent, out: Filtered) -> None:
        if not self.paused:
            out.keep.append(event)


def _signature(text: str) -> tuple[frozenset[str], str]:
    chord = parse_chord(text)
    if is_modifier(chord.key) or not all(is_modifier(k) for k in chord.modifiers):
        raise ChordError(
            f"{text!r} cannot be a chord: it needs modifiers first and then one "
            f"key that is not a modifier, like ctrl+alt+End"
        )
    mods = frozenset(_CANONICAL.get(k, k) for k in chord.modifiers)
    return mods, chord.key.lower()

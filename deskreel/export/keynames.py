"""X keysym names (as `storage.keys` spells them) in each dialect's words, and what is lost.

A dialect's table maps keysyms to its names. The first keysym a name is given for is the
key that name presses; a later keysym given the same name (`KP_Enter` as pyautogui's
`enter`, which presses Return) is a rename that loses the difference, and is reported as a
loss. Keys missing from a table are spelled by the character they type when they have one,
and are otherwise not expressible; a key the dialect names but cannot press says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from deskreel.storage import parse_chord
from deskreel.storage.keys import keysym_char, keysym_of

from .dialect import NotExpressible

__all__ = ["PLAYWRIGHT", "PYAUTOGUI", "PYAUTOGUI_SILENT", "SEED", "KeyNames", "Named", "key_char"]

_NAMED_KEYS = (
    "Return",
    "Escape",
    "BackSpace",
    "Tab",
    "Delete",
    "Insert",
    "Home",
    "End",
    "Prior",
    "Next",
    "Left",
    "Right",
    "Up",
    "Down",
    "space",
    "Caps_Lock",
    "Menu",
    "Print",
    "Num_Lock",
    "Scroll_Lock",
    "Pause",
)
_MODIFIERS = (
    "Control_L",
    "Shift_L",
    "Alt_L",
    "Super_L",
    "Control_R",
    "Shift_R",
    "Alt_R",
    "Super_R",
)
_KEYPAD = ("KP_Add", "KP_Subtract", "KP_Multiply", "KP_Divide", "KP_Decimal", "KP_Enter")
# The keypad's keys with NumLock off, and the main keys they act as.
_KEYPAD_MOVES = {
    "KP_Insert": "Insert",
    "KP_Delete": "Delete",
    "KP_Home": "Home",
    "KP_End": "End",
    "KP_Prior": "Prior",
    "KP_Next": "Next",
    "KP_Left": "Left",
    "KP_Right": "Right",
    "KP_Up": "Up",
    "KP_Down": "Down",
}
_MEDIA = (
    "XF86AudioMute",
    "XF86AudioRaiseVolume",
    "XF86AudioLowerVolume",
    "XF86AudioPlay",
    "XF86AudioNext",
    "XF86AudioPrev",
    "XF86AudioStop",
)


def _table(named: str, modifiers: str, keypad: str, *, digit: str, fn: str) -> dict[str, str]:
    table = dict(zip(_NAMED_KEYS, named.split(), strict=True))
    table.update(zip(_MODIFIERS, modifiers.split(), strict=True))
    table.update(zip(_KEYPAD, keypad.split(), strict=True))
    table.update({f"KP_{n}": digit.format(n) for n in range(10)})
    table.update({f"F{n}": fn.format(n) for n in range(1, 25)})
    table.update({kp: table[key] for kp, key in _KEYPAD_MOVES.items()})  # renames
    return table


_PYAUTOGUI_NAMED = (
    "enter esc backspace tab delete insert home end pageup pagedown left right up down "
    "space capslock apps printscreen numlock scrolllock pause"
)
_PYAUTOGUI_MEDIA = "volumemute volumeup volumedown playpause nexttrack prevtrack stop"

# Playwright's key names: `KeyboardEvent.key` values, and `code` values where the key
# value is shared (the right-hand modifiers, the keypad's Enter).
PLAYWRIGHT = _table(
    "Enter Escape Backspace Tab Delete Insert Home End PageUp PageDown ArrowLeft "
    "ArrowRight ArrowUp ArrowDown Space CapsLock ContextMenu PrintScreen NumLock ScrollLock Pause",
    "Control Shift Alt Meta ControlRight ShiftRight AltRight MetaRight",
    "NumpadAdd NumpadSubtract NumpadMultiply NumpadDivide NumpadDecimal NumpadEnter",
    digit="Numpad{}",
    fn="F{}",
)
PLAYWRIGHT.update(
    zip(
        _MEDIA,
        [
            "AudioVolumeMute",
            "AudioVolumeUp",
            "AudioVolumeDown",
            "MediaPlayPause",
            "MediaTrackNext",
            "MediaTrackPrevious",
            "MediaStop",
        ],
        strict=True,
    )
)
PLAYWRIGHT.update({"Meta_L": "Meta", "Meta_R": "MetaRight"})  # renames: Meta is Super here

# pyautogui's names as its X11 backend presses them (pyautogui/_pyautogui_x11.py): `num0`
# is KP_0, `apps` Menu, `win` Super_L; it has no keypad Enter (`enter` presses Return).
PYAUTOGUI = _table(
    _PYAUTOGUI_NAMED,
    "ctrl shift alt win ctrlright shiftright altright winright",
    "add subtract multiply divide decimal enter",
    digit="num{}",
    fn="f{}",
)
# Names pyautogui has whose X11 entry is None: press() returns without pressing anything.
PYAUTOGUI_SILENT = dict(zip(_MEDIA, _PYAUTOGUI_MEDIA.split(), strict=True))

# Seed 004 writes keys as people say them ("enter", "tab", "ctrl"): pyautogui's words, with
# one name per modifier ("ctrl" for either Control key) and "super" for the Windows key.
SEED = _table(
    _PYAUTOGUI_NAMED,
    "ctrl shift alt super ctrl shift alt super",
    "add subtract multiply divide decimal enter",
    digit="num{}",
    fn="f{}",
)
SEED.update(PYAUTOGUI_SILENT)
SEED.update({"Meta_L": "meta", "Meta_R": "meta", "Hyper_L": "hyper", "Hyper_R": "hyper"})


@dataclass(frozen=True, slots=True)
class Named:
    """Keys in a dialect's words, and the renames that lost something."""

    names: tuple[str, ...]
    losses: tuple[str, ...] = ()


@dataclass(frozen=True)
class KeyNames:
    """One dialect's key names."""

    dialect: str
    table: dict[str, str]
    chars: Callable[[str], bool] = lambda char: True  # the characters it may spell a key by
    silent: dict[str, str] | None = None  # keysyms whose name presses nothing: their names
    unknown_as_x: bool = False  # an unnamed key keeps its X name (the seed reads xdotool's)

    def key(self, keysym: str) -> tuple[str, str | None]:
        """The dialect's name for one keysym, and the loss of a rename (None: exact)."""
        if self.silent and keysym in self.silent:
            raise NotExpressible(
                f"{self.dialect}'s key {self.silent[keysym]!r} presses nothing on X11 "
                f"(its X11 key table maps it to None), so {keysym} cannot be sent"
            )
        if keysym in self.table:
            name = self.table[keysym]
            pressed = self._presses(name)
            loss = None if pressed == keysym else f"{keysym} as {name!r}, which presses {pressed}"
            return name, loss
        char = key_char(keysym)
        if char is not None and self.chars(char):
            return char, None
        if self.unknown_as_x:
            return keysym, f"{keysym} under its X name, which {self.dialect} does not name"
        raise NotExpressible(f"{self.dialect} has no name for the key {keysym}")

    def keys(self, keysyms: Iterable[str]) -> Named:
        names, losses = [], []
        for keysym in keysyms:
            name, loss = self.key(keysym)
            names.append(name)
            if loss:
                losses.append(loss)
        return Named(tuple(names), tuple(losses))

    def chord(self, text: str | None) -> Named:
        """A chord's keys (`ctrl+s`), or none for None."""
        return self.keys(parse_chord(text).keys if text else ())

    def _presses(self, name: str) -> str:
        return next(k for k, v in self.table.items() if v == name)


def key_char(name: str) -> str | None:
    """The character a keysym types (`plus` -> `+`, `udiaeresis` -> `ü`), None for others."""
    return keysym_char(keysym_of(name)) or None

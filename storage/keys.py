"""Key names and chords in xdotool syntax, checked against X keysym names.

Pure: python-xlib's keysym tables are plain data, so no display is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = [
    "Chord",
    "KeyNameError",
    "parse_chord",
    "keysym_of",
    "keysym_name",
    "char_keysym",
    "keysym_char",
    "MODIFIER_ALIASES",
    "is_modifier",
    "types_character",
]

# xdotool's own aliases, plus the spellings agents and people write most.
MODIFIER_ALIASES: dict[str, str] = {
    "ctrl": "Control_L",
    "control": "Control_L",
    "shift": "Shift_L",
    "alt": "Alt_L",
    "super": "Super_L",
    "win": "Super_L",
    "cmd": "Super_L",
    "meta": "Meta_L",
    "hyper": "Hyper_L",
}
# Canonical spelling of each modifier keysym inside a chord's text.
_MODIFIER_TEXT: dict[str, str] = {
    "Control_L": "ctrl",
    "Control_R": "ctrl",
    "Shift_L": "shift",
    "Shift_R": "shift",
    "Alt_L": "alt",
    "Alt_R": "alt",
    "Super_L": "super",
    "Super_R": "super",
    "Meta_L": "meta",
    "Meta_R": "meta",
    "Hyper_L": "hyper",
    "Hyper_R": "hyper",
}
# Lower-case spellings that people type for keys whose keysym name is mixed case.
_FRIENDLY: dict[str, str] = {
    "enter": "Return",
    "return": "Return",
    "esc": "Escape",
    "escape": "Escape",
    "backspace": "BackSpace",
    "tab": "Tab",
    "space": "space",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "page_up": "Prior",
    "pagedown": "Next",
    "page_down": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "capslock": "Caps_Lock",
    "menu": "Menu",
    "print": "Print",
}
_KEYSYM_GROUPS = (
    "latin1",
    "miscellany",
    "xkb",
    "latin2",
    "latin3",
    "latin4",
    "greek",
    "cyrillic",
    "technical",
    "special",
    "publishing",
    "katakana",
    "arabic",
    "hebrew",
    "thai",
    "korean",
    "apl",
    "xf86",
)


class KeyNameError(ValueError):
    """A key name or chord that X does not know."""


@dataclass(frozen=True, slots=True)
class Chord:
    """Keys pressed together: modifiers first, the key last, as keysym names."""

    keys: tuple[str, ...]

    @property
    def modifiers(self) -> tuple[str, ...]:
        return self.keys[:-1]

    @property
    def key(self) -> str:
        return self.keys[-1]

    @property
    def keysyms(self) -> tuple[int, ...]:
        return tuple(keysym_of(k) for k in self.keys)

    @property
    def text(self) -> str:
        """The canonical xdotool spelling: `ctrl+shift+s`, `Return`."""
        return "+".join(
            _MODIFIER_TEXT.get(k, k) if i < len(self.keys) - 1 else k
            for i, k in enumerate(self.keys)
        )

    @property
    def names(self) -> list[str]:
        """Each key as people name it (`["ctrl", "s"]`)."""
        return [_MODIFIER_TEXT.get(k, k) for k in self.keys]


def parse_chord(text: str) -> Chord:
    """Parse `ctrl+s`, `super+shift+Left`, `KP_0`, `a` into a Chord, or raise KeyNameError."""
    if not isinstance(text, str) or not text.strip():
        raise KeyNameError("a key must be a non-empty string")
    text = text.strip()
    parts = ["plus"] if text == "+" else text.split("+")
    if text.endswith("++"):  # "ctrl++" means ctrl and the plus key
        parts = text[:-2].split("+") + ["plus"]
    if any(not p.strip() for p in parts):
        raise KeyNameError(f"{text!r} is not a key chord: empty key between '+' signs")
    keys = tuple(_resolve(p.strip()) for p in parts)
    return Chord(keys)


def is_modifier(name: str) -> bool:
    return name in _MODIFIER_TEXT or name in ("ISO_Level3_Shift", "Mode_switch")


# Modifiers under which a key makes a shortcut rather than a character (shift and the
# third level choose which character a key types).
_SHORTCUT_MODIFIERS = frozenset({"ctrl", "alt", "super", "meta", "hyper"})
# Keypad keys that type a character, whatever NumLock says of the others.
_KEYPAD_CHARS = frozenset(
    {f"KP_{d}" for d in range(10)}
    | {"KP_Add", "KP_Subtract", "KP_Multiply", "KP_Divide", "KP_Decimal", "KP_Separator"}
    | {"KP_Equal", "KP_Space"}
)


def types_character(text: str) -> bool:
    """Whether the key chord `text` (a `key` step's) types a character: a printable key,
    a dead key or a keypad digit, alone or under shift or the third level; not a
    shortcut (under ctrl, alt or super), nor Return, Tab or a function key. A name that
    is no key (a damaged step) counts as a character: it may be one."""
    try:
        chord = parse_chord(text)
    except KeyNameError:
        return True
    if any(_MODIFIER_TEXT.get(m) in _SHORTCUT_MODIFIERS for m in chord.modifiers):
        return False
    key = chord.key
    return bool(keysym_char(keysym_of(key))) or key.startswith("dead_") or key in _KEYPAD_CHARS


def keysym_of(name: str) -> int:
    """The keysym number of a keysym name or a single character (0 if unknown)."""
    table = _keysym_table()
    if name in table:
        return table[name]
    if len(name) == 1:
        return char_keysym(name)
    if len(name) >= 5 and name[0] == "U" and _is_hex(name[1:]):
        return 0x01000000 + int(name[1:], 16)
    return 0


def keysym_name(keysym: int) -> str | None:
    """The X name of a keysym number (Unicode keysyms as `U00FC`), None when unnamed."""
    names = _keysym_names()
    if keysym in names:
        return names[keysym]
    if keysym & 0xFF000000 == 0x01000000:
        return f"U{keysym & 0xFFFFFF:04X}"
    return None


def char_keysym(char: str) -> int:
    """The keysym X uses for one character: Latin-1 directly, others as Unicode keysyms."""
    cp = ord(char)
    if 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xFF:
        return cp
    return 0x01000000 + cp


def keysym_char(keysym: int) -> str:
    """The character a keysym types (`0x2b` -> `+`, `0x10020ac` -> `€`, `Cyrillic_pe` ->
    `п`), "" for other keys."""
    if 0x20 <= keysym <= 0x7E or 0xA0 <= keysym <= 0xFF:
        return chr(keysym)
    if keysym & 0xFF000000 == 0x01000000:
        return chr(keysym & 0xFFFFFF)
    if 0x100 <= keysym <= _LEGACY_LAST:
        return _legacy_char(keysym)
    return ""


# The character keysyms X had before Unicode keysyms (Latin 2-4, Cyrillic, Greek, Arabic,
# Hebrew, Thai, Korean, Kana, technical, publishing, currency): layouts other than the
# Latin-1 ones still produce them. Above this come function, keypad and dead keys, which
# are keys, not characters.
_LEGACY_LAST = 0x20FF


@cache
def _legacy_char(keysym: int) -> str:
    """The character of a legacy keysym, as libxkbcommon (which every X desktop has) maps
    it; "" without the library or for a keysym that is no character."""
    convert = _xkbcommon_to_utf32()
    code = convert(keysym) if convert is not None else 0
    char = chr(code) if 0 < code <= 0x10FFFF else ""
    return char if char.isprintable() else ""


@cache
def _xkbcommon_to_utf32() -> Any:
    import ctypes
    import ctypes.util

    for name in ("libxkbcommon.so.0", ctypes.util.find_library("xkbcommon")):
        try:
            library = ctypes.CDLL(name)
            break
        except (OSError, TypeError):  # not there; None when find_library found nothing
            continue
    else:
        return None
    convert = library.xkb_keysym_to_utf32
    convert.argtypes, convert.restype = [ctypes.c_uint32], ctypes.c_uint32
    return convert


def _resolve(part: str) -> str:
    table = _keysym_table()
    if part in table:
        return part
    lowered = part.lower()
    if lowered in MODIFIER_ALIASES:
        return MODIFIER_ALIASES[lowered]
    if lowered in _FRIENDLY:
        return _FRIENDLY[lowered]
    if len(part) == 1 and part.isprintable():
        return keysym_name(char_keysym(part)) or part
    if len(part) >= 5 and part[0] in "Uu" and _is_hex(part[1:]):
        return f"U{int(part[1:], 16):04X}"
    hint = f" (did you mean {_suggest(part)}?)" if _suggest(part) else ""
    raise KeyNameError(f"{part!r} is not an X key name{hint}")


def _is_hex(s: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in s) and 0 < int(s, 16) <= 0x10FFFF


def _suggest(part: str) -> str | None:
    lowered = part.lower()
    for name in _keysym_table():
        if name.lower() == lowered:
            return name
    return None


@cache
def _keysym_table() -> dict[str, int]:
    from Xlib import XK  # pure data tables; no display connection

    for group in _KEYSYM_GROUPS:
        try:
            XK.load_keysym_group(group)
        except ImportError:  # an older python-xlib without this group
            continue
    table = {
        name[3:]: value
        for name, value in vars(XK).items()
        if name.startswith("XK_") and isinstance(value, int)
    }
    # X spells these XF86AudioMute; python-xlib spells them XF86_AudioMute.
    table.update({"XF86" + n[5:]: v for n, v in list(table.items()) if n.startswith("XF86_")})
    table.setdefault("EuroSign", 0x20AC)  # python-xlib lacks the currency group
    return table


@cache
def _keysym_names() -> dict[int, str]:
    names: dict[int, str] = {}
    for name, value in _keysym_table().items():
        if not name.startswith("XF86_"):
            names.setdefault(value, name)
    return names

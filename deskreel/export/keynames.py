"""X keysym names (as `storage.keys` spells them) in Playwright's and pyautogui's words.

Keys missing from a table are spelled by the character they type when it has one, and
are otherwise not expressible in that dialect.
"""

from __future__ import annotations

from storage.keys import keysym_char, keysym_of

from .dialect import NotExpressible

__all__ = ["key_char", "playwright_key", "pyautogui_key", "seed_key"]

_NAMED_KEYS = (
    "Return",
    "KP_Enter",
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
    "Control_R",
    "Shift_L",
    "Shift_R",
    "Alt_L",
    "Alt_R",
    "Super_L",
    "Super_R",
)
_KEYPAD = ("KP_Add", "KP_Subtract", "KP_Multiply", "KP_Divide", "KP_Decimal")
_MEDIA = (
    "XF86AudioMute",
    "XF86AudioRaiseVolume",
    "XF86AudioLowerVolume",
    "XF86AudioPlay",
    "XF86AudioNext",
    "XF86AudioPrev",
    "XF86AudioStop",
)


def _table(
    named: str, modifiers: str, keypad: str, media: str, *, digit: str, fn: str
) -> dict[str, str]:
    table = dict(zip(_NAMED_KEYS, named.split()))
    table.update(zip(_MODIFIERS, modifiers.split()))
    table.update(zip(_KEYPAD, keypad.split()))
    table.update(zip(_MEDIA, media.split()))
    table.update({f"KP_{n}": digit.format(n) for n in range(10)})
    table.update({f"F{n}": fn.format(n) for n in range(1, 25)})
    return table


PLAYWRIGHT = _table(
    "Enter Enter Escape Backspace Tab Delete Insert Home End PageUp PageDown ArrowLeft "
    "ArrowRight ArrowUp ArrowDown Space CapsLock ContextMenu PrintScreen NumLock ScrollLock Pause",
    "Control Control Shift Shift Alt Alt Meta Meta",
    "NumpadAdd NumpadSubtract NumpadMultiply NumpadDivide NumpadDecimal",
    "AudioVolumeMute AudioVolumeUp AudioVolumeDown MediaPlayPause MediaTrackNext "
    "MediaTrackPrevious MediaStop",
    digit="Numpad{}",
    fn="F{}",
)
PLAYWRIGHT.update({"Meta_L": "Meta", "Meta_R": "Meta"})

PYAUTOGUI = _table(
    "enter enter esc backspace tab delete insert home end pageup pagedown left right up down "
    "space capslock apps printscreen numlock scrolllock pause",
    "ctrl ctrl shift shift alt alt win win",
    "add subtract multiply divide decimal",
    "volumemute volumeup volumedown playpause nexttrack prevtrack stop",
    digit="num{}",
    fn="f{}",
)

# Seed 004 writes keys as people say them ("enter", "tab", "ctrl"): pyautogui's words,
# with the modifiers spelled as in its `with_key` ("super", not "win").
SEED = {
    **PYAUTOGUI,
    "Super_L": "super",
    "Super_R": "super",
    "Meta_L": "meta",
    "Meta_R": "meta",
    "Hyper_L": "hyper",
    "Hyper_R": "hyper",
}


def playwright_key(name: str) -> str:
    """Playwright's name for a keysym (`Return` -> `Enter`), or its character."""
    if name in PLAYWRIGHT:
        return PLAYWRIGHT[name]
    char = key_char(name)
    if char is None:
        raise NotExpressible(f"Playwright has no name for the key {name}")
    return char


def pyautogui_key(name: str) -> str:
    """pyautogui's name for a keysym (`Prior` -> `pageup`), or its ASCII character."""
    if name in PYAUTOGUI:
        return PYAUTOGUI[name]
    char = key_char(name)
    if char is None or not " " <= char <= "~":
        raise NotExpressible(f"pyautogui has no name for the key {name}")
    return char


def seed_key(name: str) -> str:
    """Seed 004's name for a keysym; unknown keys keep their X name (`XF86Eject`)."""
    if name in SEED:
        return SEED[name]
    return key_char(name) or name


def key_char(name: str) -> str | None:
    """The character a keysym types (`plus` -> `+`, `udiaeresis` -> `ü`), None for others."""
    return keysym_char(keysym_of(name)) or None

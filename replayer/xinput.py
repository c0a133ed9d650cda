"""Input through the XTest extension, in process, synced after each event.

`Injector` knows the server's current keymap: it finds the keycode and shift level of every
keysym, binds a spare keycode for characters the map lacks (restoring it when closed), and
remembers every key and button it holds so that `release_all` can let go of them.

Its `pause` (the replay's abort switch) is where an abort stops it: every press and move
pauses 0 s first. Releases and cleanup never pause, so an abort can never stop them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from deskreel.storage.keys import char_keysym, keysym_of, parse_chord

__all__ = ["Injector", "release_held"]

# Core keymap columns: 0 plain, 1 shift, 4 level3 (AltGr), 5 level3+shift.
_LEVELS = (
    (0, ()),
    (1, ("Shift_L",)),
    (4, ("ISO_Level3_Shift",)),
    (5, ("ISO_Level3_Shift", "Shift_L")),
)
_SPECIAL_CHARS = {"\n": "Return", "\r": "Return", "\t": "Tab", "\b": "BackSpace"}
_MAPPING_SETTLE = 0.05  # s for clients to refetch a keymap we changed before we change it again
# A root window property: the keysyms of every keycode a replay re-bound, as they were before.
# It outlives a killed replay, so that `release_held` can put them back.
_BINDINGS = "_DESKREEL_REBOUND_KEYCODES"


class Injector:
    """Keys and buttons through XTest on one display connection (use it from one thread)."""

    def __init__(self, display: Any, *, pause: Callable[[float], None] = time.sleep):
        from Xlib import X
        from Xlib.ext import xtest

        self._d, self._X, self._xtest, self.pause = display, X, xtest, pause
        self._root = display.screen().root
        self._keys_down: list[int] = []
        self._buttons_down: list[int] = []
        self._bound: dict[int, int] = {}  # keysym -> spare keycode we bound it to
        self._original: dict[int, list[int]] = {}  # spare keycode -> its keysyms before
        # the points the latest move goes from and to, read by the corner watcher's thread
        self.last_move: tuple[tuple[int, int], ...] = ()
        self._load_keymap()

    # -- pointer ----------------------------------------------------------------------

    def move(self, x: int, y: int) -> None:
        self.pause(0)
        # set before the motion is sent: while it travels the pointer is at either point
        self.last_move = (*self.last_move[-1:], (int(x), int(y)))
        self._fake(self._X.MotionNotify, x=int(x), y=int(y))

    def button_down(self, button: int) -> None:
        self.pause(0)
        self._fake(self._X.ButtonPress, detail=button)
        self._buttons_down.append(button)

    def button_up(self, button: int) -> None:
        self._fake(self._X.ButtonRelease, detail=button)
        if button in self._buttons_down:
            self._buttons_down.remove(button)

    def pointer(self) -> tuple[int, int]:
        reply = self._root.query_pointer()
        return reply.root_x, reply.root_y

    def screen_size(self) -> tuple[int, int]:
        screen = self._d.screen()
        return screen.width_in_pixels, screen.height_in_pixels

    # -- keys -------------------------------------------------------------------------

    def key_down(self, keycode: int) -> None:
        self.pause(0)
        self._fake(self._X.KeyPress, detail=keycode)
        self._keys_down.append(keycode)

    def key_up(self, keycode: int) -> None:
        self._fake(self._X.KeyRelease, detail=keycode)
        if keycode in self._keys_down:
            self._keys_down.remove(keycode)

    def chord_keycodes(self, text: str) -> list[int]:
        """Keycodes to press, in order, for an xdotool chord (shift added where needed)."""
        names = parse_chord(text).keys
        codes: list[int] = []
        for i, name in enumerate(names):
            keysym = keysym_of(name)
            if i < len(names) - 1:
                codes.append(self._modifier_code(name))
                continue
            keycode, extra = self._locate(keysym)
            for mod in extra:
                code = self._modifier_code(mod)
                if code not in codes:
                    codes.append(code)
            codes.append(keycode)
        return codes

    def hold(self, keycodes: Iterable[int]) -> list[int]:
        """Press keycodes in order; return them for `let_go`."""
        pressed = []
        for code in keycodes:
            self.key_down(code)
            pressed.append(code)
        return pressed

    def let_go(self, keycodes: list[int]) -> None:
        for code in reversed(keycodes):
            self.key_up(code)

    def type_text(self, text: str, *, interval: float = 0.0) -> None:
        """Type any Unicode text: map levels where the keymap has the character, else bind."""
        for char in text:
            keysym = (
                keysym_of(_SPECIAL_CHARS[char]) if char in _SPECIAL_CHARS else char_keysym(char)
            )
            keycode, mods = self._locate(keysym)
            held = self.hold([self._modifier_code(m) for m in mods])
            self.key_down(keycode)
            self.key_up(keycode)
            self.let_go(held)
            if interval:
                self.pause(interval)

    # -- cleanup ----------------------------------------------------------------------

    def release_all(self) -> None:
        """Let go of every key and button this injector pressed, newest first."""
        for button in reversed(list(self._buttons_down)):
            self.button_up(button)
        for keycode in reversed(list(self._keys_down)):
            self.key_up(keycode)

    def close(self) -> None:
        """Release what we hold and put back every keycode we re-bound."""
        try:
            self.release_all()
        finally:
            self._restore_keymap()

    # -- internals --------------------------------------------------------------------

    def _fake(self, event_type: int, **fields: Any) -> None:
        self._xtest.fake_input(self._d, event_type, **fields)
        self._d.sync()

    def _load_keymap(self) -> None:
        first = self._d.display.info.min_keycode
        count = self._d.display.info.max_keycode - first + 1
        rows = self._d.get_keyboard_mapping(first, count)
        self._map = {first + i: list(row) for i, row in enumerate(rows)}
        self._where: dict[int, tuple[int, tuple[str, ...]]] = {}
        for level, mods in _LEVELS:
            for keycode, syms in self._map.items():
                # a level is reachable only if its modifier keys are on the map
                if (
                    len(syms) > level
                    and syms[level]
                    and syms[level] not in self._where
                    and all(keysym_of(m) in self._where for m in mods)
                ):
                    self._where[syms[level]] = (keycode, mods)

    def _modifier_code(self, name: str) -> int:
        keycode, _mods = self._locate(keysym_of(name))
        return keycode

    def _locate(self, keysym: int) -> tuple[int, tuple[str, ...]]:
        if keysym in self._where:
            return self._where[keysym]
        if keysym in self._bound:
            return self._bound[keysym], ()
        return self._bind(keysym), ()

    def _bind(self, keysym: int) -> int:
        spare = [
            code
            for code, syms in self._map.items()
            if not any(syms) and code not in self._bound.values()
        ]
        if not spare:  # every spare keycode is in use: recycle the oldest binding
            oldest = next(iter(self._bound))
            spare = [self._bound.pop(oldest)]
            self.pause(_MAPPING_SETTLE)
        keycode = spare[-1]
        width = max(len(self._map[keycode]), 2)
        self._original.setdefault(keycode, list(self._map[keycode]))
        _note_bindings(self._d, self._original)
        self._d.change_keyboard_mapping(keycode, [(keysym,) * width])
        self._d.sync()
        self._map[keycode] = [keysym] * width
        self._bound[keysym] = keycode
        self.pause(_MAPPING_SETTLE)  # let clients see the MappingNotify first
        return keycode

    def _restore_keymap(self) -> None:
        if not self._original:
            return
        # clients still translating our last keys use the binding; a plain sleep, because
        # an abort must not stop the restoring
        time.sleep(_MAPPING_SETTLE)
        for keycode, syms in self._original.items():
            self._d.change_keyboard_mapping(keycode, [tuple(syms) or (0,)])
        self._original.clear()
        _note_bindings(self._d, self._original)
        self._d.sync()
        self._bound.clear()
        self._load_keymap()


def release_held(display: Any) -> list[str]:
    """Release every key and button the server reports held, and put back the keycodes a
    replay re-bound (left so by a killed process); what was done, in words."""
    from Xlib import X
    from Xlib.ext import xtest

    released = []
    keymap = display.query_keymap()
    for byte_index, byte in enumerate(keymap):
        for bit in range(8):
            if byte & (1 << bit):
                keycode = byte_index * 8 + bit
                xtest.fake_input(display, X.KeyRelease, detail=keycode)
                released.append(f"key {keycode}")
    mask = display.screen().root.query_pointer().mask
    for button, flag in (
        (1, X.Button1Mask),
        (2, X.Button2Mask),
        (3, X.Button3Mask),
        (4, X.Button4Mask),
        (5, X.Button5Mask),
    ):
        if mask & flag:
            xtest.fake_input(display, X.ButtonRelease, detail=button)
            released.append(f"button {button}")
    display.sync()
    return released + _restore_bindings(display)


def _note_bindings(display: Any, original: dict[int, list[int]]) -> None:
    from Xlib import Xatom

    root, atom = display.screen().root, display.intern_atom(_BINDINGS)
    if original:
        root.change_property(atom, Xatom.STRING, 8, json.dumps(original).encode())
    else:
        root.delete_property(atom)


def _restore_bindings(display: Any) -> list[str]:
    from Xlib import X

    root, atom = display.screen().root, display.intern_atom(_BINDINGS)
    noted = root.get_full_property(atom, X.AnyPropertyType)
    if noted is None:
        return []
    info = display.display.info
    try:
        left = {
            int(code): [int(s) for s in syms]
            for code, syms in json.loads(bytes(noted.value)).items()
        }
    except (ValueError, TypeError, AttributeError):  # not written by us: leave it alone
        return []
    left = {
        code: syms for code, syms in left.items() if info.min_keycode <= code <= info.max_keycode
    }
    for keycode, syms in left.items():
        display.change_keyboard_mapping(keycode, [tuple(syms) or (0,)])
    root.delete_property(atom)
    display.sync()
    return [f"keycode {code} (re-bound by a replay)" for code in left]

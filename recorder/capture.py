"""Pointer and keyboard capture through the X RECORD extension (python-xlib, no pynput).

RECORD hands us the server's own device events with the server's millisecond timestamps,
keycodes and positions; pynput would add a translation layer and its own clock. The
callback only translates and enqueues: everything else happens on other threads.

The same context records every client's ChangeKeyboardMapping request, in order with the
events: a replayer or xdotool binds a spare keycode to a character the layout lacks just
before pressing it, and the key must be read through that binding, not the map we read
at the start.
"""

from __future__ import annotations

import math
import queue
import struct
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from deskreel.xsession.display import connect
from deskreel.storage.grouping import SERVER_TICK
from deskreel.storage.keys import keysym_char, keysym_name

from .errors import RecordError

__all__ = ["READY_TIMEOUT", "ClockSync", "InputCapture", "Keymap", "keymap_changes"]

READY_TIMEOUT = 5.0  # s the server has to start recording input

_KINDS = {2: "key_down", 3: "key_up", 4: "button_down", 5: "button_up", 6: "motion"}
_CHANGE_KEYBOARD_MAPPING = 100  # the core request's opcode
_SHIFTS = ("Shift_L", "Shift_R")
_LEVEL3 = ("ISO_Level3_Shift", "Mode_switch")


class ClockSync:
    """Maps server milliseconds to our monotonic clock: arrival minus the least latency seen."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._offset: float | None = None
        self._last_ms: int | None = None
        self._last = -math.inf  # the latest local time given
        self._wraps = 0

    def local(self, server_ms: int) -> float:
        """The local time of a server timestamp. Events keep their order and what tells
        them apart, when a quicker arrival lowers the offset meanwhile: those sharing a
        timestamp share a time (the reducer tells autorepeat by that), and a later
        timestamp is at least a tick later."""
        tie = server_ms == self._last_ms
        if self._last_ms is not None and server_ms < self._last_ms - 2**31:
            self._wraps += 1  # the 32-bit server clock wrapped (every 49.7 days)
        self._last_ms = server_ms
        server = (server_ms + self._wraps * 2**32) / 1000.0
        offset = self._clock() - server
        if self._offset is None or offset < self._offset:
            self._offset = offset
        if not tie:
            self._last = max(server + self._offset, self._last + SERVER_TICK)
        return self._last


class Keymap:
    """Keycode -> base keysym name and typed character, following shift, CapsLock and AltGr."""

    def __init__(self, rows: dict[int, list[int]]):
        self.rows = dict(rows)
        self.held: set[str] = set()
        self.caps = False

    @classmethod
    def read(cls, display: Any) -> Keymap:
        first = display.display.info.min_keycode
        count = display.display.info.max_keycode - first + 1
        rows = display.get_keyboard_mapping(first, count)
        keysym_char(0x6C1)  # a legacy keysym: libxkbcommon loads now, not in the callback
        return cls({first + i: list(row) for i, row in enumerate(rows)})

    def remap(self, first: int, rows: list[list[int]]) -> None:
        """A client changed the keysyms of keycodes `first`, `first + 1`, ..."""
        for n, row in enumerate(rows):
            self.rows[first + n] = list(row)

    def translate(self, keycode: int, down: bool) -> tuple[str | None, str]:
        """The key's base keysym name and the text it types now (\"\" for none)."""
        syms = self.rows.get(keycode, [])
        base = keysym_name(syms[0]) if syms and syms[0] else None
        if base in ("Caps_Lock",) and down:
            self.caps = not self.caps
        if base is not None and (base in _SHIFTS or base in _LEVEL3):
            (self.held.add if down else self.held.discard)(base)
        return base, (self._char(syms) if down else "")

    def _char(self, syms: list[int]) -> str:
        shift = any(s in self.held for s in _SHIFTS)
        level = 4 if any(s in self.held for s in _LEVEL3) else 0
        keysym = _column(syms, level + (1 if shift else 0)) or _column(syms, level)
        if self.caps and keysym and not level:
            lower, upper = _column(syms, 0), _column(syms, 1)
            if lower and upper and keysym_char(lower).upper() == keysym_char(upper):
                keysym = upper if not shift else lower
        return keysym_char(keysym) if keysym else ""


def _column(syms: list[int], index: int) -> int:
    return syms[index] if len(syms) > index else 0


class InputCapture:
    """A RECORD context on its own connections; events go to `out` as RawEvent field tuples.

    A context manager: entering connects to X, starts recording and waits until it runs
    (RecordError when it does not within READY_TIMEOUT); leaving stops it and closes the
    connections. What ended the recording thread is then `error`: its owner hears of it
    by `alive` going False. Underneath, the lifecycle is pynput's: start() (it connects),
    `ready` is set once recording runs, stop(), join(), which re-raises an exception of the
    recording thread.
    """

    def __init__(
        self,
        display_name: str | None,
        out: queue.SimpleQueue,
        *,
        clock: Callable[[], float] = time.monotonic,
        control: Any = None,
    ):
        self.out = out
        self._name = display_name
        self._sync = ClockSync(clock)
        self.ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="deskreel-record", daemon=True)
        # the control connection checks the extensions and reads the keymap; one given here
        # (the recorder's, which read the recording's header through it) is closed with ours
        self._control: Any = control
        self.keymap = Keymap({})
        self._context: Any = None

    def __enter__(self) -> InputCapture:
        self.start()
        if not self.ready.wait(READY_TIMEOUT):
            self.stop()
            try:
                self.join()
            except Exception:  # the context never ran: nothing of it is worth more words
                pass
            where = f" {self._name}" if self._name else ""
            raise RecordError(
                f"the X server{where} did not start recording input within "
                f"{READY_TIMEOUT:g} s; check that it is not hung, and record again"
            )
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
        try:
            self.join()
        except Exception:  # kept in `error`; the X connection broke, said by its owner already
            pass

    def start(self) -> InputCapture:
        from Xlib import X
        from Xlib.ext import record

        if self._control is None:
            self._control = connect(self._name, extensions=("RECORD", "XTEST"))
        self.keymap = Keymap.read(self._control)
        self._data = connect(self._name)
        self._context = self._control.record_create_context(
            0,
            [record.AllClients],
            [
                {
                    "core_requests": (_CHANGE_KEYBOARD_MAPPING, _CHANGE_KEYBOARD_MAPPING),
                    "core_replies": (0, 0),
                    "ext_requests": (0, 0, 0, 0),
                    "ext_replies": (0, 0, 0, 0),
                    "delivered_events": (0, 0),
                    "device_events": (X.KeyPress, X.MotionNotify),
                    "errors": (0, 0),
                    "client_started": False,
                    "client_died": False,
                }
            ],
        )
        self._control.sync()
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._context is not None:
            try:
                self._control.record_disable_context(self._context)
                self._control.sync()
            except Exception:  # the server is gone: the recording thread ends by itself
                pass

    def join(self, timeout: float | None = 5.0) -> None:
        self._thread.join(timeout)
        if self._context is not None:
            try:
                self._control.record_free_context(self._context)
                self._control.close()
            except Exception:
                pass
            self._context = None
        if self._error is not None:
            raise self._error

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    @property
    def error(self) -> BaseException | None:
        """What ended the recording thread, if it did not end by stop()."""
        return self._error

    def _run(self) -> None:
        try:
            # Blocks until the context is disabled; `ready` is set by the server's
            # StartOfData reply, once events are really being recorded.
            self._data.record_enable_context(self._context, self._on_reply)
        except BaseException as err:
            self._error = err
        finally:
            self.ready.set()  # never leave a waiter hanging on a context that failed
            try:
                self._data.close()
            except Exception:
                pass

    def _on_reply(self, reply: Any) -> None:
        from Xlib.ext import record
        from Xlib.protocol import rq

        if reply.category == record.StartOfData:
            self.ready.set()
            return
        if reply.category == record.FromClient and reply.data:
            for first, rows in keymap_changes(reply.data, swapped=reply.client_swapped):
                self.keymap.remap(first, rows)
            return
        if reply.category != record.FromServer or reply.client_swapped or not reply.data:
            return
        data = reply.data
        parse = rq.EventField(None).parse_binary_value
        while data:
            event, data = parse(data, self._data.display, None, None)
            kind = _KINDS.get(event.type)
            if kind is None:
                continue
            self.out.put(self._fields(self._sync.local(event.time), kind, event))

    def _fields(self, t: float, kind: str, event: Any) -> tuple:
        """RawEvent's fields, with t on our monotonic clock (the writer makes it relative)."""
        x, y = event.root_x, event.root_y
        if kind in ("key_down", "key_up"):
            keysym, char = self.keymap.translate(event.detail, kind == "key_down")
            return (t, kind, x, y, None, event.detail, keysym, char)
        if kind == "motion":
            return (t, kind, x, y, None, None, None, None)
        return (t, kind, x, y, event.detail, None, None, None)


def keymap_changes(data: bytes, *, swapped: bool) -> list[tuple[int, list[list[int]]]]:
    """The ChangeKeyboardMapping requests in RECORD data from a client: for each, its first
    keycode and the keysyms of each keycode from there (in the client's byte order)."""
    little = (sys.byteorder == "little") != swapped
    order = "<" if little else ">"
    out = []
    at = 0
    while at + 8 <= len(data):
        opcode, count = data[at], data[at + 1]
        (length,) = struct.unpack_from(order + "H", data, at + 2)
        if length == 0 or at + 4 * length > len(data):
            break  # a BIG-REQUESTS length, which this request never needs, or a cut one
        # RECORD hands requests over before the server checks them: skip one whose
        # keysyms would not fit in its length (the server will refuse it too)
        if opcode == _CHANGE_KEYBOARD_MAPPING and 8 + 4 * count * data[at + 5] <= 4 * length:
            first, per = data[at + 4], data[at + 5]
            syms = struct.unpack_from(f"{order}{count * per}I", data, at + 8)
            out.append((first, [list(syms[n * per : (n + 1) * per]) for n in range(count)]))
        at += 4 * length
    return out

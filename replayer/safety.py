"""The person's ways to stop a replay: the abort chord, a pointer thrown into a screen corner,
SIGINT and SIGTERM. All of them set one `threading.Event` that every pause of the replay waits
on, so a replay stops within one event of being told to.
"""

from __future__ import annotations

import select
import signal
import sys
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from typing import Any

from deskreel.xsession.display import connect, display_gone
from deskreel.storage.keys import parse_chord

from .defaults import DEFAULT_ABORT_KEY
from .errors import Interrupted

__all__ = ["DEFAULT_ABORT_KEY", "AbortSwitch", "AbortWatcher", "on_signals", "prompt_switches"]

CORNER_MARGIN = 2  # px from the screen edge that count as "in the corner"
SPIN = 0.002  # s before a deadline when a replay stops sleeping and spins
SWITCH = 0.0002  # s: how often threads hand over the interpreter lock during a replay

_MODIFIER_MASKS = {
    "Control_L": "ControlMask",
    "Control_R": "ControlMask",
    "Shift_L": "ShiftMask",
    "Shift_R": "ShiftMask",
    "Alt_L": "Mod1Mask",
    "Alt_R": "Mod1Mask",
    "Meta_L": "Mod1Mask",
    "Super_L": "Mod4Mask",
    "Super_R": "Mod4Mask",
    "Hyper_L": "Mod4Mask",
}


class AbortSwitch:
    """Set once, with the reason; `pause` sleeps unless or until it is set."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = ""

    def trip(self, reason: str) -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def tripped(self) -> bool:
        return self._event.is_set()

    @property
    def message(self) -> str:
        """What an aborted replay says, and stores as its run's message."""
        return f"replay aborted: {self.reason}"

    def pause(self, seconds: float) -> None:
        """Sleep `seconds`, raising Interrupted at once if the switch is (or gets) tripped."""
        if self._event.wait(max(0.0, seconds)) if seconds > 0 else self._event.is_set():
            raise Interrupted(self.message)

    def pause_until(self, deadline: float, clock: Callable[[], float]) -> None:
        """Sleep until `deadline` on `clock`: a timed wait, then a short spin for the last
        stretch, because timed waits wake up to a millisecond late.

        The spin makes no system call: `time.sleep(0)` in it gave the CPU away and came
        back 1-4 ms later a few times a minute (measured on a 2-core VM), which made those
        steps late. Other threads still get the interpreter lock (`prompt_switches`)."""
        self.pause(0)  # a step already due still stops for an abort
        remaining = deadline - clock()
        if remaining > SPIN:
            self.pause(remaining - SPIN)
        while clock() < deadline:
            if self._event.is_set():
                self.pause(0)


@contextmanager
def prompt_switches(interval: float = SWITCH) -> Iterator[None]:
    """Hand the interpreter lock between threads every `interval` s while the block runs.

    The abort watcher's thread parses X replies holding the lock; a replay waiting for a
    deadline then waited for the lock up to the default 5 ms switch interval (steps 4-7 ms
    late, a few per hundred)."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, interval))
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


@contextmanager
def on_signals(switch: AbortSwitch) -> Iterator[None]:
    """Turn SIGINT and SIGTERM into a trip of the switch while the block runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda num, _frame: switch.trip(signal.Signals(num).name))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class AbortWatcher:
    """A thread on its own X connection: grabs the abort chord and watches the corners.

    `injected` gives the points the replay's own latest move goes from and to: the pointer
    there is the replay's doing, not a person's signal."""

    def __init__(
        self,
        display_name: str | None,
        switch: AbortSwitch,
        *,
        chord: str | None = DEFAULT_ABORT_KEY,
        corners: bool = True,
        injected: Callable[[], Collection[tuple[int, int]]] = tuple,
        poll: float = 0.02,
    ):
        self._name, self.switch, self.chord, self.corners = display_name, switch, chord, corners
        self._injected, self._poll = injected, poll
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deskreel-abort", daemon=True)
        self._conn: Any = None
        self.warning = ""

    def start(self) -> AbortWatcher:
        self._conn = connect(self._name)
        if self.chord:
            self._grab(self.chord)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        if self._conn is not None:
            conn, self._conn = self._conn, None
            try:
                conn.close()
            except Exception as err:
                if not display_gone(err):  # gone, there is nothing to close
                    raise

    def __enter__(self) -> AbortWatcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _grab(self, chord_text: str) -> None:
        from Xlib import X, error

        chord = parse_chord(chord_text)
        mask = 0
        for name in chord.modifiers:
            mask |= getattr(X, _MODIFIER_MASKS.get(name, "Mod4Mask"))
        keycode = self._conn.keysym_to_keycode(chord.keysyms[-1])
        if not keycode:
            self.warning = f"abort key {chord_text!r} is not on this keyboard"
            return
        root = self._conn.screen().root
        catcher = error.CatchError(error.BadAccess)
        # A grab matches modifiers exactly: also grab with NumLock, CapsLock, AltGr and
        # Shift on top, so that the chord works while a replayed step holds shift.
        optional = [m for m in (X.ShiftMask, X.LockMask, X.Mod2Mask, X.Mod5Mask) if not m & mask]
        for extra in _subsets(optional):
            root.grab_key(
                keycode, mask | extra, True, X.GrabModeAsync, X.GrabModeAsync, onerror=catcher
            )
        self._conn.sync()
        if catcher.get_error():
            self.warning = (
                f"abort key {chord_text!r} is grabbed by another program; "
                f"use SIGINT or a screen corner to abort"
            )
        self._keycode, self._mask = keycode, mask

    def _run(self) -> None:
        try:
            self._watch()
        except Exception as err:
            if not display_gone(err):
                raise
            self.switch.trip(f"the X display {self._name or '$DISPLAY'} went away")

    def _watch(self) -> None:
        from Xlib import X

        conn = self._conn
        root = conn.screen().root
        width, height = conn.screen().width_in_pixels, conn.screen().height_in_pixels
        was_in_corner = True  # a pointer already parked in a corner at start is no signal
        while not self._stop.is_set():
            readable, _, _ = select.select([conn.fileno()], [], [], self._poll)
            if readable:
                for _ in range(conn.pending_events()):
                    event = conn.next_event()
                    if event.type == X.KeyPress:
                        self.switch.trip(f"abort key {self.chord} pressed")
            if self.corners:
                # the replay's own moves (read before and after the query, as one may be
                # under way) are no signal
                injected = set(self._injected())
                pointer = root.query_pointer()
                here = (pointer.root_x, pointer.root_y)
                injected.update(self._injected())
                in_corner = _in_corner(here, width, height) and here not in injected
                if in_corner and not was_in_corner:
                    self.switch.trip(f"pointer thrown into the corner at {list(here)}")
                was_in_corner = in_corner
            if self.switch.tripped:
                return


def _subsets(masks: list[int]) -> list[int]:
    combos = [0]
    for m in masks:
        combos += [c | m for c in combos]
    return combos


def _in_corner(point: tuple[int, int], width: int, height: int) -> bool:
    x, y = point
    near_x = x <= CORNER_MARGIN or x >= width - 1 - CORNER_MARGIN
    near_y = y <= CORNER_MARGIN or y >= height - 1 - CORNER_MARGIN
    return near_x and near_y

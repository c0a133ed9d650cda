"""A scripted person at the keyboard and mouse: XTest input with motion paths and delays,
the way a human produces it (used by the recorder's tests and benchmarks)."""

from __future__ import annotations

import time

from deskreel.xsession.display import connect
from deskreel.replayer.xinput import Injector


class Person:
    """Drives one display through its own XTest connection."""

    def __init__(
        self,
        display: str,
        *,
        key_delay: float = 0.06,
        step_delay: float = 0.35,
        aim_delay: float = 0.05,
    ):
        """`aim_delay`: seconds resting on the target before a click or a drag presses;
        `step_delay`: seconds resting after each step."""
        self.conn = connect(display, extensions=("XTEST",))
        self.inj = Injector(self.conn)
        self.key_delay, self.step_delay, self.aim_delay = key_delay, step_delay, aim_delay
        self.at = self.inj.pointer()

    def move_to(self, x: int, y: int, *, seconds: float = 0.15, steps: int = 8) -> None:
        x0, y0 = self.at
        for i in range(1, steps + 1):
            self.inj.move(round(x0 + (x - x0) * i / steps), round(y0 + (y - y0) * i / steps))
            time.sleep(seconds / steps)
        self.at = (x, y)

    def click(self, x: int, y: int, *, button: int = 1, count: int = 1, mods: str = "") -> None:
        self.move_to(x, y)
        held = self.inj.hold(self.inj.chord_keycodes(mods)) if mods else []
        time.sleep(self.aim_delay)
        for i in range(count):
            if i:
                time.sleep(0.08)
            self.inj.button_down(button)
            time.sleep(0.04)
            self.inj.button_up(button)
        time.sleep(0.05)
        self.inj.let_go(held)
        time.sleep(self.step_delay)

    def drag(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        self.move_to(*start)
        time.sleep(self.aim_delay)
        self.inj.button_down(1)
        self.move_to(*end, seconds=0.4, steps=20)
        time.sleep(0.05)
        self.inj.button_up(1)
        time.sleep(self.step_delay)

    def wheel(self, x: int, y: int, ticks: int, *, button: int = 5) -> None:
        self.move_to(x, y)
        for _ in range(ticks):
            self.inj.button_down(button)
            self.inj.button_up(button)
            time.sleep(0.06)
        time.sleep(self.step_delay)

    def type(self, text: str) -> None:
        for char in text:
            self.inj.type_text(char)
            time.sleep(self.key_delay)
        time.sleep(self.step_delay)

    def press(self, chord: str, *, hold: float = 0.05) -> None:
        held = self.inj.hold(self.inj.chord_keycodes(chord))
        time.sleep(hold)
        self.inj.let_go(held)
        time.sleep(self.step_delay)

    def close(self) -> None:
        self.inj.close()
        self.conn.close()

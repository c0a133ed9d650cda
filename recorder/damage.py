"""What the X server tells of the screen changing (the DAMAGE extension), so that the capture
thread grabs a frame as soon as an application has drawn, not at its next tick.

A person who types the last letter and presses Return 60 ms later leaves no frame of the
letter drawn on a fixed 100 ms grid: the step's after-frame, taken at the latest when the
next step begins, then shows its effect half drawn. Damage on the root window reports any
drawing on the screen (x11vnc watches it the same way); the first report after the damage
was cleared wakes the capture thread, which grabs and clears it again."""

from __future__ import annotations

import select
from typing import Any

__all__ = ["DamageWatch"]


class DamageWatch:
    """Damage reports on the root window of `conn` (a python-xlib Display used by this
    thread alone); `open` gives None where the server has no DAMAGE extension."""

    def __init__(self, conn: Any, damage: int, code: int):
        self._conn, self._damage, self._code, self._seen = conn, damage, code, False

    @classmethod
    def open(cls, conn: Any) -> DamageWatch | None:
        from Xlib.ext import damage

        if not conn.has_extension("DAMAGE"):
            return None
        conn.damage_query_version()  # the server insists on it before any other request
        made = conn.screen().root.damage_create(damage.DamageReportNonEmpty)
        conn.flush()
        code = conn.query_extension("DAMAGE").first_event + damage.DamageNotifyCode
        return cls(conn, made, code)

    def damaged(self) -> bool:
        """Whether the screen changed since the last clear(): reports read so far."""
        while self._conn.pending_events():
            self._seen |= (self._conn.next_event().type & 0x7F) == self._code
        return self._seen

    def clear(self) -> None:
        """Forget the damage so far (before a grab): the next drawing is reported again."""
        self._conn.damage_subtract(self._damage)
        self._conn.flush()
        self._seen = False

    def wait(self, timeout: float) -> None:
        """Sleep up to `timeout` s, or until the server sends something (a damage report)."""
        if timeout > 0 and not self.damaged():
            select.select([self._conn.fileno()], [], [], timeout)

    def close(self) -> None:
        self._conn.damage_destroy(self._damage)
        self._conn.flush()

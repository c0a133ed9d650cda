"""D-Bus calls with deadlines, one at a time or many in flight at once (a tree is read a
level per round trip, not a call per round trip). jeepney is imported where a bus opens."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = ["Bus", "CALL_TIMEOUT", "Call", "Gone", "Ref"]

CALL_TIMEOUT = 0.5  # s for a call, or a batch of them; an application slower than that is out

Ref = tuple[str, str]  # (bus name, object path): one remote object
Call = tuple[Ref, str, str, str | None, tuple[Any, ...]]  # ref, interface, method, sig, body

_PROPERTIES = "org.freedesktop.DBus.Properties"


class Gone(Exception):
    """An object or application went away (or stopped answering) while we asked it."""


class Bus:
    """One connection to a message bus; use it from one thread. `deadline` (monotonic),
    where set, ends every call: one question of many calls has one budget."""

    def __init__(self, address: str):
        from jeepney.bus import get_bus
        from jeepney.io.blocking import DBusConnection, prep_socket

        sock = prep_socket(get_bus(address), False, timeout=CALL_TIMEOUT)
        sock.settimeout(CALL_TIMEOUT)  # the greeting, and every send, have a deadline too
        try:
            self._conn = DBusConnection(sock)
        except BaseException:
            sock.close()
            raise
        self.deadline: float | None = None

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def budget(self, seconds: float) -> Iterator[None]:
        """Every call inside the block ends by `seconds` from now."""
        self.deadline = time.monotonic() + seconds
        try:
            yield
        finally:
            self.deadline = None

    def call(
        self, ref: Ref, interface: str, method: str, signature: str | None = None, *body: Any
    ) -> Any:
        """The reply's body; Gone for an error reply or no reply in time."""
        answer = self.batch([(ref, interface, method, signature, body)])[0]
        if isinstance(answer, Gone):
            raise answer
        return answer

    def prop(self, ref: Ref, interface: str, name: str) -> Any:
        return self.call(ref, _PROPERTIES, "Get", "ss", interface, name)[0][1]  # a variant

    @staticmethod
    def prop_call(ref: Ref, interface: str, name: str) -> Call:
        return (ref, _PROPERTIES, "Get", "ss", (interface, name))

    def batch(self, calls: Sequence[Call]) -> list[Any]:
        """Every call sent at once, then their replies: each a body, or Gone (an error reply,
        or none within CALL_TIMEOUT of the batch being sent)."""
        from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call

        deadline = time.monotonic() + CALL_TIMEOUT
        if self.deadline is not None:
            if time.monotonic() >= self.deadline:
                return [Gone("out of time")] * len(calls)
            deadline = min(deadline, self.deadline)
        serials = {}
        for n, (ref, interface, method, signature, body) in enumerate(calls):
            message = new_method_call(
                DBusAddress(ref[1], ref[0], interface), method, signature, body
            )
            serial = next(self._conn.outgoing_serial)
            self._conn.send_message(message, serial=serial)
            serials[serial] = n
        answers: list[Any] = [Gone("no reply in time")] * len(calls)
        while serials:
            try:
                message = self._conn.receive(timeout=max(deadline - time.monotonic(), 0.0))
            except TimeoutError:
                break
            n = serials.pop(int(message.header.fields.get(HeaderFields.reply_serial, -1)), -1)
            if n < 0:
                continue  # a signal, or a late reply to a batch that gave up on it
            if message.header.message_type == MessageType.error:
                answers[n] = Gone(f"{calls[n][2]}: {message.body[0] if message.body else ''}")
            else:
                answers[n] = message.body
        return answers

"""The reducer: raw input events in, vocabulary actions out. Pure: no X, no I/O, no clock.

It works in passes: key presses (autorepeat folded in) become typing bursts and `key`
actions (`keyboard`); button presses become clicks, drags, long presses and scrolls
(`pointer`); resting motion becomes hovers (`hovers`); the three are merged by time here,
and long gaps between them become `wait`. Each pass's module says the decisions it took.

Decisions the issue left to us, for the whole:
- Piece by piece (`reduce_piece`, how the live recorder reduces): pieces cut at quiet
  moments (nothing held, and a gap longer than every threshold) give the actions the
  whole recording gives, when each piece is given what the one before left (`Carry`)
  and, unless it is the last, the time of the first event after it.
- Idle is measured between emitted actions (end of one, start of the next), so motion
  that makes no action counts as idle; hovers are actions. No wait before the first
  action or after the last.
- Chords and with_key spell modifiers in one fixed order (ctrl, alt, shift, super, ...),
  whatever order they were pressed in, so one gesture always reads the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from deskreel.storage.grouping import (
    DEFAULT_SETTINGS,
    DEFAULT_THRESHOLDS,
    InputSettings,
    Thresholds,
)
from deskreel.storage.values import RawEvent
from deskreel.storage.vocabulary import MAX_WAIT, Action

from .hovers import hovers, pointer_left_at
from .keyboard import key_presses, keyboard_actions
from .pointer import pointer_actions
from .reduced import Reduced, modifiers_held

__all__ = [
    "DEFAULT_SETTINGS",
    "DEFAULT_THRESHOLDS",
    "Carry",
    "InputSettings",
    "Reduced",
    "Thresholds",
    "reduce_events",
    "reduce_piece",
]


def reduce_events(
    events: Sequence[RawEvent],
    *,
    settings: InputSettings = DEFAULT_SETTINGS,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    pointer_at: tuple[int, int] | None = None,
    until: float | None = None,
) -> list[Reduced]:
    """Reduce one recording's raw events to vocabulary actions, sorted by start time.

    `settings` are those the recording stored (the X server's defaults for one made before
    deskreel stored them). For a piece of a recording: `pointer_at` is where the pointer was
    left before it (by the last pointer action or hover), `until` the time of the first
    event after it.
    """
    held = modifiers_held(events)
    keys = key_presses(events, settings)
    actions = [
        *keyboard_actions(events, keys, held, settings, thresholds),
        *pointer_actions(events, [p.down for p in keys], held, settings, thresholds),
        *hovers(events, thresholds, pointer_at, until),
    ]
    actions.sort(key=lambda r: (r.t_start, r.first))
    return _with_waits(actions, thresholds.idle)


@dataclass(frozen=True, slots=True)
class Carry:
    """What the pieces of a recording reduced so far leave for the next piece."""

    pointer_at: tuple[int, int] | None = None  # where the last pointer action or hover left it
    end: float | None = None  # when every action so far had ended


def reduce_piece(
    events: Sequence[RawEvent],
    *,
    carry: Carry = Carry(),
    until: float | None = None,
    settings: InputSettings = DEFAULT_SETTINGS,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> tuple[list[Reduced], Carry]:
    """Reduce a piece of a recording cut at a quiet moment, and what it leaves for the next.

    `until` is the time of the first event after the piece (None for the last piece). The
    pieces' actions together are those of the whole recording; indices are the piece's.
    """
    reduced = reduce_events(
        events, settings=settings, thresholds=thresholds, pointer_at=carry.pointer_at, until=until
    )
    if reduced and carry.end is not None and reduced[0].t_start - carry.end >= thresholds.idle:
        reduced.insert(0, _wait(carry.end, reduced[0].t_start))
    ends = [r.t_end for r in reduced] + ([carry.end] if carry.end is not None else [])
    return reduced, Carry(
        pointer_left_at(events, reduced, carry.pointer_at), max(ends, default=None)
    )


def _with_waits(actions: Iterable[Reduced], idle: float) -> list[Reduced]:
    """The actions with a `wait` in each gap of at least `idle` seconds between them."""
    out: list[Reduced] = []
    end: float | None = None  # when the actions so far have all ended
    for r in actions:
        if end is not None and r.t_start - end >= idle:
            out.append(_wait(end, r.t_start))
        out.append(r)
        end = r.t_end if end is None else max(end, r.t_end)
    return out


def _wait(start: float, end: float) -> Reduced:
    return Reduced(
        Action("wait", duration=round(min(end - start, MAX_WAIT), 3)), start, end, -1, -1
    )

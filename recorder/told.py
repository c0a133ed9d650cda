"""What the objects of the window under the pointer tell of themselves (storage/told.py),
asked whenever the screen has stood still ASK_AGAIN since it last changed (or the pointer
went into another window): a thread of its own, with its own X and D-Bus connections, off
the input path and off the aim watch's (aiming.py), whose answers must come before a press.

The finisher gives a step what its window told just before it and once its effect was drawn
(`told_for_step`), keeping of each reading only the objects whose pixels did not change from
when they were asked to when they count: a text read while it was being redrawn, or before
a hover redrew the object, is not kept.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from deskreel.storage.told import StepTold, Told
from deskreel.storage.widgets import Box

from .aiming import ASK_AGAIN, close_quietly
from .screen import WINDOW_POLL, FrameTimeline

__all__ = ["TOLD_BUDGET", "ToldSeen", "ToldWatch", "told_for_step"]

TOLD_BUDGET = 2.0  # s for one reading of a window; past it: nothing kept of it
MOST_FAILED = 100  # looks gone wrong before the watch gives up for the recording
MOST_FRAMES = 32  # frames compared for a reading to still hold; past them: it does not


@dataclass(frozen=True, slots=True)
class ToldSeen:
    """A reading asked at `asked`, answered by `t`, of the window boxed `window`."""

    asked: float
    t: float
    window: Box
    told: Told


class ToldWatch:
    """As a context manager, reads inside the block. `allowed(top)` False for the window
    under the pointer (paused, private, redacting) reads nothing. `asked` and `seconds`
    say what the readings cost."""

    def __init__(
        self,
        display_name: str,
        timeline: FrameTimeline,
        *,
        allowed: Callable[[Any], bool] = lambda top: True,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.timeline, self._name, self._allowed, self._clock = (
            timeline,
            display_name,
            allowed,
            clock,
        )
        self._stop = threading.Event()
        self.asked = 0
        self.seconds = 0.0
        self.failed = 0
        self._thread = threading.Thread(target=self._run, name="deskreel-told", daemon=True)

    def __enter__(self) -> ToldWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=TOLD_BUDGET + 1)

    def _run(self) -> None:
        from deskreel.xsession.atspi import Accessibility
        from deskreel.xsession.display import connect

        conn = tree = None
        try:
            conn = connect(self._name)
            tree = Accessibility.open(conn)
            if tree is not None:
                self._watch(conn, tree)
        except Exception:  # a dead bus or display: nothing more is told, the recording goes on
            pass
        finally:
            close_quietly(tree, conn)

    def _watch(self, conn: Any, tree: Any) -> None:
        from deskreel.xsession.toplevel import toplevel_of

        root = conn.screen().root
        read: tuple[Any, float] | None = None  # which window, when
        while not self._stop.wait(WINDOW_POLL):
            changed, now = self.timeline.last_change(), self._clock()
            if changed is None or now - changed < ASK_AGAIN:
                continue  # not still yet
            try:
                pointer = root.query_pointer()
                top = toplevel_of(conn, pointer.child)
                if top is None or top.box is None or top.pid is None:
                    continue
                if read is not None and read[0] == top and changed < read[1]:
                    continue  # read already, and nothing changed since
                read = (top, now)
                if self._allowed(top):
                    self._read(tree, top, (pointer.root_x, pointer.root_y), now)
            except Exception:  # one look gone wrong (a window gone): the next one may not
                self.failed += 1
                if self.failed > MOST_FAILED:
                    raise

    def _read(self, tree: Any, top: Any, point: tuple[int, int], asked: float) -> None:
        """Read what the window `top` tells; kept only where it may still be read once the
        reading is done (a pause or a private window that came meanwhile keeps nothing)."""
        from deskreel.xsession.atspi_told import told_at

        try:
            with tree.bus.budget(TOLD_BUDGET):
                told = told_at(tree, point, pid=top.pid, window=top.box)
        except Exception:  # no answer in time, or an application gone: nothing kept
            told = None
        done = self._clock()
        self.asked += 1
        self.seconds += done - asked
        if told is not None and self._allowed(top):
            self.timeline.note_told(ToldSeen(asked, done, top.box, told))


def told_for_step(
    timeline: FrameTimeline,
    start: float,
    drawn: tuple[float, float] | None,
    point: tuple[int, int] | None,
    following: float | None,
) -> StepTold | None:
    """What the window of the step's `point` told (None for a step without one): `before`,
    the last reading answered by the step's start `start`; `after`, the first asked once its
    effect was drawn and answered while it showed (`drawn`: from the step's end or its
    after-frame's first showing, whichever is later, to when that frame was replaced);
    `later`, the last answered by the next input step's start `following` (by the end of
    the recording without one). Each keeps only the objects whose pixels stood still from
    when it was asked to when it counts. None: none known."""
    if point is None:
        return None
    end = following if following is not None else math.inf
    readings = [s for s in timeline.told_between(start - 60, end) if _holds(s.window, point)]
    earlier = [s for s in readings if s.t <= start]
    before = _still(timeline, earlier[-1], start) if earlier else None
    after = later = None
    if drawn is not None:
        shown = [s for s in readings if s.asked >= drawn[0] and s.t <= drawn[1]]
        after = _still(timeline, shown[0], shown[0].t) if shown else None
        last = [s for s in readings if s.asked >= drawn[0]]
        later = _still(timeline, last[-1], last[-1].t) if last else None
    if before is None and after is None and later is None:
        return None
    return StepTold(before, after, later)


def _still(timeline: FrameTimeline, seen: ToldSeen, until: float) -> Told | None:
    """`seen`'s reading with only the objects whose pixels stayed as they were from when it
    was asked to `until`; None where the frames of that time are no longer held, or are
    more than MOST_FRAMES."""
    frames = timeline.shown_between(seen.asked, until)
    if not frames or frames[0].t_first > seen.asked or len(frames) > MOST_FRAMES:
        return None
    first = frames[0].pixels()
    changed = np.zeros(first.shape[:2], bool)
    for frame in frames[1:]:
        pixels = frame.pixels()
        if pixels.shape != first.shape:
            return None  # the screen changed size
        changed |= (pixels != first).any(axis=2)
    kept = tuple(o for o in seen.told.objects if not _any_in(changed, o.box))
    return replace(seen.told, objects=kept)


def _any_in(changed: np.ndarray, box: Box) -> bool:
    x, y, w, h = box
    return bool(changed[max(y, 0) : y + h, max(x, 0) : x + w].any())


def _holds(box: Box, point: tuple[int, int]) -> bool:
    x, y, w, h = box
    return x <= point[0] < x + w and y <= point[1] < y + h

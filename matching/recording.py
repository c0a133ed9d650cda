"""The screen an anchor was recorded on, as locate() checks a match against it: fetched once
for the calls that share it, where the anchor was cut from it, and the parts of the
neighbourhood around it there."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .params import PARAMS as P
from .parts import Parts
from .search import Image, Point, Screen, add

__all__ = ["Recorded", "Recording", "wide_hood"]


class Recorded:
    """The screen anchors were cut from, for locate()'s checks of a match that is not exact:
    fetched (`frame` may be a function that returns it) and made grayscale on first use, once
    however many locate() calls share it (the retries of one step)."""

    def __init__(self, frame: Image | Callable[[], Image | None]) -> None:
        self._frame: Image | Callable[[], Image | None] | None = frame  # None once fetched
        self._screen: Screen | None = None

    @property
    def screen(self) -> Screen | None:
        """The recorded screen, ready for searching; None when there is none to be had."""
        if self._frame is not None:
            frame, self._frame = self._frame, None
            fetched = frame() if callable(frame) else frame
            if fetched is not None:
                self._screen = Screen.of(fetched)
        return self._screen


@dataclass(frozen=True, slots=True)
class Recording:
    """Where the anchor was cut from the recorded screen (when there is one to check with)."""

    recorded: Recorded | None
    guess: Point | None  # where the anchor's top-left was on it
    shape: tuple[int, ...]  # of the anchor, grayscale
    offset: Point

    @property
    def screen(self) -> Screen | None:
        """The recorded screen, when there is one and the anchor's place on it is known."""
        return None if self.recorded is None or self.guess is None else self.recorded.screen

    def parts(self, tmpl: Image, *, wide: bool = False) -> Parts:
        """The parts of the recorded screen around the anchor (`wide`: of the wide
        neighbourhood), or of the anchor alone."""
        screen, hood = self.screen, wide_hood(1.0) if wide else {}
        if screen is None or self.guess is None:
            return Parts.of(tmpl, (0, 0, tmpl.shape[1], tmpl.shape[0]), self.offset, **hood)
        # (a stretch is only known on a screen: the anchor alone cuts it at its edges)
        return Parts.of(
            screen.gray,
            (*self.guess, tmpl.shape[1], tmpl.shape[0]),
            add(self.guess, self.offset),
            spans=True,
            **hood,
        )


def wide_hood(scale: float) -> dict[str, Any]:
    """Parts.of's size arguments for the wide neighbourhood, on a screen at `scale`."""
    return {
        "least": (round(P.wide_least[0] * scale), round(P.wide_least[1] * scale)),
        "most": P.wide_most,
    }

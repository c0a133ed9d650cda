"""What a widget's box says, read by text recognition: a name check for objects whose
toolkit names nothing (the X-window rung, xwindows.py), never an identity by itself; and
what a failed effect's region reads, then and today (compare/text.py), which never passes
a step.

Recognition only, on a box already known: no detection runs over the screen. The engine is
RapidOCR's recogniser (PP-OCR, ONNX models shipped inside its wheel, run by onnxruntime on
the CPU), loaded on the first reading and kept; about 15 ms a box on 2 cores. A reading is
compared without case or spaces (a theme or a font changes how "Search  backward" reads,
not what it says). Two readings name the same thing when they say the same (however sure
the recogniser was of one of them) or neither is readable; different things only when both
are confident and differ by more than a recogniser's slip (reading.renamed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

import numpy as np

from .params import PARAMS as P
from .search import Image

__all__ = ["UNREAD", "Reader", "Reading", "TextReader", "read_alike", "renamed", "same_name"]


@dataclass(frozen=True, slots=True)
class Reading:
    """What a box says (`text`, as read) and how sure the recogniser is (0 to 1)."""

    text: str
    score: float

    @property
    def key(self) -> str:
        """The text as compared: case and spaces left out."""
        return "".join(self.text.split()).casefold()

    @property
    def readable(self) -> bool:
        return bool(self.key) and self.score >= P.read_sure


UNREAD = Reading("", 0.0)
Reader = Callable[[Image], Reading]  # what a box (RGB or grey) says


def same_name(recorded: Reading, today: Reading) -> bool | None:
    """True: the same name (read alike, or neither readable); False: renamed; None: unsure
    (one reading not confident, or two confident ones a recogniser's slip apart)."""
    if read_alike(recorded, today) or (not recorded.readable and not today.readable):
        return True
    if renamed(recorded, today):
        return False
    return None


def read_alike(recorded: Reading, today: Reading) -> bool:
    """Whether two readings name the same thing by what they say: the same text, one of
    them at least read with confidence."""
    return (
        bool(recorded.key) and recorded.key == today.key and (recorded.readable or today.readable)
    )


def renamed(recorded: Reading, today: Reading) -> bool:
    """Whether two readings name different things: both confident, and further apart than a
    recogniser slips (it reads "Double-click me" as "Double-lick me", sure of it, at another
    size; "Save" and "Store" are further apart than that)."""
    if not (recorded.readable and today.readable):
        return False
    likeness = SequenceMatcher(None, recorded.key, today.key, autojunk=False).ratio()
    return likeness < P.read_renamed


class TextReader:
    """Reads boxes (a `Reader`) with RapidOCR's recogniser, loaded on the first reading and
    kept; use one from one thread."""

    def __init__(self) -> None:
        self._engine: Any = None

    def __call__(self, box: Image) -> Reading:
        """What `box` (a crop: RGB, or grey) says."""
        if box.size == 0 or min(box.shape[:2]) < P.read_least:
            return UNREAD
        rgb = np.repeat(box[:, :, None], 3, axis=2) if box.ndim == 2 else box
        result = self._loaded()(np.ascontiguousarray(rgb[:, :, ::-1]), use_det=False, use_cls=False)
        texts, scores = tuple(result.txts or ()), tuple(result.scores or ())
        if not texts:
            return UNREAD
        return Reading(" ".join(str(t) for t in texts), float(min(scores)))

    def _loaded(self) -> Any:
        if self._engine is None:
            from rapidocr import RapidOCR

            self._engine = RapidOCR(params={"Global.log_level": "error"})
        return self._engine

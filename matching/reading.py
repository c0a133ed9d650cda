"""What a widget's box says, read by text recognition: a name check for objects whose
toolkit names nothing (the X-window rung, xwindows.py), never an identity by itself.

Recognition only, on a box already known: no detection runs over the screen. The engine is
RapidOCR's recogniser (PP-OCR, ONNX models shipped inside its wheel, run by onnxruntime on
the CPU), loaded on the first reading and kept; about 15 ms a box on 2 cores. A reading is
compared without case or spaces (a theme or a font changes how "Search  backward" reads,
not what it says). Two readings name the same thing when they agree or neither is
readable; they name different things only when both are confident and differ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .params import PARAMS as P
from .search import Image

__all__ = ["UNREAD", "Reader", "Reading", "TextReader", "same_name"]


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
    """True: the same name (the same reading, or neither readable); False: renamed (two
    confident readings that differ); None: one readable and not the other (unsure)."""
    if recorded.readable and today.readable:
        return recorded.key == today.key
    if not recorded.readable and not today.readable:
        return True
    return None


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

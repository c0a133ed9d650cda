"""A replay's screens: the recording's frames (the last few decoded) and today's screens
(grabbed, and stored in the results store once by content)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from deskreel.matching import PARAMS
from deskreel.xsession.grab import Grabber
from deskreel.xsession.images import decode_image, encode_webp, pixel_hash
from deskreel.storage import StorageError, Store

__all__ = ["Frames"]


class Frames:
    """Recorded frames (the last few decoded) and today's screens (grabbed, stored once by
    content: step N's after-screen is usually step N+1's before-screen)."""

    # recorded frames kept decoded (about 6 MB each at 1080p): a step's before-, after- and
    # next frame, and the before-frames of the steps it may have restored (restored.py)
    DECODED = 4 + PARAMS.restored_back

    def __init__(self, store: Store, writer: Store, display: str):
        self.store, self.writer = store, writer
        self.grabber = Grabber(display)
        self._decoded: OrderedDict[str, Any] = OrderedDict()
        self._saved: set[str] = set()  # pixel hashes already in `writer`, the frames' keys

    def grab(self) -> Any:
        return self.grabber.rgb()

    def recorded(self, key: str | None) -> Any:
        """The pixels of a stored frame; StorageError when it is missing or damaged."""
        if key is None:
            return None
        if key in self._decoded:
            self._decoded.move_to_end(key)
            return self._decoded[key]
        data, fmt = self.store.frame(key)
        try:
            image = decode_image(data)
        except ValueError:
            raise StorageError(
                f"{self.store.label}: frame {key[:12]} ({fmt}) is damaged and "
                f"cannot be decoded: run 'deskreel doctor'"
            ) from None
        self._decoded[key] = image
        if len(self._decoded) > self.DECODED:
            self._decoded.popitem(last=False)
        return image

    def save(self, rgb: Any) -> str | None:
        """The key of `rgb` in the results store, encoding it only the first time."""
        if rgb is None:
            return None
        key = pixel_hash(rgb)
        if key not in self._saved:
            key = self.writer.put_frame(
                encode_webp(rgb),
                width=rgb.shape[1],
                height=rgb.shape[0],
                fmt="webp",
                pixel_hash=key,
            )
            self._saved.add(key)
        return key

    def close(self) -> None:
        self.grabber.close()

"""Screen grabs through mss (XShm when the server has it), for recorder, replayer and demo.

One Grabber per thread: mss binds its X connection to the thread that opened it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Grabber"]


class Grabber:
    """Grabs the whole X screen; opened on first use, in the thread that uses it."""

    def __init__(self, display_name: str):
        self.display_name = display_name
        self._mss: Any = None

    def raw(self) -> tuple[bytes, int, int]:
        """BGRA bytes of the screen, with its width and height."""
        data, width, height = self._grab()
        return bytes(data), width, height

    def rgb(self) -> np.ndarray:
        """The screen as an RGB array (height x width x 3)."""
        import numpy as np

        data, width, height = self._grab()  # copied once, by the channel reordering
        return np.frombuffer(data, np.uint8).reshape(height, width, 4)[:, :, 2::-1].copy()

    def _grab(self) -> tuple[Any, int, int]:
        """mss's own buffer of BGRA pixels (valid until the next grab), width and height."""
        if self._mss is None:
            import mss

            self._mss = mss.MSS(display=self.display_name)
        shot = self._mss.grab(self._mss.monitors[0])  # every monitor: the whole X screen
        data = shot.raw if hasattr(shot, "raw") else shot.bgra
        return data, shot.width, shot.height

    def close(self) -> None:
        if self._mss is not None:
            self._mss.close()
            self._mss = None

    def __enter__(self) -> Grabber:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

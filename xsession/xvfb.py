"""A private Xvfb server for tests and headless recording, on a display nobody else uses."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence

from .xserver import XServer, cookie_entry

__all__ = ["VirtualDisplay", "cookie_entry", "set_keyboard_layout"]


class VirtualDisplay(XServer):
    """An Xvfb server with RECORD and XTEST, started on a free display number."""

    program = "Xvfb"
    package = "xvfb"

    def __init__(
        self,
        *,
        width: int = 1280,
        height: int = 800,
        depth: int = 24,
        dpi: int = 96,
        start_timeout: float = 10.0,
        stop_timeout: float = 5.0,
        extensions: Sequence[str] = ("+extension", "RECORD", "+extension", "XTEST"),
        cookies: str | None = None,
    ) -> None:
        """`cookies`: an Xauthority file of the caller's (XServer says what it does)."""
        super().__init__(
            width=width,
            height=height,
            start_timeout=start_timeout,
            stop_timeout=stop_timeout,
            cookies=cookies,
        )
        self.extensions = list(extensions)  # e.g. ("-extension", "RECORD") for error tests
        self.depth = depth
        self.dpi = dpi

    def __repr__(self) -> str:
        state = f":{self._number}" if self._number is not None else "stopped"
        return f"VirtualDisplay({state}, {self.width}x{self.height}, dpi={self.dpi})"

    def _arguments(self) -> list[str]:
        size = f"{self.width}x{self.height}x{self.depth}"
        return ["-screen", "0", size, "-dpi", str(self.dpi), *self.extensions]


def set_keyboard_layout(display: str, layout: str, *, variant: str | None = None) -> None:
    """Switch the keyboard layout of `display` (e.g. "de") with setxkbmap."""
    binary = shutil.which("setxkbmap")
    if binary is None:
        raise RuntimeError("setxkbmap not found: install it (apt-get install x11-xkb-utils)")
    argv = [binary, "-display", display, layout]
    if variant is not None:
        argv += ["-variant", variant]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    if result.returncode != 0:
        reason = result.stderr.strip() or f"exit code {result.returncode}"
        raise RuntimeError(f"setxkbmap {layout} failed on {display}: {reason}")

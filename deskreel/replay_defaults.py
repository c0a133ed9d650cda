"""The replayer's defaults, in a module with no heavy imports: the CLI declares its options
with them, and importing the replayer (numpy, OpenCV, Xlib) costs every command a quarter of
a second."""

from __future__ import annotations

__all__ = ["DEFAULT_ABORT_KEY", "DEFAULT_MARGIN", "DEFAULT_THRESHOLD", "DEFAULT_TIMEOUT",
           "ON_MISSING"]

DEFAULT_ABORT_KEY = "ctrl+alt+Escape"  # the chord that stops a replay
DEFAULT_THRESHOLD = 0.85  # least correlation that counts as the target
DEFAULT_MARGIN = 0.05  # how clearly the best match must beat any look-alike
DEFAULT_TIMEOUT = 10.0  # s to keep looking for a target that is not there yet
ON_MISSING = ("abort", "skip", "ask")  # what to do when a target is not found; the first

"""The replayer's defaults, in a module with no heavy imports: the command line declares its
options with them, and importing the rest of the replayer (numpy, OpenCV, Xlib) would cost
every command a quarter of a second."""

from __future__ import annotations

__all__ = ["DEFAULT_ABORT_KEY", "DEFAULT_TIMEOUT", "ON_MISSING"]

DEFAULT_ABORT_KEY = "ctrl+alt+Escape"  # the chord that stops a replay
DEFAULT_TIMEOUT = 10.0  # s to keep looking for a target that is not there yet
ON_MISSING = ("abort", "skip", "ask")  # what to do when a target is not found; the first
# is the default

"""The re-anchoring engine's defaults, in a module with no heavy imports: the command line
declares its options with them."""

from __future__ import annotations

__all__ = ["DEFAULT_MARGIN", "DEFAULT_THRESHOLD"]

DEFAULT_THRESHOLD = 0.85  # least correlation that counts as the target
DEFAULT_MARGIN = 0.05  # how clearly the best match must beat any look-alike

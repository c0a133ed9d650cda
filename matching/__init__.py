"""Image anchors: choose a distinctive crop around a pointer target, and find it on a screen.

Pure functions over RGB frames (H x W x 3, uint8); nothing here talks to X. Scores are
normalized cross-correlation (cv2.TM_CCOEFF_NORMED) on grayscale, 1.0 = exact; colour
only breaks ties between places that grayscale cannot tell apart.

`choice` picks the crop when recording (choose_anchor), `stages` finds it when replaying
(locate); both search with the pieces in `search`. locate() climbs stages: `ranking` weighs
the places a search found, `scaling` searches other scales, `checks` holds a match that is
not exact to the recorded screen (`recording`), and `parts` (with `fitting`, `stretches` and
`deciding`) judges places part by part; `located` is its answer. `params` holds every
threshold, once. The names below are imported on first use, so that the command line can
read `params` without importing numpy and OpenCV.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for type checkers (aliased: re-exported)
    from .choice import AnchorChoice as AnchorChoice
    from .choice import choose_anchor as choose_anchor
    from .located import Located as Located
    from .locating import hints_after as hints_after
    from .params import PARAMS as PARAMS
    from .params import Params as Params
    from .stages import locate as locate
    from .recording import Recorded as Recorded

_WHERE = {
    "AnchorChoice": "choice",
    "choose_anchor": "choice",
    "PARAMS": "params",
    "Params": "params",
    "Located": "located",
    "Recorded": "recording",
    "hints_after": "locating",
    "locate": "stages",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)

"""deskreel's replayer: recordings back through XTest, on time and safely.

The names below are imported on first use, so that importing a light module of this
package (its errors, its defaults) does not import numpy, OpenCV and Xlib too. The two
functions named as their modules are imported from them: `replayer.replay.replay`,
`replayer.execute.execute` (a package attribute of that name is the module).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for type checkers (aliased: re-exported)
    from .anchoring import AnchorOptions as AnchorOptions
    from .anchoring import Locator as Locator
    from .defaults import DEFAULT_ABORT_KEY as DEFAULT_ABORT_KEY
    from .errors import Interrupted as Interrupted
    from .errors import ReplayError as ReplayError
    from .execute import Gestures as Gestures
    from .progress import Progress as Progress
    from .replay import ReplayOptions as ReplayOptions
    from .replay import ReplayOutcome as ReplayOutcome
    from .replay import select_steps as select_steps
    from .safety import AbortSwitch as AbortSwitch
    from .timing import deadlines as deadlines
    from .xinput import Injector as Injector
    from .xinput import release_held as release_held

_WHERE = {
    "AnchorOptions": "anchoring",
    "Locator": "anchoring",
    "DEFAULT_ABORT_KEY": "defaults",
    "Interrupted": "errors",
    "ReplayError": "errors",
    "Gestures": "execute",
    "Progress": "progress",
    "ReplayOptions": "replay",
    "ReplayOutcome": "replay",
    "select_steps": "replay",
    "AbortSwitch": "safety",
    "deadlines": "timing",
    "Injector": "xinput",
    "release_held": "xinput",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)

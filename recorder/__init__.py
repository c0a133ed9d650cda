"""deskreel's recorder: a person's input and screen, as vocabulary actions.

The names below are imported on first use, so that importing a light module of this
package (its errors, its defaults) does not import numpy, OpenCV and Xlib too.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for type checkers (aliased: re-exported)
    from .errors import RecordError as RecordError
    from .errors import WriteFailed as WriteFailed
    from .reduce import Reduced as Reduced
    from .reduce import reduce_events as reduce_events
    from .session import DEFAULT_PAUSE_KEY as DEFAULT_PAUSE_KEY
    from .session import DEFAULT_STOP_KEY as DEFAULT_STOP_KEY
    from .session import RecordOptions as RecordOptions
    from .session import RecordSummary as RecordSummary
    from .session import Recorder as Recorder

_WHERE = {
    "RecordError": "errors",
    "WriteFailed": "errors",
    "Reduced": "reduce",
    "reduce_events": "reduce",
    "DEFAULT_PAUSE_KEY": "session",
    "DEFAULT_STOP_KEY": "session",
    "RecordOptions": "session",
    "RecordSummary": "session",
    "Recorder": "session",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)

"""deskreel's replayer: recordings back through XTest, on time and safely."""

from .anchoring import AnchorOptions, Locator
from .execute import Gestures, execute
from .progress import Progress
from .replay import ReplayOptions, ReplayOutcome, replay, select_steps
from .safety import DEFAULT_ABORT_KEY, AbortSwitch
from .timing import deadlines
from .xinput import Injector, release_held

__all__ = ["DEFAULT_ABORT_KEY", "AbortSwitch", "AnchorOptions", "Gestures", "Injector",
           "Locator", "Progress", "ReplayOptions", "ReplayOutcome", "deadlines", "execute",
           "release_held", "replay", "select_steps"]

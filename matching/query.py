"""What locate() is asked: one step's target, whole (`Query`), and what the steps found before
it tell about today's screen (`Hints`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from deskreel.storage.widgets import Widget

from .params import PARAMS as P
from .recording import Recorded
from .refusal import Refusal
from .search import Image, Point

__all__ = ["NO_HINTS", "Hints", "Look", "Query"]


@dataclass(frozen=True, slots=True)
class Look:
    """Another look of an anchor (hovered, as it looked just before the press; turned over,
    for a dark theme; its edges, for any theme): its image,
    whether it had no look-alike on the screen it was chosen on, the recorded screen as it
    looked then (for the checks), its name, how today's screen is seen for it (`view`:
    None, as grabbed), whether it is looked for at other scales (`scaled`), and a last
    check of a place it found (`check`: on today's screen as grabbed, a refusal or None)."""

    image: Image
    unique: bool
    context: Recorded | None
    name: str
    view: Callable[[Image], Image] | None = None
    scaled: bool = True
    check: Callable[[Image, Point], Refusal | None] | None = None


@dataclass(frozen=True, slots=True)
class Query:
    """One target to find on today's screen.

    `anchor` is the crop of the recorded screen around it (None: the step kept only its
    object), `offset` the target inside the crop, `recorded` where the target was on the
    recorded screen. `unique`: the crop had no look-alike on the screen it was cut from
    (choose_anchor's `distinctive`). `context`: that screen, for the checks of a match that is
    not exact. `twins`: in how many places the recorder saw the object drawn (None: not
    known). `widget`: the recorded object, as its toolkit told it. `looks`: the anchor's other
    looks, tried in turn when this one is not found. `moving`: the boxes of the recorded
    screen that the recorder saw change while nothing was done (a caret blinking, an
    animation) or that the user masked: what they show there tells nothing of the target."""

    anchor: Image | None
    offset: Point = (0, 0)
    recorded: Point | None = None
    unique: bool = False
    context: Recorded | None = None
    twins: int | None = None
    widget: Widget | None = None
    looks: tuple[Look, ...] = ()
    moving: tuple[tuple[int, int, int, int], ...] = ()
    threshold: float = P.threshold
    margin: float = P.margin

    def in_look(self, look: Look) -> Query:
        """The query for `look` of the anchor in place of this one."""
        return replace(self, anchor=look.image, unique=look.unique, context=look.context, looks=())


@dataclass(frozen=True, slots=True)
class Hints:
    """What earlier targets on the same screen tell: the scale they were found at (one screen
    has one scale) and how far the last one found at 1x had moved (a moved window moves every
    target alike). And what the desktop tells: `told`, today's scale against the recording's
    by their settings (Xft.dpi), searched first until a target is found at a scale other
    than 1x; never held to, since a toolkit may not follow its desktop's settings."""

    scale: float = 1.0
    shift: Point = (0, 0)
    told: float | None = None


NO_HINTS = Hints()

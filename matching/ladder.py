"""The ladder: the rungs that locate() climbs to find a step's target on today's screen, in
order, as data (`LADDER`). docs/anchoring.md draws it; a test holds the two together.

Each rung takes the climb so far (the query, the hints, today's screen, what the earlier
rungs found) and answers found or refused (a `Located`), or None: next. The first answer
stands, unless a check after it (twins) refuses the place found. The object rungs are
climbed once; the pixel rungs once per look of the anchor (at rest, hovered, turned over,
then its edges: looks.py), and the first look found answers; when none is, the first
look's answer does. Where the anchor as recorded refused the recorded pixels themselves
(a score of `PARAMS.sure`: look-alikes, twins), the climb ends: no other look may take
them.

Every rung notes what it tried in the trail, a value (trail.py); text is made of it only
where a person reads it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from deskreel.storage.widgets import ATSPI, XWINDOW, Widget

from .doubts import DOUBTS
from .located import OBJECT, XWINDOW_RUNG, Located, answered
from .locating import Search, coarse, fit_anchor, shifted, unsettled, window
from .objects import ObjectAnswer, object_located
from .other_scales import IN_EACH_RANGE, LOOK_BACK, scales
from .params import PARAMS as P
from .query import NO_HINTS, Hints, Look, Query
from .reading import Reader
from .search import Image
from .blank import blank_both, blank_face
from .xwindows import by_window
from .trail import FOUND, NEXT, REFUSED, Trail
from .twins import doubt_twins

__all__ = ["LADDER", "Ask", "Climb", "Rung", "Shown", "hints_after", "locate", "rung_names"]

Ask = Callable[[Widget], ObjectAnswer]  # asks today's toolkit for the recorded object
# what today's screen shows at the recorded object's point, where it stands where the
# recorded one stood (asked of an object whose content decides, blank when recorded)
Shown = Callable[[Widget], Widget | None]
# today's X windows at the recorded window's path, one per top-level of its application
Windows = Callable[[Widget], Sequence[Widget]]


@dataclass
class Climb:
    """One climb of the ladder for one look of the anchor: what every rung is given."""

    screen: Image
    query: Query
    hints: Hints
    trail: Trail
    ask: Ask | None = None
    windows: Windows | None = None
    read: Reader | None = None
    shown: Shown | None = None
    found: Located | None = None  # for a check: the place found
    _search: Search | None = None

    @property
    def search(self) -> Search:
        """The pixel rungs' working state, made on the first pixel rung."""
        if self._search is None:
            self._search = Search.of(self.screen, self.query, self.hints, self.trail)
        return self._search


RungKind = Literal["find", "check"]
FIND: RungKind = "find"  # a rung that may answer
CHECK: RungKind = "check"  # a rung that checks the place a rung before it found


@dataclass(frozen=True, slots=True)
class Rung:
    """A rung: its name, whether it finds or checks, whether it looks at the anchor's pixels
    (climbed once per look) or not (once), the steps inside it, by name, and whether it
    looks at other scales (not climbed for a look that is not `Look.scaled`)."""

    name: str
    run: Callable[[Climb], Located | None]
    kind: RungKind = FIND
    pixels: bool = True
    inner: tuple[str, ...] = ()
    scaled: bool = False  # whether it looks at other scales than the recorded one


def _object(climb: Climb) -> Located | None:
    """What the recorded object's toolkit says of it today (objects.py): found at the
    recorded press moved into today's box, refused by its rule, or next."""
    widget = climb.query.widget
    if widget is None or widget.source != ATSPI or climb.ask is None:
        return None
    answer = climb.ask(widget)
    if answer.why == "content":
        answer = _blank_content(climb, widget) or answer
    about = f"{widget.label} of {widget.app!r}" + (f" ({answer.detail})" if answer.detail else "")
    return _answered(climb, OBJECT, answer, widget, about)


def _blank_content(climb: Climb, widget: Widget) -> ObjectAnswer | None:
    """An object whose content decides (a text area, a canvas) that showed nothing but its
    face when recorded and shows nothing but it today where it stands (blank.py): found,
    and pressed at its recorded distance from the box's corner (objects.py's offset_in);
    None (its content decides) otherwise."""
    context = climb.query.context.screen if climb.query.context is not None else None
    if context is None or climb.shown is None:
        return None
    moving = climb.query.moving
    if blank_face(context.rgb, widget.box, moving) is None:
        return None  # (not blank then: asked no further)
    today = climb.shown(widget)
    if today is None or not blank_both(today, widget, climb.screen, context.rgb, moving):
        return None
    return ObjectAnswer(today, None, "blank")


def _xwindow(climb: Climb) -> Located | None:
    """The recorded X window at its path today (xwindows.py): found at the recorded press in
    today's box where it shows what it showed, or next."""
    widget = climb.query.widget
    if widget is None or widget.source != XWINDOW or climb.windows is None:
        return None
    recorded = climb.query.context.screen if climb.query.context is not None else None
    context = recorded.rgb if recorded is not None else None
    answer = by_window(
        widget, climb.windows(widget), climb.screen, context, climb.read, climb.query.moving
    )
    return _answered(climb, XWINDOW_RUNG, answer, widget, widget.label)


def _answered(
    climb: Climb, rung: str, answer: ObjectAnswer, widget: Widget, about: str
) -> Located | None:
    """An object rung's answer, noted in the trail: found or refused (a Located), or next."""
    if not answer.decided:
        climb.trail.add(rung, NEXT, about=about, why=answer.why)
        return None
    outcome = FOUND if answer.widget is not None else REFUSED
    climb.trail.add(rung, outcome, answer.refusal, about=about, why=answer.why)
    return object_located(answer, widget)


def _twins(climb: Climb) -> Located | None:
    """The place found is not a twin of the recorded object that only its place told apart
    (twins.py); spared where the recorder saw the object drawn in one place at most."""
    found, q = climb.found, climb.query
    if found is None or found.point is None or q.anchor is None:
        return None
    if q.twins is not None and q.twins <= 1:
        return None
    check = doubt_twins(
        climb.screen, q.anchor, q.offset, found.point, found.scale,
        threshold=q.threshold, margin=q.margin,
    )  # fmt: skip
    if check.places > 1 or check.refusal is not None:
        climb.trail.check("twins", check.refusal)
    if check.refusal is None:
        return None
    return replace(found, found=False, point=None, refusal=check.refusal)


LADDER: tuple[Rung, ...] = (
    Rung(OBJECT, _object, pixels=False),
    Rung(XWINDOW_RUNG, _xwindow, pixels=False),
    Rung("anchor", lambda c: fit_anchor(c.search)),
    Rung("shifted", lambda c: shifted(c.search)),
    Rung("window", lambda c: window(c.search)),
    Rung("coarse", lambda c: coarse(c.search), inner=tuple(n for n, _ in DOUBTS)),
    Rung(
        "scales",
        lambda c: scales(c.search),
        inner=tuple(n for n, _ in IN_EACH_RANGE) + tuple(n for n, _ in LOOK_BACK),
        scaled=True,
    ),
    Rung("twins", _twins, kind=CHECK),
)


def rung_names() -> list[str]:
    """The ladder's rungs by name, each followed by its steps: "coarse (context, inner, back)"."""
    return [f"{r.name} ({', '.join(r.inner)})" if r.inner else r.name for r in LADDER]


def locate(
    screen: Image,
    query: Query,
    hints: Hints = NO_HINTS,
    *,
    ask: Ask | None = None,
    windows: Windows | None = None,
    read: Reader | None = None,
    shown: Shown | None = None,
) -> Located:
    """Find `query`'s target on `screen` (RGB, H x W x 3) by climbing LADDER; `ask` asks
    today's toolkit for the recorded object, `windows` today's X server for the recorded
    window (None: that rung is skipped), `read` what a window's box says (None: the window
    rung compares pixels only), `shown` what the screen shows at a recorded object's point
    (None: an object whose content decides is left to the pixels, blank or not). Where no
    rung could answer (no anchor, and the object left it to the pixels), the answer is not
    `decided`."""
    started = time.perf_counter()
    trail = Trail()
    once = _climb(Climb(screen, query, hints, trail, ask, windows, read, shown), pixels=False)
    if once is not None:
        return answered(once[0], once[1], trail, started, query.recorded)
    if query.anchor is None:
        return answered(_UNDECIDED, "", trail, started, query.recorded)
    first: tuple[Located, str] | None = None
    for look, kept in [(query, None), *((query.in_look(k), k) for k in query.looks)]:
        tried = Trail()
        answer = _climb_look(Climb(screen, look, hints, tried, ask), kept)
        trail.extend(tried)
        if kept is not None:
            trail.add(kept.name, FOUND if answer[0].found else REFUSED)
        if answer[0].found:
            return answered(answer[0], answer[1], trail, started, query.recorded)
        if kept is None and answer[0].score >= P.sure:  # the recorded pixels, refused:
            return answered(answer[0], answer[1], trail, started, query.recorded)  # any look
        first = first or answer
    assert first is not None
    return answered(first[0], first[1], trail, started, query.recorded)


def _climb_look(climb: Climb, look: Look | None) -> tuple[Located, str]:
    """The pixel rungs' answer for one look of the anchor (None: the anchor as recorded):
    on today's screen as the look sees it, at other scales where it is looked for there,
    and a place found checked by the look's own check."""
    grabbed = climb.screen
    if look is not None and look.view is not None:
        climb.screen = look.view(grabbed)
    scaled = look is None or look.scaled
    answer = _climb(climb, pixels=True, scaled=scaled)
    if answer is None:  # only the rungs at other scales answer whatever they find
        assert not scaled, "the pixel rungs always answer"
        return unsettled(climb.search), "coarse"
    found = answer[0]
    if look is None or look.check is None or not found.found or found.top_left is None:
        return answer
    refusal = climb.trail.check(look.name + "-check", look.check(grabbed, found.top_left))
    if refusal is None:
        return answer
    return replace(found, found=False, point=None, refusal=refusal), answer[1]


def _climb(climb: Climb, *, pixels: bool, scaled: bool = True) -> tuple[Located, str] | None:
    """The first answer of the rungs that look (or do not look) at pixels, with the name of
    the rung that gave it, checked by the checks after it; None when every rung went on.
    Not `scaled`: the rungs at other scales are not climbed."""
    answer: tuple[Located, str] | None = None
    for rung in (r for r in LADDER if r.pixels == pixels and (scaled or not r.scaled)):
        if rung.kind == CHECK:
            if answer is None or not answer[0].found:
                continue
            climb.found = answer[0]
            checked = rung.run(climb)
            if checked is not None:
                answer = (checked, rung.name)
        elif answer is None:
            found = rung.run(climb)
            if found is not None:
                answer = (found, rung.name)
    return answer


_UNDECIDED = Located(False, None, 0.0, 0.0, 1.0, None, None, 0.0)


def hints_after(found: Located, hints: Hints) -> Hints:
    """The hints for the next locate() on the same screen once `found` answered: one screen
    has one scale, and a moved window moves every target alike (a shift is only told at
    1x); what the desktop told stays. A target the toolkit found, or none found, leaves them
    as they were."""
    if not found.found or found.by_object or found.moved is None:
        return hints
    return Hints(found.scale, found.moved if found.scale == 1.0 else (0, 0), hints.told)

"""Image anchors: choose a distinctive crop around a pointer target, and find it on a screen.

Pure functions over RGB frames (H x W x 3, uint8); nothing here talks to X. Scores are
normalized cross-correlation (cv2.TM_CCOEFF_NORMED) on grayscale, 1.0 = exact; colour
only breaks ties between places that grayscale cannot tell apart.

`choice` picks the crop when recording (choose_anchor); `ladder` finds a target when
replaying (locate): it climbs LADDER, the rungs in order, from the recorded object
(`objects`) to the pixels near its place and anywhere at 1x (`locating`), at other scales
(`other_scales`) and the twins check (`twins`). A `Query` (`query`) goes in; a `Located`
(`located`) comes out, with the `trail` of the rungs tried and, where one refused, a
`Refusal` (`refusal`). Under them, `ranking` weighs the places a search found, `scaling`
searches other scales, `doubts` and `checks` hold a match that is not exact to the recorded
screen (`recording`), and `parts` (with `fitting`, `stretches` and `deciding`) judges places
part by part. `params` holds every threshold, once. `compare` is --verify's comparison of
today's screen with the recording, in the same shape: a tuple of named checks.

Other packages import the names below only (an import-linter contract holds them to it).
They are imported on first use, so that the command line can read `params` without
importing numpy and OpenCV.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names are, for type checkers (aliased: re-exported)
    from .choice import AnchorChoice as AnchorChoice
    from .choice import choose_anchor as choose_anchor
    from .compare import CHECKS as CHECKS
    from .compare import DIFFERENCES as DIFFERENCES
    from .compare import Aimed as Aimed
    from .compare import Check as Check
    from .compare import Difference as Difference
    from .compare import Restorable as Restorable
    from .compare import Said as Said
    from .compare import StepWindows as StepWindows
    from .compare import VerifyOptions as VerifyOptions
    from .compare import carets_only as carets_only
    from .compare import checks_for as checks_for
    from .compare import named_by_text as named_by_text
    from .compare import by_told as by_told
    from .compare import diff_image as diff_image
    from .compare import said_of as said_of
    from .ladder import LADDER as LADDER
    from .ladder import Ask as Ask
    from .ladder import Rung as Rung
    from .ladder import Windows as Windows
    from .ladder import hints_after as hints_after
    from .ladder import locate as locate
    from .ladder import rung_names as rung_names
    from .located import Located as Located
    from .located import refused as refused
    from .looks import with_looks as with_looks
    from .objects import ObjectAnswer as ObjectAnswer
    from .objects import acts_on_whole as acts_on_whole
    from .objects import at_recorded_place as at_recorded_place
    from .objects import by_object as by_object
    from .objects import place_of as place_of
    from .objects import placed_alone as placed_alone
    from .objects import point_in as point_in
    from .objects import same_place as same_place
    from .params import PARAMS as PARAMS
    from .params import Params as Params
    from .query import Hints as Hints
    from .query import Look as Look
    from .query import NO_HINTS as NO_HINTS
    from .query import Query as Query
    from .reading import Reader as Reader
    from .reading import Reading as Reading
    from .reading import TextReader as TextReader
    from .recording import Recorded as Recorded
    from .refusal import AT_MOST as AT_MOST
    from .refusal import RULES as RULES
    from .refusal import Refusal as Refusal
    from .search import Box as Box
    from .search import Image as Image
    from .search import Point as Point
    from .search import Scores as Scores
    from .search import grayscale as grayscale
    from .trail import FOUND as FOUND
    from .trail import NEXT as NEXT
    from .trail import PASSED as PASSED
    from .trail import REFUSED as REFUSED
    from .trail import Tried as Tried
    from .trail import Trail as Trail
    from .trail import WHY as WHY
    from .twins import object_box as object_box

_WHERE = {
    "AnchorChoice": "choice",
    "choose_anchor": "choice",
    "CHECKS": "compare",
    "DIFFERENCES": "compare",
    "Aimed": "compare",
    "Check": "compare",
    "Difference": "compare",
    "VerifyOptions": "compare",
    "Restorable": "compare",
    "Said": "compare",
    "StepWindows": "compare",
    "carets_only": "compare",
    "checks_for": "compare",
    "named_by_text": "compare",
    "by_told": "compare",
    "diff_image": "compare",
    "said_of": "compare",
    "LADDER": "ladder",
    "Ask": "ladder",
    "Rung": "ladder",
    "Windows": "ladder",
    "hints_after": "ladder",
    "locate": "ladder",
    "rung_names": "ladder",
    "Located": "located",
    "refused": "located",
    "with_looks": "looks",
    "ObjectAnswer": "objects",
    "acts_on_whole": "objects",
    "at_recorded_place": "objects",
    "by_object": "objects",
    "place_of": "objects",
    "placed_alone": "objects",
    "point_in": "objects",
    "same_place": "objects",
    "PARAMS": "params",
    "Params": "params",
    "Hints": "query",
    "Look": "query",
    "NO_HINTS": "query",
    "Query": "query",
    "Reader": "reading",
    "Reading": "reading",
    "TextReader": "reading",
    "Recorded": "recording",
    "AT_MOST": "refusal",
    "RULES": "refusal",
    "Refusal": "refusal",
    "Box": "search",
    "Image": "search",
    "Point": "search",
    "Scores": "search",
    "grayscale": "search",
    "FOUND": "trail",
    "NEXT": "trail",
    "PASSED": "trail",
    "REFUSED": "trail",
    "Tried": "trail",
    "Trail": "trail",
    "WHY": "trail",
    "object_box": "twins",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)

"""--verify's comparison, pure (numpy and OpenCV, no X): does today's screen, once a step
settled, show what the recording showed? `effects` holds the checks of a step as rows of
`CHECKS`; `content` finds a recorded region on today's screen and counts the pixels that
differ there, `scaled` does it part by part at another scale, `recolour` under another
theme, `text` names what a failed effect reads; `checks` holds the verdicts (Check, with its
Difference) and the options.

Other packages import these names from deskreel.matching."""

from __future__ import annotations

from .checks import DIFFERENCES, Aimed, Check, Difference, VerifyOptions, carets_only
from .effects import CHECKS, checks_for, diff_image
from .meaning import Said, said_of
from .restored import Restorable
from .text import named_by_text
from .told import by_told, told_checks
from .windows import StepWindows

__all__ = [
    "CHECKS",
    "DIFFERENCES",
    "Aimed",
    "Check",
    "Difference",
    "Restorable",
    "Said",
    "VerifyOptions",
    "by_told",
    "StepWindows",
    "carets_only",
    "checks_for",
    "diff_image",
    "named_by_text",
    "said_of",
    "told_checks",
]

"""A step whose after-frame was taken before the screen settled: the recorder takes a
step's after-frame once the screen stays still, but never after the next step began. A
person who typed on within a frame or two left an after-frame that shows the step's effect
half drawn ("fo" of "fox"), which today's settled screen ("fox") cannot match. The
recording says so (Step.after_settled False). Each region where that after-frame differs
from the first later after-frame that settled is judged pixel by pixel (matching's
`later_looks`): today's screen must show each pixel as one of the two looks shows it (the
rest of the step's effect is in the later look, the later steps' own changes are not on
today's screen yet), a text caret aside. Such a region is compared no more; any other
stays compared with the step's after-frame, and fails as it did."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from deskreel.matching import VerifyOptions, still_changing
from deskreel.storage import Evidence, Step

__all__ = ["Unsettled", "unsettled"]

Box = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Unsettled:
    """A cut-short step's regions (`boxes`, recorded places) that still changed up to the
    after-frame of step `to` (`later`, its key), the first later one that settled."""

    to: int
    later: str
    boxes: tuple[Box, ...]

    def evidence(self, taken: Sequence[Box]) -> dict[Evidence, Any]:
        """The report's record of it: `taken`, the boxes that showed one of the two looks
        (matching's later_looks), compared no more."""
        return {
            Evidence.UNSETTLED: {
                "to": self.to,
                "boxes": [list(b) for b in self.boxes],
                "later": [list(b) for b in taken],
            }
        }

    def note(self, taken: Sequence[Box]) -> str:
        return (
            f"its after-frame was taken before the screen settled: {len(taken)} of "
            f"{len(self.boxes)} regions still changing then show its look or step "
            f"{self.to}'s, pixel by pixel"
        )


def unsettled(
    step: Step, later: Sequence[Step], recorded: Callable[[str], Any], options: VerifyOptions
) -> Unsettled | None:
    """`step`'s regions still changing when its after-frame was taken, up to the first of
    the `later` steps whose after-frame settled (`recorded` loads a frame). None for a step
    whose frame settled or is not known to be cut short, or with no later settled frame (the
    recording's last step: judged as it is)."""
    if step.after_settled is not False or step.after_frame is None:
        return None
    settled = next((s for s in later if s.after_frame and s.after_settled is not False), None)
    if settled is None or settled.after_frame is None:
        return None
    boxes = still_changing(recorded(step.after_frame), recorded(settled.after_frame), options)
    return Unsettled(settled.step, settled.after_frame, tuple(boxes)) if boxes else None

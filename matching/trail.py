"""The trail of a locate(): one value per rung or check tried for a target, in order; text is
made of it only where a person reads it (the CLI, the report, the JSON output)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .refusal import Refusal

__all__ = ["FOUND", "NEXT", "PASSED", "REFUSED", "WHY", "Outcome", "Trail", "Tried"]

Outcome = Literal["found", "refused", "next", "passed"]
FOUND: Outcome = "found"  # the rung found the target: an answer
REFUSED: Outcome = "refused"  # the rung refused it: an answer
NEXT: Outcome = "next"  # the rung left it to the rungs after it (with its refusal, where it
# doubted, or why it could not decide)
PASSED: Outcome = "passed"  # a check that a place passed

# Why the object rung (objects.py) answered as it did, each written once; a refusal's words
# are its rule's (refusal.py). The entry's `about` names the object.
WHY: dict[str, str] = {
    "content": "a point in its content, which its box does not tell: the pixels decide",
    "no-tree": "its application's accessibility tree was not read whole: the pixels decide",
    "no-bus": "no accessibility bus on this display: the pixels decide",
    "tree-failed": "the accessibility tree failed: the pixels decide",
    "gone": "gone or renamed",
    "no-unnamed": "no unnamed object of its role today: the pixels decide",
    "twins": "twins in the same surroundings: the pixels decide",
    "moved": "its place among its siblings changed: the pixels decide",
    "same-place": "same role, name and place among its siblings",
    "only-one": "the only one of its role and name, then and now",
    "at-place": "at its recorded place, and it had no twin",
    "insensitive": "it takes no input today",
    "covered": "covered or hidden where it would be pressed",
    "blank": "where its content decides, but it showed nothing but its face then and now",
    # the X-window rung (xwindows.py)
    "xwindow-path": "no window of its application at its path today: the pixels decide",
    "xwindow-layout": "its siblings lie otherwise today: the pixels decide",
    "xwindow-many": "several windows of its application agree: the pixels decide",
    "xwindow-twins": "its look is drawn elsewhere too, and a path tells twins apart only by "
    "the order they were made: the pixels decide",
    "xwindow-resized": "its window changed size: the pixels decide",
    "xwindow-shows": "its window shows something else today: the pixels decide",
    "xwindow-same": "the window at its path, showing what it showed (in its colours or others)",
    "xwindow-name": "the window at its path, its box reading the name it read",
    "xwindow-blank": "the window at its path, blank then and now: no place in it to tell",
    "xwindow-renamed": "the window at its path reads another name today",
    "xwindow-told": "the window at its path, reading the name it read, which none of the windows "
    "that look like it read, then or now",
}


@dataclass(frozen=True, slots=True)
class Tried:
    """One rung or check: its name, what it came to, the refusal where it refused (or doubted
    before leaving it to the next rungs), the best score it saw, and what it was about."""

    name: str
    outcome: Outcome
    refusal: Refusal | None = None
    score: float | None = None
    about: str = ""  # what the entry concerns, in a person's words (an object's label)
    why: str = ""  # a key of WHY: why the object rung answered so

    def __post_init__(self) -> None:
        assert not self.why or self.why in WHY, f"no such reason: {self.why!r}"

    def text(self) -> str:
        """The entry as a person reads it."""
        said = "; ".join(
            s for s in (WHY.get(self.why, ""), self.refusal and self.refusal.text()) if s
        )
        about = f"{self.about}: " if self.about and said else self.about
        return f"{self.name} {self.outcome}" + (f": {about}{said}" if about or said else "")

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"rung": self.name, "outcome": self.outcome}
        if self.score is not None:
            out["score"] = self.score
        if self.refusal is not None:
            r = self.refusal
            out |= {"rule": r.rule, "measured": r.measured, "needed": r.needed}
            if r.where is not None:
                out["where"] = list(r.where)
        if self.about:
            out["about"] = self.about
        if self.why:
            out["why"] = self.why
        return out


class Trail:
    """The rungs and checks tried so far, in order."""

    def __init__(self, entries: tuple[Tried, ...] = ()) -> None:
        self._entries = list(entries)

    def add(
        self,
        name: str,
        outcome: Outcome = PASSED,
        refusal: Refusal | None = None,
        *,
        score: float | None = None,
        about: str = "",
        why: str = "",
    ) -> None:
        self._entries.append(Tried(name, outcome, refusal, score, about, why))

    def open(self, name: str) -> int:
        """Enter rung `name` (as going on to the next, until closed): its place in the trail,
        so that the checks it runs come after it."""
        self._entries.append(Tried(name, NEXT))
        return len(self._entries) - 1

    def close(
        self,
        at: int,
        outcome: Outcome,
        refusal: Refusal | None = None,
        *,
        score: float | None = None,
    ) -> None:
        """What the rung entered at `at` came to."""
        self._entries[at] = Tried(self._entries[at].name, outcome, refusal, score)

    def check(self, name: str, refusal: Refusal | None) -> Refusal | None:
        """Check `name` passed (`refusal` None) or refused the place: noted, and `refusal`."""
        self.add(name, PASSED if refusal is None else REFUSED, refusal)
        return refusal

    def extend(self, other: Trail) -> None:
        self._entries += other.entries

    @property
    def entries(self) -> tuple[Tried, ...]:
        return tuple(self._entries)

    def copy(self) -> Trail:
        return Trail(self.entries)

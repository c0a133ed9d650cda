"""The trail of a locate(): one value per rung or check tried for a target, in order; text is
made of it only where a person reads it (the CLI, the report, the JSON output)."""

from __future__ import annotations

from dataclasses import dataclass

from .refusal import Refusal

__all__ = ["FOUND", "NEXT", "PASSED", "REFUSED", "Trail", "Tried"]

FOUND = "found"  # the rung found the target: an answer
REFUSED = "refused"  # the rung refused it: an answer
NEXT = "next"  # the rung left it to the rungs after it (with its refusal, where it doubted)
PASSED = "passed"  # a check that a place passed


@dataclass(frozen=True, slots=True)
class Tried:
    """One rung or check: its name, what it came to, the refusal where it refused (or doubted
    before leaving it to the next rungs), the best score it saw, and what it was about."""

    name: str
    outcome: str
    refusal: Refusal | None = None
    score: float | None = None
    about: str = ""  # what the refusal concerns, in a person's words (an object's label)

    def text(self) -> str:
        """The entry as a person reads it."""
        said = self.refusal.text() if self.refusal is not None else ""
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
        return out


class Trail:
    """The rungs and checks tried so far, in order."""

    def __init__(self, entries: tuple[Tried, ...] = ()) -> None:
        self._entries = list(entries)

    def add(
        self,
        name: str,
        outcome: str = PASSED,
        refusal: Refusal | None = None,
        *,
        score: float | None = None,
        about: str = "",
    ) -> None:
        self._entries.append(Tried(name, outcome, refusal, score, about))

    def open(self, name: str) -> int:
        """Enter rung `name` (as going on to the next, until closed): its place in the trail,
        so that the checks it runs come after it."""
        self._entries.append(Tried(name, NEXT))
        return len(self._entries) - 1

    def close(
        self, at: int, outcome: str, refusal: Refusal | None = None, *, score: float | None = None
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

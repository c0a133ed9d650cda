"""What a suite run found: each test's attempts, and the verdict that follows."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Attempt", "Outcome"]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One try of a test: its verdict, and where its evidence is (relative to the report)."""

    number: int
    verdict: str  # passed, failed, error
    seconds: float
    folder: str  # tests/<name>/attempt-<n>
    display: str
    started: float  # wall-clock seconds (time.time())
    ended: float
    step: int | None = None  # the first step that failed
    check: str = ""  # what failed there, or why the attempt could not run
    phases: dict[str, float] = field(default_factory=dict)  # seconds of each stage


@dataclass(frozen=True, slots=True)
class Outcome:
    """A test and its attempts; the verdict follows from them."""

    name: str
    attempts: tuple[Attempt, ...]

    @property
    def verdict(self) -> str:
        """passed (first try), flaky (passed on a retry) or failed."""
        if self.attempts[-1].verdict != "passed":
            return "failed"
        return "passed" if len(self.attempts) == 1 else "flaky"

    @property
    def seconds(self) -> float:
        return sum(a.seconds for a in self.attempts)

"""What a replay is asked to do: its speed, range, re-anchoring, verification and safety."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .anchoring import AnchorOptions
from .defaults import DEFAULT_ABORT_KEY
from .execute import Gestures
from deskreel.matching import VerifyOptions

__all__ = ["DEFAULT_OPTIONS", "ReplayOptions"]


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    speed: float = 1.0
    first: int | None = None  # --from STEP
    last: int | None = None  # --to STEP
    max_idle: float | None = None  # cap on any gap between steps (s)
    dry_run: bool = False
    anchor: bool = True
    anchoring: AnchorOptions = field(default_factory=AnchorOptions)
    on_missing: str = "abort"  # abort, skip or ask when a target is not found
    report_dir: Path | None = None  # --report: crops of targets not found go in its crops/
    verify: VerifyOptions | None = None  # --verify: check each step's effect on the screen
    abort_key: str | None = DEFAULT_ABORT_KEY
    corners: bool = True
    gestures: Gestures = field(default_factory=Gestures)


DEFAULT_OPTIONS = ReplayOptions()
